//go:build unix

package boundedfile

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestReadFIFODoesNotBlock: a FIFO in the file's place is refused at once;
// a plain open would wait for a writer that never comes.
func TestReadFIFODoesNotBlock(t *testing.T) {
	path := filepath.Join(t.TempDir(), "automations.toml")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := Read(path, 1<<20)
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, ErrNotRegular) {
			t.Fatalf("Read(FIFO) = %v, want ErrNotRegular", err)
		}
	case <-time.After(10 * time.Second):
		// Let the stuck open go, so the test can end.
		if w, err := os.OpenFile(path, os.O_WRONLY, 0); err == nil {
			w.Close()
		}
		t.Fatal("Read(FIFO) blocked waiting for a writer")
	}
}

// TestReadSymlinks: a symlink is followed; one to /dev/zero, which would
// read forever, is refused without reading.
func TestReadSymlinks(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real.toml")
	if err := os.WriteFile(real, []byte("a = 1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	toReal := filepath.Join(dir, "link.toml")
	toZero := filepath.Join(dir, "zero.toml")
	if err := os.Symlink(real, toReal); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", toZero); err != nil {
		t.Fatal(err)
	}
	if got, err := Read(toReal, 1<<20); err != nil || string(got) != "a = 1\n" {
		t.Errorf("Read(link to a file) = %q, %v", got, err)
	}
	if got, err := Read(toZero, 1<<20); !errors.Is(err, ErrNotRegular) || len(got) != 0 {
		t.Errorf("Read(link to /dev/zero) = %d bytes, %v; want ErrNotRegular", len(got), err)
	}
}
