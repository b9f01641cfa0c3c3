package doctor

import (
	"os"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/internal/agentbin"
)

// Found is what Detect finds of an agent on this machine.
type Found struct {
	// Dir is the agent's settings folder as its environment names it, and
	// DirExists whether it is there with anything in it: an empty folder
	// (left behind, or made by another tool) is not the agent.
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
		f.DirExists = holdsAnything(f.Dir)
	}
	if cmd := agentbin.LookPath(getenv("PATH"), a.Command); cmd != "" {
		f.Command = cmd
		f.Version = version(a, cmd)
	}
	return f
}

// holdsAnything reports whether dir is a folder with an entry in it.
func holdsAnything(dir string) bool {
	d, err := os.Open(dir)
	if err != nil {
		return false
	}
	defer d.Close()
	names, _ := d.Readdirnames(1)
	return len(names) > 0
}
