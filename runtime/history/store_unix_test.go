//go:build unix

package history

import (
	"context"
	"os"
	"syscall"
	"testing"
	"time"
)

// TestFileModes: the store, its journal and the key are the owner's
// alone, whatever the umask.
func TestFileModes(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	home := t.TempDir()
	clock := &fakeNow{time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)}
	s := open(t, home, clock, Options{})
	if err := s.Record(context.Background(), []Entry{entry("s1", clock.t)}); err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir(home)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, e := range ents {
		fi, err := e.Info()
		if err != nil {
			t.Fatal(err)
		}
		names[e.Name()] = true
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("%s mode = %v, want 0600", e.Name(), fi.Mode().Perm())
		}
	}
	for _, n := range []string{File, File + "-wal", KeyFile} {
		if !names[n] {
			t.Errorf("no %s in the clawd home (have %v)", n, names)
		}
	}
}
