package doctor

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	goruntime "runtime"

	"github.com/clawdhq/clawd/agents"
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
	// Version its release where the files say it (see InstalledVersion).
	Command, Version string
}

// Detected reports whether the agent is on this machine: its settings
// folder exists or its command is on PATH.
func (f Found) Detected() bool { return f.DirExists || f.Command != "" }

// Detect finds agent a with the environment getenv.
func Detect(a *agents.Agent, getenv func(string) string) Found {
	return detect(a, getenv, InstalledVersion)
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
	if cmd := lookPath(getenv("PATH"), a.Command); cmd != "" {
		f.Command = cmd
		f.Version = version(a, cmd)
	}
	return f
}

// InstalledVersion reads the release of agent a that the executable cmd
// is, from files alone (never by running it: some agents write into their
// home or unpack themselves even for --version): the version of the npm
// package above it, else its own file name where that is a release number
// (Claude Code's native installer links claude to versions/<release>);
// "" when neither says.
func InstalledVersion(a *agents.Agent, cmd string) string {
	if v := npmVersion(cmd, a.Package); v != "" {
		return v
	}
	real, err := filepath.EvalSymlinks(cmd)
	if err != nil {
		return ""
	}
	if name := filepath.Base(real); releaseName.MatchString(name) {
		return name
	}
	return ""
}

// releaseName matches a file name that is a release number: 2.1.332.
var releaseName = regexp.MustCompile(`^v?\d+\.\d+\.\d+([-+][0-9A-Za-z.-]+)?$`)

// lookPath finds the executable name in the folders of path (a PATH
// value), or returns "".
func lookPath(path, name string) string {
	if name == "" {
		return ""
	}
	exts := []string{""}
	if goruntime.GOOS == "windows" {
		exts = []string{".exe", ".cmd", ".bat", ""}
	}
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			continue
		}
		for _, ext := range exts {
			p := filepath.Join(dir, name+ext)
			if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && (goruntime.GOOS == "windows" || fi.Mode()&0o111 != 0) {
				return p
			}
		}
	}
	return ""
}

// npmVersion reads the version of the npm package pkg that the
// executable cmd belongs to, from the package.json in a folder above it
// (npm links bin/ scripts into node_modules/.bin); "" when there is none.
func npmVersion(cmd, pkg string) string {
	real, err := filepath.EvalSymlinks(cmd)
	if err != nil || pkg == "" {
		return ""
	}
	dir := filepath.Dir(real)
	for range 6 {
		b, err := os.ReadFile(filepath.Join(dir, "package.json"))
		if err == nil {
			var p struct{ Name, Version string }
			if json.Unmarshal(b, &p) == nil && p.Name == pkg {
				return p.Version
			}
		} else if !errors.Is(err, fs.ErrNotExist) {
			return ""
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	return ""
}
