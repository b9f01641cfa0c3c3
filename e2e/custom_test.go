//go:build !windows

package e2e

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestCustomAgents: a custom agent declared in config.toml posts its
// state over the runtime's socket and with the API token: clawd status
// shows its session under its display name, and "sleeping" ends it. Its
// permission request is answered "no decision" (204) at once and never
// listed. An undeclared custom id is refused with what to do, never taken
// for Claude Code, and the log counts the refusals.
func TestCustomAgents(t *testing.T) {
	t.Parallel()
	started := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	w := newWorld(t)
	cfg := "[[agents.custom]]\nname = \"bot\"\ndisplay_name = \"My Bot\"\nicon = \"working\"\n"
	if err := os.WriteFile(filepath.Join(w.clawdHome, "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	serve := w.startServe()
	sock := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, "unix", serve.info.Socket)
		}}}
	post := func(c *http.Client, url, token, body string) (int, string) {
		t.Helper()
		req, err := http.NewRequestWithContext(ctx, "POST", url, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := c.Do(req)
		if err != nil {
			t.Fatalf("POST %s: %v", url, err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	tcp := fmt.Sprintf("http://127.0.0.1:%d", serve.info.Port)

	if code, b := post(sock, "http://clawd/state", "", `{"agent_id":"custom-bot","state":"working","session_id":"b1","cwd":"`+w.project+`"}`); code != 200 {
		t.Fatalf("POST /state over the socket = %d %s", code, b)
	}
	if code, b := post(http.DefaultClient, tcp+"/state", serve.info.Token, `{"agent_id":"custom-bot","state":"thinking","session_id":"b1"}`); code != 200 {
		t.Fatalf("POST /state with the token = %d %s", code, b)
	}
	st, ok := w.status(ctx)
	if s, found := st.session("b1"); !ok || !found || s.Agent != "custom-bot" || s.State != "thinking" || s.Cwd != w.project {
		t.Errorf("clawd status --json lists %+v (found %v), want custom-bot thinking in the project", s, found)
	}
	if r := w.mustClawd(ctx, "status"); !strings.Contains(r.stdout, "My Bot") {
		t.Errorf("clawd status does not name the custom agent by its display name:\n%s", r.stdout)
	}

	// Its permission request: no decision at once, nothing listed.
	req := fmt.Sprintf(`{"event":{"agent":"custom-bot","kind":"permission.request","session_id":"b1","time":%q,"tool_name":"deploy","hook_event":"PermissionRequest"},"wait_seconds":600}`,
		time.Now().UTC().Format(time.RFC3339Nano))
	asked := time.Now()
	if code, b := post(sock, "http://clawd/api/v1/permissions", "", req); code != http.StatusNoContent || b != "" {
		t.Errorf("the custom agent's permission request = %d %q, want 204 and no body", code, b)
	}
	if d := time.Since(asked); d > 5*time.Second {
		t.Errorf("the custom agent's permission request took %v, want at once", d)
	}
	if l := w.pendingPermissions(ctx); len(l) != 0 {
		t.Errorf("pending requests after the custom agent's: %+v", l)
	}

	// A forged id: refused, never Claude Code's.
	code, b := post(sock, "http://clawd/state", "", `{"agent_id":"custom-ghost","state":"working","session_id":"g1"}`)
	if code != http.StatusBadRequest || !strings.Contains(b, "is no custom agent of this clawd: declare it in config.toml as [[agents.custom]]") {
		t.Errorf("POST /state for custom-ghost = %d %s, want 400 saying how to declare it", code, b)
	}
	st, _ = w.status(ctx)
	if s, found := st.session("g1"); found {
		t.Errorf("the forged post made a session: %+v", s)
	}

	if code, b := post(sock, "http://clawd/state", "", `{"agent_id":"custom-bot","state":"sleeping","session_id":"b1"}`); code != 200 {
		t.Fatalf("POST /state sleeping = %d %s", code, b)
	}
	st, _ = w.status(ctx)
	if s, found := st.session("b1"); found {
		t.Errorf("the custom agent's session after sleeping: %+v, want gone", s)
	}
	serve.shutdown()
	if log := serve.stderr.String(); !strings.Contains(log, "refused a post for an undeclared custom agent") || !strings.Contains(log, "refused=1") {
		t.Errorf("the runtime's log does not count the refused post:\n%s", log)
	}
	t.Logf("refusal: %s", strings.TrimSpace(b))
	t.Logf("TestCustomAgents took %v", time.Since(started).Round(time.Millisecond))
}
