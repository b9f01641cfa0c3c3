package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/internal/spool"
)

// spooled returns the events in home's spool, in order.
func spooled(t *testing.T, home string) []agents.Event {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(home, spool.File))
	if err != nil {
		return nil
	}
	var out []agents.Event
	ids := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		var r spool.Record
		if err := json.Unmarshal([]byte(line), &r); err != nil || r.ID == "" || ids[r.ID] {
			t.Fatalf("spool line %q is not a record with an id of its own (%v)", line, err)
		}
		ids[r.ID] = true
		out = append(out, r.Event)
	}
	return out
}

// TestHookSpoolsWithRuntimeDown: with no runtime (none ever, or a killed
// one's runtime.json left behind), a hook keeps its event in the spool,
// in order, and logs nothing; a permission request is never kept, it
// gets its no-decision answer at once. Once a runtime starts, the session
// is there before any new hook.
func TestHookSpoolsWithRuntimeDown(t *testing.T) {
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "runtime.json"),
		[]byte(`{"port":23333,"socket":"/tmp/elsewhere.sock","pid":1,"version":"dev","token":"x","started_at":"2026-01-01T00:00:00Z"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{"CLAUDE_CODE_ENTRYPOINT": "cli", "CLAUDE_CODE_SESSION_ATTENDED": "1"}
	for _, name := range []string{"SessionStart.json", "UserPromptSubmit.json", "PermissionRequest.json", "Stop.json"} {
		e, out, errb := testEnv(t, home, fixture(t, name), vars)
		if code := run(context.Background(), e, []string{"clawd", "hook", "claude"}); code != 0 || errb.Len() != 0 {
			t.Fatalf("hook %s with the runtime down: exit %d, stderr %q", name, code, errb)
		}
		if want := map[bool]string{true: "{}\n"}[name == "PermissionRequest.json"]; out.String() != want {
			t.Errorf("hook %s with the runtime down printed %q, want %q", name, out, want)
		}
	}
	var kinds []string
	for _, e := range spooled(t, home) {
		kinds = append(kinds, string(e.Kind))
	}
	if strings.Join(kinds, " ") != "session.start prompt.submit turn.end" {
		t.Errorf("spooled %v, want the session's start, prompt and turn end, and no permission request", kinds)
	}
	if l := hookLog(t, home); strings.Contains(l, "session.start") || strings.Contains(l, "dropped") {
		t.Errorf("hook.log = %q, want no event dropped", l)
	}

	s := startRuntime(t, home)
	snap := s.Snapshot()
	if len(snap.Sessions) != 1 || snap.Sessions[0].Title != "CAPTURE_ALL please" || snap.Sessions[0].Outcome != "done" {
		t.Errorf("sessions once a runtime started = %+v, want the spooled session, titled, its turn done", snap.Sessions)
	}
	if left, _ := spool.Claimed(home); len(left) != 0 || len(spooled(t, home)) != 0 {
		t.Errorf("the spool after the replay: %v claimed, %d events, want it gone", left, len(spooled(t, home)))
	}
}

// TestHookRemoteDownNotSpooled: a remote machine's hook whose tunnel is
// down keeps nothing: no serve runs in a remote home to replay it.
func TestHookRemoteDownNotSpooled(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	home := remoteHome(t, port, "tok", 1)
	e, _, _ := testEnv(t, home, fixture(t, "Stop.json"), nil)
	if code := run(context.Background(), e, []string{"clawd", "hook", "claude"}); code != 0 {
		t.Fatalf("exit %d", code)
	}
	if got := spooled(t, home); len(got) != 0 {
		t.Errorf("a remote home's hook spooled %+v, want nothing", got)
	}
	if l := hookLog(t, home); !strings.Contains(l, "runtime not reachable; event dropped") {
		t.Errorf("hook.log = %q, want the drop logged", l)
	}
}

// TestHookProcessSpools runs whole hook processes, many at once, with no
// runtime: each exits 0 with nothing on stdout or stderr, and the spool
// holds every event exactly once, whole. How fast a hook is with the
// runtime down is bench/'s to measure (BenchmarkProcessHookRuntimeDown and
// bench/run.sh), not a timed test's: on a loaded machine a race-built
// process took 0.4–2 s here.
func TestHookProcessSpools(t *testing.T) {
	bin, err := exec.LookPath("clawd") // this test binary, as testscript installs it
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	payload := fixture(t, "UserPromptSubmit.json")
	const n = 16
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			var stdout, stderr bytes.Buffer
			cmd := exec.Command(bin, "hook", "claude")
			// GORACE: a -race build would sleep a second at exit.
			cmd.Env = []string{"CLAWD_HOME=" + home, "HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH"), "GORACE=atexit_sleep_ms=0"}
			cmd.Stdin = bytes.NewReader(withSessionID(t, payload, "s-"+string(rune('a'+i))))
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			cmd.WaitDelay = 5 * time.Second
			err := cmd.Run()
			if err != nil || stdout.Len() != 0 || stderr.Len() != 0 {
				t.Errorf("hook process %d: %v, stdout %q, stderr %q", i, err, stdout.String(), stderr.String())
			}
		})
	}
	wg.Wait()
	got := spooled(t, home)
	seen := map[string]bool{}
	for _, e := range got {
		seen[e.SessionID] = true
	}
	if len(got) != n || len(seen) != n {
		t.Errorf("spool holds %d events of %d sessions, want %d of %d", len(got), len(seen), n, n)
	}
}

// withSessionID sets a Claude payload's session_id.
func withSessionID(t *testing.T, payload []byte, id string) []byte {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(payload, &m); err != nil {
		t.Fatal(err)
	}
	m["session_id"] = id
	b, _ := json.Marshal(m)
	return b
}

// spooledLog, as the log a failing hook case wants, means: the event was
// kept in the spool, and nothing logged.
const spooledLog = "(spooled)"

// checkHookLog checks that hook.log of home has a line with want, or for
// spooledLog that the event is in the spool and hook.log empty.
func checkHookLog(t *testing.T, home, want string) {
	t.Helper()
	l := hookLog(t, home)
	switch {
	case want == spooledLog:
		if len(spooled(t, home)) != 1 || l != "" {
			t.Errorf("spool holds %d events, hook.log = %q; want the event kept and nothing logged", len(spooled(t, home)), l)
		}
	case !strings.Contains(l, want):
		t.Errorf("hook.log = %q, want a line with %q", l, want)
	}
}
