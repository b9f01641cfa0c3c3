package cmd

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHookTap: a build with hookTapDir set leaves every payload there,
// whole, and the hook still does what it does.
func TestHookTap(t *testing.T) {
	tap := t.TempDir()
	old := hookTapDir
	hookTapDir = tap
	t.Cleanup(func() { hookTapDir = old })
	stop := fixture(t, "Stop.json")
	e, out, _ := testEnv(t, t.TempDir(), stop, nil)
	runHook(context.Background(), e, &hookOptions{agent: "claude"})
	if out.Len() != 0 {
		t.Errorf("hook printed %q for Stop, want nothing", out)
	}
	entries, err := os.ReadDir(tap)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || !strings.HasSuffix(entries[0].Name(), "-claude-.json") {
		t.Fatalf("tap folder holds %v, want one NS-PID-claude-.json", entries)
	}
	got, err := os.ReadFile(filepath.Join(tap, entries[0].Name()))
	if err != nil || string(got) != string(stop) {
		t.Errorf("tapped payload = %q (%v), want the Stop payload as sent", got, err)
	}
}
