package installers

import (
	"fmt"
	"strconv"

	"github.com/clawdhq/clawd/agents"
)

// Codex's hooks.json has the Claude Code shape, except that clawd's
// command names the event (`<clawd> hook codex <Event>`) and a handler's
// timeout may be spelled timeoutSec:
//
//	{"hooks": {"<Event>": [{"matcher": "...", "hooks": [{"type": "command", "command": "...", "timeout": N}]}]}}
//
// The handlers are the same minimal edits as InstallClaude's; what differs
// is that every handler's place (event, group, handler index) is part of
// its trust key in config.toml, so the edit appends and removes but never
// reorders.

// codexCommand returns the command clawd's handler for event runs.
func codexCommand(binary, event string) string {
	return Command(binary, agents.Codex.ID) + " " + event
}

// editCodexHooks returns hooks.json data with clawd's handlers installed
// for specs with the commands binary gives (specs nil: every clawd handler
// removed), and what changed. Foreign handlers and every other byte stay.
func editCodexHooks(data []byte, binary string, specs []agents.HookSpec) ([]byte, Changes, error) {
	install := specs != nil
	root, err := parse(data)
	if err != nil {
		return nil, Changes{}, err
	}
	if root == nil {
		if !install {
			return data, Changes{}, nil
		}
		doc := object{{"hooks", newCodexEvents(binary, specs)}}
		return []byte(render(doc, defaultLayout, "", true, "") + "\n"), Changes{Added: len(specs)}, nil
	}
	hooks, hooksIdx, err := codexHooksObject(root)
	if err != nil {
		return nil, Changes{}, err
	}
	ed := &editor{data: data, l: detectLayout(data, root)}
	var ch Changes
	if hooks == nil {
		if !install {
			return data, Changes{}, nil
		}
		ed.container(root, nil, []any{field{"hooks", newCodexEvents(binary, specs)}})
		return finish(ed, Changes{Added: len(specs)})
	}

	found := codexOurs(hooks)
	registered := map[string]agents.HookSpec{}
	for _, s := range specs {
		registered[s.Event] = s
	}
	drop := map[[2]int]map[int]bool{}
	kept := map[string]bool{}
	for _, f := range found {
		event := hooks.members[f.event].key
		spec, isRegistered := registered[event]
		if isRegistered && !kept[event] {
			kept[event] = true
			if ed.repairCodex(f.node, codexCommand(binary, event), spec.Timeout) {
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

	eventIdx := map[string]int{}
	dropEvents := map[int]bool{}
	for ei, m := range hooks.members {
		eventIdx[m.key] = ei
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
			add = append(add, newCodexGroup(binary, spec))
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
	for _, s := range specs {
		if _, ok := eventIdx[s.Event]; !ok {
			addEvents = append(addEvents, field{s.Event, array{newCodexGroup(binary, s)}})
			ch.Added++
		}
	}
	switch {
	case len(hooks.members) > 0 && len(dropEvents) == len(hooks.members) && len(addEvents) == 0:
		ed.container(root, map[int]bool{hooksIdx: true}, nil)
	case len(dropEvents) > 0 || len(addEvents) > 0:
		ed.container(hooks, dropEvents, addEvents)
	}
	return finish(ed, ch)
}

// codexHooksObject checks the layout of a parsed hooks.json and returns
// its "hooks" object (nil when there is none) and that member's index.
func codexHooksObject(root *node) (*node, int, error) {
	if root.kind != kindObject {
		return nil, 0, shapeErrorf("the top level must be an object, not %s", root.kind)
	}
	idx := -1
	for i, m := range root.members {
		if m.key == "hooks" {
			if idx >= 0 {
				return nil, 0, shapeErrorf(`"hooks" appears more than once`)
			}
			idx = i
		}
	}
	if idx < 0 {
		return nil, -1, nil
	}
	hooks := root.members[idx].value
	if hooks.kind != kindObject {
		return nil, 0, shapeErrorf(`"hooks" must be an object, not %s`, hooks.kind)
	}
	seen := map[string]bool{}
	for _, m := range hooks.members {
		where := "hooks." + jsonPathKey(m.key)
		if seen[m.key] {
			return nil, 0, shapeErrorf("%s appears more than once", where)
		}
		seen[m.key] = true
		if m.value.kind != kindArray {
			return nil, 0, shapeErrorf("%s must be an array, not %s", where, m.value.kind)
		}
		for gi, g := range m.value.elems {
			gwhere := fmt.Sprintf("%s[%d]", where, gi)
			if g.kind != kindObject {
				return nil, 0, shapeErrorf("%s must be an object, not %s", gwhere, g.kind)
			}
			hs, n := g.get("hooks")
			if n > 1 {
				return nil, 0, shapeErrorf(`%s has "hooks" more than once`, gwhere)
			}
			if hs != nil && hs.kind != kindArray {
				return nil, 0, shapeErrorf("%s.hooks must be an array, not %s", gwhere, hs.kind)
			}
		}
	}
	return hooks, idx, nil
}

// codexOurs finds clawd's handlers in a checked "hooks" object.
func codexOurs(hooks *node) []ours {
	var found []ours
	for ei, m := range hooks.members {
		for gi, g := range m.value.elems {
			hs, _ := g.get("hooks")
			if hs == nil {
				continue
			}
			for hi, h := range hs.elems {
				if h.kind != kindObject {
					continue
				}
				c, n := h.get("command")
				if n != 1 || c.kind != kindString {
					continue
				}
				if _, ok := ParseCommand(c.str, agents.Codex.ID); ok {
					found = append(found, ours{ei, gi, hi, h})
				}
			}
		}
	}
	return found
}

// repairCodex is repair for a Codex handler, whose timeout may be spelled
// timeoutSec.
func (ed *editor) repairCodex(h *node, command string, timeout int) bool {
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
	t, _ := h.get("timeout")
	if t == nil {
		t, _ = h.get("timeoutSec")
	}
	if t == nil {
		add = append(add, field{"timeout", timeout})
	} else if v, err := strconv.ParseFloat(string(ed.data[t.start:t.end]), 64); t.kind != kindNumber || err != nil || v != float64(timeout) {
		ed.replace(t, timeout)
	}
	if len(add) > 0 {
		ed.container(h, nil, add)
	}
	return len(ed.edits) > n
}

func newCodexEvents(binary string, specs []agents.HookSpec) object {
	o := make(object, 0, len(specs))
	for _, s := range specs {
		o = append(o, field{s.Event, array{newCodexGroup(binary, s)}})
	}
	return o
}

// newCodexGroup is the group clawd appends for one event: no matcher, so
// it fires for every tool.
func newCodexGroup(binary string, s agents.HookSpec) object {
	return object{{"hooks", array{object{
		{"type", "command"},
		{"command", codexCommand(binary, s.Event)},
		{"timeout", s.Timeout},
	}}}}
}

// jsonCodexHandlers lists every handler of a hooks.json (nil or blank:
// none) with its place and what its trust hash covers.
func jsonCodexHandlers(data []byte) ([]codexHandler, error) {
	root, err := parse(data)
	if err != nil || root == nil {
		return nil, err
	}
	hooks, _, err := codexHooksObject(root)
	if err != nil || hooks == nil {
		return nil, err
	}
	var out []codexHandler
	for _, m := range hooks.members {
		for gi, g := range m.value.elems {
			var matcher *string
			if mt, _ := g.get("matcher"); mt != nil && mt.kind == kindString {
				matcher = &mt.str
			}
			hs, _ := g.get("hooks")
			if hs == nil {
				continue
			}
			for hi, h := range hs.elems {
				ch := codexHandler{group: gi, handler: hi}
				ch.Event = m.key
				ch.Matcher = matcher
				if h.kind == kindObject {
					ch.hashable = true
					if t, _ := h.get("type"); t == nil || t.kind != kindString || t.str != "command" {
						ch.hashable = false
					}
					if c, _ := h.get("command"); c != nil && c.kind == kindString {
						ch.Command = c.str
						_, ch.ours = ParseCommand(c.str, agents.Codex.ID)
					} else {
						ch.hashable = false
					}
					t, _ := h.get("timeout")
					if t == nil {
						t, _ = h.get("timeoutSec")
					}
					if t != nil {
						v, err := strconv.Atoi(string(data[t.start:t.end]))
						if t.kind != kindNumber || err != nil {
							ch.hashable = false
						}
						ch.Timeout = &v
					}
					if a, _ := h.get("async"); a != nil {
						ch.Async = a.kind == kindBool && string(data[a.start:a.end]) == "true"
					}
					if sm, _ := h.get("statusMessage"); sm != nil && sm.kind == kindString {
						ch.StatusMessage = &sm.str
					}
				}
				out = append(out, ch)
			}
		}
	}
	return out, nil
}

// extraRootKeys returns the top-level keys of a hooks.json other than
// "hooks" and "description", which make Codex reject the file.
func extraRootKeys(data []byte) []string {
	root, err := parse(data)
	if err != nil || root == nil || root.kind != kindObject {
		return nil
	}
	var out []string
	for _, m := range root.members {
		if m.key != "hooks" && m.key != "description" {
			out = append(out, m.key)
		}
	}
	return out
}
