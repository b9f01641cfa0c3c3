package runtime

import (
	"bytes"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/runtime/client"
)

// declareCustom registers custom agents for the test's life.
func declareCustom(t *testing.T, specs ...agents.CustomSpec) {
	t.Helper()
	if err := agents.SetCustom(specs); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { agents.SetCustom(nil) })
}

// TestCustomAgentState: a declared custom agent's POST /state (socket or
// token) shows its session in its state, under its own id; "sleeping"
// ends it. Its permission request is answered "no decision" (204) at
// once and never pends.
func TestCustomAgentState(t *testing.T) {
	declareCustom(t, agents.CustomSpec{Name: "bot", Display: "My Bot"})
	env := startPerm(t, nil)
	post := func(body string) (int, string) {
		t.Helper()
		resp, err := env.socketClient(5*time.Second).Post("http://clawd/state", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var b bytes.Buffer
		b.ReadFrom(resp.Body)
		return resp.StatusCode, b.String()
	}
	if code, body := post(`{"agent_id":"custom-bot","state":"working","session_id":"b1","cwd":"/tmp/b"}`); code != 200 {
		t.Fatalf("POST /state for custom-bot = %d %s", code, body)
	}
	var got *client.SessionView
	for _, ss := range env.s.Snapshot().Sessions {
		if ss.SessionID == "b1" {
			got = &ss
		}
	}
	if got == nil || got.Agent != "custom-bot" || got.State != "working" || got.Cwd != "/tmp/b" {
		t.Fatalf("the custom agent's session = %+v, want custom-bot working in /tmp/b", got)
	}
	// Over TCP with the token, as a script off the socket would.
	if code, b := env.call(t, "POST", "/state", env.token, map[string]string{"agent_id": "custom-bot", "state": "thinking", "session_id": "b1"}); code != 200 {
		t.Fatalf("POST /state with the token = %d %s", code, b)
	}
	if st := sessionState(t, env.s, "b1"); st != "thinking" {
		t.Errorf("state after the token's post = %q, want thinking", st)
	}

	e := agents.Event{Agent: "custom-bot", Kind: agents.KindPermissionRequest, SessionID: "b1", Time: time.Now().UTC(),
		ToolName: "deploy", HookEvent: "PermissionRequest"}
	r := wait(t, env.hook(client.RequestBody{Event: e, Request: agents.Request{Kind: agents.RequestPermission, Summary: "deploy"}, WaitSeconds: 600}))
	if r.code != http.StatusNoContent || r.raw != "" {
		t.Errorf("the custom agent's permission request = %d %q, want 204 and no body (no decision)", r.code, r.raw)
	}
	if vs := env.list(t); len(vs) != 0 {
		t.Errorf("pending requests after the custom agent's = %+v, want none: no bubble", vs)
	}
	if st := sessionState(t, env.s, "b1"); st != "thinking" {
		t.Errorf("state after its permission request = %q, want thinking still", st)
	}

	if code, body := post(`{"agent_id":"custom-bot","state":"sleeping","session_id":"b1"}`); code != 200 {
		t.Fatalf("POST /state sleeping = %d %s", code, body)
	}
	if st := sessionState(t, env.s, "b1"); st != "" {
		t.Errorf("the custom agent's session after sleeping is %q, want gone", st)
	}
}

// TestUndeclaredCustomRefused: a custom- id config.toml does not declare
// is refused with what to do, on POST /state, on the event API and on the
// permission API alike; it never becomes Claude Code's (the default
// agent_id) or anyone's session. Each refusal is counted, and the log
// says so at the 1st, 2nd, 4th, ... with the count.
func TestUndeclaredCustomRefused(t *testing.T) {
	declareCustom(t, agents.CustomSpec{Name: "bot", Display: "My Bot"})
	var logs bytes.Buffer
	env := startPerm(t, func(c *Config) { c.Logger = slog.New(slog.NewTextHandler(&logs, nil)) })
	const want = `agent \"custom-ghost\" is no custom agent of this clawd: declare it in config.toml as [[agents.custom]]`
	for i, id := range []string{"custom-ghost", "CUSTOM-GHOST", "custom-ghost"} {
		code, b := env.call(t, "POST", "/state", env.token, map[string]string{"agent_id": id, "state": "working", "session_id": "g"})
		if code != http.StatusBadRequest || !strings.Contains(strings.ReplaceAll(string(b), "CUSTOM-GHOST", "custom-ghost"), want) {
			t.Errorf("POST /state %d for %s = %d %s, want 400 %s", i, id, code, b, want)
		}
	}
	ev := agents.Event{Agent: "custom-ghost", Kind: agents.KindState, State: "working", SessionID: "g", Time: time.Now().UTC()}
	evBody := fmt.Sprintf(`{"agent":%q,"kind":%q,"state":"working","session_id":"g","time":%q}`, ev.Agent, ev.Kind, ev.Time.Format(time.RFC3339Nano))
	resp, err := env.socketClient(5*time.Second).Post("http://clawd/api/v1/events", "application/json", strings.NewReader(evBody))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("POST /api/v1/events for custom-ghost = %d, want 400", resp.StatusCode)
	}
	ev.Kind = agents.KindPermissionRequest
	if r := wait(t, env.hook(client.RequestBody{Event: ev, WaitSeconds: 600})); r.code != http.StatusBadRequest || !strings.Contains(r.raw, "is no custom agent") {
		t.Errorf("a permission request of custom-ghost = %d %q, want 400", r.code, r.raw)
	}
	for _, ss := range env.s.Snapshot().Sessions {
		t.Errorf("a session after the refused posts: %+v", ss)
	}
	if n := env.s.undeclared.Load(); n != 5 {
		t.Errorf("refusals counted = %d, want 5", n)
	}
	if lines := strings.Count(logs.String(), "refused a post for an undeclared custom agent"); lines != 3 {
		t.Errorf("log lines about the refusals = %d, want 3 (at 1, 2 and 4):\n%s", lines, logs.String())
	}
	if !strings.Contains(logs.String(), "refused=4") {
		t.Errorf("the log does not give the count:\n%s", logs.String())
	}
	// The declared one and the default still work beside it.
	if code, b := env.call(t, "POST", "/state", env.token, map[string]string{"agent_id": "custom-bot", "state": "idle", "session_id": "ok"}); code != 200 {
		t.Errorf("POST /state for the declared custom-bot = %d %s", code, b)
	}
}
