package installers

import (
	"fmt"
	"path/filepath"
	"strconv"

	"github.com/clawdhq/clawd/agents"
)

// Kimi installs clawd's hooks into Kimi Code CLI's config.toml: one
// `[[hooks]]` table per event (event, command, matcher "", timeout), on
// the TOML editor, so that uninstall removes exactly the bytes install
// added.
type Kimi struct {
	// Path is the config file.
	Path string
}

// NewKimi returns the installer for config.toml in Kimi's folder
// (agents.Kimi.ConfigDir).
func NewKimi(getenv func(string) string) (*Kimi, error) {
	d, err := agents.Kimi.ConfigDir(getenv)
	if err != nil {
		return nil, err
	}
	return &Kimi{Path: filepath.Join(d, "config.toml")}, nil
}

// Install makes Kimi run `<binary> hook kimi <Event>` on every event in
// agents.Kimi.Hooks, repairing clawd's tables and removing extra ones.
func (k *Kimi) Install(binary string, opts Options) (*Report, error) {
	if err := CheckBinary(binary); err != nil {
		return nil, err
	}
	return rewrite(agents.Kimi.ID, k.Path, opts, nil, func(data []byte) ([]byte, Changes, error) {
		return editKimi(data, binary, agents.Kimi.Hooks, opts.Known.With(binary))
	}, nil)
}

// Uninstall removes every `[[hooks]]` table of clawd's.
func (k *Kimi) Uninstall(opts Options) (*Report, error) {
	return rewrite(agents.Kimi.ID, k.Path, opts, nil, func(data []byte) ([]byte, Changes, error) {
		return editKimi(data, "", nil, opts.Known)
	}, func(data []byte) ([]byte, Changes, error) {
		return editKimi(data, placeholderBinary, agents.Kimi.Hooks, opts.Known.With(placeholderBinary))
	})
}

// kimiCommand is the command of clawd's table for event.
func kimiCommand(binary, event string) string { return Command(binary, agents.Kimi.ID) + " " + event }

// editKimi returns config.toml's bytes with clawd's tables for specs
// (nil: none), and what changed. A table is clawd's when it is a
// `[[hooks]]` table whose command is a hook command of clawd's for Kimi.
func editKimi(data []byte, binary string, specs []agents.HookSpec, known Known) ([]byte, Changes, error) {
	m, err := decodeTOML(data)
	if err != nil {
		return nil, Changes{}, err
	}
	if _, ok := m["hooks"]; ok {
		if _, isTables := tableArray(m["hooks"]); !isTables {
			return nil, Changes{}, shapeErrorf(`"hooks" must be an array of [[hooks]] tables`)
		}
	}
	doc, err := scanTOML(data)
	if err != nil {
		return nil, Changes{}, err
	}
	for _, t := range doc.tables[1:] {
		if !t.array && len(t.path) > 0 && t.path[0] == "hooks" {
			return nil, Changes{}, shapeErrorf("[%s] is not a [[hooks]] table", tomlKeyPath(t.path))
		}
	}
	if doc.tables[0].get("hooks") != nil {
		return nil, Changes{}, shapeErrorf(`"hooks" is written inline; clawd adds [[hooks]] tables only`)
	}
	str := func(t *tomlTable, key string) string { return tomlString(data, t, key) }
	ed := newTOMLEditor(doc)
	var ch Changes
	kept := map[string]bool{}
	wanted := map[string]agents.HookSpec{}
	for _, s := range specs {
		wanted[s.Event] = s
	}
	for ti, t := range doc.tables {
		if !t.is(true, "hooks") {
			continue
		}
		if _, ok := known.Ours(str(t, "command"), agents.Kimi.ID); !ok {
			continue
		}
		event := str(t, "event")
		spec, ok := wanted[event]
		if !ok || kept[event] {
			ed.remove(ti)
			ch.Removed++
			continue
		}
		kept[event] = true
		n := len(ed.edits)
		for _, kv := range [][2]string{
			{"command", tomlQuote(kimiCommand(binary, event))},
			{"matcher", `""`},
			{"timeout", strconv.Itoa(spec.Timeout)},
		} {
			if e := t.get(kv[0]); e == nil {
				ed.addLine(t, kv[0]+" = "+kv[1])
			} else if string(data[e.value.start:e.value.end]) != kv[1] {
				ed.setValue(e, kv[1])
			}
		}
		if len(ed.edits) > n {
			ch.Repaired++
		}
	}
	var add []newTOMLTable
	for _, s := range specs {
		if !kept[s.Event] {
			add = append(add, newTOMLTable{array: true, path: []string{"hooks"}, lines: []string{
				"event = " + tomlQuote(s.Event),
				"command = " + tomlQuote(kimiCommand(binary, s.Event)),
				`matcher = ""`,
				"timeout = " + strconv.Itoa(s.Timeout),
			}})
			ch.Added++
		}
	}
	if !ed.changed() && len(add) == 0 {
		return data, Changes{}, nil
	}
	out, err := ed.result()
	if err != nil {
		return nil, Changes{}, err
	}
	if len(add) > 0 {
		// One block per table: a blank line between them, as people
		// write them.
		after := func(t *tomlTable) bool { return t.is(true, "hooks") }
		var adds []tomlAddition
		for _, t := range add {
			adds = append(adds, tomlAddition{after: after, tables: []newTOMLTable{t}})
		}
		if out, err = addTOMLTables(out, adds); err != nil {
			return nil, Changes{}, err
		}
	}
	if _, err := decodeTOML(out); err != nil {
		return nil, Changes{}, fmt.Errorf("internal error: the edited file would not parse (%v)", err)
	}
	return out, ch, nil
}

// tomlString is the string value of key in table t of data, or "".
func tomlString(data []byte, t *tomlTable, key string) string {
	if e := t.get(key); e != nil {
		if v, ok := decodeTOMLValue(data[e.value.start:e.value.end]); ok {
			s, _ := v.(string)
			return s
		}
	}
	return ""
}

// Hooks lists clawd's [[hooks]] tables in config.toml.
func (k *Kimi) Hooks(opts Options) ([]Hook, error) {
	t, err := readTarget(agents.Kimi.ID, k.Path)
	if err != nil || !t.existed {
		return nil, err
	}
	if _, err := decodeTOML(t.old); err != nil {
		return nil, fmt.Errorf("%s: %w", k.Path, err)
	}
	doc, err := scanTOML(t.old)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", k.Path, err)
	}
	var out []Hook
	for _, tb := range doc.tables {
		if !tb.is(true, "hooks") {
			continue
		}
		cmd := tomlString(t.old, tb, "command")
		if bin, ok := opts.Known.Ours(cmd, agents.Kimi.ID); ok {
			out = append(out, Hook{File: k.Path, Event: tomlString(t.old, tb, "event"), Command: cmd, Binary: bin})
		}
	}
	return out, nil
}
