package atomicfile

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"
)

// after returns a moment after every change made in dir so far, as file
// times tell it (they may be coarser than the clock): it makes files
// until one's last change is later than since.
func after(t *testing.T, dir string, since time.Time) time.Time {
	t.Helper()
	for i := 0; ; i++ {
		p := filepath.Join(dir, "tick"+strconv.Itoa(i))
		if err := os.WriteFile(p, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		fi, err := os.Lstat(p)
		os.Remove(p)
		if err != nil {
			t.Fatal(err)
		}
		if c := lastChange(fi); c.After(since) {
			return c
		}
	}
}

// lastChangeOf is lastChange of the file at p.
func lastChangeOf(t *testing.T, p string) time.Time {
	t.Helper()
	fi, err := os.Lstat(p)
	if err != nil {
		t.Fatal(err)
	}
	return lastChange(fi)
}

func touch(t *testing.T, p string) {
	t.Helper()
	if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestRemoveStale: only clawd's own temporary files of the path that last
// changed before the cutoff go; look-alikes, other files' temporary
// files, folders, links and a live writer's fresh one stay.
func TestRemoveStale(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "settings.json")
	touch(t, path)
	stale := []string{".settings.json.1.tmp", ".settings.json.123456789.tmp", ".settings.json.4294967295.tmp"}
	kept := []string{
		"settings.json",
		".settings.json.tmp",                                // another program's
		"settings.json.123.tmp",                             // no leading dot
		".settings.json.12a.tmp",                            // not digits
		".settings.json.12345678901.tmp",                    // more than a uint32
		".settings.json..tmp",                               // no digits
		".settings.json.123.tmp.bak",                        // another suffix
		".settings.json.123.tmpx",                           // another suffix
		".other.json.123.tmp",                               // another file's
		".settings.jsonx.123.tmp",                           // another file's
		"settings.json.displaced-20260101T000000.000000000", // kept for the person
		"settings.json.42.removing",                         // a file moved aside
	}
	for _, n := range append(slices.Clone(stale), kept[1:]...) {
		touch(t, filepath.Join(dir, n))
	}
	if err := os.Mkdir(filepath.Join(dir, ".settings.json.77.tmp"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(path, filepath.Join(dir, ".settings.json.88.tmp")); err != nil {
		t.Fatal(err)
	}
	kept = append(kept, ".settings.json.77.tmp", ".settings.json.88.tmp")
	cutoff := after(t, dir, lastChangeOf(t, filepath.Join(dir, ".settings.json.88.tmp")))
	// A live writer's, made after the cutoff.
	live := ".settings.json.555.tmp"
	touch(t, filepath.Join(dir, live))
	kept = append(kept, live)

	removed, err := RemoveStale(path, cutoff)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, n := range stale {
		want = append(want, filepath.Join(dir, n))
	}
	slices.Sort(removed)
	slices.Sort(want)
	if !slices.Equal(removed, want) {
		t.Errorf("RemoveStale removed %q, want %q", removed, want)
	}
	got := leftovers(t, dir)
	slices.Sort(got)
	slices.Sort(kept)
	if !slices.Equal(got, kept) {
		t.Errorf("after RemoveStale the folder holds %q, want %q", got, kept)
	}
	if _, err := RemoveStale(filepath.Join(dir, "nope", "f"), cutoff); err != nil {
		t.Errorf("RemoveStale in a missing folder = %v, want nil", err)
	}
}

// TestTempNamesAreRecognised: the names writeTemp really makes are what
// RemoveStale looks for, so a change in os.CreateTemp's naming shows here
// rather than as temporary files nobody removes.
func TestTempNamesAreRecognised(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "settings.json")
	for range 20 {
		tmp, err := writeTemp(path, []byte("x"), 0o600, false)
		if err != nil {
			t.Fatal(err)
		}
		if !isTemp(path, filepath.Base(tmp)) {
			t.Errorf("isTemp(%s) = false for writeTemp's own file", filepath.Base(tmp))
		}
	}
}
