package installers

import (
	"errors"
	"fmt"

	"github.com/clawdhq/clawd/agents"
)

// Installer puts clawd's hooks into one agent's settings and takes them
// out again. Every agent clawd can install into has one (see For); adding
// an agent is its settings format's engine (JSON hooks, TOML, a file of
// clawd's own) configured in a small file of this package, and a line in
// constructors.
type Installer interface {
	// Install makes the agent run `<binary> hook <agent> ...` on every
	// event clawd registers for it, repairing clawd's entries already
	// there (opts.Known tells them) and removing extra ones, and leaves
	// every other byte alone.
	Install(binary string, opts Options) (*Report, error)
	// Uninstall removes every entry of clawd's and gives back what was
	// there before (see the package doc).
	Uninstall(opts Options) (*Report, error)
}

// Report is what an Install or Uninstall did (or, in a dry run, would do)
// to one agent's files.
type Report struct {
	// Agent is the agent's id.
	Agent string
	// Handlers is the file that holds (or would hold) clawd's handlers.
	Handlers string
	// Files are every file the change read, in the order to show them,
	// each with what happened to it (Result.Changed: whether it changes).
	Files []Result
	// Warnings are things the person should know; the files are right.
	Warnings []string
	// RemovedDirs are the folders an uninstall removed (Apply): clawd had
	// created them for the agent's files, and they were left empty.
	RemovedDirs []string
}

// Any reports whether anything changed.
func (r *Report) Any() bool {
	for _, f := range r.Files {
		if f.Changed {
			return true
		}
	}
	return false
}

// Paths returns the paths of the report's files.
func (r *Report) Paths() []string {
	out := make([]string, len(r.Files))
	for i, f := range r.Files {
		out[i] = f.Path
	}
	return out
}

// ErrUnsupported reports an agent clawd knows but cannot install into.
var ErrUnsupported = errors.New("clawd cannot install into this agent")

// constructors makes each agent's installer for an environment.
var constructors = map[string]func(getenv func(string) string) (Installer, error){
	agents.Claude.ID:      func(getenv func(string) string) (Installer, error) { return NewClaude(getenv) },
	agents.Codex.ID:       func(getenv func(string) string) (Installer, error) { return NewCodex(getenv) },
	agents.Gemini.ID:      func(getenv func(string) string) (Installer, error) { return NewGemini(getenv) },
	agents.Qwen.ID:        func(getenv func(string) string) (Installer, error) { return NewQwen(getenv) },
	agents.Copilot.ID:     func(getenv func(string) string) (Installer, error) { return NewCopilot(getenv) },
	agents.Opencode.ID:    func(getenv func(string) string) (Installer, error) { return NewOpencodeFamily(getenv) },
	agents.Pi.ID:          func(getenv func(string) string) (Installer, error) { return NewPi(getenv) },
	agents.OMP.ID:         func(getenv func(string) string) (Installer, error) { return NewOMP(getenv) },
	agents.OpenClaw.ID:    func(getenv func(string) string) (Installer, error) { return NewOpenClaw(getenv) },
	agents.Qoder.ID:       func(getenv func(string) string) (Installer, error) { return NewQoder(getenv) },
	agents.Cursor.ID:      func(getenv func(string) string) (Installer, error) { return NewCursor(getenv) },
	agents.CodeBuddy.ID:   func(getenv func(string) string) (Installer, error) { return NewCodeBuddy(getenv) },
	agents.Kiro.ID:        func(getenv func(string) string) (Installer, error) { return NewKiro(getenv) },
	agents.Kimi.ID:        func(getenv func(string) string) (Installer, error) { return NewKimi(getenv) },
	agents.Antigravity.ID: func(getenv func(string) string) (Installer, error) { return NewAntigravity(getenv) },
	agents.Grok.ID:        func(getenv func(string) string) (Installer, error) { return NewGrok(getenv) },
	agents.WorkBuddy.ID:   func(getenv func(string) string) (Installer, error) { return NewWorkBuddy(getenv) },
	agents.QwenWork.ID:    func(getenv func(string) string) (Installer, error) { return NewQwenWork(getenv) },
	agents.TraeCode.ID:    func(getenv func(string) string) (Installer, error) { return NewTraeCode(getenv) },
	agents.MiniMax.ID:     func(getenv func(string) string) (Installer, error) { return NewMiniMax(getenv) },
	agents.ZCode.ID:       func(getenv func(string) string) (Installer, error) { return NewZCode(getenv) },
	agents.Reasonix.ID:    func(getenv func(string) string) (Installer, error) { return NewReasonix(getenv) },
	agents.Droid.ID:       func(getenv func(string) string) (Installer, error) { return NewDroid(getenv) },
	agents.Cline.ID:       func(getenv func(string) string) (Installer, error) { return NewCline(getenv) },
	agents.Kilo.ID:        func(getenv func(string) string) (Installer, error) { return NewKilo(getenv) },
	agents.Auggie.ID:      func(getenv func(string) string) (Installer, error) { return NewAuggie(getenv) },
	agents.Crush.ID:       func(getenv func(string) string) (Installer, error) { return NewCrush(getenv) },
}

// For returns the installer of agent a for the environment getenv
// (HOME and the agent's own override variables).
func For(a *agents.Agent, getenv func(string) string) (Installer, error) {
	mk := constructors[a.ID]
	if mk == nil {
		return nil, fmt.Errorf("%w (%s)", ErrUnsupported, a.Name)
	}
	return mk(getenv)
}
