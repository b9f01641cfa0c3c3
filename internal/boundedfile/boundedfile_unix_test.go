//go:build unix

package boundedfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestReadRefusesWhatNeverEnds: a FIFO nobody writes to (whose plain open
// would wait for ever) and a link to /dev/zero (whose read never ends)
// are refused at once, named for what they are.
func TestReadRefusesWhatNeverEnds(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	zero := filepath.Join(dir, "zero")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	for path, what := range map[string]string{fifo: "a FIFO", zero: "a character device"} {
		done := make(chan error, 1)
		go func() {
			_, err := Read(path, 1<<20)
			done <- err
		}()
		select {
		case err := <-done:
			if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), what) || !strings.Contains(err.Error(), path) {
				t.Errorf("Read(%s) error = %v, want ErrNotRegular naming the path and %q", path, err, what)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("Read(%s) has not returned after 10 s", path)
		}
	}
}
