package e2e

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
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
