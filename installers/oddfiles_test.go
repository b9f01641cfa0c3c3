//go:build unix

package installers

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestOddFilesRefused: where the settings file should be, a FIFO, a link
// to /dev/zero, a folder or a file over MaxFileSize is refused at once
// with a clear error, for install and uninstall of both agents, and left
// as it is.
func TestOddFilesRefused(t *testing.T) {
	tests := []struct {
		name string
		make func(t *testing.T, path string)
		want error
		msg  string
	}{
		{"fifo", func(t *testing.T, p string) {
			if err := syscall.Mkfifo(p, 0o644); err != nil {
				t.Fatal(err)
			}
		}, ErrNotRegular, "it is a named pipe (FIFO)"},
		{"link to /dev/zero", func(t *testing.T, p string) {
			if err := os.Symlink("/dev/zero", p); err != nil {
				t.Fatal(err)
			}
		}, ErrNotRegular, "it is a device"},
		{"folder", func(t *testing.T, p string) {
			if err := os.Mkdir(p, 0o755); err != nil {
				t.Fatal(err)
			}
		}, ErrNotRegular, "it is a folder"},
		{"huge", func(t *testing.T, p string) {
			f, err := os.Create(p)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if err := f.Truncate(MaxFileSize + 1); err != nil {
				t.Fatal(err)
			}
		}, ErrTooLarge, "more than the 64 MiB clawd reads"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newTestClaude(t)
			if err := os.MkdirAll(filepath.Dir(c.Path), 0o755); err != nil {
				t.Fatal(err)
			}
			tt.make(t, c.Path)
			x := newTestCodex(t, "", "")
			if err := os.MkdirAll(x.Home, 0o755); err != nil {
				t.Fatal(err)
			}
			tt.make(t, x.ConfigPath())
			before, _ := os.Lstat(c.Path)

			runs := map[string]func() error{
				"claude install":   func() error { _, err := c.install(goldenBinary, Options{}); return err },
				"claude uninstall": func() error { _, err := c.uninstall(Options{}); return err },
				"codex install":    func() error { _, err := x.install(goldenBinary, Options{}); return err },
				"codex uninstall":  func() error { _, err := x.uninstall(Options{}); return err },
			}
			for what, run := range runs {
				errc := make(chan error, 1)
				go func() { errc <- run() }()
				select {
				case err := <-errc:
					if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.msg) || !strings.Contains(err.Error(), "left untouched") {
						t.Errorf("%s = %v, want %v saying %q and that the file was left untouched", what, err, tt.want, tt.msg)
					}
				case <-time.After(20 * time.Second):
					t.Fatalf("%s hangs", what)
				}
			}
			after, err := os.Lstat(c.Path)
			if err != nil || after.Mode() != before.Mode() || after.Size() != before.Size() {
				t.Errorf("settings.json changed: %v, %v (was %v)", after, err, before)
			}
			if got := files(t, x.Home); len(got) != 1 {
				t.Errorf("codex home holds %v, want config.toml alone", got)
			}
		})
	}
}

// TestReadOnlyRefused: a settings file its owner made read-only is not
// rewritten, even by root (rename would replace it); a run that changes
// nothing still succeeds.
func TestReadOnlyRefused(t *testing.T) {
	c := newTestClaude(t)
	const original = "{\"model\": \"opus\"}\n"
	writeSettings(t, c, original, 0o444)
	_, err := c.install(goldenBinary, Options{})
	if !errors.Is(err, ErrReadOnly) || !strings.Contains(err.Error(), "chmod u+w "+c.Path) {
		t.Errorf("Install into a 0444 file = %v, want ErrReadOnly saying chmod u+w", err)
	}
	if got := readFile(t, c.Path); got != original {
		t.Errorf("settings = %q, want them untouched", got)
	}
	if _, err := os.Stat(c.Path + BackupSuffix); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a backup was written for a refused install")
	}
	if res, err := c.install(goldenBinary, Options{DryRun: true}); err != nil || !res.Changed {
		t.Errorf("dry run on a 0444 file = %+v, %v; want the change shown", res, err)
	}
	if res, err := c.uninstall(Options{}); err != nil || res.Changed {
		t.Errorf("Uninstall of nothing from a 0444 file = %+v, %v; want nothing to do", res, err)
	}

	x := newTestCodex(t, "", "model = \"o3\"\n")
	if err := os.Chmod(x.ConfigPath(), 0o400); err != nil {
		t.Fatal(err)
	}
	if _, err := x.install(goldenBinary, Options{}); !errors.Is(err, ErrReadOnly) {
		t.Errorf("Codex Install with a read-only config.toml = %v, want ErrReadOnly", err)
	}
	if got := files(t, x.Home); len(got) != 1 {
		t.Errorf("codex home holds %v after a refused install, want config.toml alone", got)
	}
}

// TestDanglingSymlink: a settings.json that links to a file not created
// yet (a dotfiles checkout) is written through: the target is created and
// the link stays; uninstall removes the target it created and leaves the
// link as it was.
func TestDanglingSymlink(t *testing.T) {
	c := newTestClaude(t)
	target := filepath.Join(t.TempDir(), "dotfiles", "claude", "settings.json")
	if err := os.MkdirAll(filepath.Dir(c.Path), 0o755); err != nil {
		t.Fatal(err)
	}
	rel, err := filepath.Rel(filepath.Dir(c.Path), target)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(rel, c.Path); err != nil {
		t.Fatal(err)
	}
	res, err := c.install(goldenBinary, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Existed || !res.Written {
		t.Errorf("Install through a dangling link = %+v, want a new file written", res)
	}
	if dest, err := os.Readlink(c.Path); err != nil || dest != rel {
		t.Fatalf("settings.json after install: link to %q (%v), want the link to %q kept", dest, err, rel)
	}
	if !strings.Contains(readFile(t, target), Command(goldenBinary, "claude")) {
		t.Errorf("the link's target has no clawd hooks")
	}
	res, err = c.uninstall(Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Deleted {
		t.Errorf("Uninstall = %+v, want the file clawd created deleted", res)
	}
	if dest, err := os.Readlink(c.Path); err != nil || dest != rel {
		t.Errorf("settings.json after uninstall: link to %q (%v), want the link as it was", dest, err)
	}
	if _, err := os.Stat(target); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the link's target is still there after uninstall (%v)", err)
	}
}
