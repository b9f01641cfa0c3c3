package atomicfile

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// swapIf puts tmp in path's place if expect accepts what path held, with
// renameat2: RENAME_EXCHANGE swaps the two files in one step, so what
// expect checks is exactly what was displaced, and a refused swap is undone
// with a second exchange; RENAME_NOREPLACE creates path only if nobody
// did meanwhile. A check before the swap refuses most changes before
// anyone could see the new file: the swap's own check covers the few
// microseconds between the two. File systems without renameat2 get
// checkThenRename.
func swapIf(tmp, path string, expect func([]byte, bool) error) error {
	cur, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("re-read %s: %w", path, err)
	}
	if err := expect(cur, err == nil); err != nil {
		return err
	}
	err = unix.Renameat2(unix.AT_FDCWD, tmp, unix.AT_FDCWD, path, unix.RENAME_EXCHANGE)
	switch {
	case err == nil:
		displaced, rerr := os.ReadFile(tmp)
		if rerr == nil {
			if err := expect(displaced, true); err != nil {
				rerr = err
			}
		}
		if rerr != nil {
			if err := unix.Renameat2(unix.AT_FDCWD, tmp, unix.AT_FDCWD, path, unix.RENAME_EXCHANGE); err != nil {
				return fmt.Errorf("%w; and putting %s back failed: %v (it is in %s)", rerr, path, err, tmp)
			}
			return rerr
		}
		os.Remove(tmp) // the old file, now under the temporary name
		return nil
	case errors.Is(err, unix.ENOENT):
		// No file at path (tmp is ours and exists).
		if err := expect(nil, false); err != nil {
			return err
		}
		err = unix.Renameat2(unix.AT_FDCWD, tmp, unix.AT_FDCWD, path, unix.RENAME_NOREPLACE)
		if errors.Is(err, unix.EEXIST) {
			cur, rerr := os.ReadFile(path)
			if rerr != nil {
				return fmt.Errorf("re-read %s: %w", path, rerr)
			}
			if err := expect(cur, true); err != nil {
				return err
			}
			return fmt.Errorf("%s was created while it was being written", path)
		}
		if err != nil {
			return fmt.Errorf("rename %s to %s: %w", tmp, path, err)
		}
		return nil
	case errors.Is(err, unix.EINVAL), errors.Is(err, unix.ENOSYS), errors.Is(err, unix.EOPNOTSUPP):
		return checkThenRename(tmp, path, expect)
	default:
		return fmt.Errorf("rename %s to %s: %w", tmp, path, err)
	}
}

// removeIf moves path aside to a temporary name (a rename is atomic),
// checks what it moved, and moves it back with RENAME_NOREPLACE when
// expect refuses it: a file written by another program in the meantime
// is never removed.
func removeIf(path string, expect func([]byte, bool) error) error {
	aside := fmt.Sprintf("%s.%d.removing", path, os.Getpid())
	if err := os.Rename(path, aside); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return expect(nil, false)
		}
		return fmt.Errorf("remove %s: %w", path, err)
	}
	cur, err := os.ReadFile(aside)
	if err == nil {
		err = expect(cur, true)
	}
	if err == nil {
		os.Remove(aside)
		return nil
	}
	if rerr := unix.Renameat2(unix.AT_FDCWD, aside, unix.AT_FDCWD, path, unix.RENAME_NOREPLACE); rerr != nil {
		return fmt.Errorf("%w; and putting %s back failed: %v (it is in %s)", err, path, rerr, aside)
	}
	return err
}
