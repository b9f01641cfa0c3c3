package automations

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/runtime/client"
)

// allEvents is a definition per lifecycle event, each a sound, trusted.
func allEvents() string {
	var b strings.Builder
	for _, n := range EventNames {
		b.WriteString("[[automation]]\nid = \"" + strings.ReplaceAll(string(n), ".", "-") + "\"\nevent = \"" + string(n) + "\"\naction = { type = \"sound\" }\n")
	}
	return b.String()
}

// outbox lists the events written, oldest first, once the queue is
// flushed.
func outbox(t *testing.T, e *Engine) []Envelope {
	t.Helper()
	if err := e.flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	rows, err := e.db.Query(`SELECT envelope FROM events ORDER BY created_at, rowid`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []Envelope
	for rows.Next() {
		var raw string
		rows.Scan(&raw)
		var env Envelope
		json.Unmarshal([]byte(raw), &env)
		out = append(out, env)
	}
	return out
}

// TestLifecycle: a turn's facts become its lifecycle events, with the
// agent's turn id, the session's title and workspaces (repository root
// first), the answer's text only in response.committed, and the same
// fact twice written once.
func TestLifecycle(t *testing.T) {
	ctx := context.Background()
	clock := newFakeClock()
	e := testEngine(t, clock, allEvents())
	e.o.RepoRoot = func(dir string) string {
		if strings.HasPrefix(dir, "/src/shop") {
			return "/src/shop"
		}
		return ""
	}
	t0 := clock.Now()
	fact := func(k agents.Kind, at time.Duration, mod func(*agents.Event)) Fact {
		ev := agents.Event{Agent: "claude", Kind: k, SessionID: "s1", Time: t0.Add(at), TurnID: "p1"}
		if mod != nil {
			mod(&ev)
		}
		return Fact{Event: ev, Title: "Fix the shop", Cwd: "/src/shop/api"}
	}
	e.Record(ctx, fact(agents.KindPromptSubmit, 0, nil))
	e.Record(ctx, fact(agents.KindPromptSubmit, time.Second, nil)) // the same turn again: nothing new
	e.Record(ctx, fact(agents.KindToolStart, 2*time.Second, func(ev *agents.Event) { ev.SubagentID = "sub" }))
	e.Requested(ctx, client.PermissionView{ID: "perm1", Kind: client.KindPermission, Agent: "claude", SessionID: "s1",
		Title: "Fix the shop", Cwd: "/src/shop/api", Tool: "Bash", Summary: "npm test", CreatedAt: t0.Add(3 * time.Second)})
	e.Requested(ctx, client.PermissionView{ID: "q1", Kind: client.KindQuestion, Agent: "claude", SessionID: "s1", Cwd: "/src/shop/api",
		Tool: "AskUserQuestion", Summary: "Which DB?", Options: []string{"Postgres", "SQLite"}, CreatedAt: t0.Add(4 * time.Second)})
	f := fact(agents.KindTurnEnd, 10*time.Second, nil)
	f.Response = "All tests pass."
	e.Record(ctx, f)
	e.Record(ctx, f) // delivered twice
	e.Record(ctx, fact(agents.KindPromptSubmit, 20*time.Second, func(ev *agents.Event) { ev.TurnID = "p2" }))
	e.Record(ctx, fact(agents.KindTurnFailure, 21*time.Second, func(ev *agents.Event) { ev.TurnID = "p2"; ev.ErrorKind = "rate_limit" }))
	e.Record(ctx, fact(agents.KindPromptSubmit, 30*time.Second, func(ev *agents.Event) { ev.TurnID = "p3" }))
	e.Record(ctx, fact(agents.KindTurnEnd, 31*time.Second, func(ev *agents.Event) { ev.TurnID = "p3"; ev.Reason = agents.ReasonInterrupt }))

	got := outbox(t, e)
	var names []string
	for _, env := range got {
		names = append(names, string(env.EventName))
	}
	want := []string{"turn.started", "permission.requested", "question.requested", "response.committed", "turn.completed",
		"turn.started", "turn.failed", "turn.started", "turn.cancelled"}
	if strings.Join(names, ",") != strings.Join(want, ",") {
		t.Fatalf("outbox %v, want %v", names, want)
	}
	for _, env := range got {
		if env.Session.Title != "Fix the shop" && env.EventName != QuestionRequested {
			t.Errorf("%s: title %q", env.EventName, env.Session.Title)
		}
		if len(env.Workspaces) != 2 || env.Workspaces[0].Name != "shop" || env.PrimaryWorkspaceID != "/src/shop" {
			t.Errorf("%s: workspaces %+v, primary %q", env.EventName, env.Workspaces, env.PrimaryWorkspaceID)
		}
		if _, ok := env.Payload["text"]; ok != (env.EventName == ResponseCommitted) {
			t.Errorf("%s payload %v: the answer's text belongs to response.committed alone", env.EventName, env.Payload)
		}
		if !strings.HasPrefix(env.EventID, "hev_") || len(env.EventID) != 68 || env.SchemaVersion != 1 || env.Agent.Name != "Claude Code" {
			t.Errorf("%s: envelope %+v", env.EventName, env)
		}
	}
	if got[4].Turn.ID != "p1" || got[4].Payload["durationMs"] != float64(10000) {
		t.Errorf("turn.completed %+v", got[4])
	}
	if got[3].Payload["text"] != "All tests pass." {
		t.Errorf("response.committed payload %v", got[3].Payload)
	}
	if got[6].Payload["message"] != "rate_limit" || got[8].Payload["reason"] != agents.ReasonInterrupt {
		t.Errorf("failed %v, cancelled %v", got[6].Payload, got[8].Payload)
	}
	if got[2].Payload["options"].([]any)[1] != "SQLite" || got[1].Payload["summary"] != "npm test" || got[1].Turn.ID != "p1" {
		t.Errorf("question %v / permission %+v", got[2].Payload, got[1])
	}
}

// fakeDesktop records notifications and sounds.
type fakeDesktop struct {
	mu     sync.Mutex
	notes  []string
	sounds int
}

func (d *fakeDesktop) Notify(_ context.Context, title, body string) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.notes = append(d.notes, title+"|"+body)
	return nil
}

