package agents

import (
	"errors"
	"slices"
	"testing"
	"time"
)

// TestSetCustom: registered custom agents are found by their id (any
// case, as every id), carry their display name and icon, answer nothing
// and install nothing; they are not among the supported agents All lists.
// An undeclared custom- id finds nothing, never another agent; a new
// SetCustom replaces the old set.
func TestSetCustom(t *testing.T) {
	t.Cleanup(func() { SetCustom(nil) })
	if err := SetCustom([]CustomSpec{{Name: "my-bot", Display: " My Bot ", Icon: "working"}, {Name: "ci", Display: "CI"}}); err != nil {
		t.Fatal(err)
	}
	a := Lookup(" Custom-My-Bot ")
	if a == nil || a.ID != "custom-my-bot" || a.Name != "My Bot" || a.Icon != "working" || !a.Custom {
		t.Fatalf("Lookup(custom-my-bot) = %+v", a)
	}
	if !a.Supports.States || a.Supports.Permissions || len(a.Hooks) > 0 || a.Decode != nil {
		t.Errorf("a custom agent supports %+v with %d hooks, want states only and nothing to decode", a.Supports, len(a.Hooks))
	}
	if out := a.Render("PermissionRequest", &Decision{Allow: true}); out != nil {
		t.Errorf("a custom agent renders an allow as %q, want no decision", out)
	}
	if _, err := a.ConfigDir(func(string) string { return "/home/x" }); err == nil {
		t.Errorf("a custom agent has a settings folder")
	}
	for _, id := range []string{"custom-nobody", "custom-", "custom-claude"} {
		if got := Lookup(id); got != nil {
			t.Errorf("Lookup(%q) = %s, want nil: an undeclared custom id is no agent", id, got.ID)
		}
	}
	if slices.ContainsFunc(All(), func(x *Agent) bool { return x.Custom }) {
		t.Errorf("All() lists a custom agent")
	}
	if got := Custom(); len(got) != 2 || got[0].ID != "custom-my-bot" || got[1].ID != "custom-ci" {
		t.Errorf("Custom() = %v", got)
	}
	e := Event{Agent: "custom-ci", Kind: KindState, State: "working", SessionID: "s", Time: time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)}
	if err := e.Validate(); err != nil {
		t.Errorf("a registered custom agent's event: %v", err)
	}
	if err := SetCustom([]CustomSpec{{Name: "other", Display: "Other"}}); err != nil {
		t.Fatal(err)
	}
	if Lookup("custom-ci") != nil || Lookup("custom-other") == nil {
		t.Errorf("SetCustom did not replace the set: custom-ci %v, custom-other %v", Lookup("custom-ci"), Lookup("custom-other"))
	}
	if err := e.Validate(); !errors.Is(err, ErrInvalidEvent) {
		t.Errorf("an event of a custom agent no longer declared: %v, want invalid", err)
	}
}

// TestSetCustomRefuses: a bad spec or a name twice changes nothing.
func TestSetCustomRefuses(t *testing.T) {
	t.Cleanup(func() { SetCustom(nil) })
	if err := SetCustom([]CustomSpec{{Name: "kept", Display: "Kept"}}); err != nil {
		t.Fatal(err)
	}
	for _, specs := range [][]CustomSpec{
		{{Name: "Bad Name", Display: "x"}},
		{{Name: "-x", Display: "x"}},
		{{Name: "ok", Display: ""}},
		{{Name: "ok", Display: "two\nlines"}},
		{{Name: "a", Display: "A"}, {Name: "a", Display: "B"}},
	} {
		if err := SetCustom(specs); err == nil {
			t.Errorf("SetCustom(%+v) = nil, want an error", specs)
		}
		if Lookup("custom-kept") == nil {
			t.Fatalf("SetCustom(%+v) failed yet dropped the agents before it", specs)
		}
	}
}
