package installers

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/clawdhq/clawd/agents"
)

// openclawPluginJS is the plugin module clawd writes for OpenClaw, with
// placeholders for what render fills in.
//
//go:embed openclaw_plugin.js
var openclawPluginJS string

// openclawScript is clawd's OpenClaw plugin module as the installer
// handles it.
var openclawScript = ownScript{agent: agents.OpenClaw, text: openclawPluginJS}

// openclawPluginID is the id of clawd's plugin in its manifest and its
// module, and its entry's name under plugins.entries.
const openclawPluginID = "clawd"

// openclawDescription is the manifest's description: with the id, how
// clawd knows the manifest for its own.
const openclawDescription = "Shows OpenClaw's sessions in clawd (written by clawd install openclaw)"

// OpenClaw installs clawd's native plugin for OpenClaw: a folder of
// clawd's own (the module index.js and its manifest openclaw.plugin.json)
// and its registration in openclaw.json, the folder in plugins.load.paths
// and an entry plugins.entries.clawd that enables it with conversation
// access off. Uninstall takes out both and gives openclaw.json back byte
// for byte when nothing else changed in it. A file there that is not
// clawd's, and every other entry, are never touched.
type OpenClaw struct {
	// Config is openclaw.json.
	Config string
	// Dir is the plugin's folder.
	Dir string
}

// NewOpenClaw returns the installer for the OpenClaw getenv points at
// (agents.OpenClawConfig, agents.OpenClaw.ConfigDir).
func NewOpenClaw(getenv func(string) string) (*OpenClaw, error) {
	cfg, err := agents.OpenClawConfig(getenv)
	if err != nil {
		return nil, err
	}
	d, err := agents.OpenClaw.ConfigDir(getenv)
	if err != nil {
		return nil, err
	}
	return &OpenClaw{Config: cfg, Dir: filepath.Join(d, "clawd-plugin")}, nil
}

// files are the change's files: the registration (where the hooks count)
// first, then the plugin's own.
func (o *OpenClaw) files() []Installer {
	return []Installer{
		&openclawConfig{o},
		&OwnFile{Agent: agents.OpenClaw.ID, Path: filepath.Join(o.Dir, "index.js"),
			Render: func(binary string) ([]byte, int) { b, _ := openclawScript.render(binary); return b, 0 },
			Ours: func(data []byte, known Known) (int, bool) {
				_, ok := openclawScript.ours(data, known)
				return 0, ok
			},
			Commands: openclawScript.commands},
		&OwnFile{Agent: agents.OpenClaw.ID, Path: filepath.Join(o.Dir, "openclaw.plugin.json"), Render: openclawManifest, Ours: openclawManifestOurs},
	}
}

// Install writes clawd's plugin for binary and registers it.
func (o *OpenClaw) Install(binary string, opts Options) (*Report, error) {
	if err := CheckBinary(binary); err != nil {
		return nil, err
	}
	return eachFile(agents.OpenClaw.ID, o.files(), opts, func(i Installer, o Options) (*Report, error) { return i.Install(binary, o) })
}

// Uninstall takes clawd's plugin out of openclaw.json and deletes it, and
// its folder once empty.
func (o *OpenClaw) Uninstall(opts Options) (*Report, error) {
	rep, err := eachFile(agents.OpenClaw.ID, o.files(), opts, func(i Installer, o Options) (*Report, error) { return i.Uninstall(o) })
	if err == nil && !opts.DryRun {
		os.Remove(o.Dir) // a folder that still holds anything stays
	}
	return rep, err
}

// Hooks lists the handlers of clawd's plugin.
func (o *OpenClaw) Hooks(opts Options) ([]Hook, error) { return eachHooks(o.files(), opts) }

// OpenClawPlugin returns clawd's OpenClaw plugin module for binary.
func OpenClawPlugin(binary string) []byte { b, _ := openclawScript.render(binary); return b }

