package cmd

import (
	"bytes"
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/runtime"
	"github.com/clawdhq/clawd/runtime/client"
)

// testEnv is an env with a private clawd home, the given stdin and
// captured output.
func testEnv(t *testing.T, home string, stdin []byte, vars map[string]string) (*env, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	var out, errb bytes.Buffer
	all := map[string]string{"CLAWD_HOME": home, "HOME": t.TempDir()}
	for k, v := range vars {
		all[k] = v
	}
	return &env{
		stdin:      bytes.NewReader(stdin),
		stdout:     &out,
		stderr:     &errb,
		getenv:     func(k string) string { return all[k] },
		now:        time.Now,
		executable: func() (string, error) { return "/usr/local/bin/clawd", nil },
	}, &out, &errb
}

func fixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "testdata", "claude", "hooks", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// startRuntime runs a real runtime for home on a free port.
func startRuntime(t *testing.T, home string) *runtime.Server {
	t.Helper()
	s := runtime.New(runtime.Config{Home: home, Version: "test"})
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan struct{})
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx, 0, func(client.Info) { close(ready) }) }()
	select {
	case <-ready:
	case err := <-done:
		t.Fatalf("runtime: %v", err)
	}
	t.Cleanup(func() {
		cancel()
		<-done
	})
	return s
}

func hookLog(t *testing.T, home string) string {
	b, _ := os.ReadFile(filepath.Join(home, "logs", "hook.log"))
	return string(b)
}

func TestHookForwardsEvents(t *testing.T) {
	home := t.TempDir()
	s := startRuntime(t, home)
	vars := map[string]string{"CLAUDE_CODE_ENTRYPOINT": "cli", "CLAUDE_CODE_SESSION_ATTENDED": "1", "CLAUDE_PID": "4242"}
	for _, name := range []string{"SessionStart.json", "UserPromptSubmit.json", "PreToolUse.json", "PermissionRequest.json"} {
		e, out, errb := testEnv(t, home, fixture(t, name), vars)
		if code := run(context.Background(), e, []string{"clawd", "hook", "claude"}); code != 0 {
			t.Fatalf("hook %s exit = %d", name, code)
		}
		want := ""
		if name == "PermissionRequest.json" {
			want = "{}\n" // no decision until the permission broker exists
		}
		if out.String() != want || errb.Len() != 0 {
			t.Errorf("hook %s: stdout %q stderr %q, want stdout %q and no stderr", name, out, errb, want)
		}
	}
	snap := s.Snapshot()
	if len(snap.Sessions) != 1 {
		t.Fatalf("sessions = %+v", snap.Sessions)
	}
	got := snap.Sessions[0]
	if got.State != "waiting" || got.Title != "CAPTURE_ALL please" || got.Cwd != "/home/user/project" ||
		got.AgentPID != 4242 || got.Headless || got.Tool != "Bash" || got.Pending != 1 {
		t.Errorf("session = %+v", got)
	}
	if l := hookLog(t, home); l != "" {
		t.Errorf("hook.log = %q, want nothing logged on success", l)
	}
}

