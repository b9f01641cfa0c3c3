package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/clawdhq/clawd/internal/intrudertest"
)

// TestServeSingleInstance: eight `clawd serve` of one clawd home started
// at once leave exactly one running (one tray icon, one runtime.json); each
// of the others says which pid runs and exits 1.
func TestServeSingleInstance(t *testing.T) {
	w := newWorld(t)
	const n = 8
	procs := make([]*proc, n)
	var start sync.WaitGroup
	start.Add(1)
	var started sync.WaitGroup
	for i := range n {
		started.Add(1)
		go func() {
			defer started.Done()
			cmd := exec.Command(clawdBin, "serve", "--headless", "--port", "0")
			cmd.Env = w.clawdEnv()
			cmd.Dir = w.dir
			start.Wait()
			procs[i] = startProc(t, fmt.Sprintf("clawd serve #%d", i), cmd, nil)
		}()
	}
	start.Done()
	started.Wait()

	// The losers exit at once; wait for n-1 exits, then give the last
	// one a moment to show it stays.
	deadline := time.After(30 * time.Second)
	var running []*proc
	for {
		running = running[:0]
		for _, p := range procs {
			if !p.exited() {
				running = append(running, p)
			}
		}
		if len(running) <= 1 {
			break
		}
		select {
		case <-deadline:
			t.Fatalf("%d of %d serves still run after 30 s", len(running), n)
		case <-time.After(20 * time.Millisecond):
		}
	}
	if len(running) != 1 {
		t.Fatalf("%d serves run, want exactly 1", len(running))
	}
	survivor := running[0]
	pid := survivor.cmd.Process.Pid
	for _, p := range procs {
		if p == survivor {
			continue
		}
		var ee *exec.ExitError
		if !errors.As(p.err, &ee) || ee.ExitCode() != 1 {
			t.Errorf("%s: %v, want exit 1", p.name, p.err)
		}
		if want := fmt.Sprintf("already running (pid %d)", pid); !strings.Contains(p.stderr.String(), want) {
			t.Errorf("%s said %q, want it to say %q", p.name, p.stderr.String(), want)
		}
	}
	s := &server{proc: survivor, w: w}
	// The losers exit as soon as they see the lock, which can be before
	// the survivor has written runtime.json on a loaded machine.
	for end := time.Now().Add(15 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		data, err := os.ReadFile(w.runtimeFile())
		if err == nil && json.Unmarshal(data, &s.info) == nil && s.info.PID == pid {
			break
		}
		if time.Now().After(end) {
			t.Fatalf("the survivor (pid %d) wrote no runtime.json naming it within 15 s (last read: %v)", pid, err)
		}
	}
	if r := w.clawd(t.Context(), "", "status", "--json"); r.code != 0 {
		t.Errorf("clawd status with the survivor running: %s", r)
	}
	s.shutdown()
}

// TestServeWithPortsSquatted: another user (nobody) holds every free port
// of clawd's range and answers like clawd. clawd serve still runs, on its
// socket alone: hooks deliver, `clawd status` says the dashboard is
// unavailable and why, `clawd doctor` names the squatter's user rather
// than taking its clawd header on trust. Once the ports are free, serve
// takes one and the dashboard is back.
func TestServeWithPortsSquatted(t *testing.T) {
	if why := intrudertest.Available(); why != "" {
		t.Skip(why)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	w := newWorld(t)
	squat := intrudertest.Serve(t, "squat-"+newUUID(t)[:8])
	t.Logf("nobody holds %v", squat.Ports)
	s := w.startServeWith(clawdBin, "serve", "--headless")
	defer s.shutdown()
	if s.info.Port != 0 {
		// Another test's runtime may have let a port of the range go
		// between the intruder's start and ours.
		t.Logf("a port of the range was free after all: %d", s.info.Port)
	}
	w.hookJSON(ctx, `{"session_id":"s-squat","hook_event_name":"UserPromptSubmit","cwd":"`+w.project+`","prompt":"go"}`)
	if s.info.Port == 0 {
		st := w.mustClawd(ctx, "status")
		if !strings.Contains(st.stdout, "the dashboard is unavailable") || !strings.Contains(st.stdout, "s-squat") && !strings.Contains(st.stdout, "go") {
			t.Errorf("clawd status while the ports are held:\n%s", st.stdout)
		}
		d := w.clawd(ctx, "", "doctor")
		if !strings.Contains(d.stdout, "(uid 65534") || !strings.Contains(d.stdout, "no TCP port") {
			t.Errorf("clawd doctor while nobody holds the ports:\n%s", d.stdout)
		}
		if r := w.clawd(ctx, "", "dashboard", "--no-open"); r.code == 0 {
			t.Errorf("clawd dashboard without a port: %s", r)
		}
	}
	squat.Stop()
	deadline := time.Now().Add(30 * time.Second)
	for {
		data, err := os.ReadFile(w.runtimeFile())
		var in runtimeInfo
		if err == nil && json.Unmarshal(data, &in) == nil && in.Port != 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("clawd serve took no port within 30 s of the ports coming free\n%s", s.stderr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	if st := w.mustClawd(ctx, "status"); strings.Contains(st.stdout, "the dashboard is unavailable") {
		t.Errorf("clawd status once serve has a port:\n%s", st.stdout)
	}
}

// TestServeRestartsWhileAnActionRuns: SIGTERM while a command action
// sleeps 30 s: serve lets go of its socket and its lock at once, a new
// serve started right after is up (it waits for the lock instead of
// saying "already running"), and the run ends outcome_unknown.
func TestServeRestartsWhileAnActionRuns(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	w := newWorld(t)
	started := filepath.Join(w.dir, "action-started")
	if err := os.WriteFile(filepath.Join(w.clawdHome, "automations.toml"), []byte(`[[automation]]
id = "slow"
event = "turn.started"
action = { type = "command", argv = ["/bin/sh", "-c", "touch `+started+`; exec sleep 30"] }
policy = { timeout = "60s" }
`), 0o600); err != nil {
		t.Fatal(err)
	}
	serve := w.startServe()
	w.mustClawd(ctx, "automations", "trust", "slow", "--yes")
	w.hookJSON(ctx, `{"session_id":"s-term","hook_event_name":"UserPromptSubmit","cwd":"`+w.project+`","prompt":"go","prompt_id":"p-term"}`)
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(started); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the action never started")
		}
	}
	sent := time.Now()
	serve.cmd.Process.Signal(syscall.SIGTERM)
	serve2 := w.startServe()
	defer serve2.shutdown()
	t.Logf("the new serve was up %v after SIGTERM", time.Since(sent).Round(time.Millisecond))
	select {
	case <-serve.done:
	case <-time.After(5 * time.Second):
		t.Fatal("the old serve still runs 5 s after SIGTERM")
	}
	if serve.err != nil {
		t.Errorf("the old serve after SIGTERM: %v\n%s", serve.err, serve.stderr.String())
	}
	runs := w.waitRuns(ctx, "the run after the restart", func(rs []automationRun) bool {
		return len(rs) == 1 && rs[0].State == "outcome_unknown"
	})
	if runs[0].ErrorCode != "shutdown" {
		t.Errorf("the run = %+v, want outcome_unknown with shutdown", runs[0])
	}
}
