package installers

import (
	"slices"
	"strconv"

	"github.com/clawdhq/clawd/agents"
)

// Codex also reads hooks written inline in config.toml, one array of
// tables per event (codex-hooks.md §3.3):
//
//	[[hooks.PreToolUse]]
//	matcher = "*"
//	[[hooks.PreToolUse.hooks]]
//	type = "command"
//	command = "..."
//	timeout = 10
//
// clawd writes its handlers there only for a user who keeps all hooks in
// that form, and edits only handlers written as such tables.

// inlineCodexHandlers lists the handlers of config.toml's inline hooks (m
// is the decoded file), in file order per event; known tells clawd's.
func inlineCodexHandlers(m map[string]any, known Known) ([]codexHandler, error) {
	hooks, _ := m["hooks"].(map[string]any)
	var out []codexHandler
	for _, event := range inlineEvents(hooks) {
		groups, ok := tableArray(hooks[event])
		if !ok {
			// Not an event's handlers: nothing clawd reads or writes.
			continue
		}
		for gi, g := range groups {
			var matcher *string
			if s, ok := g["matcher"].(string); ok {
				matcher = &s
			}
			var hs []map[string]any
			if v, ok := g["hooks"]; ok {
				if hs, ok = tableArray(v); !ok {
					return nil, shapeErrorf("hooks.%s[%d].hooks must be an array of tables", tomlKeyPart(event), gi)
				}
			}
			for hi, h := range hs {
				ch := codexHandler{group: gi, handler: hi, hashable: true}
				ch.Event = event
				ch.Matcher = matcher
				if t, _ := h["type"].(string); t != "command" {
					ch.hashable = false
				}
				if c, ok := h["command"].(string); ok {
					ch.Command = c
					_, ch.ours = known.Ours(c, agents.Codex.ID)
				} else {
					ch.hashable = false
				}
				t, ok := h["timeout"]
				if !ok {
					t, ok = h["timeoutSec"]
				}
				if ok {
					n, isInt := t.(int64)
					if !isInt || int64(int(n)) != n {
						ch.hashable = false
					}
					v := int(n)
					ch.Timeout = &v
				}
				ch.Async, _ = h["async"].(bool)
				if s, ok := h["statusMessage"].(string); ok {
					ch.StatusMessage = &s
				}
				out = append(out, ch)
			}
		}
	}
	return out, nil
}

