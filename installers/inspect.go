package installers

import (
	"fmt"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/internal/health"
	"github.com/clawdhq/clawd/internal/i18n"
)

// What doctor asks of an installer besides Install and Uninstall: the
// handlers of clawd's its agent's files hold (Lister), and the agent's own
// checks (Checker). Whether the hooks are in place at all is Install's
// dry run: a change to make is something missing, stale or extra.

// Hook is one of clawd's handlers as an agent's file holds it: what
// doctor checks and what its connection test runs.
type Hook struct {
	// File is the file that holds it.
	File string
	// Event is the agent's event it is registered under; "" when one
	// entry serves every event (opencode's plugin).
	Event string
	// Command is the shell command the agent runs.
	Command string
	// Binary is the executable the command names.
	Binary string
}

// Lister is an Installer that lists clawd's handlers in its agent's files.
// Every installer is one (TestEveryInstallerInspects).
type Lister interface {
	// Hooks returns clawd's handlers (those opts.Known tells, besides the
	// ones named like clawd) as the agent's files hold them now, in file
	// order. A file that does not parse is an error.
	Hooks(opts Options) ([]Hook, error)
}

// Checker is an Installer with checks of its own agent's: settings beyond
// clawd's entries that keep the agent from running them (Codex's feature
// flag and trust entries, Gemini's list of disabled hooks). Doctor runs
// them beside its own.
type Checker interface {
	Checks(opts Options) []health.Check
}

// listHooks lists clawd's handlers in the hooks-shaped settings file at
// path (see hooksConfig; cfg.known tells clawd's).
func listHooks(path string, cfg hooksConfig) ([]Hook, error) {
	t, err := readTarget(cfg.agentID, path)
	if err != nil || !t.existed {
		return nil, err
	}
	root, err := cfg.parse(t.old)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if root == nil {
		return nil, nil
	}
	hooks, _, err := hooksObject(root)
	if cfg.root {
		hooks, err = root, nil
	}
	if err == nil && hooks != nil && cfg.events != "" {
		hooks, _, err = eventsMember(hooks, cfg.events)
	}
	if err != nil || hooks == nil {
		if err != nil {
			err = fmt.Errorf("%s: %w", path, err)
		}
		return nil, err
	}
	var out []Hook
	for _, f := range findOurs(hooks, cfg) {
		c, _ := f.node.get("command")
		bin, _ := cfg.known.Ours(c.str, cfg.agentID)
		out = append(out, Hook{File: path, Event: hooks.members[f.event].key, Command: c.str, Binary: bin})
	}
	return out, nil
}

// codexHooksOf lists clawd's handlers among hs, found in file.
func codexHooksOf(file string, hs []codexHandler, known Known) []Hook {
	var out []Hook
	for _, h := range hs {
		if !h.ours {
			continue
		}
		bin, _ := known.Ours(h.Command, agents.Codex.ID)
		out = append(out, Hook{File: file, Event: h.Event, Command: h.Command, Binary: bin})
	}
	return out
}

// check is a health.Check of agent a.
func check(a *agents.Agent, id string, s health.Status, finding, fix i18n.Msg) health.Check {
	return health.New(a.ID+"."+id, a.ID, s, finding, fix)
}

// readSettings reads and parses the JSON (jsonc: with comments) settings
// file at path; nil when there is none.
func readSettings(agent, path string, jsonc bool) (*node, []byte, error) {
	t, err := readTarget(agent, path)
	if err != nil || !t.existed {
		return nil, nil, err
	}
	root, err := parseJSON(t.old, jsonc)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return root, t.old, nil
}

// isTrue reports whether n (of data) is the JSON literal true.
func isTrue(data []byte, n *node) bool {
	return n != nil && n.kind == kindBool && string(data[n.start:n.end]) == "true"
}

// disableAllHooks is the check of an agent whose settings turn every hook
// off with "disableAllHooks": true (Claude Code, Qwen Code, Copilot CLI)
// in one of files (jsonc: JSON with comments). A file that cannot be read
// or parsed is left to Install's dry run to report.
func disableAllHooks(a *agents.Agent, jsonc bool, files ...string) health.Check {
	for _, f := range files {
		root, data, err := readSettings(a.ID, f, jsonc)
		if err != nil || root == nil || root.kind != kindObject {
			continue
		}
		if v, _ := root.get("disableAllHooks"); isTrue(data, v) {
			return check(a, "hooks.disabled", health.Fail,
				i18n.M("installers.disable_all_hooks", f, a.Name),
				i18n.M("installers.fix_disable_all_hooks", f))
		}
	}
	return check(a, "hooks.disabled", health.OK, i18n.M("installers.runs_hooks", a.Name), i18n.Msg{})
}
