package atomicfile

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestRemoveStaleSwappedOut: on Linux the exchange of WriteIf puts the
// file it displaced, however old its contents, under the temporary name
// for a moment; the rename makes it fresh, so a cleanup meanwhile keeps
// it.
func TestRemoveStaleSwappedOut(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "settings.json")
	touch(t, path)
	old := time.Now().Add(-24 * time.Hour)
	if err := os.Chtimes(path, old, old); err != nil {
		t.Fatal(err)
	}
	tmp := filepath.Join(dir, ".settings.json.9.tmp")
	touch(t, tmp)
	cutoff := after(t, dir, lastChangeOf(t, tmp))
	if err := unix.Renameat2(unix.AT_FDCWD, tmp, unix.AT_FDCWD, path, unix.RENAME_EXCHANGE); err != nil {
		t.Fatal(err)
	}
	if removed, _ := RemoveStale(path, cutoff); len(removed) != 0 {
		t.Errorf("RemoveStale removed %q, the file swapped out after the cutoff (its mtime a day old)", removed)
	}
}
