package installers

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/clawdhq/clawd/agents"
)

// ErrUnexpectedShape reports a settings file that is valid JSON but not laid
// out the way the agent documents its hooks (for example "hooks" is a
// string). clawd does not guess; the file is left untouched.
var ErrUnexpectedShape = errors.New("unexpected settings layout")

type shapeError struct{ msg string }

func (e *shapeError) Error() string { return e.msg }
func (e *shapeError) Unwrap() error { return ErrUnexpectedShape }

func shapeErrorf(format string, args ...any) error {
	return &shapeError{fmt.Sprintf(format, args...)}
}

// Changes counts the hook handlers an edit touched.
type Changes struct {
	// Added handlers are new.
	Added int
	// Repaired handlers were clawd's already but pointed at another binary
	// or had the wrong timeout; they were rewritten in place.
	Repaired int
	// Removed handlers were clawd's: duplicates, ones under events clawd
	// does not register, or all of them on uninstall.
	Removed int
}

// Any reports whether anything changed.
func (c Changes) Any() bool { return c.Added+c.Repaired+c.Removed > 0 }

// hooksConfig says which handlers are clawd's and how they should look in
// a settings file of the Claude Code shape:
//
//	{"hooks": {"<Event>": [{"matcher": "...", "hooks": [{"type": "command", "command": "...", "timeout": N}]}]}}
type hooksConfig struct {
	agentID string
	// specs are the events to register; nil uninstalls.
	specs []agents.HookSpec
	// command is the exact command every handler runs.
	command string
}

// ours is one clawd handler found in the file.
type ours struct {
	event, group, handler int
	node                  *node
}

// editHooks returns data with clawd's handlers installed (cfg.specs set)
// or removed (cfg.specs nil), and what changed. Foreign handlers and every
// other byte stay as they are. On error data is not to be written.
func editHooks(data []byte, cfg hooksConfig) ([]byte, Changes, error) {
	install := cfg.specs != nil
	root, err := parse(data)
	if err != nil {
		return nil, Changes{}, err
	}
	if root == nil {
		// A missing or blank file.
		if !install {
			return data, Changes{}, nil
		}
		doc := object{{"hooks", newEvents(cfg)}}
		out := render(doc, defaultLayout, "", true, "") + "\n"
		return []byte(out), Changes{Added: len(cfg.specs)}, nil
	}
	if root.kind != kindObject {
		return nil, Changes{}, shapeErrorf("the top level must be an object, not %s", root.kind)
	}
	ed := &editor{data: data, l: detectLayout(data, root)}
	var ch Changes

	hooksIdx := -1
	for i, m := range root.members {
		if m.key == "hooks" {
			if hooksIdx >= 0 {
				return nil, Changes{}, shapeErrorf(`"hooks" appears more than once`)
			}
			hooksIdx = i
		}
	}
	if hooksIdx < 0 {
		if !install {
			return data, Changes{}, nil
		}
		ed.container(root, nil, []any{field{"hooks", newEvents(cfg)}})
		ch.Added = len(cfg.specs)
		return finish(ed, ch)
	}
	hooks := root.members[hooksIdx].value
	if hooks.kind != kindObject {
		return nil, Changes{}, shapeErrorf(`"hooks" must be an object, not %s`, hooks.kind)
	}

	// Find clawd's handlers, checking the layout on the way.
	eventIdx := map[string]int{}
	var found []ours
	for ei, m := range hooks.members {
		where := "hooks." + jsonPathKey(m.key)
		if _, dup := eventIdx[m.key]; dup {
			return nil, Changes{}, shapeErrorf("%s appears more than once", where)
		}
		eventIdx[m.key] = ei
		if m.value.kind != kindArray {
			return nil, Changes{}, shapeErrorf("%s must be an array, not %s", where, m.value.kind)
		}
		for gi, g := range m.value.elems {
			gwhere := fmt.Sprintf("%s[%d]", where, gi)
			if g.kind != kindObject {
				return nil, Changes{}, shapeErrorf("%s must be an object, not %s", gwhere, g.kind)
			}
			hs, n := g.get("hooks")
			if n > 1 {
				return nil, Changes{}, shapeErrorf(`%s has "hooks" more than once`, gwhere)
			}
			if hs == nil {
				continue
			}
			if hs.kind != kindArray {
				return nil, Changes{}, shapeErrorf("%s.hooks must be an array, not %s", gwhere, hs.kind)
			}
			for hi, h := range hs.elems {
				if h.kind != kindObject {
					continue
				}
				c, n := h.get("command")
				if n != 1 || c.kind != kindString {
					continue
				}
				if _, ok := ParseCommand(c.str, cfg.agentID); ok {
					found = append(found, ours{ei, gi, hi, h})
				}
			}
		}
	}

	// Decide: keep and repair the first handler of a registered event,
	// drop every other one of ours, add what is missing.
	registered := map[string]agents.HookSpec{}
	for _, s := range cfg.specs {
		registered[s.Event] = s
	}
	drop := map[[2]int]map[int]bool{} // {event, group} → handler indexes
	kept := map[string]bool{}
	for _, f := range found {
		event := hooks.members[f.event].key
		spec, isRegistered := registered[event]
		if isRegistered && !kept[event] {
			kept[event] = true
			if ed.repair(f.node, cfg.command, spec.Timeout) {
				ch.Repaired++
			}
			continue
		}
		k := [2]int{f.event, f.group}
		if drop[k] == nil {
			drop[k] = map[int]bool{}
		}
		drop[k][f.handler] = true
		ch.Removed++
	}

	dropEvents := map[int]bool{}
	for ei, m := range hooks.members {
		arr := m.value
		dropGroups := map[int]bool{}
		for gi, g := range arr.elems {
			d := drop[[2]int{ei, gi}]
			if len(d) == 0 {
				continue
			}
			hs, _ := g.get("hooks")
			if len(d) == len(hs.elems) {
				dropGroups[gi] = true
			} else {
				ed.container(hs, d, nil)
			}
		}
		var add []any
		if spec, ok := registered[m.key]; ok && !kept[m.key] {
			add = append(add, newGroup(cfg, spec))
			ch.Added++
		}
		switch {
		case len(arr.elems) > 0 && len(dropGroups) == len(arr.elems) && len(add) == 0:
			dropEvents[ei] = true
		case len(dropGroups) > 0 || len(add) > 0:
			ed.container(arr, dropGroups, add)
		}
	}
	var addEvents []any
	for _, s := range cfg.specs {
		if _, ok := eventIdx[s.Event]; !ok {
			addEvents = append(addEvents, field{s.Event, array{newGroup(cfg, s)}})
			ch.Added++
		}
	}
	switch {
	case len(hooks.members) > 0 && len(dropEvents) == len(hooks.members) && len(addEvents) == 0:
		// "hooks" held only clawd's handlers: remove it as install added it.
		ed.container(root, map[int]bool{hooksIdx: true}, nil)
	case len(dropEvents) > 0 || len(addEvents) > 0:
		ed.container(hooks, dropEvents, addEvents)
	}
	return finish(ed, ch)
}

