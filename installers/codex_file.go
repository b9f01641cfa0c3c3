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

// target is one of the files an installer edits, through the steps of
// rewrite split apart so that two files can be changed together: read,
// plan, back up, commit, and roll back.
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
// rather than left empty.
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
	if t.existed && !t.link && empty(out) && !exists(t.path+BackupSuffix) {
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
	now, err := os.ReadFile(t.real)
	switch {
	case absent && errors.Is(err, fs.ErrNotExist):
		return nil
	case absent && err == nil:
		return fmt.Errorf("%s: %w (it was created meanwhile); nothing was written to it, run again", t.path, ErrConcurrentChange)
	case err != nil:
		return fmt.Errorf("re-read %s: %w", t.path, err)
	case !bytes.Equal(now, want):
		return fmt.Errorf("%s: %w (another program wrote it); nothing was written to it, run again", t.path, ErrConcurrentChange)
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
