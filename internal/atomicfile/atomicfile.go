// Package atomicfile writes files so that a crash never leaves a half
// written one: the bytes go to a temporary file in the same directory,
// which is synced and then renamed over the target.
package atomicfile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// Write replaces path with data. The file gets mode perm, or keeps the
// mode of the file it replaces when keepMode is set and the file exists.
// check, when non-nil, runs just before the rename; an error from it
// aborts the write and leaves path untouched.
func Write(path string, data []byte, perm os.FileMode, keepMode bool, check func() error) error {
	tmp, err := writeTemp(path, data, perm, keepMode)
	if err != nil {
		return err
	}
	if check != nil {
		if err := check(); err != nil {
			os.Remove(tmp)
			return err
		}
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("rename %s to %s: %w", tmp, path, err)
	}
	syncDir(filepath.Dir(path))
	return nil
}

// DisplacedError is WriteIf's refusal in its rarest case: another program
// wrote the file between clawd's check and its swap, and again in the
// microseconds while clawd put that write back (the second time perhaps
// from clawd's version). Each of its two writes may hold something the
// other lacks: the one not in place is kept in Kept for the person to
// compare.
type DisplacedError struct {
	Err  error
	Kept string
}

func (e *DisplacedError) Error() string {
	return fmt.Sprintf("%v; another program wrote it twice within microseconds meanwhile: one of its versions is kept in %s, compare it with the file", e.Err, e.Kept)
}

func (e *DisplacedError) Unwrap() error { return e.Err }

// WriteIf replaces path with data like Write, but only while path holds
// what expect accepts: expect gets path's content, or nil and false when
// there is no such file, and an error from it leaves path as it is and is
// returned. Where the platform can swap two files atomically (Linux), the
// check cannot lose another program's write: the new file is swapped in,
// what it displaced is checked, and swapped back when expect refuses it
// (or, in the rarest case, kept beside path: see DisplacedError).
// Elsewhere the check runs just before the rename, which leaves a window
// of a few microseconds.
func WriteIf(path string, data []byte, perm os.FileMode, keepMode bool, expect func(current []byte, exists bool) error) error {
	tmp, err := writeTemp(path, data, perm, keepMode)
	if err != nil {
		return err
	}
	if err := swapIf(tmp, path, expect); err != nil {
		if d := (*DisplacedError)(nil); !errors.As(err, &d) {
			os.Remove(tmp) // clawd's own file
		}
		return err
	}
	syncDir(filepath.Dir(path))
	return nil
}

// writeTemp writes data to a synced temporary file next to path and
// returns its name.
func writeTemp(path string, data []byte, perm os.FileMode, keepMode bool) (name string, err error) {
	if keepMode {
		if fi, err := os.Stat(path); err == nil {
			perm = fi.Mode().Perm()
		}
	}
	f, err := os.CreateTemp(filepath.Dir(path), tempPattern(path))
	if err != nil {
		return "", fmt.Errorf("create temp file next to %s: %w", path, err)
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			os.Remove(tmp)
		}
	}()
	if _, err := f.Write(data); err != nil {
		f.Close()
		return "", fmt.Errorf("write %s: %w", tmp, err)
	}
	if err := f.Chmod(perm); err != nil {
		f.Close()
		return "", fmt.Errorf("chmod %s: %w", tmp, err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return "", fmt.Errorf("sync %s: %w", tmp, err)
	}
	if err := f.Close(); err != nil {
		return "", fmt.Errorf("close %s: %w", tmp, err)
	}
	return tmp, nil
}

// RemoveIf removes path only while it holds what expect accepts (see
// WriteIf; expect always gets an existing file's content). On Linux the
// file is first moved aside under a temporary name, checked there, and
// moved back when expect refuses it.
func RemoveIf(path string, expect func(current []byte, exists bool) error) error {
	if err := removeIf(path, expect); err != nil {
		return err
	}
	syncDir(filepath.Dir(path))
	return nil
}

// checkThenRemove is removeIf where a file cannot be moved aside and back
// safely: expect sees path's content just before the removal.
func checkThenRemove(path string, expect func([]byte, bool) error) error {
	cur, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("re-read %s: %w", path, err)
	}
	if err := expect(cur, true); err != nil {
		return err
	}
	if err := os.Remove(path); err != nil {
		return fmt.Errorf("remove %s: %w", path, err)
	}
	return nil
}

// checkThenRename is swapIf where files cannot be swapped atomically:
// expect sees path's content just before the rename.
func checkThenRename(tmp, path string, expect func([]byte, bool) error) error {
	cur, err := os.ReadFile(path)
	exists := err == nil
	if err != nil && !os.IsNotExist(err) {
		return fmt.Errorf("re-read %s: %w", path, err)
	}
	if err := expect(cur, exists); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("rename %s to %s: %w", tmp, path, err)
	}
	return nil
}

// syncDir makes the rename durable where the platform allows it.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}
