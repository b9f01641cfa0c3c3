// Package agentbin finds an agent's executable on PATH and reads which
// release it is from the files around it, never by running it (some agents
// write into their home, or unpack themselves, even for --version). doctor
// shows the release; installers register the events only newer releases
// know where the installed one is one of them. Neither runs on the hook
// path.
package agentbin

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	goruntime "runtime"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/internal/lazy"
)

// Installed finds agent a's executable on the PATH of getenv and its
// release: "" for what is not found.
func Installed(a *agents.Agent, getenv func(string) string) (cmd, version string) {
	if cmd = LookPath(getenv("PATH"), a.Command); cmd != "" {
		version = Version(a, cmd)
	}
	return cmd, version
}

// LookPath finds the executable name in the folders of path (a PATH
// value), or returns "".
func LookPath(path, name string) string {
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

// Version reads the release of agent a that the executable cmd is: the
// version of the npm package above it, else the name of the file it links
// to, or of that file's folder, where that is a release number (Claude
// Code's native installer links claude to versions/<release>, Homebrew
// keeps Caskroom/<cask>/<release>/); "" when nothing says.
func Version(a *agents.Agent, cmd string) string {
	if v := npmVersion(cmd, a.Package); v != "" {
		return v
	}
	real, err := filepath.EvalSymlinks(cmd)
	if err != nil {
		return ""
	}
	for _, name := range []string{filepath.Base(real), filepath.Base(filepath.Dir(real))} {
		if releaseName().MatchString(name) {
			return name
		}
	}
	return ""
}

// releaseName matches a file name that is a release number: 2.1.332.
var releaseName = lazy.Regexp(`^v?\d+\.\d+\.\d+([-+][0-9A-Za-z.-]+)?$`)

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
