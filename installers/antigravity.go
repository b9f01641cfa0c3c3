package installers

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"

	"github.com/clawdhq/clawd/agents"
)

// Antigravity installs clawd's hook group into Antigravity CLI's
// hooks.json: a member "clawd" of the top-level object holding one list
// per event, which install adds (or rewrites, when it is clawd's but
// differs) and uninstall removes; every other member stays byte for byte.
// A "clawd" member whose commands are not all clawd's hook commands is
// another program's, and never touched.
type Antigravity struct {
	// Path is the hooks file.
	Path string
}

// antigravityGroup is the name of clawd's hook group.
const antigravityGroup = "clawd"

// NewAntigravity returns the installer for hooks.json in agy's config
// folder (agents.Antigravity.ConfigDir).
func NewAntigravity(getenv func(string) string) (*Antigravity, error) {
	d, err := agents.Antigravity.ConfigDir(getenv)
	if err != nil {
		return nil, err
	}
	return &Antigravity{Path: filepath.Join(d, "hooks.json")}, nil
}

// Install adds clawd's group for binary, or repairs it.
func (a *Antigravity) Install(binary string, opts Options) (*Report, error) {
	if err := CheckBinary(binary); err != nil {
		return nil, err
	}
	return rewrite(agents.Antigravity.ID, a.Path, opts, nil, func(data []byte) ([]byte, Changes, error) {
		return editAntigravity(data, binary, opts.Known.With(binary))
	}, nil)
}

// Uninstall removes clawd's group.
func (a *Antigravity) Uninstall(opts Options) (*Report, error) {
	return rewrite(agents.Antigravity.ID, a.Path, opts, nil, func(data []byte) ([]byte, Changes, error) {
		return editAntigravity(data, "", opts.Known)
	}, func(data []byte) ([]byte, Changes, error) {
		return editAntigravity(data, placeholderBinary, opts.Known.With(placeholderBinary))
	})
}

// antigravityHooks is clawd's group for binary: a handler list per event,
// PostToolUse's in a group matching "*", as agy documents.
func antigravityHooks(binary string) object {
	var g object
	for _, s := range agents.Antigravity.Hooks {
		h := object{{"type", "command"}, {"command", Command(binary, agents.Antigravity.ID) + " " + s.Event}, {"timeout", s.Timeout}}
		if s.Event == "PostToolUse" {
			g = append(g, field{s.Event, array{object{{"matcher", "*"}, {"hooks", array{h}}}}})
		} else {
			g = append(g, field{s.Event, array{h}})
		}
	}
	return g
}

// editAntigravity returns hooks.json with clawd's group for binary ("":
// without it), and what changed.
func editAntigravity(data []byte, binary string, known Known) ([]byte, Changes, error) {
	root, err := parse(data)
	if err != nil {
		return nil, Changes{}, err
	}
	n := len(agents.Antigravity.Hooks)
	if root == nil {
		if binary == "" {
			return data, Changes{}, nil
		}
		out := render(object{{antigravityGroup, antigravityHooks(binary)}}, defaultLayout, "", true, "") + "\n"
		return []byte(out), Changes{Added: n}, nil
	}
	if root.kind != kindObject {
		return nil, Changes{}, shapeErrorf("the top level must be an object, not %s", root.kind)
	}
	idx := -1
	for i, m := range root.members {
		if m.key == antigravityGroup {
			if idx >= 0 {
				return nil, Changes{}, shapeErrorf(`%q appears more than once`, antigravityGroup)
			}
			idx = i
		}
	}
	ed := &editor{data: data, l: detectLayout(data, root)}
	var ch Changes
	switch {
	case idx < 0 && binary == "":
		return data, Changes{}, nil
	case idx < 0:
		ed.container(root, nil, []any{field{antigravityGroup, antigravityHooks(binary)}})
		ch.Added = n
	default:
		g := root.members[idx].value
		if !antigravityOurs(data[g.start:g.end], known) {
			return nil, Changes{}, fmt.Errorf("%w: its %q hook group runs other commands than clawd's", ErrNotOurs, antigravityGroup)
		}
		if binary == "" {
			ed.container(root, map[int]bool{idx: true}, nil)
			ch.Removed = n
			break
		}
		if sameJSON(data[g.start:g.end], []byte(render(antigravityHooks(binary), defaultLayout, "", false, ""))) {
			return data, Changes{}, nil
		}
		ed.container(root, map[int]bool{idx: true}, []any{field{antigravityGroup, antigravityHooks(binary)}})
		ch.Repaired = n
	}
	out, err := applyEdits(ed.data, ed.edits)
	if err != nil {
		return nil, Changes{}, err
	}
	if _, err := parse(out); err != nil {
		return nil, Changes{}, fmt.Errorf("internal error: the edited file would not parse (%v)", err)
	}
	return out, ch, nil
}

// antigravityOurs reports whether every command in the group is a hook
// command of clawd's for Antigravity (and there is one).
func antigravityOurs(group []byte, known Known) bool {
	var v any
	if json.Unmarshal(group, &v) != nil {
		return false
	}
	var cmds []string
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				if s, ok := x.(string); ok && k == "command" {
					cmds = append(cmds, s)
				} else {
					walk(x)
				}
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	walk(v)
	for _, c := range cmds {
		if _, ok := known.Ours(c, agents.Antigravity.ID); !ok {
			return false
		}
	}
	return len(cmds) > 0
}

// sameJSON reports whether a and b hold the same JSON value.
func sameJSON(a, b []byte) bool {
	var x, y any
	return json.Unmarshal(a, &x) == nil && json.Unmarshal(b, &y) == nil && reflect.DeepEqual(x, y)
}

// Hooks lists the handlers of clawd's group in hooks.json: the group's
// commands that are clawd's, by event (PostToolUse's inside its group).
func (a *Antigravity) Hooks(opts Options) ([]Hook, error) {
	root, _, err := readSettings(agents.Antigravity.ID, a.Path, false)
	if err != nil || root == nil {
		return nil, err
	}
	if root.kind != kindObject {
		return nil, fmt.Errorf("%s: %w", a.Path, shapeErrorf("the top level must be an object, not %s", root.kind))
	}
	g, _ := root.get(antigravityGroup)
	if g == nil || g.kind != kindObject {
		return nil, nil
	}
	var out []Hook
	var add func(event string, h *node)
	add = func(event string, h *node) {
		if h.kind != kindObject {
			return
		}
		if hs, _ := h.get("hooks"); hs != nil && hs.kind == kindArray {
			for _, x := range hs.elems {
				add(event, x)
			}
			return
		}
		if c, n := h.get("command"); n == 1 && c.kind == kindString {
			if bin, ok := opts.Known.Ours(c.str, agents.Antigravity.ID); ok {
				out = append(out, Hook{File: a.Path, Event: event, Command: c.str, Binary: bin})
			}
		}
	}
	for _, m := range g.members {
		if m.value.kind == kindArray {
			for _, h := range m.value.elems {
				add(m.key, h)
			}
		}
	}
	return out, nil
}
