package installers

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clawdhq/clawd/agents"
)

// TestClaudeEventsByRelease: PreSkillShellCommand (Claude Code 2.1.332)
// is registered only where that release or a later one is installed: an
// older one stops its TUI at a Settings Warning for an event it does not
// know. Moving between releases adds or removes it; an unknown release
// leaves it as it is.
func TestClaudeEventsByRelease(t *testing.T) {
	const bin = "/usr/local/bin/clawd"
	has := func(data []byte) bool { return strings.Contains(string(data), `"PreSkillShellCommand"`) }
	all := len(agents.Claude.Hooks)
	for _, c := range []struct {
		version string
		want    bool
	}{{"2.1.332", true}, {"2.1.400", true}, {"3.0.0", true}, {"2.1.328", false}, {"", false}, {"unknown", false}} {
		out, ch, err := InstallClaude(nil, bin, c.version, Known{})
		n := all
		if !c.want {
			n--
		}
		if err != nil || has(out) != c.want || ch.Added != n {
			t.Errorf("InstallClaude(Claude Code %q) = %d added, PreSkillShellCommand %v, %v; want %d added, %v", c.version, ch.Added, has(out), err, n, c.want)
		}
	}

	newer, _, err := InstallClaude(nil, bin, "2.1.332", Known{})
	if err != nil {
		t.Fatal(err)
	}
	older, ch, err := InstallClaude(newer, bin, "2.1.328", Known{})
	if err != nil || has(older) || ch.Removed != 1 || ch.Added+ch.Repaired != 0 {
		t.Errorf("back to 2.1.328: changes %+v, PreSkillShellCommand %v, %v; want it removed, nothing else", ch, has(older), err)
	}
	// A release that cannot be read (clawd serve's self-repair with
	// another PATH): the event stays where it is, and is not added where
	// it is not.
	for _, file := range [][]byte{newer, older} {
		out, ch, err := InstallClaude(file, bin, "", Known{})
		if err != nil || string(out) != string(file) || ch.Any() {
			t.Errorf("InstallClaude(unknown release) changed %+v (%v) of a file with PreSkillShellCommand %v; want it left as it is", ch, err, has(file))
		}
	}
	again, ch, err := InstallClaude(older, bin, "2.1.332", Known{})
	if err != nil || !has(again) || ch.Added != 1 || ch.Removed+ch.Repaired != 0 {
		t.Errorf("up to 2.1.332 again: changes %+v, PreSkillShellCommand %v, %v; want it added, nothing else", ch, has(again), err)
	}
}

// TestNewClaudeReadsRelease: the installer takes the release of the claude
// on PATH from its npm package.
func TestNewClaudeReadsRelease(t *testing.T) {
	dir := t.TempDir()
	pkg := filepath.Join(dir, "node_modules", "@anthropic-ai", "claude-code")
	if err := os.MkdirAll(filepath.Join(pkg, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(pkg, "package.json"), []byte(`{"name":"@anthropic-ai/claude-code","version":"2.1.332"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(pkg, "bin", "claude"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"HOME": t.TempDir(), "PATH": filepath.Join(pkg, "bin")}
	c, err := NewClaude(envMap(env))
	if err != nil || c.Version != "2.1.332" {
		t.Fatalf("NewClaude with claude 2.1.332 on PATH = %+v, %v; want Version 2.1.332", c, err)
	}
	env["PATH"] = t.TempDir()
	if c, err := NewClaude(envMap(env)); err != nil || c.Version != "" {
		t.Errorf("NewClaude without claude on PATH = %+v, %v; want no Version", c, err)
	}
}

// TestRepairWritesTheRecordedRelease: a repair by a process that cannot
// find Claude Code (clawd serve without it on PATH) writes the hooks the
// last install, which found release 2.1.332, wrote: PreSkillShellCommand
// included, the file byte for byte what install left.
func TestRepairWritesTheRecordedRelease(t *testing.T) {
	home := t.TempDir()
	settings := filepath.Join(t.TempDir(), "settings.json")
	const bin = "/usr/local/bin/clawd"
	rec, err := ReadRecord(home)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Apply(rec, agents.Claude.ID, &Claude{Path: settings, Version: "2.1.332"}, bin, true, false); err != nil {
		t.Fatal(err)
	}
	if err := rec.Save(); err != nil {
		t.Fatal(err)
	}
	installed, _ := os.ReadFile(settings)
	if err := os.WriteFile(settings, []byte("{}\n"), 0o600); err != nil { // another tool strips the hooks
		t.Fatal(err)
	}
	rec, err = ReadRecord(home)
	if err != nil || rec.Release(agents.Claude.ID) != "2.1.332" {
		t.Fatalf("the record's release = %q, %v; want 2.1.332", rec.Release(agents.Claude.ID), err)
	}
	if _, err := Apply(rec, agents.Claude.ID, &Claude{Path: settings}, bin, true, false); err != nil {
		t.Fatal(err)
	}
	if repaired, _ := os.ReadFile(settings); string(repaired) != string(installed) {
		t.Errorf("repaired without a release:\n%s\nwant what install wrote:\n%s", repaired, installed)
	}
}
