package installers

import (
	"encoding/json"
	"os"
	"path/filepath"

	"github.com/clawdhq/clawd/agents"
)

// MiniMax installs clawd's hooks for MiniMax Code as a local plugin of
// clawd's own, plugins/clawd in MiniMax's data folder: a Claude-compatible
// manifest, .claude-plugin/plugin.json, and hooks/hooks.json in Claude
// Code's shape. Install writes both (or rewrites them when they are
// clawd's but differ); uninstall deletes them and the folders they leave
// empty. Files there that are not clawd's are never touched.
type MiniMax struct {
	// Dir is the plugin's folder.
	Dir string
}

// miniMaxPlugin is the name of clawd's plugin, its folder's name.
const miniMaxPlugin = "clawd"

// miniMaxDescription is the manifest's description: with the name, how
// clawd knows the manifest for its own.
const miniMaxDescription = "Shows MiniMax Code's sessions in clawd (written by clawd install minimax)"

// NewMiniMax returns the installer of clawd's plugin in the data folder
// getenv points at (agents.MiniMax.ConfigDir).
func NewMiniMax(getenv func(string) string) (*MiniMax, error) {
	d, err := agents.MiniMax.ConfigDir(getenv)
	if err != nil {
		return nil, err
	}
	return &MiniMax{Dir: filepath.Join(d, "plugins", miniMaxPlugin)}, nil
}

// files are the plugin's two files: the hooks (clawd's handlers) first.
func (m *MiniMax) files() []Installer {
	return []Installer{
		&OwnFile{Agent: agents.MiniMax.ID, Path: filepath.Join(m.Dir, "hooks", "hooks.json"), Render: miniMaxHooks, Ours: miniMaxHooksOurs,
			Commands: hookCommands(hooksConfig{})},
		&OwnFile{Agent: agents.MiniMax.ID, Path: filepath.Join(m.Dir, ".claude-plugin", "plugin.json"), Render: miniMaxManifest, Ours: miniMaxManifestOurs},
	}
}

// Install writes clawd's plugin for binary.
func (m *MiniMax) Install(binary string, opts Options) (*Report, error) {
	return eachFile(agents.MiniMax.ID, m.files(), opts, func(i Installer, o Options) (*Report, error) { return i.Install(binary, o) })
}

// Uninstall deletes clawd's plugin, and its folders once empty.
func (m *MiniMax) Uninstall(opts Options) (*Report, error) {
	rep, err := eachFile(agents.MiniMax.ID, m.files(), opts, func(i Installer, o Options) (*Report, error) { return i.Uninstall(o) })
	if err == nil && !opts.DryRun {
		// Folders that still hold anything stay.
		for _, d := range []string{filepath.Join(m.Dir, "hooks"), filepath.Join(m.Dir, ".claude-plugin"), m.Dir} {
			os.Remove(d)
		}
	}
	return rep, err
}

// Hooks lists the handlers of clawd's plugin.
func (m *MiniMax) Hooks(opts Options) ([]Hook, error) { return eachHooks(m.files(), opts) }

// miniMaxHooks is the plugin's hooks file for binary.
func miniMaxHooks(binary string) ([]byte, int) {
	cfg := hooksConfig{agentID: agents.MiniMax.ID, specs: agents.MiniMax.Hooks,
		command: func(event string) string { return Command(binary, agents.MiniMax.ID) + " " + event }}
	doc := object{{"hooks", newEvents(cfg)}}
	return []byte(render(doc, defaultLayout, "", true, "") + "\n"), len(agents.MiniMax.Hooks)
}

// miniMaxHooksOurs reports whether data is clawd's hooks file: every
// handler's command is a hook command of clawd's for MiniMax.
func miniMaxHooksOurs(data []byte, known Known) (int, bool) {
	var doc struct {
		Hooks map[string][]struct {
			Hooks []struct{ Command string } `json:"hooks"`
		} `json:"hooks"`
	}
	if json.Unmarshal(data, &doc) != nil || len(doc.Hooks) == 0 {
		return 0, false
	}
	n := 0
	for _, groups := range doc.Hooks {
		for _, g := range groups {
			for _, h := range g.Hooks {
				if _, ok := known.Ours(h.Command, agents.MiniMax.ID); !ok {
					return 0, false
				}
				n++
			}
		}
	}
	return n, n > 0
}

// miniMaxManifest is the plugin's manifest; it holds no command, so it
// counts no hooks.
func miniMaxManifest(string) ([]byte, int) {
	doc := object{
		{"name", miniMaxPlugin},
		{"version", "1.0.0"},
		{"description", miniMaxDescription},
		{"hooks", array{"hooks/hooks.json"}},
	}
	return []byte(render(doc, defaultLayout, "", true, "") + "\n"), 0
}

// miniMaxManifestOurs reports whether data is clawd's manifest: its name
// and description.
func miniMaxManifestOurs(data []byte, _ Known) (int, bool) {
	var m struct{ Name, Description string }
	return 0, json.Unmarshal(data, &m) == nil && m.Name == miniMaxPlugin && m.Description == miniMaxDescription
}
