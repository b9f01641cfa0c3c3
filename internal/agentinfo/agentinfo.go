// Package agentinfo finds out what clawd knows of each agent on this
// machine: found or not, hooks installed and running this clawd binary,
// version, where its settings are. `clawd agents` prints it; the
// dashboard shows it.
package agentinfo

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/installers"
)

// Info is what clawd knows of one agent on this machine: what `clawd
// agents` prints and the dashboard shows.
type Info struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Detected  bool   `json:"detected"`
	Installed bool   `json:"installed"`
	// ConfigPath is the file that holds (or would hold) clawd's hooks.
	ConfigPath string          `json:"config_path"`
	Version    string          `json:"version,omitempty"`
	Supports   agents.Supports `json:"supports"`
	Notes      []string        `json:"notes"`
}

// All inspects every agent clawd knows, with the install record of the
// clawd home home.
func All(getenv func(string) string, home, binary string) ([]Info, error) {
	rec, err := installers.ReadRecord(home)
	if err != nil {
		return nil, err
	}
	list := []Info{}
	for _, a := range agents.All() {
		list = append(list, Inspect(getenv, a, binary, rec))
	}
	return list, nil
}

// Inspect finds out what clawd knows of a here: binary is the clawd
// binary the hooks should run, rec the install record.
func Inspect(getenv func(string) string, a *agents.Agent, binary string, rec *installers.Record) Info {
	ai := Info{ID: a.ID, Name: a.Name, Supports: a.Supports, Notes: append([]string{}, a.Notes...)}
	dir, err := a.ConfigDir(getenv)
	if err != nil {
		ai.Notes = append(ai.Notes, err.Error())
	}
	ai.ConfigPath = dir
	if dir != "" {
		if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
			ai.Detected = true
		}
	}
	if cmd := lookPath(getenv("PATH"), a.Command); cmd != "" {
		ai.Detected = true
		ai.Version = npmVersion(cmd, a.Package)
	}
	inst, err := installers.For(a, getenv)
	if err != nil {
		if !errors.Is(err, installers.ErrUnsupported) {
			ai.Notes = append(ai.Notes, err.Error())
		}
		return ai
	}
	// Installed means an install would change nothing: every hook is
	// there and runs this binary.
	rep, err := inst.Install(binary, installers.Options{DryRun: true, Known: rec.Known(a.ID).With(binary)})
	if err != nil {
		ai.Notes = append(ai.Notes, "cannot read its settings: "+err.Error())
		return ai
	}
	ai.ConfigPath = rep.Handlers
	ai.Installed = !rep.Any()
	return ai
}

// lookPath finds the executable name in the folders of path (a PATH
// value), or returns "".
func lookPath(path, name string) string {
	if name == "" {
		return ""
	}
	exts := []string{""}
	if runtime.GOOS == "windows" {
		exts = []string{".exe", ".cmd", ".bat", ""}
	}
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			continue
		}
		for _, ext := range exts {
			p := filepath.Join(dir, name+ext)
			if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && (runtime.GOOS == "windows" || fi.Mode()&0o111 != 0) {
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
