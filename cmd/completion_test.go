package cmd

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCompletePendingIDs: `clawd permissions allow <TAB>` offers the ids
// of the pending requests, with what each asks, as urfave/cli's scripts
// read them ("id:description").
func TestCompletePendingIDs(t *testing.T) {
	p1, p2 := pendingView("perm-1"), pendingView("perm-2")
	p2.Agent, p2.Summary = "codex", "rm -rf build\n:evil"
	f := newFakeAPI(t, p1, p2)
	for _, verb := range []string{"allow", "deny", "always", "terminal"} {
		code, out, errOut := runCLI(t, f.home, "permissions", verb, "--generate-shell-completion")
		want := "perm-1:Claude Code: echo hello > out.txt\nperm-2:Codex: rm -rf build :evil\n"
		if code != 0 || out != want {
			t.Errorf("clawd permissions %s <TAB> = %d, %q (stderr %q), want %q", verb, code, out, errOut, want)
		}
	}
	// After the id, no more ids.
	if _, out, _ := runCLI(t, f.home, "permissions", "allow", "perm-1", "--generate-shell-completion"); strings.Contains(out, "perm-") {
		t.Errorf("clawd permissions allow perm-1 <TAB> = %q, want no second id", out)
	}
	// Completing answers nothing.
	if len(f.decided) != 0 {
		t.Errorf("completion decided %v", f.decided)
	}
}

// TestAutostartRefusesGoRun: `go run`'s binary is deleted when it exits,
// so no login entry may name it (the installers' rule).
func TestAutostartRefusesGoRun(t *testing.T) {
	home := t.TempDir()
	e, _, errb := installTestEnv(home, "/tmp/go-build42/b001/exe/clawd")
	if code := run(context.Background(), e, []string{"clawd", "autostart", "enable"}); code != 1 || !strings.Contains(errb.String(), "made by `go run`") {
		t.Errorf("clawd autostart enable from go run = %d, %q; want 1 and the reason", code, errb)
	}
	if _, err := os.Stat(filepath.Join(home, ".config")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a refused enable wrote %s: %v", filepath.Join(home, ".config"), err)
	}
}
