package installers

import (
	"os"
	"path/filepath"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/internal/health"
	"github.com/clawdhq/clawd/internal/i18n"
)

// HooksFile installs clawd's handlers into one JSON settings file of an
// agent whose hooks have Claude Code's shape or a variant of it (see
// hooksConfig): the agents that took Claude Code's hook system over.
type HooksFile struct {
	// Agent is the agent's id.
	Agent string
	// Path is the settings file.
	Path string
	// shape is how clawd's handlers look in the file; its agentID, specs,
	// command and known are filled in per run.
	shape hooksConfig
	specs []agents.HookSpec

	// beforeCheck runs just before the file is re-read ahead of the
	// rename; tests use it to change the file under the installer's feet.
	beforeCheck func(path string)
}

// newHooksFile returns the installer of a's handlers in the file name of
// a's settings folder (agents.Agent.ConfigDir), shaped as shape says.
func newHooksFile(a *agents.Agent, getenv func(string) string, name string, shape hooksConfig) (*HooksFile, error) {
	d, err := a.ConfigDir(getenv)
	if err != nil {
		return nil, err
	}
	return &HooksFile{Agent: a.ID, Path: filepath.Join(d, name), shape: shape, specs: a.Hooks}, nil
}

// config is the file's hooksConfig for binary (specs nil: uninstall).
func (f *HooksFile) config(binary string, specs []agents.HookSpec, known Known) hooksConfig {
	cfg := f.shape
	cfg.agentID, cfg.specs, cfg.known = f.Agent, specs, known
	cfg.command = func(event string) string { return Command(binary, f.Agent) + " " + event }
	return cfg
}

// Install makes the agent run `<binary> hook <agent> <Event>` on every
// event clawd registers for it, repairing stale clawd handlers and
// removing extra ones, and leaves every other byte of the file alone.
func (f *HooksFile) Install(binary string, opts Options) (*Report, error) {
	if err := CheckBinary(binary); err != nil {
		return nil, err
	}
	rep, err := rewrite(f.Agent, f.Path, opts, f.beforeCheck, func(data []byte) ([]byte, Changes, error) {
		return editHooks(data, f.config(binary, f.specs, opts.Known.With(binary)))
	}, nil)
	if err == nil && f.shape.enabled {
		if data, rerr := os.ReadFile(f.Path); rerr == nil && f.shape.hooksDisabled(data) {
			rep.Warnings = append(rep.Warnings, disabledWarning)
		}
	}
	return rep, err
}

// Uninstall removes every clawd handler from the file.
func (f *HooksFile) Uninstall(opts Options) (*Report, error) {
	return rewrite(f.Agent, f.Path, opts, f.beforeCheck, func(data []byte) ([]byte, Changes, error) {
		return editHooks(data, f.config("", nil, opts.Known))
	}, func(data []byte) ([]byte, Changes, error) {
		return editHooks(data, f.config(placeholderBinary, f.specs, opts.Known.With(placeholderBinary)))
	})
}

// Hooks lists clawd's handlers in the file.
func (f *HooksFile) Hooks(opts Options) ([]Hook, error) {
	return listHooks(f.Path, f.config("", nil, opts.Known))
}

// Checks says, for an agent whose hooks have an "enabled" switch (ZCode),
// whether it runs them: "enabled": false beside the events turns every
// hook off, clawd's included. A file that cannot be read or parsed is left
// to Install's dry run to report.
func (f *HooksFile) Checks(opts Options) []health.Check {
	a := agents.Lookup(f.Agent)
	if !f.shape.enabled || a == nil {
		return nil
	}
	if data, err := os.ReadFile(f.Path); err == nil && f.shape.hooksDisabled(data) {
		return []health.Check{check(a, "hooks.disabled", health.Fail,
			i18n.M("installers.enabled_false", f.Path, a.Name),
			i18n.M("installers.fix_enabled_false", f.Path))}
	}
	return []health.Check{check(a, "hooks.disabled", health.OK, i18n.M("installers.enabled_ok", a.Name), i18n.Msg{})}
}
