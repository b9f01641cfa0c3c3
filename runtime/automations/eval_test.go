package automations

import (
	"reflect"
	"testing"
	"time"
)

func testEnvelope() *Envelope {
	return &Envelope{
		SchemaVersion: 1, EventID: "hev_x", EventName: QuestionRequested,
		OccurredAt: time.Date(2026, 12, 1, 22, 30, 0, 0, time.UTC), Source: "clawd",
		Session:            SessionRef{ID: "s1", Title: "Fix the shop"},
		Turn:               &TurnRef{ID: "t1"},
		Agent:              &AgentRef{ID: "claude", Name: "Claude Code"},
		Workspaces:         []Workspace{{ID: "/src/shop", Name: "shop"}, {ID: "/src/shop/api", Name: "api"}},
		PrimaryWorkspaceID: "/src/shop",
		Payload:            map[string]any{"requestId": "r1", "tool": "AskUserQuestion", "summary": "Which DB?", "options": []any{"Postgres", "SQLite"}},
	}
}

func TestConditions(t *testing.T) {
	doc, err := document(testEnvelope())
	if err != nil {
		t.Fatal(err)
	}
	leaf := func(path, op string, v any) Condition { return Condition{Path: path, Op: op, Value: v} }
	tests := []struct {
		name string
		c    Condition
		want bool
	}{
		{"eq", leaf("agent.id", OpEq, "claude"), true},
		{"eq other", leaf("agent.id", OpEq, "codex"), false},
		{"ne", leaf("agent.id", OpNe, "codex"), true},
		{"ne missing", leaf("workspaces.5.name", OpNe, "x"), false},
		{"contains string", leaf("session.title", OpContains, "shop"), true},
		{"contains array", leaf("payload.options", OpContains, "SQLite"), true},
		{"contains array miss", leaf("payload.options", OpContains, "Mongo"), false},
		{"exists", leaf("turn.id", OpExists, nil), true},
		{"exists missing", leaf("workspaces.9.id", OpExists, nil), false},
		{"eq null on missing", leaf("workspaces.9.id", OpEq, nil), true},
		{"eq null on present", leaf("turn.id", OpEq, nil), false},
		{"matches", leaf("session.title", OpMatches, `(?i)^fix`), true},
		{"matches number field", leaf("schemaVersion", OpMatches, `1`), false},
		{"eq number", leaf("schemaVersion", OpEq, int64(1)), true},
		{"index", leaf("workspaces.1.name", OpEq, "api"), true},
		{"all", Condition{All: []Condition{leaf("agent.id", OpEq, "claude"), leaf("workspaces.0.name", OpContains, "shop")}}, true},
		{"all one false", Condition{All: []Condition{leaf("agent.id", OpEq, "claude"), leaf("workspaces.0.name", OpEq, "x")}}, false},
		{"any", Condition{Any: []Condition{leaf("agent.id", OpEq, "codex"), leaf("agent.id", OpEq, "claude")}}, true},
		{"not", Condition{Not: &Condition{Path: "agent.id", Op: OpEq, Value: "codex"}}, true},
		{"empty", Condition{}, true},
	}
	for _, tt := range tests {
		c := tt.c
		if err := c.check(QuestionRequested, "condition", 0); err != nil {
			t.Errorf("%s: check: %v", tt.name, err)
			continue
		}
		if got := c.eval(doc); got != tt.want {
			t.Errorf("%s: eval = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestMappings(t *testing.T) {
	doc, err := document(testEnvelope())
	if err != nil {
		t.Fatal(err)
	}
	in := Input{
		"agent":   {Path: "agent"},
		"count":   {Const: int64(3)},
		"ratio":   {Const: 0.5},
		"flag":    {Const: false},
		"nothing": {Null: true},
		"line":    {Template: "  ${ session.title } in ${workspaces.0.name}: ${payload.options}  "},
		"literal": {Template: "costs $${price} and ${turn.id}"},
		"missing": {Template: "[${workspaces.7.name}]"},
	}
	if err := in.check(QuestionRequested); err != nil {
		t.Fatal(err)
	}
	got, err := in.eval(doc)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"agent":   map[string]any{"id": "claude", "name": "Claude Code"},
		"count":   int64(3),
		"ratio":   0.5,
		"flag":    false,
		"nothing": nil,
		"line":    `Fix the shop in shop: ["Postgres","SQLite"]`,
		"literal": "costs ${price} and t1",
		"missing": "[]",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("eval =\n%#v\nwant\n%#v", got, want)
	}
	// A path that leads nowhere fails the mapping (nothing is sent).
	bad := Input{"x": {Path: "workspaces.7.name"}}
	if _, err := bad.eval(doc); err == nil {
		t.Error("a path out of range mapped without an error")
	}
}

func TestPaths(t *testing.T) {
	ok := []struct {
		path  string
		event EventName
	}{
		{"session.title", TurnStarted}, {"workspaces.3.name", TurnStarted}, {"payload.text", ResponseCommitted},
		{"payload.options.0", QuestionRequested}, {"payload", TurnCompleted}, {"agent", TurnFailed},
	}
	for _, c := range ok {
		if err := checkPath(c.path, c.event); err != nil {
			t.Errorf("checkPath(%s, %s) = %v", c.path, c.event, err)
		}
	}
	bad := []struct {
		path  string
		event EventName
	}{
		{"payload", TurnStarted}, {"payload.text", TurnCompleted}, {"__proto__", TurnCompleted}, {"$x", TurnCompleted},
		{"a..b", TurnCompleted}, {"session.secret", TurnCompleted}, {"payload.options.0", PermissionRequest}, {"1abc", TurnFailed},
	}
	for _, c := range bad {
		if err := checkPath(c.path, c.event); err == nil {
			t.Errorf("checkPath(%s, %s) accepted", c.path, c.event)
		}
	}
}
