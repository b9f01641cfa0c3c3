package runtime

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/internal/i18n"
	"github.com/clawdhq/clawd/runtime/client"
)

// subagentRequest is a Bash request of Claude Code's subagent id of type
// typ in session sid.
func subagentRequest(sid, hash, id, typ string) client.RequestBody {
	b := bashRequest(sid, hash, "ls")
	b.Event.SubagentID, b.Event.SubagentType = id, typ
	return b
}

// TestDisabledAgentIgnored: with enabled = false an agent's events, from
// its hooks, from in-process sources and from the original app's POST
// /state, never reach a session or the feeds, and its permission request
// gets no decision at once; another agent is untouched.
func TestDisabledAgentIgnored(t *testing.T) {
	env := startPerm(t, func(c *Config) { c.AgentsDisabled = map[string]bool{"claude": true} })
	f, cancel := env.s.Subscribe(64)
	defer cancel()

	hdr := []string{"Content-Type: application/json"}
	if code, _, body := rawSocketRequest(t, env.sock, post("/api/v1/events", "clawd", hdr, eventJSON(t, "c1"))); code != http.StatusNoContent {
		t.Fatalf("POST /api/v1/events (disabled agent) = %d %s, want 204: its hook gets its usual answer", code, body)
	}
	env.s.Ingest(agents.Event{Agent: "claude", Kind: agents.KindSessionStart, SessionID: "c2", Time: time.Now()})
	if code, _, body := rawSocketRequest(t, env.sock, post("/state", "clawd", hdr,
		`{"state":"working","session_id":"c3","agent_id":"claude-code"}`)); code != http.StatusOK {
		t.Fatalf("POST /state (disabled agent) = %d %s, want 200", code, body)
	}
	r := wait(t, env.hook(bashRequest("c4", "h", "ls")))
	if r.code != http.StatusOK || r.ans.Decision != nil || r.ans.Reason != client.ReasonAgentOff {
		t.Fatalf("request of a disabled agent = %d %s, want no decision, reason %s", r.code, r.raw, client.ReasonAgentOff)
	}

	// Everything above was handled before this event: the first change on
	// the feed is codex's, so none of claude's was published.
	env.s.Ingest(agents.Event{Agent: "codex", Kind: agents.KindSessionStart, SessionID: "x1", Time: time.Now()})
	c := nextChange(t, f)
	if c.Event == nil || c.Event.Agent != "codex" {
		t.Fatalf("first change = %+v, want codex's event: a disabled agent's reached the feed", c)
	}
	snap := env.s.Snapshot()
	if len(snap.Sessions) != 1 || snap.Sessions[0].Agent != "codex" {
		t.Errorf("sessions = %+v, want codex's only", snap.Sessions)
	}
	if l := env.list(t); len(l) != 0 {
		t.Errorf("pending = %+v, want none", l)
	}
}

// TestDisabledAgentNotInHistory: a disabled agent's ended session is not
// kept; another agent's, ended after it, is.
func TestDisabledAgentNotInHistory(t *testing.T) {
	s, c, _ := runWithHistory(t, t.TempDir(), func(c *Config) { c.AgentsDisabled = map[string]bool{"claude": true} })
	for _, agent := range []string{"claude", "codex"} {
		for _, k := range []agents.Kind{agents.KindSessionStart, agents.KindPromptSubmit, agents.KindSessionEnd} {
			s.Ingest(agents.Event{Agent: agent, Kind: k, SessionID: agent + "-1", Time: time.Now(), Cwd: "/home/u/shop",
				Title: "fix it", TitleSource: agents.TitleFromPrompt})
		}
	}
	eventually(t, "codex's ended session in the history", func() bool {
		h, err := c.History(context.Background(), client.HistoryQuery{})
		return err == nil && len(h.Sessions) > 0
	})
	if got := historyIDs(t, c, client.HistoryQuery{}); len(got) != 1 || got[0].Agent != "codex" {
		t.Errorf("history = %+v, want codex's session only", got)
	}
}

