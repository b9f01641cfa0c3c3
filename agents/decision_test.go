package agents

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/tidwall/gjson"
)

const outputsDir = "../testdata/claude/outputs"

// suggestions returns the permission_suggestions of a captured payload,
// each element raw: what the hook passes through verbatim.
func suggestions(t *testing.T, fixture string) []json.RawMessage {
	t.Helper()
	var out []json.RawMessage
	gjson.GetBytes(readFixture(t, fixture), "permission_suggestions").ForEach(func(_, v gjson.Result) bool {
		out = append(out, json.RawMessage(v.Raw))
		return true
	})
	if len(out) == 0 {
		t.Fatalf("%s has no permission_suggestions", fixture)
	}
	return out
}

func TestClaudeRender(t *testing.T) {
	addRules := json.RawMessage(`{"type":"addRules","rules":[{"toolName":"Bash","ruleContent":"echo hello > out.txt"}],"behavior":"allow","destination":"session"}`)
	cases := []struct {
		want string // file in testdata/claude/outputs, verified against the real CLI
		d    *Decision
	}{
		{"PermissionRequest.allow.json", &Decision{Allow: true}},
		{"PermissionRequest.allow-addRules.json", &Decision{Allow: true, UpdatedPermissions: []json.RawMessage{addRules}}},
		{"PermissionRequest.allow-always-setMode.json", &Decision{Allow: true, UpdatedPermissions: suggestions(t, "PermissionRequest.setMode.json")}},
		{"PermissionRequest.deny.json", &Decision{Message: "Denied by the test hook"}},
		// A deny ignores allow-only fields.
		{"PermissionRequest.deny-interrupt.json", &Decision{Message: "stop now", Interrupt: true, UpdatedPermissions: []json.RawMessage{addRules}}},
		{"PermissionRequest.no-decision.json", nil},
		// ExitPlanMode: approve (Approve's decision) and keep planning.
		{"PermissionRequest.approve-plan.json", &Decision{Allow: true, UpdatedInput: json.RawMessage(`{}`)}},
		{"PermissionRequest.keep-planning.json", &Decision{Message: "Keep planning: add a rollback step."}},
	}
	for _, c := range cases {
		want, err := os.ReadFile(filepath.Join(outputsDir, c.want))
		if err != nil {
			t.Fatal(err)
		}
		got := Claude.Render("PermissionRequest", c.d)
		if !bytes.HasSuffix(got, []byte("\n")) || bytes.Count(got, []byte("\n")) != 1 {
			t.Errorf("Render(%s) = %q, want one line ending in a newline", c.want, got)
		}
		var g, w any
		if err := json.Unmarshal(got, &g); err != nil {
			t.Fatalf("Render(%s) = %q: not JSON: %v", c.want, got, err)
		}
		if err := json.Unmarshal(want, &w); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(g, w) {
			t.Errorf("Render(%s) = %s, want %s", c.want, got, want)
		}
	}
}

func TestClaudeRenderNoDecision(t *testing.T) {
	cases := []struct {
		event string
		d     *Decision
		want  string
	}{
		{"PermissionRequest", nil, "{}\n"},
		// Only PermissionRequest takes a decision; other events print
		// nothing at all.
		{"PreCompact", &Decision{Allow: true}, ""},
		{"Stop", nil, ""},
		// Updates that are not JSON cannot be printed: no decision rather
		// than output Claude Code would reject.
		{"PermissionRequest", &Decision{Allow: true, UpdatedPermissions: []json.RawMessage{json.RawMessage(`{broken`)}}, "{}\n"},
		{"PermissionRequest", &Decision{Allow: true, UpdatedInput: json.RawMessage(`{"answers":`)}, "{}\n"},
	}
	for _, c := range cases {
		if got := string(Claude.Render(c.event, c.d)); got != c.want {
			t.Errorf("Render(%q, %+v) = %q, want %q", c.event, c.d, got, c.want)
		}
	}
}

// The installer's timeout for PermissionRequest and the hook's own wait
// agree, with margin: the hook must answer before Claude Code kills it.
func TestPermissionWaitWithinInstallerTimeout(t *testing.T) {
	for _, a := range All() {
		for _, h := range a.Hooks {
			w := a.PermissionWait(h.Event)
			if !h.Blocking {
				if w != 0 {
					t.Errorf("%s PermissionWait(%s) = %v, want 0 for a non-blocking event", a.ID, h.Event, w)
				}
				continue
			}
			limit := time.Duration(h.Timeout) * time.Second
			if w <= 0 || w > limit-PermissionWaitMargin {
				t.Errorf("%s PermissionWait(%s) = %v, want > 0 and at most the installer's %v minus %v", a.ID, h.Event, w, limit, PermissionWaitMargin)
			}
		}
	}
	spec, _ := Claude.Hook("PermissionRequest")
	if spec.Timeout != ClaudePermissionTimeout {
		t.Errorf("installer timeout for PermissionRequest = %d, want ClaudePermissionTimeout %d", spec.Timeout, ClaudePermissionTimeout)
	}
	if got, want := Claude.PermissionWait("PermissionRequest"), ClaudePermissionTimeout*time.Second-30*time.Second; got != want {
		t.Errorf("Claude.PermissionWait(PermissionRequest) = %v, want %v", got, want)
	}
}

// TestDecisionWire: a Decision crosses from the runtime to the hook with
// its verdict as a word, and a verdict the hook does not know is refused
// rather than taken for a deny; so is an updated input that is not an
// object.
func TestDecisionWire(t *testing.T) {
	rule := json.RawMessage(`{"type":"addRules"}`)
	for _, d := range []Decision{
		{Allow: true},
		{Allow: true, UpdatedPermissions: []json.RawMessage{rule}},
		{Message: "not on main", Interrupt: true},
		{},
		{Allow: true, UpdatedInput: json.RawMessage(`{"answers":{"Which?":"a"}}`)},
		{Allow: true, Answers: [][]string{{"a"}, {"b", "own text"}}},
	} {
		b, err := json.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		var got Decision
		if err := json.Unmarshal(b, &got); err != nil || !reflect.DeepEqual(got, d) {
			t.Errorf("Unmarshal(Marshal(%+v)) = %+v, %v (wire %s)", d, got, err, b)
		}
	}
	if b, _ := json.Marshal(Decision{Allow: true}); string(b) != `{"behavior":"allow"}` {
		t.Errorf("Marshal(allow) = %s, want {\"behavior\":\"allow\"}", b)
	}
	if b, _ := json.Marshal(&Decision{Message: "no"}); string(b) != `{"behavior":"deny","message":"no"}` {
		t.Errorf("Marshal(deny) = %s, want {\"behavior\":\"deny\",\"message\":\"no\"}", b)
	}
	for _, in := range []string{`{"behavior":"ask"}`, `{"behavior":""}`, `{}`, `{"behavior":"ALLOW"}`,
		`{"behavior":"allow","updated_input":"x"}`, `{"behavior":"allow","updated_input":[1]}`} {
		var d Decision
		if err := json.Unmarshal([]byte(in), &d); err == nil {
			t.Errorf("Unmarshal(%s) = %+v, want an error", in, d)
		}
	}
}
