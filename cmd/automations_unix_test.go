//go:build unix

package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/clawdhq/clawd/runtime/automations"
)

// TestAutomationsAddRefusesFIFO: a FIFO as automations.toml made clawd
// automations add wait for a writer forever; it is refused at once, and
// the error says what to do.
func TestAutomationsAddRefusesFIFO(t *testing.T) {
	home := t.TempDir()
	path := filepath.Join(home, automations.File)
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
	snippet := "[[automation]]\nid = \"beep\"\nevent = \"turn.completed\"\naction = { type = \"sound\" }\n"
	e, _, errb := testEnv(t, home, []byte(snippet), nil)
	code := make(chan int, 1)
	go func() { code <- run(t.Context(), e, []string{"clawd", "automations", "add"}) }()
	select {
	case c := <-code:
		if c != 1 || !strings.Contains(errb.String(), "not a regular file") || !strings.Contains(errb.String(), "must be a plain file") {
			t.Errorf("clawd automations add over a FIFO = %d, %q; want 1 and what to do", c, errb)
		}
	case <-time.After(20 * time.Second):
		if w, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			w.Close()
		}
		t.Fatal("clawd automations add blocked on a FIFO")
	}
}
