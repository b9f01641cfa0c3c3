//go:build unix

package automations

import (
	"errors"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/clawdhq/clawd/internal/boundedfile"
)

// TestReloadRefusesNonFiles: a FIFO as automations.toml (serve never
// listened: its open waited for a writer) and a symlink to /dev/zero (2 GB
// read) are refused at once, as a file with problems: the last good
// file's definitions stay in force, and the error says why.
func TestReloadRefusesNonFiles(t *testing.T) {
	for name, put := range map[string]func(path string) error{
		"fifo":     func(path string) error { return syscall.Mkfifo(path, 0o600) },
		"dev-zero": func(path string) error { return os.Symlink("/dev/zero", path) },
	} {
		t.Run(name, func(t *testing.T) {
			e := testEngine(t, newFakeClock(), soundDef("good"))
			if err := os.Remove(e.file); err != nil {
				t.Fatal(err)
			}
			if err := put(e.file); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- e.Reload() }()
			select {
			case err := <-done:
				if !errors.Is(err, boundedfile.ErrNotRegular) {
					t.Errorf("Reload = %v, want ErrNotRegular", err)
				}
			case <-time.After(10 * time.Second):
				if w, err := os.OpenFile(e.file, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
					w.Close() // let the stuck open go
				}
				t.Fatal("Reload blocked on automations.toml")
			}
			if !e.Listens(TurnCompleted) || !e.Kept() || !errors.Is(e.LoadError(), boundedfile.ErrNotRegular) {
				t.Errorf("after a refused file: listens %v, kept %v, LoadError %v; want the last good definition kept and the error",
					e.Listens(TurnCompleted), e.Kept(), e.LoadError())
			}
		})
	}
}
