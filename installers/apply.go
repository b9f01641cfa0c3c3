package installers

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/internal/filelock"
)

// LockFile is the file in the clawd home that every change to agents'
// settings and the install record holds locked: `clawd install` and
// `uninstall`, `clawd doctor --fix` and the runtime's self-repair. So the
// runtime never sees an uninstall half done (the settings changed, the
// record not yet) and puts the hooks back.
const LockFile = "install.lock"

// Locked runs fn holding the clawd home's install lock, waiting for
// whoever holds it.
func Locked(home string, fn func() error) error {
	if err := os.MkdirAll(home, 0o700); err != nil {
		return fmt.Errorf("create the clawd home: %w", err)
	}
	path := filepath.Join(home, LockFile)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("open %s: %w", path, err)
	}
	defer f.Close()
	if err := filelock.Lock(f); err != nil {
		return fmt.Errorf("lock %s: %w", path, err)
	}
	defer filelock.Unlock(f)
	return fn()
}

// Apply runs inst's Install of binary (install) or its Uninstall for
// agent, with what rec knows of clawd's entries, and notes in rec what it
// wrote. The caller holds the lock (Locked) and saves rec.
func Apply(rec *Record, agent string, inst Installer, binary string, install, dryRun bool) (*Report, error) {
	// The running binary's own entries are clawd's whatever it is called.
	opts := Options{DryRun: dryRun, Known: rec.Known(agent).With(binary)}
	rel, byRelease := inst.(releaseInstaller)
	if byRelease && rel.Release() == "" {
		// The agent is not on this process's PATH: write what the last
		// install, which found it, wrote.
		rel.SetRelease(rec.Release(agent))
	}
	var rep *Report
	var err error
	if install {
		rep, err = inst.Install(binary, opts)
	} else {
		rep, err = inst.Uninstall(opts)
	}
	if err != nil {
		return nil, err
	}
	switch {
	case dryRun:
	case install:
		rec.Installed(agent, binary, rep.Paths()...)
		for _, f := range rep.Files {
			rec.MadeDirs(agent, f.MadeDirs...)
		}
		if byRelease && rel.Release() != "" {
			rec.SetRelease(agent, rel.Release())
		}
	default:
		var dirs []string
		if ar := rec.Agents[agent]; ar != nil {
			dirs = ar.Dirs
		}
		rec.Uninstalled(agent, rep.Paths()...)
		if rec.Agents[agent] == nil {
			// Nothing of clawd's is left for the agent: the folders
			// clawd created go too, those that nothing else uses.
			rep.RemovedDirs = removeEmpty(dirs)
		}
	}
	return rep, nil
}

// removeEmpty removes those of dirs that are empty folders, the innermost
// first (a folder emptied by removing the one inside it goes too), and
// returns them in that order.
func removeEmpty(dirs []string) []string {
	sorted := slices.Clone(dirs)
	// A folder's path is longer than its parent's.
	slices.SortStableFunc(sorted, func(a, b string) int { return len(b) - len(a) })
	var out []string
	for _, d := range sorted {
		// os.Remove removes an empty folder and nothing else.
		if fi, err := os.Lstat(d); err == nil && fi.IsDir() && os.Remove(d) == nil {
			out = append(out, d)
		}
	}
	return out
}

// releaseInstaller is an installer whose entries depend on the agent's
// release (Claude's): the release it found, and the one to use instead
// when it found none.
type releaseInstaller interface {
	Release() string
	SetRelease(string)
}

// Install installs clawd's hooks for binary into agent a's settings as
// getenv finds them, holding the clawd home's lock (none in a dry run),
// and notes it in the install record: what `clawd doctor --fix` and the
// runtime's self-repair do.
func Install(home string, a *agents.Agent, getenv func(string) string, binary string, dryRun bool) (*Report, error) {
	var rep *Report
	run := func() error {
		rec, err := ReadRecord(home)
		if err != nil {
			return err
		}
		inst, err := For(a, getenv)
		if err != nil {
			return err
		}
		if rep, err = Apply(rec, a.ID, inst, binary, true, dryRun); err != nil {
			return err
		}
		if dryRun {
			return nil
		}
		return rec.Save()
	}
	var err error
	if dryRun {
		err = run()
	} else {
		err = Locked(home, run)
	}
	return rep, err
}
