//go:build !windows

package e2e

import (
	"context"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/clawdhq/clawd/runtime/client"
)

// TestFrozenRuntimeFallsBack: a runtime that stops (SIGSTOP: a frozen
// process, a suspended laptop's runtime) while a Claude and a Codex hook
// wait for a permission decision does not hold them for their whole wait
// (about an hour for Claude, ten minutes for Codex): both lose its
// heartbeat and answer "no decision" within 5 s, so the agents' own
// prompts take over. Hooks that start while it is stopped get no
// acknowledgement and answer at once as well.
func TestFrozenRuntimeFallsBack(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	w := newWorld(t)
	srv := w.startServe()
	thaw := func() { srv.cmd.Process.Signal(syscall.SIGCONT) }
	defer func() {
		thaw()
		srv.shutdown()
	}()
	claude := readTestdata(t, "claude", "hooks", "PermissionRequest.json")
	codex := readTestdata(t, "codex", "hooks", "PermissionRequest.json")

	type hookRun struct {
		agent string
		res   result
		ended time.Time
	}
	startHooks := func() <-chan hookRun {
		out := make(chan hookRun, 2)
		for _, h := range []struct {
			agent string
			in    []byte
		}{{"claude", claude}, {"codex", codex}} {
			go func() {
				cmd := exec.CommandContext(ctx, clawdBin, "hook", h.agent, "PermissionRequest")
				cmd.Env = append(w.clawdEnv(), "CLAUDE_CODE_SESSION_ATTENDED=1")
				cmd.Stdin = strings.NewReader(string(h.in))
				r := run(t, cmd)
				out <- hookRun{h.agent, r, time.Now()}
			}()
		}
		return out
	}
	check := func(when string, runs <-chan hookRun, from time.Time, within time.Duration) {
		t.Helper()
		for range 2 {
			select {
			case r := <-runs:
				took := r.ended.Sub(from)
				t.Logf("%s: clawd hook %s answered %v after", when, r.agent, took.Round(time.Millisecond))
				if r.res.code != 0 || r.res.stdout != "{}\n" {
					t.Errorf("%s: clawd hook %s PermissionRequest: %s\nwant exit 0 and {}", when, r.agent, r.res)
				}
				if took > within {
					t.Errorf("%s: clawd hook %s answered after %v, want within %v", when, r.agent, took, within)
				}
			case <-time.After(60 * time.Second):
				t.Fatalf("%s: a hook still waits after 60 s", when)
			}
		}
	}

	// Two hooks waiting, then the runtime stops.
	runs := startHooks()
	w.waitPermissions(ctx, 30*time.Second, "both requests", func(l []client.PermissionView) bool { return len(l) == 2 })
	if err := srv.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	stopped := time.Now()
	check("stopped while waiting", runs, stopped, 5*time.Second)

	// Hooks that start while it is stopped.
	started := time.Now()
	check("started while stopped", startHooks(), started, 5*time.Second)

	// Back on, it withdraws what the hooks gave up on and serves again.
	thaw()
	w.waitPermissions(ctx, 30*time.Second, "the requests withdrawn", func(l []client.PermissionView) bool { return len(l) == 0 })
}
