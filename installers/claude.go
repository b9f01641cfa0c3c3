package installers

import (
	"path/filepath"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/internal/agentbin"
	"github.com/clawdhq/clawd/internal/health"
)

// Claude installs clawd's hooks into Claude Code's user settings file.
type Claude struct {
	// Path is the settings file (see ClaudeSettingsPath).
	Path string
	// Version is the installed Claude Code release ("" when unknown): the
	// events only newer releases know are registered for it alone
	// (agents.Agent.HooksFor).
	Version string

	// beforeCheck runs just before the file is re-read ahead of the
	// rename; tests use it to change the file under the installer's feet.
	beforeCheck func(path string)
}

// NewClaude returns the installer for the settings file getenv points at,
// for the release of the claude on its PATH.
func NewClaude(getenv func(string) string) (*Claude, error) {
	p, err := ClaudeSettingsPath(getenv)
	if err != nil {
		return nil, err
	}
	_, version := agentbin.Installed(agents.Claude, getenv)
	return &Claude{Path: p, Version: version}, nil
}

// Release is the Claude Code release the installer writes for ("" when
// unknown).
func (c *Claude) Release() string { return c.Version }

// SetRelease sets the release to write for.
func (c *Claude) SetRelease(v string) { c.Version = v }

// ClaudeSettingsPath returns Claude Code's user settings file:
// settings.json in its folder (agents.Claude.ConfigDir).
func ClaudeSettingsPath(getenv func(string) string) (string, error) {
	d, err := agents.Claude.ConfigDir(getenv)
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "settings.json"), nil
}

// Install makes Claude Code run `<binary> hook claude` on every event of
// agents.Claude.HooksFor(c.Version), repairing stale clawd handlers and
// removing extra ones, and leaves every other byte of the file alone.
func (c *Claude) Install(binary string, opts Options) (*Report, error) {
	if err := CheckBinary(binary); err != nil {
		return nil, err
	}
	return rewrite(agents.Claude.ID, c.Path, opts, c.beforeCheck, func(data []byte) ([]byte, Changes, error) {
		return InstallClaude(data, binary, c.Version, opts.Known)
	}, nil)
}

// Uninstall removes every clawd handler from Claude Code's settings.
func (c *Claude) Uninstall(opts Options) (*Report, error) {
	return rewrite(agents.Claude.ID, c.Path, opts, c.beforeCheck, func(data []byte) ([]byte, Changes, error) {
		return UninstallClaude(data, opts.Known)
	}, func(data []byte) ([]byte, Changes, error) {
		return InstallClaude(data, placeholderBinary, c.Version, opts.Known)
	})
}

// InstallClaude returns the bytes of a Claude Code settings file (nil when
// there is none) with clawd's hooks installed for binary and Claude Code
// release version ("" when unknown), and what changed; known says which
// other handlers are clawd's, to repair. It is the pure core of
// Claude.Install; doctor can use it to tell whether the hooks are in
// place (no changes means they are).
func InstallClaude(data []byte, binary, version string, known Known) ([]byte, Changes, error) {
	command := Command(binary, agents.Claude.ID)
	specs, keepOnly := agents.Claude.HooksFor(version)
	return editHooks(data, hooksConfig{
		agentID:  agents.Claude.ID,
		specs:    specs,
		keepOnly: keepOnly,
		command:  func(string) string { return command },
		known:    known.With(binary),
	})
}

// UninstallClaude returns the bytes of a Claude Code settings file with
// every clawd handler (as known tells them) removed, and what changed.
func UninstallClaude(data []byte, known Known) ([]byte, Changes, error) {
	return editHooks(data, hooksConfig{agentID: agents.Claude.ID, known: known})
}

// Hooks lists clawd's handlers in Claude Code's settings.
func (c *Claude) Hooks(opts Options) ([]Hook, error) {
	return listHooks(c.Path, hooksConfig{agentID: agents.Claude.ID, known: opts.Known})
}

// Checks says whether Claude Code runs hooks at all: "disableAllHooks":
// true in its settings turns every one off, clawd's included.
func (c *Claude) Checks(opts Options) []health.Check {
	return []health.Check{disableAllHooks(agents.Claude, false, c.Path)}
}