func TestHookFailsOpen(t *testing.T) {
	// A listener that accepts and never answers: a wedged runtime.
	hung, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer hung.Close()
	go func() {
		for {
			c, err := hung.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()
	hungHome := t.TempDir()
	if err := client.WriteInfo(hungHome, client.Info{Port: hung.Addr().(*net.TCPAddr).Port, PID: 1}); err != nil {
		t.Fatal(err)
	}
	big := fixture(t, "PermissionRequest.json")
	big = bytes.Replace(big, []byte(`"echo hello > out.txt"`), []byte(`"`+strings.Repeat("x", maxHookInput)+`"`), 1)

	cases := []struct {
		name    string
		home    string
		stdin   []byte
		args    []string
		wantOut string
		wantLog string
	}{
		{"runtime down", t.TempDir(), fixture(t, "Stop.json"), []string{"hook", "claude"}, "", "runtime not reachable"},
		{"runtime down, permission", t.TempDir(), fixture(t, "PermissionRequest.json"), []string{"hook", "claude"}, "{}\n", "runtime not reachable"},
		{"runtime hung", hungHome, fixture(t, "PermissionRequest.json"), []string{"hook", "claude", "PermissionRequest"}, "{}\n", "runtime not reachable"},
		{"not json", t.TempDir(), []byte("hello"), []string{"hook", "claude", "PermissionRequest"}, "{}\n", "decode payload"},
		{"json array", t.TempDir(), []byte("[1,2]"), []string{"hook", "claude", "Stop"}, "", "decode payload"},
		{"empty stdin", t.TempDir(), nil, []string{"hook", "claude", "Stop"}, "", "decode payload"},
		{"unknown event", t.TempDir(), []byte(`{"session_id":"s","hook_event_name":"Explode"}`), []string{"hook", "claude"}, "", "unknown hook event"},
		{"no session", t.TempDir(), []byte(`{"hook_event_name":"Stop"}`), []string{"hook", "claude"}, "", "no session_id"},
		{"unknown agent", t.TempDir(), fixture(t, "Stop.json"), []string{"hook", "nosuchagent"}, "", "unknown agent"},
		{"over the cap", t.TempDir(), big, []string{"hook", "claude"}, "{}\n", "over the stdin cap"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e, out, errb := testEnv(t, c.home, c.stdin, nil)
			done := make(chan int, 1)
			go func() { done <- run(context.Background(), e, append([]string{"clawd"}, c.args...)) }()
			var code int
			select {
			case code = <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("hook did not return: it must be bounded whatever the runtime does")
			}
			if code != 0 || out.String() != c.wantOut || errb.Len() != 0 {
				t.Errorf("exit %d stdout %q stderr %q; want 0, %q, no stderr", code, out, errb, c.wantOut)
			}
			if l := hookLog(t, c.home); !strings.Contains(l, c.wantLog) {
				t.Errorf("hook.log = %q, want a line with %q", l, c.wantLog)
			}
		})
	}
}

func TestHookTruncatedPayloadStillForwarded(t *testing.T) {
	home := t.TempDir()
	s := startRuntime(t, home)
	big := fixture(t, "PermissionRequest.json")
	big = bytes.Replace(big, []byte(`"echo hello > out.txt"`), []byte(`"`+strings.Repeat("x", maxHookInput)+`"`), 1)
	e, out, _ := testEnv(t, home, big, nil)
	if code := run(context.Background(), e, []string{"clawd", "hook", "claude"}); code != 0 || out.String() != "{}\n" {
		t.Fatalf("exit %d stdout %q", code, out)
	}
	snap := s.Snapshot()
	if len(snap.Sessions) != 1 || snap.Sessions[0].State != "waiting" || snap.Sessions[0].Tool != "" && snap.Sessions[0].Tool != "Bash" {
		t.Fatalf("sessions after a truncated permission request = %+v", snap.Sessions)
	}
}

func TestHookLogRotates(t *testing.T) {
	home := t.TempDir()
	logs := filepath.Join(home, "logs")
	os.MkdirAll(logs, 0o700)
	os.WriteFile(filepath.Join(logs, "hook.log"), bytes.Repeat([]byte("x"), hookLogMax), 0o600)
	e, _, _ := testEnv(t, home, []byte("junk"), nil)
	run(context.Background(), e, []string{"clawd", "hook", "claude", "Stop"})
	cur, _ := os.ReadFile(filepath.Join(logs, "hook.log"))
	old, _ := os.ReadFile(filepath.Join(logs, "hook.log.1"))
	if len(old) != hookLogMax || !bytes.Contains(cur, []byte("decode payload")) || len(cur) > 4096 {
		t.Errorf("after rotation: hook.log %d bytes, hook.log.1 %d bytes", len(cur), len(old))
	}
}

func TestHookFastArgs(t *testing.T) {
	for _, c := range []struct {
		args []string
		ok   bool
	}{
		{[]string{"hook", "claude"}, true},
		{[]string{"hook", "claude", "Stop"}, true},
		{[]string{"hook", "claude", "--help"}, false},
		{[]string{"hook"}, false},
		{[]string{"status", "claude"}, false},
		{[]string{"hook", "a", "b", "c"}, false},
	} {
		if _, ok := hookFastArgs(c.args); ok != c.ok {
			t.Errorf("hookFastArgs(%q) = %v, want %v", c.args, ok, c.ok)
		}
	}
}

var _ = agents.Claude