// openclawManifest is the plugin's manifest: OpenClaw loads a native
// plugin only with one, activated at start, with a config schema (clawd's
// takes no settings).
func openclawManifest(string) ([]byte, int) {
	doc := object{
		{"id", openclawPluginID},
		{"name", openclawPluginID},
		{"description", openclawDescription},
		{"activation", object{{"onStartup", true}}},
		{"configSchema", object{{"type", "object"}, {"additionalProperties", false}, {"properties", object{}}}},
	}
	return []byte(render(doc, defaultLayout, "", true, "") + "\n"), 0
}

// openclawManifestOurs reports whether data is clawd's manifest: its id
// and description.
func openclawManifestOurs(data []byte, _ Known) (int, bool) {
	var m struct{ ID, Description string }
	return 0, json.Unmarshal(data, &m) == nil && m.ID == openclawPluginID && m.Description == openclawDescription
}

// openclawConfig is the registration of clawd's plugin in openclaw.json.
type openclawConfig struct{ o *OpenClaw }

func (c *openclawConfig) Install(binary string, opts Options) (*Report, error) {
	return rewrite(agents.OpenClaw.ID, c.o.Config, opts, nil, func(data []byte) ([]byte, Changes, error) {
		return editOpenClaw(data, c.o.Dir, true)
	}, nil)
}

func (c *openclawConfig) Uninstall(opts Options) (*Report, error) {
	return rewrite(agents.OpenClaw.ID, c.o.Config, opts, nil, func(data []byte) ([]byte, Changes, error) {
		return editOpenClaw(data, c.o.Dir, false)
	}, func(data []byte) ([]byte, Changes, error) {
		return editOpenClaw(data, c.o.Dir, true)
	})
}

// openclawEntry is clawd's entry under plugins.entries.
func openclawEntry() object {
	return object{{"enabled", true}, {"hooks", object{{"allowConversationAccess", false}}}}
}

