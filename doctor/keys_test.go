package doctor

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/installers"
	"github.com/clawdhq/clawd/internal/autostart"
	"github.com/clawdhq/clawd/internal/desktop"
	"github.com/clawdhq/clawd/internal/i18n"
)

// wantKeys fails for each check of r whose finding has no message key
// (it would stay English in every language), whose fix is text without
// a message, or whose English is not its messages' English.
func wantKeys(t *testing.T, r Report) {
	t.Helper()
	var en i18n.Printer
	for _, c := range r.Checks {
		if c.FindingMsg.Key() == "" {
			t.Errorf("%s: the finding %q has no message key", c.ID, c.Finding)
		}
		if c.Fix != "" && c.FixMsg.IsZero() {
			t.Errorf("%s: the fix %q is not a message", c.ID, c.Fix)
		}
		if en.Msg(c.FindingMsg) != c.Finding || en.Msg(c.FixMsg) != c.Fix {
			t.Errorf("%s: %q, fix %q in English differ from its messages", c.ID, c.Finding, c.Fix)
		}
	}
}

// TestFindingsHaveKeys: every check doctor runs, on a machine where every
// agent has clawd's hooks of a clawd that is gone and nothing else works
// (no runtime, no desktop, no autostart), and on one where the runtime,
// the desktop and autostart are fine, has a message key for its finding
// and a message for its fix, so the text report shows both in the
// person's language.
func TestFindingsHaveKeys(t *testing.T) {
	home := t.TempDir()
	clawdHome := filepath.Join(home, ".clawd")
	getenv := func(k string) string {
		switch k {
		case "HOME":
			return home
		case "CLAWD_HOME":
			return clawdHome
		}
		return ""
	}
	gone := filepath.Join(home, "moved", "clawd")
	installed := 0
	for _, a := range agents.All() {
		if dir, err := a.ConfigDir(getenv); err == nil {
			os.MkdirAll(dir, 0o755)
		}
		if _, err := installers.Install(clawdHome, a, getenv, gone, false); err == nil {
			installed++
		}
	}
	if installed < 5 {
		t.Fatalf("clawd's hooks installed for %d agents, want every agent clawd installs into", installed)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	o := Options{Home: clawdHome, Getenv: getenv, Binary: self, Version: "test", Ports: []int{closedPort(t)},
		Desktop:   func() desktop.Session { return desktop.Session{Why: "DBUS_SESSION_BUS_ADDRESS is not set"} },
		Autostart: func(context.Context) (autostart.Status, error) { return autostart.Status{}, nil },
	}
	broken := Run(context.Background(), o, nil)
	wantKeys(t, broken)

	startRuntime(t, clawdHome)
	o.Desktop = func() desktop.Session { return desktop.Session{Available: true} }
	o.Autostart = func(context.Context) (autostart.Status, error) {
		return autostart.Status{Enabled: true, Kind: autostart.Systemd, Path: "clawd.service", Binary: self, Running: true}, nil
	}
	fine := Run(context.Background(), o, nil)
	wantKeys(t, fine)

	// Both runs together are most kinds of check: the test would miss
	// little if a new check came without a key.
	ids := map[string]bool{}
	for _, c := range append(broken.Checks, fine.Checks...) {
		ids[c.ID] = true
	}
	for _, id := range []string{"runtime.reachable", "runtime.info", "runtime.port", "runtime.ports", "claude.detected", "claude.config",
		"claude.hooks.missing", "claude.hooks.binary", "claude.hooks.disabled", "claude.connection", "codex.trust.stale",
		"gemini.folder_trust", "desktop.session", "desktop.tray", "autostart"} {
		if !ids[id] {
			t.Errorf("no check %s ran", id)
		}
	}
}
