package fakedesktop

import (
	"strings"
	"testing"

	"github.com/godbus/dbus/v5"
)

// wire builds a layout node as godbus decodes it: (ia{sv}av) as []any, the
// children as variants of the same.
func wire(id int32, props map[string]any, children ...any) []any {
	p := map[string]dbus.Variant{}
	for k, v := range props {
		p[k] = dbus.MakeVariant(v)
	}
	kids := []dbus.Variant{}
	for _, c := range children {
		kids = append(kids, dbus.MakeVariant(c))
	}
	return []any{id, p, kids}
}

func TestDecodeMenu(t *testing.T) {
	tree := wire(0, map[string]any{"children-display": "submenu"},
		wire(1, map[string]any{"label": "Hello"}),
		wire(2, map[string]any{"type": "separator"}),
		wire(3, map[string]any{"label": "More", "children-display": "submenu"},
			wire(4, map[string]any{"label": "Click me", "enabled": false, "visible": false}),
		),
		wire(5, map[string]any{"label": "Check", "toggle-type": "checkmark", "toggle-state": int32(1)}),
		wire(6, map[string]any{"label": "Radio", "toggle-type": "radio", "toggle-state": int64(0)}),
	)
	root, err := decodeMenu(tree)
	if err != nil {
		t.Fatal(err)
	}
	want := `0 "" submenu
  1 "Hello"
  2 "" separator
  3 "More" submenu
    4 "Click me" disabled hidden
  5 "Check" checkmark=1
  6 "Radio" radio=0
`
	if got := root.String(); got != want {
		t.Errorf("decodeMenu(...).String() =\n%s\nwant\n%s", got, want)
	}
	hello := root.Find("Hello")
	if hello == nil || !hello.Enabled || !hello.Visible || hello.ToggleState != -1 || hello.Props["label"].Value() != "Hello" {
		t.Errorf("Hello = %+v, want enabled, visible, toggle-state -1 (the defaults), props kept", hello)
	}

	// The layout may also come wrapped in a variant, as from a Get.
	if again, err := decodeMenu(dbus.MakeVariant(tree)); err != nil || again.String() != want {
		t.Errorf("decodeMenu(variant) = %v, %v", again, err)
	}
}

func TestDecodeMenuErrors(t *testing.T) {
	tests := []struct {
		name string
		in   any
		want string
	}{
		{"not a struct", "layout", "want (ia{sv}av)"},
		{"short struct", []any{int32(0), map[string]dbus.Variant{}}, "want (ia{sv}av)"},
		{"string id", []any{"0", map[string]dbus.Variant{}, []dbus.Variant{}}, "id is string"},
		{"props not a map", []any{int32(0), []string{}, []dbus.Variant{}}, "properties are []string"},
		{"children not an array", []any{int32(0), map[string]dbus.Variant{}, "none"}, "children are string"},
		{"label not a string", wire(1, map[string]any{"label": int32(3)}), "[label] have the wrong type"},
		{"enabled not a bool", wire(1, map[string]any{"enabled": "yes"}), "[enabled] have the wrong type"},
		{"toggle-state not a number", wire(1, map[string]any{"toggle-state": "on"}), "[toggle-state] have the wrong type"},
		{"bad child", wire(0, nil, wire(1, nil), "child"), "menu item 0 child 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, err := decodeMenu(tt.in)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("decodeMenu(%v) = %v, %v; want an error containing %q", tt.in, n, err, tt.want)
			}
		})
	}
}

func TestFind(t *testing.T) {
	root, err := decodeMenu(wire(0, nil,
		wire(1, map[string]any{"label": "Sessions"},
			wire(2, map[string]any{"label": "Open"}),
		),
		wire(3, map[string]any{"label": "Open"}),
		wire(4, map[string]any{"label": "Quit"}),
	))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		find   func() *MenuNode
		name   string
		wantID int32 // -1: nil
	}{
		{func() *MenuNode { return root.Find("Open") }, "Find(Open), depth first", 2},
		{func() *MenuNode { return root.Find("Quit") }, "Find(Quit)", 4},
		{func() *MenuNode { return root.Find("Nope") }, "Find(Nope)", -1},
		{func() *MenuNode { return root.FindPath("Open") }, "FindPath(Open), top level only", 3},
		{func() *MenuNode { return root.FindPath("Sessions", "Open") }, "FindPath(Sessions, Open)", 2},
		{func() *MenuNode { return root.FindPath("Quit", "Open") }, "FindPath(Quit, Open)", -1},
		{func() *MenuNode { return root.FindPath() }, "FindPath()", 0},
		{func() *MenuNode { return (*MenuNode)(nil).Find("Open") }, "nil.Find", -1},
	}
	for _, tt := range tests {
		got := tt.find()
		switch {
		case tt.wantID == -1 && got != nil:
			t.Errorf("%s = %d, want nil", tt.name, got.ID)
		case tt.wantID != -1 && (got == nil || got.ID != tt.wantID):
			t.Errorf("%s = %v, want id %d", tt.name, got, tt.wantID)
		}
	}
	if p := root.pathTo(2); len(p) != 3 || p[0].ID != 0 || p[1].ID != 1 || p[2].ID != 2 {
		t.Errorf("pathTo(2) = %v, want ids 0 1 2", p)
	}
	if p := root.pathTo(9); p != nil {
		t.Errorf("pathTo(9) = %v, want nil", p)
	}
}
