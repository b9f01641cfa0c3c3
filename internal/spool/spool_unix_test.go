//go:build unix

package spool

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestAppendRefusesOddFiles: a FIFO, a link or a folder where the spool
// goes is refused at once: a hook never waits for a reader, nor writes
// through a link.
func TestAppendRefusesOddFiles(t *testing.T) {
	for name, plant := range map[string]func(string) error{
		"fifo":   func(p string) error { return syscall.Mkfifo(p, 0o600) },
		"link":   func(p string) error { return os.Symlink(filepath.Join(filepath.Dir(p), "elsewhere"), p) },
		"folder": func(p string) error { return os.Mkdir(p, 0o700) },
	} {
		t.Run(name, func(t *testing.T) {
			home := t.TempDir()
			if err := plant(filepath.Join(home, File)); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { _, err := Append(home, event(1)); done <- err }()
			select {
			case err := <-done:
				if err == nil {
					t.Errorf("Append over a %s = nil, want refused", name)
				}
				if name == "fifo" && !errors.Is(err, syscall.ENXIO) && !errors.Is(err, ErrNotRegular) {
					t.Errorf("Append over a FIFO = %v", err)
				}
			case <-time.After(5 * time.Second):
				t.Fatalf("Append over a %s blocked", name)
			}
			if _, err := os.Lstat(filepath.Join(home, "elsewhere")); err == nil {
				t.Errorf("Append wrote through the link")
			}
		})
	}
}
