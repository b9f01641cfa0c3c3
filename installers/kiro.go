package installers

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/clawdhq/clawd/agents"
)

// Kiro installs clawd's hooks for Kiro CLI, which has no global hooks but
// one set per agent: into every agent file in ~/.kiro/agents (each event a
// list of {"command": ...}, beside the person's own), and an agent of
// clawd's own, clawd.json there, with all tools and clawd's hooks. Kiro's
// own kiro_default.json and example files are left alone. Nothing is
// written when one of the files does not parse.
type Kiro struct {
	// Dir is Kiro's agents folder.
	Dir string
}

// NewKiro returns the installer for the agents folder getenv points at
// (agents.Kiro.ConfigDir).
func NewKiro(getenv func(string) string) (*Kiro, error) {
	d, err := agents.Kiro.ConfigDir(getenv)
	if err != nil {
		return nil, err
	}
	return &Kiro{Dir: d}, nil
}

// kiroOwnAgent is the name of clawd's own agent file.
const kiroOwnAgent = "clawd.json"

// kiroShape is how clawd's handlers look in an agent file.
var kiroShape = hooksConfig{flat: true, noType: true, noTimeout: true}

// agentFiles lists the agent files clawd hooks, sorted: every *.json of
// the folder but clawd's own, Kiro's kiro_default.json and examples.
func (k *Kiro) agentFiles() ([]string, error) {
	entries, err := os.ReadDir(k.Dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() || !strings.HasSuffix(n, ".json") || n == kiroOwnAgent || n == "kiro_default.json" || strings.Contains(n, ".example") {
			continue
		}
		out = append(out, filepath.Join(k.Dir, n))
	}
	slices.Sort(out)
	return out, nil
}

// files are the installers of every file: clawd's own agent first (the
// handlers' file), then the agent files.
func (k *Kiro) files() ([]Installer, error) {
	own := &OwnFile{Agent: agents.Kiro.ID, Path: filepath.Join(k.Dir, kiroOwnAgent), Render: kiroAgent, Ours: kiroAgentOurs,
		Commands: hookCommands(kiroShape)}
	list := []Installer{own}
	paths, err := k.agentFiles()
	if err != nil {
		return nil, err
	}
	for _, p := range paths {
		list = append(list, &HooksFile{Agent: agents.Kiro.ID, Path: p, shape: kiroShape, specs: agents.Kiro.Hooks})
	}
	return list, nil
}

// Install puts clawd's hooks into every agent file and writes clawd's
// agent.
func (k *Kiro) Install(binary string, opts Options) (*Report, error) {
	list, err := k.files()
	if err != nil {
		return nil, err
	}
	return eachFile(agents.Kiro.ID, list, opts, func(i Installer, o Options) (*Report, error) { return i.Install(binary, o) })
}

// Uninstall takes clawd's hooks out of every agent file and deletes
// clawd's agent.
func (k *Kiro) Uninstall(opts Options) (*Report, error) {
	list, err := k.files()
	if err != nil {
		return nil, err
	}
	return eachFile(agents.Kiro.ID, list, opts, func(i Installer, o Options) (*Report, error) { return i.Uninstall(o) })
}

// Hooks lists clawd's handlers in its own agent and in every agent file.
func (k *Kiro) Hooks(opts Options) ([]Hook, error) {
	list, err := k.files()
	if err != nil {
		return nil, err
	}
	return eachHooks(list, opts)
}

// kiroAgent is clawd's own Kiro agent for binary: all tools, clawd's
// hooks.
func kiroAgent(binary string) ([]byte, int) {
	cfg := kiroShape
	cfg.agentID, cfg.specs = agents.Kiro.ID, agents.Kiro.Hooks
	cfg.command = func(event string) string { return Command(binary, agents.Kiro.ID) + " " + event }
	doc := object{
		{"name", "clawd"},
		{"description", "Kiro with every tool, whose sessions clawd shows (written by clawd install kiro)"},
		{"tools", array{"*"}},
		{"hooks", newEvents(cfg)},
	}
	return []byte(render(doc, defaultLayout, "", true, "") + "\n"), len(agents.Kiro.Hooks)
}

// kiroAgentOurs reports whether data is clawd's agent: named clawd, and
// every hook command in it one of clawd's for Kiro.
func kiroAgentOurs(data []byte, known Known) (int, bool) {
	var a struct {
		Name  string                                `json:"name"`
		Hooks map[string][]struct{ Command string } `json:"hooks"`
	}
	if json.Unmarshal(data, &a) != nil || a.Name != "clawd" || len(a.Hooks) == 0 {
		return 0, false
	}
	n := 0
	for _, hs := range a.Hooks {
		for _, h := range hs {
			if _, ok := known.Ours(h.Command, agents.Kiro.ID); !ok {
				return 0, false
			}
			n++
		}
	}
	return n, true
}