// TestSubagentPermissionsOff: with subagent_permissions = false a
// subagent's request gets no decision at once, while the session shows it
// waits for the terminal (and the tray hears of it, marked); the session's
// own requests, and a type without a subagent id (the main thread of an
// --agent session), are still held for the person.
func TestSubagentPermissionsOff(t *testing.T) {
	env := startPerm(t, func(c *Config) { c.SubagentPermissionsOff = map[string]bool{"claude": true} })
	f, cancel := env.s.Subscribe(64)
	defer cancel()
	st := env.follow(t)

	r := wait(t, env.hook(subagentRequest("s1", "h1", "a1f", "Explore")))
	if r.code != http.StatusOK || r.ans.Decision != nil || r.ans.Reason != client.ReasonSubagent {
		t.Fatalf("subagent's request = %d %s, want no decision, reason %s", r.code, r.raw, client.ReasonSubagent)
	}
	if got := sessionState(t, env.s, "s1"); got != "waiting" {
		t.Errorf("session state = %q, want waiting: the agent's own dialog asks", got)
	}
	for {
		c := nextChange(t, f)
		if c.Permission == nil {
			continue
		}
		p := c.Permission
		if p.Type != client.ChangeUnshown || p.Reason != client.ReasonSubagent || p.Permission.SubagentType != "Explore" {
			t.Fatalf("change = %+v, want unshown/subagent, marked Explore", p)
		}
		break
	}

	own := env.hook(bashRequest("s1", "h2", "npm test"))
	if got := st.next(t, client.ChangeAdded, 5*time.Second); got.Permission.Summary != "npm test" {
		t.Fatalf("added = %+v, want the session's own request", got)
	}
	noAnswer(t, own)
	typed := env.hook(subagentRequest("s2", "h3", "", "reviewer"))
	if got := st.next(t, client.ChangeAdded, 5*time.Second); got.Permission.SessionID != "s2" || got.Permission.SubagentType != "" {
		t.Fatalf("added = %+v, want s2's request, unmarked", got)
	}
	noAnswer(t, typed)
	other := env.hook(client.RequestBody{Event: func() agents.Event {
		e := subagentRequest("x1", "h4", "sub-1", "worker").Event
		e.Agent = "codex"
		return e
	}(), WaitSeconds: 600})
	if got := st.next(t, client.ChangeAdded, 5*time.Second); got.Permission.Agent != "codex" {
		t.Fatalf("added = %+v, want codex's subagent request: the switch is claude's", got)
	}
	noAnswer(t, other)
}

// TestPermissionViewMarksSubagent: the view of a subagent's request names
// it, in one line; the session's own has no mark, and neither has a type
// without an id.
func TestPermissionViewMarksSubagent(t *testing.T) {
	env := startPerm(t, nil)
	st := env.follow(t)
	cases := []struct {
		body             client.RequestBody
		wantID, wantType string
	}{
		{subagentRequest("s1", "h1", "afc7f71e8f325b97f", "Explore"), "afc7f71e8f325b97f", "Explore"},
		{subagentRequest("s2", "h2", "afc7", "bad\ntype\x1b[31m"), "afc7", "bad type[31m"},
		{subagentRequest("s3", "h3", "", "reviewer"), "", ""},
		{bashRequest("s4", "h4", "ls"), "", ""},
	}
	for _, c := range cases {
		env.hook(c.body)
		v := st.next(t, client.ChangeAdded, 5*time.Second).Permission
		if v.SubagentID != c.wantID || v.SubagentType != c.wantType {
			t.Errorf("view of %s = subagent %q type %q, want %q %q", v.SessionID, v.SubagentID, v.SubagentType, c.wantID, c.wantType)
		}
	}
	if l := env.list(t); len(l) != len(cases) || l[0].SubagentType != "Explore" {
		t.Errorf("list = %+v, want %d requests, the first marked Explore", l, len(cases))
	}
}

// TestDashboardMarksSubagent: the dashboard's request card gets the
// subagent's mark in the runtime's language; the session's own request
// none.
func TestDashboardMarksSubagent(t *testing.T) {
	for _, tt := range []struct {
		p    i18n.Printer
		want string
	}{{i18n.Printer{}, "subagent: Explore"}, {i18n.For(i18n.Chinese), "子智能体：Explore"}} {
		s := New(Config{Home: t.TempDir(), Printer: tt.p})
		sub, own := subagentRequest("s1", "h1", "afc7", "Explore"), bashRequest("s1", "h2", "ls")
		for _, b := range []*client.RequestBody{&sub, &own} {
			if req, reason := s.register(b); req == nil {
				t.Fatalf("register = no request (%s), want it shown", reason)
			}
		}
		v := s.dash.dashboardView()
		if len(v.Permissions) != 2 || v.Permissions[0].Subagent != tt.want || v.Permissions[1].Subagent != "" {
			t.Errorf("%s: dashboard requests = %+v, want the first marked %q, the second not", tt.p.Lang(), v.Permissions, tt.want)
		}
	}
}
