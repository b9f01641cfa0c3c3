package atomicfile

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

var errChanged = errors.New("changed")

// holds is an expect func accepting exactly want (nil: no file).
func holds(want []byte) func([]byte, bool) error {
	return func(cur []byte, exists bool) error {
		if (want == nil) != !exists || string(cur) != string(want) {
			return errChanged
		}
		return nil
	}
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// leftovers lists what is in dir besides the names given.
func leftovers(t *testing.T, dir string, keep ...string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
outer:
	for _, e := range entries {
		for _, k := range keep {
			if e.Name() == k {
				continue outer
			}
		}
		out = append(out, e.Name())
	}
	return out
}

func TestWriteIf(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f")

	// Absent, and expected absent: created.
	if err := WriteIf(path, []byte("one"), 0o600, true, holds(nil)); err != nil {
		t.Fatal(err)
	}
	if got := read(t, path); got != "one" {
		t.Fatalf("after create: %q", got)
	}
	// Expected absent, but there: refused, untouched.
	if err := WriteIf(path, []byte("two"), 0o600, true, holds(nil)); !errors.Is(err, errChanged) {
		t.Errorf("WriteIf over an existing file expected absent = %v, want refused", err)
	}
	// Holds what is expected: replaced, mode kept.
	if err := os.Chmod(path, 0o640); err != nil {
		t.Fatal(err)
	}
	if err := WriteIf(path, []byte("two"), 0o600, true, holds([]byte("one"))); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(path); read(t, path) != "two" || fi.Mode().Perm() != 0o640 {
		t.Errorf("after replace: %q, mode %v; want two, 0640 kept", read(t, path), fi.Mode().Perm())
	}
	// Holds something else: refused, untouched.
	if err := WriteIf(path, []byte("three"), 0o600, true, holds([]byte("one"))); !errors.Is(err, errChanged) {
		t.Errorf("WriteIf over another content = %v, want refused", err)
	}
	if got := read(t, path); got != "two" {
		t.Errorf("a refused WriteIf changed the file to %q", got)
	}
	if l := leftovers(t, dir, "f"); len(l) > 0 {
		t.Errorf("left behind: %v", l)
	}
}

func TestRemoveIf(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	if err := os.WriteFile(path, []byte("theirs"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := RemoveIf(path, holds([]byte("ours"))); !errors.Is(err, errChanged) {
		t.Errorf("RemoveIf of another content = %v, want refused", err)
	}
	if got := read(t, path); got != "theirs" {
		t.Errorf("a refused RemoveIf left %q", got)
	}
	if err := RemoveIf(path, holds([]byte("theirs"))); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("RemoveIf left the file (%v)", err)
	}
	if l := leftovers(t, dir); len(l) > 0 {
		t.Errorf("left behind: %v", l)
	}
}
