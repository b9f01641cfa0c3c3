//go:build linux

package e2e

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/clawdhq/clawd/internal/intrudertest"
	"github.com/clawdhq/clawd/runtime/client"
)

// TestIntruderGetsNothing plays another local user (nobody, through
// setpriv) against this user's clawd. As a fake clawd on the port range
// it gets no byte of any payload and its "allow" is never printed by
// `clawd hook claude|codex PermissionRequest`, with the runtime down and a
// stale runtime.json naming its port, and with the runtime up. As a client
// it cannot connect to the runtime's socket, is turned away by the
// runtime's peer check when the socket's folder is opened to it, and gets
// a 401 from every /api/v1 route on TCP.
func TestIntruderGetsNothing(t *testing.T) {
	if why := intrudertest.Available(); why != "" {
		t.Skip(why)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	w := newWorld(t)
	// Every payload carries the marker in its session id: other programs
	// on this machine may probe the port range too.
	marker := "intruder-test-" + newUUID(t)[:8]
	in := intrudertest.Serve(t, marker)
	if len(in.Ports) == 0 {
		t.Fatal("the intruder listens on no port")
	}
	t.Logf("the intruder listens on %v as nobody", in.Ports)
	claudePerm := withSession(t, readTestdata(t, "claude", "hooks", "PermissionRequest.json"), marker+"-claude")
	codexPerm := withSession(t, readTestdata(t, "codex", "hooks", "PermissionRequest.json"), marker+"-codex")
	stop := withSession(t, readTestdata(t, "claude", "hooks", "Stop.json"), marker+"-claude")

	checkIntrusions := func(when string) {
		t.Helper()
		marked, conns := in.Intrusions(t)
		if len(marked) != 0 {
			t.Errorf("%s: the intruder got this test's payloads: %v", when, marked)
		}
		if conns > 0 {
			t.Logf("%s: the intruder saw %d connections from other programs on this machine", when, conns)
		}
	}

	// The runtime down, runtime.json left behind naming the intruder's
	// port (and a socket elsewhere).
	info, _ := json.Marshal(map[string]any{"port": in.Ports[len(in.Ports)-1], "socket": "/tmp/clawd-intruder.sock", "pid": 1, "token": "", "version": "dev"})
	if err := os.WriteFile(w.runtimeFile(), info, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, h := range []struct {
		agent string
		in    []byte
		want  string
	}{{"claude", claudePerm, "{}\n"}, {"codex", codexPerm, "{}\n"}} {
		start := time.Now()
		r := w.clawd(ctx, string(h.in), "hook", h.agent, "PermissionRequest")
		if r.code != 0 || r.stdout != h.want || strings.Contains(r.stdout, "allow") {
			t.Errorf("clawd hook %s PermissionRequest with the runtime down: %s\nwant exit 0 and %q", h.agent, r, h.want)
		}
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("clawd hook %s PermissionRequest took %v with the runtime down, want no wait", h.agent, d)
		}
	}
	if r := w.clawd(ctx, string(stop), "hook", "claude"); r.code != 0 || r.stdout != "" {
		t.Errorf("clawd hook claude (Stop) with the runtime down: %s", r)
	}
	for _, args := range [][]string{{"status", "--json"}, {"permissions", "--json"}, {"permissions", "allow", "intruder"}} {
		if r := w.clawd(ctx, "", args...); r.code != 1 || !strings.Contains(r.stderr, "not running") {
			t.Errorf("clawd %v with the runtime down: %s\nwant exit 1, not running", args, r)
		}
	}
	checkIntrusions("runtime down")

	// The runtime up: every hook talks to it, over its socket. (The stale
	// runtime.json goes first: startServe waits for serve's own.)
	os.Remove(w.runtimeFile())
	srv := w.startServe()
	defer srv.shutdown()
	for _, h := range []struct {
		agent string
		in    []byte
		reply string // the real runtime's allow, as the agent reads it
	}{{"claude", claudePerm, "claude/outputs/PermissionRequest.allow.json"}, {"codex", codexPerm, "codex/hook-replies/PermissionRequest.allow.json"}} {
		done := make(chan result, 1)
		go func() {
			cmd := exec.CommandContext(ctx, clawdBin, "hook", h.agent, "PermissionRequest")
			cmd.Env = append(w.clawdEnv(), "CLAUDE_CODE_SESSION_ATTENDED=1")
			cmd.Stdin = strings.NewReader(string(h.in))
			done <- run(t, cmd)
		}()
		list := w.waitPermissions(ctx, 30*time.Second, h.agent+"'s request", func(l []client.PermissionView) bool { return len(l) == 1 })
		w.mustPerm(ctx, "allow", list[0].ID)
		r := <-done
		want := strings.TrimSpace(string(readTestdata(t, strings.Split(h.reply, "/")...)))
		if r.code != 0 || !jsonEqual(r.stdout, want) {
			t.Errorf("clawd hook %s PermissionRequest, allowed in clawd: %s\nwant %s", h.agent, r, want)
		}
	}
	if r := w.clawd(ctx, string(stop), "hook", "claude"); r.code != 0 {
		t.Errorf("clawd hook claude (Stop): %s", r)
	}
	checkIntrusions("runtime up")

	// nobody as a client of this user's runtime.
	if r := intrudertest.Run(t, "socket", srv.info.Socket); !strings.Contains(r["connect_error"].(string), "permission denied") {
		t.Errorf("the intruder on the runtime's socket: %v, want permission denied", r)
	}
	base := "http://127.0.0.1:" + strconv.Itoa(srv.info.Port)
	for _, c := range []struct{ method, path, body string }{
		{"GET", "/api/v1/health", ""},
		{"GET", "/api/v1/sessions", ""},
		{"GET", "/api/v1/events", ""},
		{"GET", "/api/v1/permissions", ""},
		{"GET", "/api/v1/permissions/events", ""},
		{"GET", "/api/v1/dnd", ""},
		{"POST", "/api/v1/events", `{"agent":"claude","kind":"session.start","session_id":"evil","time":"2026-01-01T00:00:00Z"}`},
		{"POST", "/api/v1/permissions", `{"event":{"agent":"claude","kind":"permission.request","session_id":"evil","time":"2026-01-01T00:00:00Z","tool_name":"Bash"},"wait_seconds":5}`},
		{"POST", "/api/v1/permissions/abc/decision", `{"behavior":"allow"}`},
		{"POST", "/api/v1/dnd", `{"on":true}`},
	} {
		r := intrudertest.Run(t, "http", c.method, base+c.path, c.body)
		// The kernel says the connection is another user's: refused before
		// any route, token or not.
		if r["status"] != float64(403) || r["body"] != "" {
			t.Errorf("the intruder's %s %s over TCP = %v, want 403 and no body", c.method, c.path, r)
		}
	}
	// The runtime's own check: with the socket's folder and the socket
	// opened to everyone, nobody connects, and the runtime hangs up
	// before reading a byte.
	for _, d := range []string{filepath.Dir(w.dir), w.dir, w.clawdHome} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(srv.info.Socket, 0o666); err != nil {
		t.Fatal(err)
	}
	r := intrudertest.Run(t, "socket", srv.info.Socket)
	os.Chmod(w.clawdHome, 0o700)
	if r["connected"] != true || r["response"] != "" {
		t.Errorf("the intruder on an opened socket: %v, want connected and hung up on with no answer", r)
	}
	snap, err := srv.client().Sessions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range snap.Sessions {
		if s.SessionID == "evil" {
			t.Errorf("the intruder created session %+v", s)
		}
	}
	if on, err := srv.client().DND(ctx); err != nil || on {
		t.Errorf("DND = %v, %v after the intruder; want off", on, err)
	}
	if !strings.Contains(srv.stderr.String(), "refused a socket connection from another user") {
		t.Errorf("serve did not log the refused connection:\n%s", srv.stderr.String())
	}
}
