package agents

import (
	"encoding/json"
	"testing"
)

// TestZCodeRender: ZCode's PermissionRequest answers are the minimal
// hookSpecificOutput its strict schema takes: an "always" is a plain
// allow, a deny carries the person's message or none, never an interrupt;
// no decision and other events are `{}`.
func TestZCodeRender(t *testing.T) {
	always := []json.RawMessage{json.RawMessage(`{"type":"addRules"}`)}
	for _, c := range []struct {
		name string
		d    *Decision
		want string
	}{
		{"allow", &Decision{Allow: true}, `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}`},
		{"always", &Decision{Allow: true, UpdatedPermissions: always}, `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}`},
		{"deny", &Decision{Message: "not on main", Interrupt: true}, `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"not on main"}}}`},
		{"deny, no message", &Decision{}, `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny"}}}`},
		{"no decision", nil, `{}`},
	} {
		if got := string(ZCode.Render("PermissionRequest", c.d)); got != c.want+"\n" {
			t.Errorf("%s: Render = %s, want %s", c.name, got, c.want)
		}
	}
	if got := string(ZCode.Render("Stop", &Decision{Allow: true})); got != "{}\n" {
		t.Errorf("Render(Stop) = %q, want {}", got)
	}
	if w := ZCode.PermissionWait("PermissionRequest"); w <= 0 {
		t.Errorf("PermissionWait = %v, want the 600 s hook timeout less the margin", w)
	}
}