// inlineEvents returns the keys of config.toml's hooks table that are
// events (every key but "state"), sorted.
func inlineEvents(hooks map[string]any) []string {
	var out []string
	for k := range hooks {
		if k != "state" {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// tableArray returns v as an array of tables.
func tableArray(v any) ([]map[string]any, bool) {
	switch v := v.(type) {
	case []map[string]any:
		return v, true
	case []any:
		out := make([]map[string]any, len(v))
		for i, e := range v {
			m, ok := e.(map[string]any)
			if !ok {
				return nil, false
			}
			out[i] = m
		}
		return out, true
	}
	return nil, false
}

// inlineGroup is one [[hooks.<Event>]] table and its [[hooks.<Event>.hooks]]
// tables, as indexes into the scanned file's tables.
type inlineGroup struct {
	table    int
	handlers []int
}

// inlineLayout finds the tables of each event's groups. An event whose
// groups or handlers are not all written as tables is absent: clawd does
// not edit it.
func inlineLayout(doc *tomlDoc, hooks map[string]any) map[string][]inlineGroup {
	found := map[string][]inlineGroup{}
	for i, t := range doc.tables {
		switch {
		case len(t.path) == 2 && t.is(true, "hooks", t.path[1]):
			found[t.path[1]] = append(found[t.path[1]], inlineGroup{table: i})
		case len(t.path) == 3 && t.is(true, "hooks", t.path[1], "hooks"):
			gs := found[t.path[1]]
			if len(gs) > 0 {
				gs[len(gs)-1].handlers = append(gs[len(gs)-1].handlers, i)
			}
		}
	}
	out := map[string][]inlineGroup{}
	for event, gs := range found {
		groups, _ := tableArray(hooks[event])
		if len(groups) != len(gs) {
			continue
		}
		ok := true
		for gi, g := range groups {
			hs, _ := tableArray(g["hooks"])
			if len(hs) != len(gs[gi].handlers) {
				ok = false
			}
		}
		if ok {
			out[event] = gs
		}
	}
	return out
}

// editInlineHooks returns config.toml data (valid TOML; m is it decoded)
// with clawd's inline handlers installed for specs (nil: every inline
// clawd handler, as known tells them, removed), and what changed.
func editInlineHooks(data []byte, m map[string]any, binary string, specs []agents.HookSpec, known Known) ([]byte, Changes, error) {
	var ch Changes
	handlers, err := inlineCodexHandlers(m, known)
	if err != nil {
		return nil, ch, err
	}
	registered := map[string]agents.HookSpec{}
	for _, s := range specs {
		registered[s.Event] = s
	}
	hasOurs := false
	for _, h := range handlers {
		hasOurs = hasOurs || h.ours
	}
	if !hasOurs && len(specs) == 0 {
		return data, ch, nil
	}
	doc, err := scanTOML(data)
	if err != nil {
		return nil, ch, err
	}
	hooks, _ := m["hooks"].(map[string]any)
	layout := inlineLayout(doc, hooks)
	editable := func(event string) error {
		if _, ok := layout[event]; !ok {
			k := tomlKeyPart(event)
			return shapeErrorf("hooks.%s is not written as [[hooks.%s]] and [[hooks.%s.hooks]] tables; clawd cannot edit it", k, k, k)
		}
		return nil
	}
	ed := newTOMLEditor(doc)
	kept := map[string]bool{}
	dropped := map[string]map[int]int{} // event → group → handlers dropped
	for _, h := range handlers {
		if !h.ours {
			continue
		}
		if err := editable(h.Event); err != nil {
			return nil, ch, err
		}
		gs := layout[h.Event]
		t := doc.tables[gs[h.group].handlers[h.handler]]
		if spec, ok := registered[h.Event]; ok && !kept[h.Event] {
			kept[h.Event] = true
			if repairInline(ed, t, codexCommand(binary, h.Event), spec.Timeout) {
				ch.Repaired++
			}
			continue
		}
		ed.remove(gs[h.group].handlers[h.handler])
		ch.Removed++
		if dropped[h.Event] == nil {
			dropped[h.Event] = map[int]int{}
		}
		dropped[h.Event][h.group]++
		if dropped[h.Event][h.group] == len(gs[h.group].handlers) {
			// The group held only clawd's handlers: it goes too.
			ed.remove(gs[h.group].table)
		}
	}
	var adds []tomlAddition
	for _, s := range specs {
		if kept[s.Event] {
			continue
		}
		if _, exists := hooks[s.Event]; exists {
			if err := editable(s.Event); err != nil {
				return nil, ch, err
			}
		}
		adds = append(adds, tomlAddition{after: isInlineHookTable, tables: newInlineGroup(binary, s)})
		ch.Added++
	}
	if len(adds) > 0 {
		if err := notInline(doc, []string{"hooks"}); err != nil {
			return nil, ch, err
		}
	}
	out, err := finishConfig(ed, adds)
	if err != nil {
		return nil, ch, err
	}
	return out, ch, nil
}

// isInlineHookTable selects the tables of inline hooks: clawd adds its
// groups after the last one, else at the end of the file.
func isInlineHookTable(t *tomlTable) bool {
	return len(t.path) >= 2 && t.path[0] == "hooks" && t.path[1] != "state"
}

// repairInline rewrites the values of clawd's inline handler t that
// differ from what clawd writes, and reports whether it changed anything.
func repairInline(ed *tomlEditor, t *tomlTable, command string, timeout int) bool {
	n := len(ed.edits)
	value := func(e *tomlEntry) any {
		v, _ := decodeTOMLValue(ed.doc.data[e.value.start:e.value.end])
		return v
	}
	if e := t.get("type"); e == nil {
		ed.addLine(t, `type = "command"`)
	} else if value(e) != "command" {
		ed.setValue(e, `"command"`)
	}
	if e := t.get("command"); e != nil && value(e) != command {
		ed.setValue(e, tomlQuote(command))
	}
	e := t.get("timeout")
	if e == nil {
		e = t.get("timeoutSec")
	}
	if e == nil {
		ed.addLine(t, "timeout = "+strconv.Itoa(timeout))
	} else if value(e) != int64(timeout) {
		ed.setValue(e, strconv.Itoa(timeout))
	}
	return len(ed.edits) > n
}

// decodeTOMLValue decodes one TOML value as written.
func decodeTOMLValue(v []byte) (any, bool) {
	m, err := decodeTOML(append([]byte("v = "), v...))
	if err != nil {
		return nil, false
	}
	return m["v"], true
}

// newInlineGroup is the group clawd adds for one event: no matcher, one
// handler.
func newInlineGroup(binary string, s agents.HookSpec) []newTOMLTable {
	return []newTOMLTable{
		{array: true, path: []string{"hooks", s.Event}},
		{array: true, path: []string{"hooks", s.Event, "hooks"}, lines: []string{
			`type = "command"`,
			"command = " + tomlQuote(codexCommand(binary, s.Event)),
			"timeout = " + strconv.Itoa(s.Timeout),
		}},
	}
}
