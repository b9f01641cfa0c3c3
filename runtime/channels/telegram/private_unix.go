//go:build unix

package telegram

import (
	"fmt"
	"os"
	"syscall"
)

// checkPrivate checks that path is a regular file of this user's that
// nobody else may read or write.
func checkPrivate(path string) error {
	fi, err := fileInfo(path)
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%w: %s is not a regular file", ErrTokenOpen, path)
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Geteuid() {
		return fmt.Errorf("%w: %s belongs to uid %d, not to you (%d): put your own copy there", ErrTokenOpen, path, st.Uid, os.Geteuid())
	}
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		return fmt.Errorf("%w: others may read %s (mode %v): run chmod 600 %s", ErrTokenOpen, path, perm, path)
	}
	return nil
}
