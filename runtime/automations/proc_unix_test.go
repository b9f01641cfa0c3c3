//go:build unix

package automations

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// backgrounded is a command that starts `sleep 100` in the background,
// writes its pid to pidfile and, with wait, waits for it.
func backgrounded(pidfile string, wait bool) []string {
	script := "sleep 100 & echo $! > " + pidfile
	if wait {
		script += "; wait"
	}
	return []string{"sh", "-c", script}
}

// pidIn waits for the pid the command wrote to file.
func pidIn(t *testing.T, file string) int {
	t.Helper()
	var pid int
	eventually(t, "the command writes its child's pid", func() bool {
		b, err := os.ReadFile(file)
		if err == nil && strings.HasSuffix(string(b), "\n") {
			pid, err = strconv.Atoi(strings.TrimSpace(string(b)))
			return err == nil
		}
		return false
	})
	return pid
}

// gone waits until process pid is dead: no such process, or a zombie
// nobody reaped yet (a container's init may never do it).
func gone(t *testing.T, pid int) {
	t.Helper()
	eventually(t, "sleep "+strconv.Itoa(pid)+" is killed", func() bool {
		if b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err == nil {
			if i := strings.LastIndexByte(string(b), ')'); i > 0 && len(b) > i+2 {
				return b[i+2] == 'Z' || b[i+2] == 'X'
			}
		}
		return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
	})
}

// eventually polls cond until it holds, for at most 10 s.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("after 10 s: want %s", what)
		}
	}
}

// commandEngine is an engine with one trusted command definition, argv
// under timeout.
func commandEngine(t *testing.T, clock *fakeClock, argv []string, timeout string) *Engine {
	t.Helper()
	e := testEngine(t, clock, `[[automation]]
id = "cmd"
event = "turn.completed"
action = { type = "command", argv = ["`+strings.Join(argv, `", "`)+`"] }
policy = { timeout = "`+timeout+`" }
`)
	trust(t, e, "cmd")
	return e
}

// TestCommandTimeoutKillsGroup: end to end, a command that outlives its
// policy's timeout fails with code timeout, and the child it started in
// the background dies with it.
func TestCommandTimeoutKillsGroup(t *testing.T) {
	ctx := context.Background()
	clock := newFakeClock()
	pidfile := filepath.Join(t.TempDir(), "pid")
	e := commandEngine(t, clock, backgrounded(pidfile, true), "1s")
	e.Observe(ctx, completed("s", "t", clock.Now()))
	drain(t, e)
	if r := runsOf(t, e)[0]; r.State != StateFailed || r.ErrorCode != CodeTimeout {
		t.Errorf("run = %+v, want failed/timeout", r)
	}
	gone(t, pidIn(t, pidfile))
}

// TestCommandCancelKillsGroup: the end of the action's context (clawd
// stopping) kills the command's whole group; the run is shutdown /
// outcome_unknown as before.
func TestCommandCancelKillsGroup(t *testing.T) {
	clock := newFakeClock()
	pidfile := filepath.Join(t.TempDir(), "pid")
	e := commandEngine(t, clock, backgrounded(pidfile, true), "120s")
	e.Observe(context.Background(), completed("s", "t", clock.Now()))
	if _, err := e.DispatchOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
	cs, err := e.claim(context.Background(), 1)
	if err != nil || len(cs) != 1 {
		t.Fatalf("claim = %v, %v", cs, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	got := make(chan outcome, 1)
	go func() { got <- e.attempt(ctx, cs[0]) }()
	pid := pidIn(t, pidfile)
	cancel()
	if out := <-got; out.state != StateOutcomeUnknown || out.code != CodeShutdown {
		t.Errorf("attempt = %+v, want outcome_unknown/shutdown", out)
	}
	gone(t, pid)
}

// TestCommandLeavesNoChild: a command that exits at once, leaving a child
// in the background that holds its stdout, succeeds without waiting for
// the child, which dies with the action.
func TestCommandLeavesNoChild(t *testing.T) {
	pidfile := filepath.Join(t.TempDir(), "pid")
	res := command(context.Background(), &Action{Type: ActionCommand, Argv: backgrounded(pidfile, false)}, completed("s", "t", time.Now()), nil)
	if res.err != nil {
		t.Errorf("command = %+v, want success", res)
	}
	gone(t, pidIn(t, pidfile))
}
