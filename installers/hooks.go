package installers

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"time"

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
// a settings file of the Claude Code shape, which Codex's hooks.json
// shares:
//
//	{"hooks": {"<Event>": [{"matcher": "...", "hooks": [{"type": "command", "command": "...", "timeout": N}]}]}}
//
// The edit appends and removes but never reorders, since Codex's trust
// keys name every handler's place (event, group, handler index).
type hooksConfig struct {
	agentID string
	// specs are the events to register; nil uninstalls.
	specs []agents.HookSpec
	// keepOnly are events of specs whose clawd handler is repaired where
	// it is there and not added where it is not (agents.Agent.HooksFor).
	keepOnly map[string]bool
	// command returns the exact command the handler of event runs.
	command func(event string) string
	// timeoutAlias is another key a handler's timeout may be spelled with
	// (Codex's timeoutSec); "" when there is none.
	timeoutAlias string
	// known says which executables are clawd's beyond those named like it.
	known Known
	// jsonc reads the file as JSON with comments (Gemini's settings), and
	// keeps every comment.
	jsonc bool
	// timeoutUnit is what a handler's timeout counts: time.Second (zero
	// means that too) or time.Millisecond (Gemini).
	timeoutUnit time.Duration
	// name, when set, is the "name" clawd's handlers carry: how the agent
	// shows them and lets the person turn them off (Gemini's "Executing
	// Hook: clawd", hooksConfig.disabled). It never tells clawd's
	// handlers from others: the command does.
	name string
	// matcher, when set, is the "matcher" of each group clawd adds (the
	// agents whose documented entries carry one: Qoder, QwenWork).
	matcher string
	// flat: an event's list holds handlers themselves, {"command": ...},
	// not groups of them (Cursor's hooks.json, Reasonix's settings).
	flat bool
	// noType and noTimeout: clawd's handlers carry no "type", no
	// "timeout" (the agents whose documented entries have none).
	noType, noTimeout bool
	// extra are fields written after the command of each handler clawd
	// adds (Reasonix's "match": "*").
	extra object
	// version, when set, is the "version" a file clawd creates starts
	// with (Cursor's hooks.json: 1).
	version int
	// events, when set, is the key under "hooks" that holds the events
	// (ZCode's config.json: "hooks": {"enabled": true, "events": {...}});
	// "hooks" itself holds them otherwise.
	events string
	// enabled: the agent runs hooks only with "enabled": true beside the
	// events (ZCode). An install adds it where it is missing, and leaves
	// an "enabled": false the person set as it is (see disabled).
	enabled bool
	// root: the file's top level is the events object itself, no "hooks"
	// around it (Factory Droid's hooks.json).
	root bool
}

// disabledWarning is the warning of an install into a file whose hooks
// the person turned off.
const disabledWarning = `the agent's hooks are turned off ("enabled": false beside them): clawd's run once you turn them on`

// hooksDisabled reports whether data (a parsed settings file) has
// "enabled": false beside its events, for an agent whose hooks have that
// switch.
func (cfg hooksConfig) hooksDisabled(data []byte) bool {
	if !cfg.enabled {
		return false
	}
	root, err := cfg.parse(data)
	if err != nil || root == nil || root.kind != kindObject {
		return false
	}
	h, n := root.get("hooks")
	if n != 1 || h.kind != kindObject {
		return false
	}
	e, n := h.get("enabled")
	return n == 1 && e.kind == kindBool && string(data[e.start:e.end]) == "false"
}

// wrap nests the events object as the file holds it, from the level of
// "hooks" down: {"enabled": true, "events": events} for ZCode, events
// itself otherwise.
func (cfg hooksConfig) wrap(events object) any {
	if cfg.events == "" {
		return events
	}
	var o object
	if cfg.enabled {
		o = append(o, field{"enabled", true})
	}
	return append(o, field{cfg.events, events})
}

// parse parses a settings file the way cfg's agent reads it.
func (cfg hooksConfig) parse(data []byte) (*node, error) { return parseJSON(data, cfg.jsonc) }