func (d *fakeDesktop) Sound(context.Context) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.sounds++
	return nil
}

// TestActions: notification texts (with the event's fallback title),
// sound, and a command run without a shell that reads the event on stdin.
func TestActions(t *testing.T) {
	ctx := context.Background()
	clock := newFakeClock()
	out := filepath.Join(t.TempDir(), "got.json")
	script := filepath.Join(t.TempDir(), "hook.sh")
	os.WriteFile(script, []byte("#!/bin/sh\ncat > \"$1\"\necho done $2\n"), 0o755)
	doc := `[[automation]]
id = "note"
event = "turn.completed"
action = { type = "notification", body = "${session.title} took ${payload.durationMs} ms" }

[[automation]]
id = "ding"
event = "turn.completed"
action = { type = "sound" }

[[automation]]
id = "cmd"
event = "turn.completed"
action = { type = "command", argv = ["` + script + `", "` + out + `", "; rm -rf /"] }
input = { who = { path = "agent.id" } }
`
	e := testEngine(t, clock, doc)
	d := &fakeDesktop{}
	e.o.Desktop = d
	for _, id := range []string{"note", "ding", "cmd"} {
		trust(t, e, id)
	}
	e.Observe(ctx, completed("s1", "t1", clock.Now()))
	drain(t, e)
	if len(d.notes) != 1 || d.notes[0] != "clawd: a turn is done|Fix the shop took 1200 ms" || d.sounds != 1 {
		t.Errorf("desktop: notes %q, sounds %d", d.notes, d.sounds)
	}
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var got body
	if json.Unmarshal(raw, &got) != nil || got.Input["who"] != "claude" || got.Event.EventName != TurnCompleted {
		t.Errorf("command stdin = %s", raw)
	}
	for _, r := range runsOf(t, e) {
		if r.State != StateSucceeded {
			t.Errorf("run %s = %+v", r.AutomationID, r)
		}
		if r.AutomationID == "cmd" && r.OutputSummary != "done ; rm -rf /" {
			t.Errorf("command output %q: the argument must reach the program as it is", r.OutputSummary)
		}
	}
}

// TestPreviewAndTestRun: a preview evaluates the last real event without
// acting; a test run acts without trust and is marked as a test.
func TestPreviewAndTestRun(t *testing.T) {
	ctx := context.Background()
	clock := newFakeClock()
	rec := newReceiver(t)
	e := testEngine(t, clock, webhookDef("w", rec.URL, `input = { t = { path = "session.title" } }
condition = { path = "agent.id", op = "eq", value = "codex" }
`))
	p, err := e.Preview(ctx, "w", nil)
	if err != nil || p.Event.Session.ID != "sample-session" || p.Matched || p.Trusted || p.Input["t"] != "Sample session" {
		t.Errorf("preview on a sample = %+v, %v", p, err)
	}
	e.Record(ctx, Fact{Event: agents.Event{Agent: "codex", Kind: agents.KindPromptSubmit, SessionID: "real", Time: clock.Now()}, Title: "Real one"})
	e.Record(ctx, Fact{Event: agents.Event{Agent: "codex", Kind: agents.KindTurnEnd, SessionID: "real", Time: clock.Now()}, Title: "Real one"})
	drain(t, e) // untrusted: blocked
	p, err = e.Preview(ctx, "w", nil)
	if err != nil || p.Event.Session.ID != "real" || !p.Matched || p.Input["t"] != "Real one" || p.Binding != "application" {
		t.Errorf("preview on the last event = %+v, %v", p, err)
	}
	calls := len(rec.got())
	id, err := e.TestRun(ctx, "w", nil)
	if err != nil {
		t.Fatal(err)
	}
	drain(t, e)
	if len(rec.got()) != calls+1 {
		t.Fatalf("a test run made %d calls, want 1", len(rec.got())-calls)
	}
	rs, _ := e.Runs(ctx, RunFilter{})
	for _, r := range rs {
		if r.ID == id && (!r.Test || r.State != StateSucceeded) {
			t.Errorf("test run %+v", r)
		}
	}
}

// TestRunsByPrefix: Runs keeps the runs whose id starts with the
// filter's prefix, taken as it is (a % or _ in it is no wildcard).
func TestRunsByPrefix(t *testing.T) {
	ctx := context.Background()
	clock := newFakeClock()
	rec := newReceiver(t)
	e := testEngine(t, clock, webhookDef("w", rec.URL, ""))
	var ids []string
	for range 3 {
		id, err := e.TestRun(ctx, "w", nil)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
		clock.Advance(time.Millisecond) // a test run's event is new at each time
	}
	drain(t, e)
	for _, c := range []struct {
		prefix string
		want   []string
	}{
		{ids[1], ids[1:2]},
		{ids[2][:len(ids[2])-3], ids[2:3]},
		{"run_", ids},
		{"run%", nil},
		{"run_" + "_", nil},
		{"nope", nil},
	} {
		rs, err := e.Runs(ctx, RunFilter{Prefix: c.prefix})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, r := range rs {
			got = append(got, r.ID)
		}
		slices.Sort(got)
		want := slices.Sorted(slices.Values(c.want))
		if !slices.Equal(got, want) {
			t.Errorf("Runs(prefix %q) = %v, want %v", c.prefix, got, want)
		}
	}
}