// editOpenClaw returns openclaw.json with clawd's plugin folder dir
// registered (install) or not, and what changed: the plugin's hooks,
// counted here, where OpenClaw learns of them. clawd's are the element of
// plugins.load.paths that is dir, and the entry plugins.entries.clawd
// when it holds nothing but what clawd writes there.
func editOpenClaw(data []byte, dir string, install bool) ([]byte, Changes, error) {
	root, err := parseJSONC(data)
	if err != nil {
		return nil, Changes{}, err
	}
	n := len(agents.OpenClaw.Hooks)
	if root == nil {
		if !install {
			return data, Changes{}, nil
		}
		doc := object{{"plugins", object{
			{"load", object{{"paths", array{dir}}}},
			{"entries", object{{openclawPluginID, openclawEntry()}}},
		}}}
		return []byte(render(doc, defaultLayout, "", true, "") + "\n"), Changes{Added: n}, nil
	}
	if root.kind != kindObject {
		return nil, Changes{}, shapeErrorf("the top level must be an object, not %s", root.kind)
	}
	member := func(obj *node, key, where string, want kind) (*node, int, error) {
		idx := -1
		for i, m := range obj.members {
			if m.key != key {
				continue
			}
			if idx >= 0 {
				return nil, 0, shapeErrorf("%s%q appears more than once", where, key)
			}
			idx = i
		}
		if idx < 0 {
			return nil, -1, nil
		}
		v := obj.members[idx].value
		if v.kind != want {
			return nil, 0, shapeErrorf("%s%q must be %s, not %s", where, key, want, v.kind)
		}
		return v, idx, nil
	}
	ed := &editor{data: data, l: detectLayout(data, root)}
	plugins, _, err := member(root, "plugins", "", kindObject)
	if err != nil {
		return nil, Changes{}, err
	}
	load, paths, entries, entry := (*node)(nil), (*node)(nil), (*node)(nil), (*node)(nil)
	entryIdx := -1
	if plugins != nil {
		if load, _, err = member(plugins, "load", "plugins.", kindObject); err != nil {
			return nil, Changes{}, err
		}
		if load != nil {
			if paths, _, err = member(load, "paths", "plugins.load.", kindArray); err != nil {
				return nil, Changes{}, err
			}
		}
		if entries, _, err = member(plugins, "entries", "plugins.", kindObject); err != nil {
			return nil, Changes{}, err
		}
		if entries != nil {
			if entry, entryIdx, err = member(entries, openclawPluginID, "plugins.entries.", kindObject); err != nil {
				return nil, Changes{}, err
			}
		}
	}
	var ours map[int]bool // clawd's elements of paths
	if paths != nil {
		for i, e := range paths.elems {
			if e.kind == kindString && filepath.Clean(e.str) == filepath.Clean(dir) {
				if ours == nil {
					ours = map[int]bool{}
				}
				ours[i] = true
			}
		}
	}
	if entry != nil && !openclawEntryOurs(data[entry.start:entry.end]) {
		return nil, Changes{}, fmt.Errorf("%w: plugins.entries.%s holds settings clawd does not write", ErrNotOurs, openclawPluginID)
	}
	want := []byte(render(openclawEntry(), defaultLayout, "", false, ""))
	if !install {
		if len(ours) == 0 && entry == nil {
			return data, Changes{}, nil
		}
		if len(ours) > 0 {
			ed.container(paths, ours, nil)
		}
		if entry != nil {
			ed.container(entries, map[int]bool{entryIdx: true}, nil)
		}
		return applyOpenClaw(ed, Changes{Removed: n})
	}
	if len(ours) == 1 && entry != nil && sameJSON(data[entry.start:entry.end], want) {
		return data, Changes{}, nil
	}
	ch := Changes{Added: n}
	if len(ours) > 0 || entry != nil {
		ch = Changes{Repaired: n}
	}
	switch {
	case plugins == nil:
		ed.container(root, nil, []any{field{"plugins", object{
			{"load", object{{"paths", array{dir}}}},
			{"entries", object{{openclawPluginID, openclawEntry()}}},
		}}})
		return applyOpenClaw(ed, ch)
	}
	var add []any // new members of plugins
	switch {
	case load == nil:
		add = append(add, field{"load", object{{"paths", array{dir}}}})
	case paths == nil:
		ed.container(load, nil, []any{field{"paths", array{dir}}})
	case len(ours) == 0:
		ed.container(paths, nil, []any{dir})
	case len(ours) > 1:
		// Keep the first, drop the copies.
		first := true
		drop := map[int]bool{}
		for i := range paths.elems {
			if ours[i] {
				if !first {
					drop[i] = true
				}
				first = false
			}
		}
		ed.container(paths, drop, nil)
	}
	switch {
	case entries == nil:
		add = append(add, field{"entries", object{{openclawPluginID, openclawEntry()}}})
	case entry == nil:
		ed.container(entries, nil, []any{field{openclawPluginID, openclawEntry()}})
	case !sameJSON(data[entry.start:entry.end], want):
		ed.replace(entry, openclawEntry())
	}
	if len(add) > 0 {
		ed.container(plugins, nil, add)
	}
	return applyOpenClaw(ed, ch)
}

// openclawEntryOurs reports whether an entry plugins.entries.clawd holds
// only what clawd writes there (enabled, and its hooks policy): one
// someone gave settings of their own is theirs.
func openclawEntryOurs(raw []byte) bool {
	var v map[string]json.RawMessage
	if json.Unmarshal(raw, &v) != nil {
		return false
	}
	for k, x := range v {
		switch k {
		case "enabled":
		case "hooks":
			var h map[string]json.RawMessage
			if json.Unmarshal(x, &h) != nil {
				return false
			}
			for hk := range h {
				if hk != "allowConversationAccess" {
					return false
				}
			}
		default:
			return false
		}
	}
	return true
}

func applyOpenClaw(ed *editor, ch Changes) ([]byte, Changes, error) {
	out, err := applyEdits(ed.data, ed.edits)
	if err != nil {
		return nil, Changes{}, err
	}
	if _, err := parseJSONC(out); err != nil {
		return nil, Changes{}, fmt.Errorf("internal error: the edited file would not parse (%v)", err)
	}
	return out, ch, nil
}