// timeout is spec's timeout (seconds) in cfg's unit.
func (cfg hooksConfig) timeout(s agents.HookSpec) int {
	if cfg.timeoutUnit == 0 {
		return s.Timeout
	}
	return int(time.Duration(s.Timeout) * time.Second / cfg.timeoutUnit)
}

// found is one clawd handler in the file.
type found struct {
	event, group, handler int
	node                  *node
}

// editHooks returns data with clawd's handlers installed (cfg.specs set)
// or removed (cfg.specs nil), and what changed. Foreign handlers and every
// other byte stay as they are. On error data is not to be written.
func editHooks(data []byte, cfg hooksConfig) ([]byte, Changes, error) {
	install := cfg.specs != nil
	root, err := cfg.parse(data)
	if err != nil {
		return nil, Changes{}, err
	}
	if root == nil {
		// A missing or blank file.
		if !install {
			return data, Changes{}, nil
		}
		doc := object{{"hooks", cfg.wrap(newEvents(cfg))}}
		if cfg.root {
			doc = newEvents(cfg)
		}
		if cfg.version != 0 {
			doc = append(object{{"version", cfg.version}}, doc...)
		}
		out := render(doc, defaultLayout, "", true, "") + "\n"
		if cfg.jsonc && hasComment(data) {
			// Only comments so far: they stay, the settings go after.
			sep := ""
			if !bytes.HasSuffix(data, []byte("\n")) {
				sep = "\n"
			}
			out = string(data) + sep + out
		}
		return []byte(out), Changes{Added: len(newEvents(cfg))}, nil
	}
	hooks, hooksIdx, err := hooksObject(root)
	if cfg.root {
		hooks, err = root, nil
		if root.kind != kindObject {
			err = shapeErrorf("the top level must be an object, not %s", root.kind)
		}
	}
	if err == nil && hooks != nil && cfg.events == "" {
		err = checkEvents(hooks, cfg.eventsPath())
	}
	if err != nil {
		return nil, Changes{}, err
	}
	ed := &editor{data: data, l: detectLayout(data, root)}
	if hooks == nil {
		if !install {
			return data, Changes{}, nil
		}
		ed.container(root, nil, []any{field{"hooks", cfg.wrap(newEvents(cfg))}})
		return finish(ed, cfg, Changes{Added: len(newEvents(cfg))})
	}
	// parent is the object that holds the events: the root, or "hooks"
	// when the events are a level further down.
	parent := root
	if cfg.events != "" {
		parent = hooks
		var add []any
		if e, _ := hooks.get("enabled"); e == nil && cfg.enabled && install {
			add = append(add, field{"enabled", true})
		}
		hooks, hooksIdx, err = eventsMember(hooks, cfg.events)
		if err != nil {
			return nil, Changes{}, err
		}
		if hooks == nil {
			if !install {
				return data, Changes{}, nil
			}
			ed.container(parent, nil, append(add, field{cfg.events, newEvents(cfg)}))
			return finish(ed, cfg, Changes{Added: len(newEvents(cfg))})
		}
		if len(add) > 0 {
			ed.container(parent, nil, add)
		}
	}

	// Decide: keep and repair the first handler of a registered event,
	// drop every other one of ours, add what is missing.
	var ch Changes
	registered := map[string]agents.HookSpec{}
	for _, s := range cfg.specs {
		registered[s.Event] = s
	}
	drop := map[[2]int]map[int]bool{} // {event, group} → handler indexes
	kept := map[string]bool{}
	for _, f := range findOurs(hooks, cfg) {
		event := hooks.members[f.event].key
		spec, isRegistered := registered[event]
		if isRegistered && !kept[event] {
			kept[event] = true
			if ed.repair(f.node, cfg, event, cfg.timeout(spec)) {
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
			if cfg.flat || len(d) == len(hs.elems) && !ed.hasComments(g, hs) {
				dropGroups[gi] = true
			} else {
				ed.container(hs, d, nil)
			}
		}
		var add []any
		if spec, ok := registered[m.key]; ok && !kept[m.key] && !cfg.keepOnly[m.key] {
			add = append(add, newGroup(cfg, spec))
			ch.Added++
		}
		switch {
		case len(arr.elems) > 0 && len(dropGroups) == len(arr.elems) && len(add) == 0 && !ed.hasComments(arr):
			dropEvents[ei] = true
		case len(dropGroups) > 0 || len(add) > 0:
			ed.container(arr, dropGroups, add)
		}
	}
	var addEvents []any
	for _, s := range cfg.specs {
		if _, ok := eventIdx[s.Event]; !ok && !cfg.keepOnly[s.Event] {
			addEvents = append(addEvents, field{s.Event, array{newGroup(cfg, s)}})
			ch.Added++
		}
	}
	switch {
	case !cfg.root && len(hooks.members) > 0 && len(dropEvents) == len(hooks.members) && len(addEvents) == 0 && !ed.hasComments(hooks):
		// "hooks" held only clawd's handlers: remove it as install added it.
		ed.container(parent, map[int]bool{hooksIdx: true}, nil)
	case len(dropEvents) > 0 || len(addEvents) > 0:
		ed.container(hooks, dropEvents, addEvents)
	}
	return finish(ed, cfg, ch)
}

// eventsPath names the events object in errors: "hooks", or the file's
// top level for root.
func (cfg hooksConfig) eventsPath() string {
	if cfg.root {
		return ""
	}
	return "hooks"
}

// hooksObject checks the layout of a parsed settings file and returns its
// "hooks" object (nil when there is none) and that member's index.
func hooksObject(root *node) (*node, int, error) {
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
	return hooks, idx, nil
}

// eventsMember returns the member key of hooks (nil when there is none),
// checked as an events object, and its index.
func eventsMember(hooks *node, key string) (*node, int, error) {
	idx := -1
	for i, m := range hooks.members {
		if m.key == key {
			if idx >= 0 {
				return nil, 0, shapeErrorf(`"hooks.%s" appears more than once`, key)
			}
			idx = i
		}
	}
	if idx < 0 {
		return nil, -1, nil
	}
	events := hooks.members[idx].value
	if events.kind != kindObject {
		return nil, 0, shapeErrorf(`"hooks.%s" must be an object, not %s`, key, events.kind)
	}
	return events, idx, checkEvents(events, "hooks."+key)
}

// checkEvents checks the layout of an events object: each event an array
// of groups, each group an object whose "hooks", if any, is an array.
func checkEvents(hooks *node, prefix string) error {
	seen := map[string]bool{}
	for _, m := range hooks.members {
		where := prefix + "." + jsonPathKey(m.key)
		if prefix == "" {
			where = jsonPathKey(m.key)
		}
		if seen[m.key] {
			return shapeErrorf("%s appears more than once", where)
		}
		seen[m.key] = true
		if m.value.kind != kindArray {
			return shapeErrorf("%s must be an array, not %s", where, m.value.kind)
		}
		for gi, g := range m.value.elems {
			gwhere := fmt.Sprintf("%s[%d]", where, gi)
			if g.kind != kindObject {
				return shapeErrorf("%s must be an object, not %s", gwhere, g.kind)
			}
			hs, n := g.get("hooks")
			if n > 1 {
				return shapeErrorf(`%s has "hooks" more than once`, gwhere)
			}
			if hs != nil && hs.kind != kindArray {
				return shapeErrorf("%s.hooks must be an array, not %s", gwhere, hs.kind)
			}
		}
	}
	return nil
}

// findOurs finds clawd's handlers for cfg's agent in a checked "hooks"
// object.
func findOurs(hooks *node, cfg hooksConfig) []found {
	var out []found
	eachHandler(hooks, cfg, func(ei, gi, hi int, h *node, command string) {
		if _, ok := cfg.known.Ours(command, cfg.agentID); ok {
			out = append(out, found{ei, gi, hi, h})
		}
	})
	return out
}

// eachHandler calls fn with every handler of a "hooks" object in the
// shape cfg says (event → groups → handlers, or event → handlers when
// cfg.flat) that is an object with one string "command": the indexes of
// its event, group and handler, the handler, and its command. It is the
// one walk of that shape: findOurs and hookCommands read through it.
func eachHandler(hooks *node, cfg hooksConfig, fn func(ei, gi, hi int, h *node, command string)) {
	for ei, m := range hooks.members {
		for gi, g := range m.value.elems {
			hs, _ := g.get("hooks")
			if cfg.flat {
				hs = &node{kind: kindArray, elems: []*node{g}}
			}
			if hs == nil {
				continue
			}
			for hi, h := range hs.elems {
				if h.kind != kindObject {
					continue
				}
				if c, n := h.get("command"); n == 1 && c.kind == kindString {
					fn(ei, gi, hi, h, c.str)
				}
			}
		}
	}
}

// repair rewrites the tokens of handler h of event that differ from what
// clawd writes, in place, and reports whether it changed anything.
func (ed *editor) repair(h *node, cfg hooksConfig, event string, timeout int) bool {
	n := len(ed.edits)
	var add []any
	if cfg.name != "" {
		if nm, _ := h.get("name"); nm == nil {
			add = append(add, field{"name", cfg.name})
		} else if nm.kind != kindString || nm.str != cfg.name {
			ed.replace(nm, cfg.name)
		}
	}
	if c, _ := h.get("command"); c.str != cfg.command(event) {
		ed.replace(c, cfg.command(event))
	}
	for _, f := range cfg.extra {
		if v, _ := h.get(f.key); v == nil {
			add = append(add, f)
		} else if s, ok := f.value.(string); ok && (v.kind != kindString || v.str != s) {
			ed.replace(v, s)
		}
	}
	if t, _ := h.get("type"); cfg.noType {
	} else if t == nil {
		add = append(add, field{"type", "command"})
	} else if t.kind != kindString || t.str != "command" {
		ed.replace(t, "command")
	}
	if cfg.noTimeout {
		if len(add) > 0 {
			ed.container(h, nil, add)
		}
		return len(ed.edits) > n
	}
	t, _ := h.get("timeout")
	if t == nil && cfg.timeoutAlias != "" {
		t, _ = h.get(cfg.timeoutAlias)
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

// finish applies the edits and makes sure the result still parses.
func finish(ed *editor, cfg hooksConfig, ch Changes) ([]byte, Changes, error) {
	if len(ed.edits) == 0 {
		return ed.data, Changes{}, nil
	}
	out, err := applyEdits(ed.data, ed.edits)
	if err != nil {
		return nil, Changes{}, err
	}
	if _, err := cfg.parse(out); err != nil {
		return nil, Changes{}, fmt.Errorf("internal error: the edited file would not parse (%v)", err)
	}
	return out, ch, nil
}

// newEvents renders the whole hooks object for a file that has none.
func newEvents(cfg hooksConfig) object {
	o := make(object, 0, len(cfg.specs))
	for _, s := range cfg.specs {
		if !cfg.keepOnly[s.Event] {
			o = append(o, field{s.Event, array{newGroup(cfg, s)}})
		}
	}
	return o
}

// newGroup is the group clawd appends for one event: no matcher, so it
// fires for everything.
func newGroup(cfg hooksConfig, s agents.HookSpec) object {
	var h object
	if !cfg.noType {
		h = append(h, field{"type", "command"})
	}
	h = append(h, field{"command", cfg.command(s.Event)})
	if !cfg.noTimeout {
		h = append(h, field{"timeout", cfg.timeout(s)})
	}
	h = append(h, cfg.extra...)
	if cfg.name != "" {
		h = append(object{{"name", cfg.name}}, h...)
	}
	if cfg.flat {
		return h
	}
	if cfg.matcher != "" {
		return object{{"matcher", cfg.matcher}, {"hooks", array{h}}}
	}
	return object{{"hooks", array{h}}}
}

// jsonPathKey writes an object key for an error message: bare when it is
// a plain name, quoted otherwise.
func jsonPathKey(k string) string {
	if isEventName(k) {
		return k
	}
	return strconv.Quote(k)
}
