//go:build unix

package clawdhome

import (
	"fmt"
	"os"
	"syscall"
)

func tighten(dir string) (bool, error) {
	fi, err := os.Stat(dir)
	if err != nil {
		return false, err
	}
	if !fi.IsDir() {
		return false, fmt.Errorf("%w: %s is not a folder", ErrNotPrivate, dir)
	}
	if uid, ok := owner(fi); ok && uid != os.Geteuid() {
		if fi.Mode().Perm()&0o077 == 0 {
			return false, nil // someone else's, but closed: nothing to see
		}
		return false, fmt.Errorf("%w: %s belongs to uid %d and is mode %v", ErrNotPrivate, dir, uid, fi.Mode().Perm())
	}
	if fi.Mode().Perm()&0o077 == 0 {
		return false, nil
	}
	if err := os.Chmod(dir, fi.Mode().Perm()&0o700); err != nil {
		return false, fmt.Errorf("%w: %s is mode %v and could not be made 0700: %v", ErrNotPrivate, dir, fi.Mode().Perm(), err)
	}
	return true, nil
}

func checkPrivate(dir string) error {
	fi, err := os.Stat(dir)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("%w: %s is not a folder", ErrNotPrivate, dir)
	}
	if uid, ok := owner(fi); ok && uid != os.Geteuid() {
		return fmt.Errorf("%w: %s belongs to uid %d, not %d", ErrNotPrivate, dir, uid, os.Geteuid())
	}
	if fi.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("%w: others may write to %s (mode %v)", ErrNotPrivate, dir, fi.Mode().Perm())
	}
	return nil
}

func owner(fi os.FileInfo) (int, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(st.Uid), true
}

func checkOwnFile(path string) error {
	fi, err := os.Lstat(path)
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%w: %s is not a regular file", ErrNotPrivate, path)
	}
	if uid, ok := owner(fi); ok && uid != os.Geteuid() {
		return fmt.Errorf("%w: %s belongs to uid %d, not %d", ErrNotPrivate, path, uid, os.Geteuid())
	}
	if fi.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("%w: others may write to %s (mode %v)", ErrNotPrivate, path, fi.Mode().Perm())
	}
	return nil
}
