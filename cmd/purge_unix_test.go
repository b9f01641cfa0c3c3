//go:build unix

package cmd

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/clawdhq/clawd/runtime"
)

// TestPurgeRefusesWhileServing: a clawd serve holding the home's lock
// (here: this test, the same flock a serve takes) keeps purge from
// touching anything, and purge names its pid.
func TestPurgeRefusesWhileServing(t *testing.T) {
	home := t.TempDir()
	clawdHome := filepath.Join(home, ".clawd")
	settings := filepath.Join(home, ".claude", "settings.json")
	e, out, errb := installTestEnv(home, "/usr/local/bin/clawd")
	if code := run(context.Background(), e, []string{"clawd", "install", "--force", "claude"}); code != 0 {
		t.Fatalf("install: %d %s", code, errb)
	}
	installed, err := os.ReadFile(settings)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(filepath.Join(clawdHome, runtime.LockFile), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		t.Fatal(err)
	}
	f.WriteString(strconv.Itoa(4242) + "\n")

	out.Reset()
	errb.Reset()
	code := run(context.Background(), e, []string{"clawd", "uninstall", "--all", "--purge", "--yes"})
	if want := "clawd serve (pid 4242) runs on the clawd home " + clawdHome; code != 1 || !strings.Contains(errb.String(), want) {
		t.Errorf("purge while serving = %d, stderr %q; want 1 and %q", code, errb, want)
	}
	if got, err := os.ReadFile(settings); err != nil || string(got) != string(installed) {
		t.Errorf("purge while serving changed %s: %v", settings, err)
	}
	if _, err := os.Stat(filepath.Join(clawdHome, "installed.json")); err != nil {
		t.Errorf("purge while serving removed the install record: %v", err)
	}

	// The serve quits: purge goes through.
	syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	errb.Reset()
	if code := run(context.Background(), e, []string{"clawd", "uninstall", "--all", "--purge", "--yes"}); code != 0 {
		t.Fatalf("purge after the serve quit = %d, %s", code, errb)
	}
	if _, err := os.Stat(clawdHome); !os.IsNotExist(err) {
		t.Errorf("the clawd home is still there: %v", err)
	}
}
