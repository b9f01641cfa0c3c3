// Package installers edits coding agents' own settings files so that they
// run clawd's hooks, and takes them out again, without losing a byte of
// anything else: clawd's entries are found by an exact command match, and
// every change is a minimal byte-range edit of the file as written.
//
// Uninstall after install restores the original bytes, with these known
// exceptions: an empty container clawd filled (`"hooks": {}`, an event's
// `[]`) is removed rather than emptied, since uninstall drops whatever
// becomes empty; an empty object written with inner blanks (`{ }`) comes
// back as `{}`; and a blank or missing file comes back as `{}`.
package installers

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/clawdhq/clawd/internal/atomicfile"
)

// ErrConcurrentChange reports that the settings file changed between
// reading it and replacing it; nothing was written.
var ErrConcurrentChange = errors.New("file changed while clawd was editing it")

// BackupSuffix is appended to a settings file's name for the copy of its
// original bytes kept before clawd's first change.
const BackupSuffix = ".clawd-backup"

// Options tune Install and Uninstall.
type Options struct {
	// DryRun computes the change and its diff but writes nothing.
	DryRun bool
}

// Result is what Install or Uninstall did (or, in a dry run, would do) to
// one agent's settings file.
type Result struct {
	// Agent is the agent's id.
	Agent string
	// Path is the settings file.
	Path string
	Changes
	// Existed is false when there was no settings file.
	Existed bool
	// Written is set when the file was replaced (never in a dry run).
	Written bool
	// Backup is the backup written by this run, if any. A backup is
	// written once, before the first change, and never overwritten.
	Backup string
	// Diff is the unified diff of the change; empty when nothing changes.
	Diff string
}

// rewrite applies edit to the file at path: read, compute, back up, and
// replace atomically, refusing if the file changed meanwhile.
func rewrite(agent, path string, opts Options, beforeCheck func(), edit func([]byte) ([]byte, Changes, error)) (*Result, error) {
	res := &Result{Agent: agent, Path: path, Existed: true}
	// Write through a symlink (dotfile managers link settings.json) rather
	// than replacing the link with a file.
	target := path
	if r, err := filepath.EvalSymlinks(path); err == nil {
		target = r
	}
	old, err := os.ReadFile(target)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		res.Existed = false
		old = nil
	case err != nil:
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	out, ch, err := edit(old)
	if err != nil {
		return nil, fmt.Errorf("%s: %w (the file was left untouched; fix it by hand and run again)", path, err)
	}
	res.Changes = ch
	if !ch.Any() || bytes.Equal(old, out) {
		res.Changes = Changes{}
		return res, nil
	}
	from := path
	if !res.Existed {
		from = "/dev/null"
	}
	res.Diff = unifiedDiff(from, path, old, out)
	if opts.DryRun {
		return res, nil
	}

	perm := os.FileMode(0o644)
	if res.Existed {
		fi, err := os.Stat(target)
		if err != nil {
			return nil, fmt.Errorf("stat %s: %w", path, err)
		}
		perm = fi.Mode().Perm()
		backup := path + BackupSuffix
		if _, err := os.Lstat(backup); errors.Is(err, fs.ErrNotExist) {
			if err := atomicfile.Write(backup, old, perm, false, nil); err != nil {
				return nil, fmt.Errorf("back up %s: %w", path, err)
			}
			res.Backup = backup
		} else if err != nil {
			return nil, fmt.Errorf("back up %s: %w", path, err)
		}
	} else if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		return nil, fmt.Errorf("create %s: %w", filepath.Dir(path), err)
	}

	check := func() error {
		if beforeCheck != nil {
			beforeCheck()
		}
		now, err := os.ReadFile(target)
		switch {
		case !res.Existed && errors.Is(err, fs.ErrNotExist):
			return nil
		case !res.Existed && err == nil:
			return fmt.Errorf("%s: %w (it was created meanwhile); nothing was written, run again", path, ErrConcurrentChange)
		case err != nil:
			return fmt.Errorf("re-read %s: %w", path, err)
		case !bytes.Equal(now, old):
			return fmt.Errorf("%s: %w (another program wrote it); nothing was written, run again", path, ErrConcurrentChange)
		}
		return nil
	}
	if err := atomicfile.Write(target, out, perm, true, check); err != nil {
		return nil, err
	}
	res.Written = true
	return res, nil
}
