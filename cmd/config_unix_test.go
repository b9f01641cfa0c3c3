//go:build unix

package cmd

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestFIFOConfigNeverHangs: with a FIFO as config.toml, which a plain open
// waits on for a writer that never comes, every command that reads the
// config (serve; status and any other through the language setting)
// returns at once: serve refusing the file by name, status with its
// usual answer.
func TestFIFOConfigNeverHangs(t *testing.T) {
	home := t.TempDir()
	fifo := filepath.Join(home, "config.toml")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"clawd", "status"},
		{"clawd", "serve", "--headless", "--port", "0"},
	} {
		e, out, errb := testEnv(t, home, nil, nil)
		done := make(chan int, 1)
		go func() { done <- run(context.Background(), e, args) }()
		var code int
		select {
		case code = <-done:
		case <-time.After(20 * time.Second):
			t.Fatalf("%s with a FIFO config.toml has not returned after 20 s", strings.Join(args[1:], " "))
		}
		switch args[1] {
		case "status":
			if code != 1 || !strings.Contains(errb.String(), "not running") {
				t.Errorf("status: exit %d, stdout %q, stderr %q; want exit 1, the runtime not running", code, out, errb)
			}
		case "serve":
			if code != 1 || !strings.Contains(errb.String(), fifo) || !strings.Contains(errb.String(), "a FIFO") {
				t.Errorf("serve: exit %d, stderr %q; want exit 1 naming the FIFO %s", code, errb, fifo)
			}
			if _, err := os.Stat(filepath.Join(home, "runtime.json")); !os.IsNotExist(err) {
				t.Errorf("serve with a FIFO config.toml wrote runtime.json")
			}
		}
	}
}
