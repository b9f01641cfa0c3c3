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

// rewrite applies edit to the file at path, the only file of its change:
// read, compute, back up, and replace atomically, refusing if the file
// changed meanwhile.
func rewrite(agent, path string, opts Options, beforeCheck func(string), edit func([]byte) ([]byte, Changes, error)) (*Result, error) {
	t, err := readTarget(agent, path)
	if err != nil {
		return nil, err
	}
	t.only = true
	out, ch, err := edit(t.old)
	if err != nil {
		return nil, fmt.Errorf("%s: %w (the file was left untouched; fix it by hand and run again)", path, err)
	}
	if !ch.Any() {
		out = t.old
	}
	f := t.plan(out, ch, nil)
	if opts.DryRun {
		return &f.Result, nil
	}
	if err := t.backup(&f); err != nil {
		return nil, err
	}
	if err := t.commit(&f, beforeCheck); err != nil {
		return nil, err
	}
	return &f.Result, nil
}

// target is one of the files an installer edits, through steps that let
// two files be changed together: read, plan, back up, commit, and roll
// back.
type target struct {
	agent string
	// path is the file as named; real is where it is, through symlinks
	// (dotfile managers link settings files); link is set when path
	// itself is a symlink.
	path, real string
	link       bool
	old        []byte
	existed    bool
	perm       fs.FileMode
	// out is the new content; changed is set when it differs from old,
	// and remove when the file is to be deleted instead.
	out             []byte
	changed, remove bool
	// committed is set once the new content is in place.
	committed bool
	// only is set when this is the only file of its change: a refusal
	// then says that nothing at all was written.
	only bool
}

func readTarget(agent, path string) (*target, error) {
	t := &target{agent: agent, path: path, real: path, existed: true, perm: 0o644}
	if r, err := filepath.EvalSymlinks(path); err == nil {
		t.real = r
	}
	if fi, err := os.Lstat(path); err == nil {
		t.link = fi.Mode()&fs.ModeSymlink != 0
	}
	old, err := os.ReadFile(t.real)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		t.existed = false
		return t, nil
	case err != nil:
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	t.old = old
	fi, err := os.Stat(t.real)
	if err != nil {
		return nil, fmt.Errorf("stat %s: %w", path, err)
	}
	t.perm = fi.Mode().Perm()
	return t, nil
}

// isEmptyJSON and isBlank say whether a file holds nothing but what an
// empty file of its kind holds.
func isEmptyJSON(b []byte) bool { return string(bytes.TrimSpace(b)) == "{}" }
func isBlank(b []byte) bool     { return len(bytes.TrimSpace(b)) == 0 }

// plan records the new content out and returns what the change is. When
// uninstalling leaves nothing in a file clawd created (it has no backup,
// so it did not exist before clawd's first change), the file is deleted
// rather than left empty; empty says what nothing is (nil: a file is
// never deleted).
func (t *target) plan(out []byte, ch Changes, empty func([]byte) bool) CodexFile {
	f := CodexFile{Result: Result{Agent: t.agent, Path: t.path, Existed: t.existed}}
	if bytes.Equal(t.old, out) {
		return f
	}
	t.out, t.changed = out, true
	f.Changes = ch
	from, to := t.path, t.path
	if !t.existed {
		from = "/dev/null"
	}
	if t.existed && !t.link && empty != nil && empty(out) && !exists(t.path+BackupSuffix) {
		t.remove, f.Deleted = true, true
		to, out = "/dev/null", nil
	}
	f.Diff = unifiedDiff(from, to, t.old, out)
	return f
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// backup copies the original bytes next to the file before clawd's first
// change to it; a backup is never overwritten.
func (t *target) backup(f *CodexFile) error {
	if !t.changed || !t.existed || t.remove {
		return nil
	}
	backup := t.path + BackupSuffix
	if _, err := os.Lstat(backup); errors.Is(err, fs.ErrNotExist) {
		if err := atomicfile.Write(backup, t.old, t.perm, false, nil); err != nil {
			return fmt.Errorf("back up %s: %w", t.path, err)
		}
		f.Backup = backup
	} else if err != nil {
		return fmt.Errorf("back up %s: %w", t.path, err)
	}
	return nil
}

// unchanged re-reads the file and refuses when it is not what is
// expected (nil: absent).
func (t *target) unchanged(want []byte, absent bool) error {
	nothing := "nothing was written to it"
	if t.only {
		nothing = "nothing was written"
	}
	now, err := os.ReadFile(t.real)
	switch {
	case absent && errors.Is(err, fs.ErrNotExist):
		return nil
	case absent && err == nil:
		return fmt.Errorf("%s: %w (it was created meanwhile); %s, run again", t.path, ErrConcurrentChange, nothing)
	case err != nil:
		return fmt.Errorf("re-read %s: %w", t.path, err)
	case !bytes.Equal(now, want):
		return fmt.Errorf("%s: %w (another program wrote it); %s, run again", t.path, ErrConcurrentChange, nothing)
	}
	return nil
}

// commit puts the new content in place, refusing when the file changed
// since it was read.
func (t *target) commit(f *CodexFile, beforeCheck func(string)) error {
	if !t.changed {
		return nil
	}
	check := func() error {
		if beforeCheck != nil {
			beforeCheck(t.path)
		}
		return t.unchanged(t.old, !t.existed)
	}
	if t.remove {
		if err := check(); err != nil {
			return err
		}
		if err := os.Remove(t.real); err != nil {
			return fmt.Errorf("remove %s: %w", t.path, err)
		}
		t.committed = true
		return nil
	}
	if !t.existed {
		if err := os.MkdirAll(filepath.Dir(t.real), 0o755); err != nil {
			return fmt.Errorf("create %s: %w", filepath.Dir(t.path), err)
		}
	}
	if err := atomicfile.Write(t.real, t.out, t.perm, true, check); err != nil {
		return err
	}
	t.committed = true
	f.Written = true
	return nil
}

// rollback puts back what commit replaced, unless someone changed the
// file since.
func (t *target) rollback() error {
	if !t.committed {
		return nil
	}
	switch {
	case t.remove:
		return atomicfile.Write(t.real, t.old, t.perm, false, func() error { return t.unchanged(nil, true) })
	case !t.existed:
		if err := t.unchanged(t.out, false); err != nil {
			return err
		}
		return os.Remove(t.real)
	default:
		return atomicfile.Write(t.real, t.old, t.perm, true, func() error { return t.unchanged(t.out, false) })
	}
}
