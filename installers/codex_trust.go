package installers

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/clawdhq/clawd/agents"
)

// Codex runs a user hook only when config.toml trusts it:
//
//	[hooks.state."<source file>:<event_snake>:<group>:<handler>"]
//	trusted_hash = "sha256:<hex>"
//
// The key is the handler's place; the hash covers what the handler does,
// not where it is, so a handler that moves keeps its trust when its table
// moves with it.

// CodexHook is one command handler of Codex's hook configuration, as far
// as its trust hash goes.
type CodexHook struct {
	// Event is Codex's event name, e.g. "PreToolUse".
	Event string
	// Matcher is the matcher of the handler's group; nil when it has none.
	Matcher *string
	// Command is the shell command.
	Command string
	// Timeout is the handler's timeout in seconds; nil for Codex's default.
	Timeout *int
	// Async is the handler's async flag.
	Async bool
	// StatusMessage is the handler's statusMessage; nil when it has none.
	StatusMessage *string
}

// codexNoMatcher are the events whose matcher Codex drops, before
// matching and before hashing.
var codexNoMatcher = map[string]bool{"UserPromptSubmit": true, "Stop": true, "Interrupt": true}

// codexClamped are the events whose timeout Codex defaults to 1 s and
// clamps to at most 3 s.
var codexClamped = map[string]bool{"SessionEnd": true, "Interrupt": true}

