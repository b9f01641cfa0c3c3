package installers

import (
	"path/filepath"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/internal/health"
)

// Qwen installs clawd's hooks into Qwen Code's user settings file, whose
// hooks have Claude Code's shape; clawd's command names the event (`<clawd>
// hook qwen <Event>`). Qwen reads the file as JSON with comments (and keeps
// them when it rewrites it), so comments are kept byte for byte; timeouts
// are in seconds, which agents.Qwen keeps below the 1000 that Qwen would
// read as milliseconds.
//
// Qwen rewrites the file itself as it starts (to add or migrate
// "$version"): like every edit, an install re-reads the file just before
// it replaces it, and refuses when it changed meanwhile.
type Qwen struct {
	// Path is the settings file (see QwenSettingsPath).
	Path string

	// beforeCheck runs just before the file is re-read ahead of the
	// rename; tests use it to change the file under the installer's feet.
	beforeCheck func(path string)
}

// NewQwen returns the installer for the settings file getenv points at.
func NewQwen(getenv func(string) string) (*Qwen, error) {
	p, err := QwenSettingsPath(getenv)
	if err != nil {
		return nil, err
	}
	return &Qwen{Path: p}, nil
}

// QwenSettingsPath returns Qwen Code's user settings file: settings.json in
// its folder ($QWEN_HOME, else ~/.qwen; agents.Qwen.ConfigDir).
func QwenSettingsPath(getenv func(string) string) (string, error) {
	d, err := agents.Qwen.ConfigDir(getenv)
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "settings.json"), nil
}

// Install makes Qwen Code run `<binary> hook qwen <Event>` on every event in
// agents.Qwen.Hooks, repairing stale clawd handlers and removing extra
// ones, and leaves every other byte of the file alone.
func (q *Qwen) Install(binary string, opts Options) (*Report, error) {
	if err := CheckBinary(binary); err != nil {
		return nil, err
	}
	return rewrite(agents.Qwen.ID, q.Path, opts, q.beforeCheck, func(data []byte) ([]byte, Changes, error) {
		return InstallQwen(data, binary, opts.Known)
	}, nil)
}

// Uninstall removes every clawd handler from Qwen Code's settings.
func (q *Qwen) Uninstall(opts Options) (*Report, error) {
	return rewrite(agents.Qwen.ID, q.Path, opts, q.beforeCheck, func(data []byte) ([]byte, Changes, error) {
		return UninstallQwen(data, opts.Known)
	}, func(data []byte) ([]byte, Changes, error) {
		return InstallQwen(data, placeholderBinary, opts.Known)
	})
}

// InstallQwen returns the bytes of a Qwen Code settings file (nil when
// there is none) with clawd's hooks installed for binary, and what
// changed; known says which other handlers are clawd's, to repair.
func InstallQwen(data []byte, binary string, known Known) ([]byte, Changes, error) {
	return editHooks(data, qwenHooks(binary, agents.Qwen.Hooks, known.With(binary)))
}

// UninstallQwen returns the bytes of a Qwen Code settings file with every
// clawd handler (as known tells them) removed, and what changed.
func UninstallQwen(data []byte, known Known) ([]byte, Changes, error) {
	return editHooks(data, qwenHooks("", nil, known))
}

// qwenHooks says how clawd's handlers look in Qwen's settings: one for
// each of specs (nil: every clawd handler is removed).
func qwenHooks(binary string, specs []agents.HookSpec, known Known) hooksConfig {
	return hooksConfig{
		agentID: agents.Qwen.ID,
		specs:   specs,
		command: func(event string) string { return Command(binary, agents.Qwen.ID) + " " + event },
		known:   known,
		jsonc:   true,
	}
}

// Hooks lists clawd's handlers in Qwen Code's settings.
func (q *Qwen) Hooks(opts Options) ([]Hook, error) {
	return listHooks(q.Path, qwenHooks("", nil, opts.Known))
}

// Checks says whether Qwen Code runs hooks at all: "disableAllHooks":
// true in its settings turns every one off, clawd's included.
func (q *Qwen) Checks(opts Options) []health.Check {
	return []health.Check{disableAllHooks(agents.Qwen, true, q.Path)}
}
