package doctor

import (
	"os"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/internal/agentbin"
)

// Found is what Detect finds of an agent on this machine.
type Found struct {
	// Dir is the agent's settings folder as its environment names it, and
	// DirExists whether it is there.
	Dir       string
	DirExists bool
	// DirErr is why the folder cannot be named (no HOME).
	DirErr error
	// Command is the agent's executable on PATH ("" when not there), and
	// Version its release where its files say it (agentbin.Version).
	Command, Version string
}

// Detected reports whether the agent is on this machine: its settings
// folder exists or its command is on PATH.
func (f Found) Detected() bool { return f.DirExists || f.Command != "" }

// Detect finds agent a with the environment getenv.
func Detect(a *agents.Agent, getenv func(string) string) Found {
	return detect(a, getenv, agentbin.Version)
}

// detect is Detect with version reading the release of the executable it
// found.
func detect(a *agents.Agent, getenv func(string) string, version func(a *agents.Agent, cmd string) string) Found {
	var f Found
	f.Dir, f.DirErr = a.ConfigDir(getenv)
	if f.Dir != "" {
		if fi, err := os.Stat(f.Dir); err == nil && fi.IsDir() {
			f.DirExists = true
		}
	}
	if cmd := agentbin.LookPath(getenv("PATH"), a.Command); cmd != "" {
		f.Command = cmd
		f.Version = version(a, cmd)
	}
	return f
}
