package doctor

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clawdhq/clawd/agents"
)

// TestVersionCheck: doctor warns, never fails, when the installed release
// of an agent is newer than every one clawd was tested with, and names
// both; a tested (or older) release is fine; an unknown one gets no check.
func TestVersionCheck(t *testing.T) {
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "claude"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	env := map[string]string{"HOME": home, "PATH": bin}
	check := func(installed string) (Check, bool) {
		t.Helper()
		o := Options{Home: filepath.Join(home, ".clawd"), Getenv: func(k string) string { return env[k] }, NoConnection: true, Ports: []int{},
			AgentVersion: func(a *agents.Agent, cmd string) string {
				if a != agents.Claude || cmd != filepath.Join(bin, "claude") {
					t.Errorf("AgentVersion(%s, %s), want claude's executable on PATH", a.ID, cmd)
				}
				return installed
			}}
		r := Run(context.Background(), o, []*agents.Agent{agents.Claude})
		wantKeys(t, r)
		for _, c := range r.Checks {
			if c.ID == "claude.version" {
				return c, true
			}
		}
		return Check{}, false
	}

	pinned := agents.Claude.Pinned()
	c, ok := check("999.0.0")
	switch {
	case !ok:
		t.Fatal("no claude.version check for a release newer than tested")
	case c.Status != Warn:
		t.Errorf("claude.version of 999.0.0 = %s, want a warning (never a failure)", c.Status)
	case !strings.Contains(c.Finding, "Claude Code 999.0.0 is newer than every release clawd was tested with ("+strings.Join(agents.Claude.Tested, ", ")+")"):
		t.Errorf("claude.version finding = %q, want both releases named", c.Finding)
	case !strings.Contains(c.Fix, "npm install -g @anthropic-ai/claude-code@"+pinned):
		t.Errorf("claude.version fix = %q, want the install of %s", c.Fix, pinned)
	}
	for _, v := range []string{pinned, "0.0.1"} {
		if c, ok := check(v); !ok || c.Status != OK || !strings.Contains(c.Finding, "Claude Code "+v+": clawd was tested with ") {
			t.Errorf("claude.version of %s = %+v (found %v), want ok", v, c, ok)
		}
	}
	if c, ok := check(""); ok {
		t.Errorf("claude.version of an unknown release = %+v, want no check", c)
	}
}