// repair rewrites the tokens of handler h that differ from what clawd
// writes, in place, and reports whether it changed anything.
func (ed *editor) repair(h *node, command string, timeout int) bool {
	n := len(ed.edits)
	var add []any
	if t, _ := h.get("type"); t == nil {
		add = append(add, field{"type", "command"})
	} else if t.kind != kindString || t.str != "command" {
		ed.replace(t, "command")
	}
	if c, _ := h.get("command"); c.str != command {
		ed.replace(c, command)
	}
	if t, _ := h.get("timeout"); t == nil {
		add = append(add, field{"timeout", timeout})
	} else if v, err := strconv.ParseFloat(string(ed.data[t.start:t.end]), 64); t.kind != kindNumber || err != nil || v != float64(timeout) {
		ed.replace(t, timeout)
	}
	if len(add) > 0 {
		ed.container(h, nil, add)
	}
	return len(ed.edits) > n
}

// finish applies the edits and makes sure the result still parses.
func finish(ed *editor, ch Changes) ([]byte, Changes, error) {
	if len(ed.edits) == 0 {
		return ed.data, Changes{}, nil
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

// newEvents renders the whole hooks object for a file that has none.
func newEvents(cfg hooksConfig) object {
	o := make(object, 0, len(cfg.specs))
	for _, s := range cfg.specs {
		o = append(o, field{s.Event, array{newGroup(cfg, s)}})
	}
	return o
}

// newGroup is the group clawd appends for one event: no matcher, so it
// fires for everything.
func newGroup(cfg hooksConfig, s agents.HookSpec) object {
	return object{{"hooks", array{object{
		{"type", "command"},
		{"command", cfg.command},
		{"timeout", s.Timeout},
	}}}}
}

// jsonPathKey writes an object key for an error message: bare when it is
// a plain name, quoted otherwise.
func jsonPathKey(k string) string {
	if isEventName(k) {
		return k
	}
	return strconv.Quote(k)
}