// CodexTrustHash returns the trusted_hash Codex (verified with 0.169.0)
// expects for h: "sha256:" and the lowercase hex SHA-256 of the compact
// JSON, keys sorted, of {"event_name", "matcher" (when kept), "hooks":
// [{"type", "command", "timeout" (the effective value), "async",
// "statusMessage" (when set)}]}.
func CodexTrustHash(h CodexHook) string {
	timeout := 600
	if codexClamped[h.Event] {
		timeout = 1
	}
	if h.Timeout != nil {
		timeout = max(1, *h.Timeout)
		if codexClamped[h.Event] {
			timeout = min(timeout, 3)
		}
	}
	var b strings.Builder
	b.WriteString(`{"event_name":`)
	b.WriteString(canonicalJSONString(CodexEventLabel(h.Event)))
	b.WriteString(`,"hooks":[{"async":`)
	b.WriteString(strconv.FormatBool(h.Async))
	b.WriteString(`,"command":`)
	b.WriteString(canonicalJSONString(h.Command))
	if h.StatusMessage != nil {
		b.WriteString(`,"statusMessage":`)
		b.WriteString(canonicalJSONString(*h.StatusMessage))
	}
	b.WriteString(`,"timeout":`)
	b.WriteString(strconv.Itoa(timeout))
	b.WriteString(`,"type":"command"}]`)
	if h.Matcher != nil && !codexNoMatcher[h.Event] {
		b.WriteString(`,"matcher":`)
		b.WriteString(canonicalJSONString(*h.Matcher))
	}
	b.WriteString("}")
	sum := sha256.Sum256([]byte(b.String()))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// canonicalJSONString renders s as serde_json (and Python's json.dumps
// with ensure_ascii=False) do: only '"', '\\' and control characters are
// escaped.
func canonicalJSONString(s string) string { return serdeQuoting.quote(s) }

// CodexEventLabel returns the snake_case label Codex uses for an event in
// trust keys and hashes: "PreToolUse" → "pre_tool_use".
func CodexEventLabel(event string) string {
	var b strings.Builder
	for i := 0; i < len(event); i++ {
		c := event[i]
		if c >= 'A' && c <= 'Z' {
			if i > 0 {
				b.WriteByte('_')
			}
			c += 'a' - 'A'
		}
		b.WriteByte(c)
	}
	return b.String()
}

// CodexHookKey returns the [hooks.state] key of the handler at group,
// handler of event in the file at source (hooks.json, or config.toml for
// inline hooks).
func CodexHookKey(source, event string, group, handler int) string {
	return fmt.Sprintf("%s:%s:%d:%d", source, CodexEventLabel(event), group, handler)
}

// codexHandler is one handler found in hooks.json or config.toml.
type codexHandler struct {
	CodexHook
	group, handler int
	// ours is set for clawd's handlers.
	ours bool
	// hashable is set for a command handler whose hash clawd can compute.
	hashable bool
}

// TrustChanges counts the [hooks.state] trust entries an edit touched.
type TrustChanges struct {
	// Added entries trust clawd's new handlers.
	Added int
	// Updated entries got a new hash: clawd's handler changed.
	Updated int
	// Moved entries follow their handler to its new place (another tool's
	// handler moved when clawd's before it was removed).
	Moved int
	// Removed entries trusted clawd's handlers that are gone.
	Removed int
}

// Any reports whether anything changed.
func (c TrustChanges) Any() bool { return c.Added+c.Updated+c.Moved+c.Removed > 0 }

func (c *TrustChanges) add(o TrustChanges) {
	c.Added += o.Added
	c.Updated += o.Updated
	c.Moved += o.Moved
	c.Removed += o.Removed
}

// trustSource is one file of hooks before and after an edit.
type trustSource struct {
	// path is the file's absolute path: the prefix of its trust keys.
	path          string
	before, after []codexHandler
}

// editTrust rewrites the [hooks.state] tables of config (valid TOML) so
// that clawd's handlers in each source are trusted, clawd's removed
// handlers are not, and every foreign handler that moved keeps the trust
// it had. Tables of handlers that did not change are not touched.
func editTrust(config []byte, sources []trustSource) ([]byte, TrustChanges, error) {
	var ch TrustChanges
	m, err := decodeTOML(config)
	if err != nil {
		return nil, ch, err
	}
	doc, err := scanTOML(config)
	if err != nil {
		return nil, ch, err
	}
	state, err := trustState(m)
	if err != nil {
		return nil, ch, err
	}
	tables := map[string]int{} // key → index into doc.tables
	for i, t := range doc.tables {
		if len(t.path) == 3 && t.is(false, "hooks", "state", t.path[2]) {
			tables[t.path[2]] = i
		}
	}
	// table returns the table of key, or an error when config.toml has
	// the key in a form clawd cannot edit (an inline table, dotted keys).
	table := func(key string) (int, bool, error) {
		if i, ok := tables[key]; ok {
			return i, true, nil
		}
		if _, ok := state[key]; ok {
			return 0, false, shapeErrorf("hooks.state.%s is not written as a [hooks.state.%s] table; clawd cannot edit it", tomlQuote(key), tomlQuote(key))
		}
		return 0, false, nil
	}

	ed := newTOMLEditor(doc)
	var adds []tomlAddition
	for _, src := range sources {
		moved, err := movedForeign(src)
		if err != nil {
			return nil, ch, err
		}
		want := map[string]string{} // key → hash of clawd's handlers after
		var oursAfter []codexHandler
		for _, h := range src.after {
			if h.ours && h.hashable {
				want[CodexHookKey(src.path, h.Event, h.group, h.handler)] = CodexTrustHash(h.CodexHook)
				oursAfter = append(oursAfter, h)
			}
		}
		// New tables go in the order of agents.Codex.Hooks.
		slices.SortStableFunc(oursAfter, func(a, b codexHandler) int { return eventRank(a.Event) - eventRank(b.Event) })
		var order []string
		for _, h := range oursAfter {
			order = append(order, CodexHookKey(src.path, h.Event, h.group, h.handler))
		}
		gone := map[string]bool{} // keys of clawd's handlers that are no more
		for _, h := range src.before {
			if k := CodexHookKey(src.path, h.Event, h.group, h.handler); h.ours && want[k] == "" {
				gone[k] = true
			}
		}
		for k := range moved {
			if _, _, err := table(k); err != nil {
				return nil, ch, err
			}
		}
		for k := range gone {
			if _, _, err := table(k); err != nil {
				return nil, ch, err
			}
		}
		// Where each table ends up: moved with its foreign handler, removed
		// with clawd's, or where it is.
		final := map[string]int{} // final key → table index
		for i, t := range doc.tables {
			if len(t.path) != 3 || !t.is(false, "hooks", "state", t.path[2]) {
				continue
			}
			k := t.path[2]
			dest := k
			if to, ok := moved[k]; ok {
				ed.renameLast(t, to)
				ch.Moved++
				dest = to
			} else if gone[k] {
				ed.remove(i)
				ch.Removed++
				continue
			}
			if j, dup := final[dest]; dup && j != i {
				return nil, ch, fmt.Errorf("internal error: two trust tables would have the key %s", dest)
			}
			final[dest] = i
		}
		for _, k := range order {
			hash := want[k]
			i, ok := final[k]
			if !ok {
				if _, _, err := table(k); err != nil {
					return nil, ch, err
				}
				adds = append(adds, tomlAddition{
					after:  isTrustTable,
					tables: []newTOMLTable{{path: []string{"hooks", "state", k}, lines: []string{"trusted_hash = " + tomlQuote(hash)}}},
				})
				ch.Added++
				continue
			}
			t := doc.tables[i]
			e := t.get("trusted_hash")
			switch {
			case e == nil:
				ed.addLine(t, "trusted_hash = "+tomlQuote(hash))
			case stateHash(state, t.path[2]) != hash:
				ed.setValue(e, tomlQuote(hash))
			default:
				continue
			}
			ch.Updated++
		}
	}
	if !ed.changed() && len(adds) == 0 {
		return config, ch, nil
	}
	if len(adds) > 0 {
		if err := notInline(doc, []string{"hooks"}, []string{"hooks", "state"}); err != nil {
			return nil, ch, err
		}
	}
	out, err := finishConfig(ed, adds)
	if err != nil {
		return nil, ch, err
	}
	return out, ch, nil
}

// eventRank is the place of event in agents.Codex.Hooks (unknown events
// last).
func eventRank(event string) int {
	for i, s := range agents.Codex.Hooks {
		if s.Event == event {
			return i
		}
	}
	return len(agents.Codex.Hooks)
}

// isTrustTable selects a [hooks.state."..."] table: clawd adds its trust
// entries after the last one, else at the end of the file.
func isTrustTable(t *tomlTable) bool {
	return len(t.path) >= 2 && t.path[0] == "hooks" && t.path[1] == "state"
}

// trustState returns config.toml's hooks.state table (nil when absent).
func trustState(m map[string]any) (map[string]any, error) {
	h, ok := m["hooks"]
	if !ok {
		return nil, nil
	}
	hooks, ok := h.(map[string]any)
	if !ok {
		return nil, shapeErrorf("hooks must be a table")
	}
	s, ok := hooks["state"]
	if !ok {
		return nil, nil
	}
	state, ok := s.(map[string]any)
	if !ok {
		return nil, shapeErrorf("hooks.state must be a table")
	}
	return state, nil
}

// stateHash returns the trusted_hash of key in hooks.state.
func stateHash(state map[string]any, key string) string {
	t, _ := state[key].(map[string]any)
	s, _ := t["trusted_hash"].(string)
	return s
}

// notInline refuses a config.toml where one of the dotted paths is written
// as an inline table or a dotted key: TOML does not let a [header] extend
// such a table, so clawd cannot add its tables under it (and Codex would
// refuse the file).
func notInline(doc *tomlDoc, paths ...[]string) error {
	for _, t := range doc.tables {
		for _, e := range t.entries {
			full := append(slices.Clone(t.path), e.path...)
			for _, p := range paths {
				if slices.Equal(full, p) {
					k := tomlKeyPath(p)
					return shapeErrorf("%s is written as an inline table or dotted keys; clawd cannot add [%s.…] tables to it: write it as [%s.…] tables", k, k, k)
				}
			}
		}
	}
	return nil
}

// finishConfig applies ed's edits to config.toml and then adds adds,
// making sure the file still parses after each step.
func finishConfig(ed *tomlEditor, adds []tomlAddition) ([]byte, error) {
	out, err := ed.result()
	if err != nil {
		return nil, err
	}
	if _, err := decodeTOML(out); err != nil {
		return nil, fmt.Errorf("internal error: the edited config.toml would not parse (%v)", err)
	}
	out, err = addTOMLTables(out, adds)
	if err != nil {
		return nil, err
	}
	if _, err := decodeTOML(out); err != nil {
		return nil, fmt.Errorf("internal error: config.toml with clawd's tables added would not parse (%v)", err)
	}
	return out, nil
}

// movedForeign maps the trust key of every foreign handler that changed
// place to its new key. Foreign handlers are never added or removed, so
// the n-th foreign handler of an event before the edit is the n-th after.
func movedForeign(src trustSource) (map[string]string, error) {
	foreign := func(hs []codexHandler) map[string][]codexHandler {
		m := map[string][]codexHandler{}
		for _, h := range hs {
			if !h.ours {
				m[h.Event] = append(m[h.Event], h)
			}
		}
		return m
	}
	before, after := foreign(src.before), foreign(src.after)
	moved := map[string]string{}
	for event, bs := range before {
		as := after[event]
		if len(as) != len(bs) {
			return nil, fmt.Errorf("internal error: %d foreign %s handlers before the edit, %d after", len(bs), event, len(as))
		}
		for i, b := range bs {
			from := CodexHookKey(src.path, event, b.group, b.handler)
			to := CodexHookKey(src.path, event, as[i].group, as[i].handler)
			if from != to {
				moved[from] = to
			}
		}
	}
	return moved, nil
}
