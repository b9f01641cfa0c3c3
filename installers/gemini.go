package installers

import (
	"path/filepath"
	"time"

	"github.com/clawdhq/clawd/agents"
)

// Gemini installs clawd's hooks into Gemini CLI's user settings file,
// ~/.gemini/settings.json: JSON with comments, which stay byte for byte.
// The file has Claude Code's hooks shape; clawd's handlers are named
// "clawd" (what Gemini shows while one runs, and what its
// hooksConfig.disabled takes), their command names the event, and their
// timeouts count milliseconds.
type Gemini struct {
	// Path is the settings file (see GeminiSettingsPath).
	Path string

	// beforeCheck runs just before the file is re-read ahead of the
	// rename; tests use it to change the file under the installer's feet.
	beforeCheck func(path string)
}

// NewGemini returns the installer for the settings file getenv points at.
func NewGemini(getenv func(string) string) (*Gemini, error) {
	p, err := GeminiSettingsPath(getenv)
	if err != nil {
		return nil, err
	}
	return &Gemini{Path: p}, nil
}

// GeminiSettingsPath returns Gemini CLI's user settings file:
// settings.json in its folder (agents.Gemini.ConfigDir).
func GeminiSettingsPath(getenv func(string) string) (string, error) {
	d, err := agents.Gemini.ConfigDir(getenv)
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "settings.json"), nil
}

// Install makes Gemini CLI run `<binary> hook gemini <Event>` on every
// event in agents.Gemini.Hooks, repairing stale clawd handlers and
// removing extra ones, and leaves every other byte of the file alone,
// comments included.
func (g *Gemini) Install(binary string, opts Options) (*Report, error) {
	if err := CheckBinary(binary); err != nil {
		return nil, err
	}
	return rewrite(agents.Gemini.ID, g.Path, opts, g.beforeCheck, func(data []byte) ([]byte, Changes, error) {
		return InstallGemini(data, binary, opts.Known)
	}, nil)
}

// Uninstall removes every clawd handler from Gemini CLI's settings. It
// leaves hooksConfig alone: a "clawd" the person put in its disabled list
// stays theirs.
func (g *Gemini) Uninstall(opts Options) (*Report, error) {
	return rewrite(agents.Gemini.ID, g.Path, opts, g.beforeCheck, func(data []byte) ([]byte, Changes, error) {
		return UninstallGemini(data, opts.Known)
	}, func(data []byte) ([]byte, Changes, error) {
		return InstallGemini(data, placeholderBinary, opts.Known)
	})
}

// InstallGemini returns the bytes of a Gemini CLI settings file (nil when
// there is none) with clawd's hooks installed for binary, and what
// changed; known says which other handlers are clawd's, to repair.
func InstallGemini(data []byte, binary string, known Known) ([]byte, Changes, error) {
	return editHooks(data, geminiHooks(binary, agents.Gemini.Hooks, known.With(binary)))
}

// UninstallGemini returns the bytes of a Gemini CLI settings file with
// every clawd handler (as known tells them) removed, and what changed.
func UninstallGemini(data []byte, known Known) ([]byte, Changes, error) {
	return editHooks(data, geminiHooks("", nil, known))
}

// geminiHandlerName is the name of clawd's handlers in Gemini's settings.
const geminiHandlerName = "clawd"

// geminiHooks says how clawd's handlers look in Gemini's settings: one
// for each of specs (nil: every clawd handler is removed).
func geminiHooks(binary string, specs []agents.HookSpec, known Known) hooksConfig {
	return hooksConfig{
		agentID:     agents.Gemini.ID,
		specs:       specs,
		command:     func(event string) string { return Command(binary, agents.Gemini.ID) + " " + event },
		known:       known,
		jsonc:       true,
		timeoutUnit: time.Millisecond,
		name:        geminiHandlerName,
	}
}
