//go:build unix

package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/clawdhq/clawd/internal/boundedfile"
)

// TestLoadNeverBlocks: a FIFO as config.toml (a plain open waits for a
// writer for ever, and clawd serve never listened) and a link to
// /dev/zero (a plain read takes 2 GB) are refused at once, with an error
// that names the file and says what to do.
func TestLoadNeverBlocks(t *testing.T) {
	fifoHome, zeroHome := t.TempDir(), t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(fifoHome, FileName), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", filepath.Join(zeroHome, FileName)); err != nil {
		t.Fatal(err)
	}
	for home, what := range map[string]string{fifoHome: "a FIFO", zeroHome: "a character device"} {
		done := make(chan error, 1)
		go func() {
			_, err := Load(home)
			done <- err
		}()
		select {
		case err := <-done:
			if !errors.Is(err, boundedfile.ErrNotRegular) || !strings.Contains(err.Error(), Path(home)) ||
				!strings.Contains(err.Error(), what) || !strings.Contains(err.Error(), "replace it with one, or remove it") {
				t.Errorf("Load(config.toml is %s) error = %v, want ErrNotRegular naming the file and what to do", what, err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("Load(config.toml is %s) has not returned after 10 s", what)
		}
	}
}
