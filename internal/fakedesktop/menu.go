package fakedesktop

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/godbus/dbus/v5"
)

// MenuNode is one entry of a com.canonical.dbusmenu layout, with the
// properties hosts use decoded and the defaults of the spec applied.
type MenuNode struct {
	ID    int32
	Label string
	// Enabled and Visible default to true, as in the spec.
	Enabled bool
	Visible bool
	// Separator is set for "type" = "separator".
	Separator bool
	// ToggleType is "checkmark", "radio" or "".
	ToggleType string
	// ToggleState is 1 for on, 0 for off, -1 for indeterminate (the
	// default).
	ToggleState int32
	// Submenu is set for "children-display" = "submenu".
	Submenu  bool
	Children []*MenuNode
	// Props are all properties as sent.
	Props map[string]dbus.Variant
}

// Find returns the first node labelled label, depth first from n itself, or
// nil.
func (n *MenuNode) Find(label string) *MenuNode {
	if n == nil {
		return nil
	}
	if n.Label == label {
		return n
	}
	for _, c := range n.Children {
		if f := c.Find(label); f != nil {
			return f
		}
	}
	return nil
}

// FindPath follows labels down from n, one level per label, and returns the
// node reached, or nil: FindPath("More", "Click me") is the child "Click me"
// of n's child "More".
func (n *MenuNode) FindPath(labels ...string) *MenuNode {
	for _, l := range labels {
		if n == nil {
			return nil
		}
		i := slices.IndexFunc(n.Children, func(c *MenuNode) bool { return c.Label == l })
		if i < 0 {
			return nil
		}
		n = n.Children[i]
	}
	return n
}

// pathTo returns the nodes from n down to the node with id, or nil.
func (n *MenuNode) pathTo(id int32) []*MenuNode {
	if n.ID == id {
		return []*MenuNode{n}
	}
	for _, c := range n.Children {
		if p := c.pathTo(id); p != nil {
			return append([]*MenuNode{n}, p...)
		}
	}
	return nil
}

// String returns the tree indented one level per depth, one node a line, for
// failure messages.
func (n *MenuNode) String() string {
	var b strings.Builder
	var walk func(n *MenuNode, depth int)
	walk = func(n *MenuNode, depth int) {
		fmt.Fprintf(&b, "%s%s\n", strings.Repeat("  ", depth), n.describe())
		for _, c := range n.Children {
			walk(c, depth+1)
		}
	}
	if n != nil {
		walk(n, 0)
	}
	return b.String()
}

// describe is one line of String.
func (n *MenuNode) describe() string {
	s := fmt.Sprintf("%d %q", n.ID, n.Label)
	if n.Separator {
		s += " separator"
	}
	if n.Submenu {
		s += " submenu"
	}
	if n.ToggleType != "" {
		s += fmt.Sprintf(" %s=%d", n.ToggleType, n.ToggleState)
	}
	if !n.Enabled {
		s += " disabled"
	}
	if !n.Visible {
		s += " hidden"
	}
	return s
}

// decodeMenu decodes a layout (ia{sv}av) as godbus hands it over: a struct
// is a []any, possibly wrapped in a dbus.Variant, and children are variants
// of the same.
func decodeMenu(v any) (*MenuNode, error) {
	fields, ok := asSlice(v)
	if !ok || len(fields) != 3 {
		return nil, fmt.Errorf("menu layout: got %T, want (ia{sv}av)", unwrap(v))
	}
	id, ok := asInt(fields[0])
	if !ok {
		return nil, fmt.Errorf("menu layout: id is %T, want int32", unwrap(fields[0]))
	}
	props, ok := unwrap(fields[1]).(map[string]dbus.Variant)
	if !ok {
		return nil, fmt.Errorf("menu item %d: properties are %T, want a{sv}", id, unwrap(fields[1]))
	}
	children, ok := asSlice(fields[2])
	if !ok {
		return nil, fmt.Errorf("menu item %d: children are %T, want av", id, unwrap(fields[2]))
	}
	n := &MenuNode{
		ID:          int32(id),
		Enabled:     true,
		Visible:     true,
		ToggleState: -1,
		Props:       maps.Clone(props),
	}
	if n.Props == nil {
		n.Props = map[string]dbus.Variant{}
	}
	var bad []string
	str := func(key string, dst *string) {
		if p, ok := props[key]; ok {
			if s, ok := p.Value().(string); ok {
				*dst = s
			} else {
				bad = append(bad, key)
			}
		}
	}
	boolean := func(key string, dst *bool) {
		if p, ok := props[key]; ok {
			if b, ok := p.Value().(bool); ok {
				*dst = b
			} else {
				bad = append(bad, key)
			}
		}
	}
	var typ, display string
	str("label", &n.Label)
	str("type", &typ)
	str("toggle-type", &n.ToggleType)
	str("children-display", &display)
	boolean("enabled", &n.Enabled)
	boolean("visible", &n.Visible)
	if p, ok := props["toggle-state"]; ok {
		if s, ok := asInt(p.Value()); ok {
			n.ToggleState = int32(s)
		} else {
			bad = append(bad, "toggle-state")
		}
	}
	if bad != nil {
		return nil, fmt.Errorf("menu item %d: properties %v have the wrong type", id, bad)
	}
	n.Separator = typ == "separator"
	n.Submenu = display == "submenu"
	for i, c := range children {
		child, err := decodeMenu(c)
		if err != nil {
			return nil, fmt.Errorf("menu item %d child %d: %w", id, i, err)
		}
		n.Children = append(n.Children, child)
	}
	return n, nil
}

// unwrap returns the value inside any number of variants.
func unwrap(v any) any {
	for {
		vv, ok := v.(dbus.Variant)
		if !ok {
			return v
		}
		v = vv.Value()
	}
}

// asSlice returns the elements of a D-Bus struct or array: godbus decodes a
// struct into []any and an array into a typed slice ([]dbus.Variant,
// [][]any, ...). Byte arrays are not slices here.
func asSlice(v any) ([]any, bool) {
	v = unwrap(v)
	if s, ok := v.([]any); ok {
		return s, true
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Slice || rv.Type().Elem().Kind() == reflect.Uint8 {
		return nil, false
	}
	out := make([]any, rv.Len())
	for i := range out {
		out[i] = rv.Index(i).Interface()
	}
	return out, true
}

// asInt accepts any D-Bus integer type, since senders differ in which they
// use for the same property (fyne.io/systray sends toggle-state as int32,
// others use int64 or bytes).
func asInt(v any) (int64, bool) {
	switch x := unwrap(v).(type) {
	case int16:
		return int64(x), true
	case int32:
		return int64(x), true
	case int64:
		return x, true
	case uint8:
		return int64(x), true
	case uint16:
		return int64(x), true
	case uint32:
		return int64(x), true
	case uint64:
		return int64(x), true
	case int:
		return int64(x), true
	}
	return 0, false
}
