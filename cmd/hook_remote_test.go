package cmd

import (
	"context"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clawdhq/clawd/remote"
	"github.com/clawdhq/clawd/runtime"
	"github.com/clawdhq/clawd/runtime/client"
)

// desktopIngress runs a desktop runtime with one profile ingress and
// returns it and the ingress's port.
func desktopIngress(t *testing.T, in *runtime.Ingress) (*runtime.Server, int) {
	t.Helper()
	s := runtime.New(runtime.Config{Home: t.TempDir(), Version: "test"})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	in.Port = ln.Addr().(*net.TCPAddr).Port
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.ServeIngress(ctx, ln, in) }()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	return s, in.Port
}

// remoteHome is a remote machine's clawd home whose runtime.json leads
// to port with the token and generation.
func remoteHome(t *testing.T, port int, token string, gen int64) string {
	t.Helper()
	home := filepath.Join(t.TempDir(), ".clawd")
	if _, err := remote.SetUp(home, remote.SetupSpec{Profile: "ubuntu", Port: port, Token: token, Generation: gen}, time.Now()); err != nil {
		t.Fatal(err)
	}
	return home
}

// TestHookInWSL: a hook in WSL (WSL_DISTRO_NAME set, no socket, a
// runtime.json in remote mode) reaches the desktop's WSL ingress over
// loopback, marked with its distro: the session shows as
// wsl:<distro>:<id>, its Linux process id dropped, and its permission
// request is answered from the desktop.
func TestHookInWSL(t *testing.T) {
	in := &runtime.Ingress{Label: "wsl:Ubuntu", Distro: "Ubuntu"}
	in.SetCredentials("tok", 1)
	s, port := desktopIngress(t, in)
	home := remoteHome(t, port, "tok", 1)
	vars := map[string]string{"WSL_DISTRO_NAME": "Ubuntu", "CLAUDE_PID": "4242", "CLAUDE_CODE_SESSION_ATTENDED": "1"}
	for _, name := range []string{"SessionStart.json", "UserPromptSubmit.json", "PreToolUse.json"} {
		e, out, errb := testEnv(t, home, fixture(t, name), vars)
		if code := run(context.Background(), e, []string{"clawd", "hook", "claude"}); code != 0 || out.Len() != 0 || errb.Len() != 0 {
			t.Fatalf("hook %s in WSL: exit %d, stdout %q, stderr %q", name, code, out, errb)
		}
	}
	snap := s.Snapshot()
	if len(snap.Sessions) != 1 {
		t.Fatalf("sessions = %+v, want one", snap.Sessions)
	}
	got := snap.Sessions[0]
	if !strings.HasPrefix(got.SessionID, "wsl:Ubuntu:") || got.Host != "wsl:Ubuntu" || got.AgentPID != 0 || got.State != "working" {
		t.Errorf("session = %+v, want wsl:Ubuntu:<id>, host wsl:Ubuntu, no agent pid, working", got)
	}
	if l := hookLog(t, home); l != "" {
		t.Errorf("hook.log = %q, want nothing on success", l)
	}

	// The permission request, answered on the desktop.
	e, out, _ := testEnv(t, home, fixture(t, "PermissionRequest.json"), vars)
	done := make(chan int, 1)
	go func() { done <- run(context.Background(), e, []string{"clawd", "hook", "claude"}) }()
	var id string
	for end := time.Now().Add(10 * time.Second); id == "" && time.Now().Before(end); time.Sleep(time.Millisecond) {
		for _, p := range s.Permissions() {
			if p.SessionID == got.SessionID {
				id = p.ID
			}
		}
	}
	if id == "" {
		t.Fatalf("the WSL hook's request never showed; pending: %+v", s.Permissions())
	}
	if _, err := s.Decide(id, client.DecisionBody{Behavior: client.Allow}); err != nil {
		t.Fatal(err)
	}
	if code := <-done; code != 0 || !sameJSON(t, out.Bytes(), output(t, "PermissionRequest.allow.json")) {
		t.Errorf("WSL PermissionRequest hook: exit %d, stdout %s", code, out)
	}

	// Not marked, or marked by another distro: refused, nothing recorded,
	// and the agent carries on.
	seq := len(s.Snapshot().Sessions)
	for _, distro := range []string{"", "Debian"} {
		e, out, errb := testEnv(t, home, []byte(`{"session_id":"other-distro","hook_event_name":"SessionStart","cwd":"/x"}`),
			map[string]string{"WSL_DISTRO_NAME": distro})
		if code := run(context.Background(), e, []string{"clawd", "hook", "claude"}); code != 0 || out.Len() != 0 || errb.Len() != 0 {
			t.Errorf("hook marked %q: exit %d, stdout %q, stderr %q", distro, code, out, errb)
		}
	}
	if n := len(s.Snapshot().Sessions); n != seq {
		t.Errorf("sessions after hooks of other distros: %d, want %d", n, seq)
	}
	if l := hookLog(t, home); !strings.Contains(l, "403") {
		t.Errorf("hook.log = %q, want the refusals", l)
	}
}

// TestHookRemoteFailsOpen: a remote hook with nothing on the remote port
// (the tunnel is down) or a wrong runtime.json gives the agent no
// decision at once.
func TestHookRemoteFailsOpen(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	for _, c := range []struct {
		name, home string
	}{
		{"tunnel down", remoteHome(t, port, "tok", 1)},
		{"no runtime.json", t.TempDir()},
	} {
		for _, f := range []string{"SessionStart.json", "PermissionRequest.json"} {
			code, stdout, stderr := runHookOn(t, context.Background(), c.home, fixture(t, f))
			want := ""
			if f == "PermissionRequest.json" {
				want = "{}\n"
			}
			if code != 0 || stdout != want || stderr != "" {
				t.Errorf("%s, %s: exit %d, stdout %q, stderr %q; want exit 0 and %q", c.name, f, code, stdout, stderr, want)
			}
		}
	}
}
