package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/clawdhq/clawd/agents"
)

func TestScanNames(t *testing.T) {
	known := map[string]bool{"SessionStart": true, "Stop": true, "PreToolUse": true, "PostToolUse": true}
	for _, c := range []struct {
		name, code string
		want       []string
	}{
		{"JavaScript array", `var x=["PreToolUse","PostToolUse","Stop","SessionStart","PreSkillShellCommand"],y=1;`,
			[]string{"PostToolUse", "PreSkillShellCommand", "PreToolUse", "SessionStart", "Stop"}},
		{"spaced, single quotes", `const e = ['Stop', 'PreToolUse',` + "\n" + `  'NewOne', 'SessionStart'];`,
			[]string{"NewOne", "PreToolUse", "SessionStart", "Stop"}},
		{"serde message", "unknown variant `Foo`, expected one of `SessionStart`, `PreToolUse`, `Stop`, `Interrupt`",
			[]string{"Interrupt", "PreToolUse", "SessionStart", "Stop"}},
		// Fewer than three known events: a list of something else.
		{"unrelated list", `["Stop","go","wait"]`, nil},
		{"JSON schema", "\"hook_event_name\": {\n      \"const\": \"Interrupt\",\n", []string{"Interrupt"}},
		{"zod", `u({hook_event_name:P("PreSkillShellCommand"),tool_name:r()})`, []string{"PreSkillShellCommand"}},
		{"camelCase field", `hookEventName: "BeforeToolSelection",`, []string{"BeforeToolSelection"}},
		{"TypeScript enum", `E["Stop"] = "Stop";E["PreToolUse"] = "PreToolUse";E["SessionStart"] = "SessionStart";E["AfterAgent"] = "AfterAgent";F["Other"] = "Other";`,
			[]string{"AfterAgent", "PreToolUse", "SessionStart", "Stop"}},
		{"binary noise", "\x00\"Stop\"\x00'PreToolUse'\x00`SessionStart`,\"\xff\"", nil},
	} {
		names := map[string]bool{}
		scanNames([]byte(c.code), known, names)
		if got := minus(names, nil); !slices.Equal(got, c.want) {
			t.Errorf("scanNames(%s) = %q, want %q", c.name, got, c.want)
		}
	}
}

// writeTap writes tapped payloads: file name -> payload.
func writeTap(t *testing.T, calls map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, payload := range calls {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(payload), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestCompareTaps: the events and payload keys a new release sends that
// the old did not, and the other way round; other agents' calls and cut
// payloads left out.
func TestCompareTaps(t *testing.T) {
	old := writeTap(t, map[string]string{
		"1-10-claude-.json": `{"hook_event_name":"PermissionRequest","tool_name":"Bash","tool_input":{"command":"ls"},"permission_suggestions":[{"type":"addRules"}]}`,
		"2-11-claude-.json": `{"hook_event_name":"Stop","stop_hook_active":false,"legacy":1}`,
		"3-12-codex-.json":  `{"hook_event_name":"Stop","codex_only":true}`,
	})
	cur := writeTap(t, map[string]string{
		"1-10-claude-.json":     `{"hook_event_name":"PermissionRequest","tool_name":"Skill","tool_input":{"skill":"docs:notes"},"tool_kind":"mcp_skill","mcp_skill":{"name":"docs:notes"},"permission_suggestions":[{"type":"addRules"}]}`,
		"2-11-claude-.json":     `{"hook_event_name":"Stop","stop_hook_active":false,"files":{"/home/user/a.go":1}}`,
		"3-12-claude-.json":     `{"hook_event_name":"PreSkillShellCommand","command_name":"greet"}`,
		"4-13-claude-.json":     `{"hook_event_name":"Stop","cut`,
		"5-14-claude-Stop.json": `{"stop_hook_active":true}`,
	})
	d, err := compare(agents.Claude, release{version: "1", tap: old}, release{version: "2", tap: cur})
	if err != nil {
		t.Fatal(err)
	}
	if d.oldCalls != 2 || d.newCalls != 4 {
		t.Errorf("calls = %d old, %d new; want 2 and 4 (other agents' and cut payloads left out)", d.oldCalls, d.newCalls)
	}
	if !slices.Equal(d.sentNew, []string{"PreSkillShellCommand"}) || len(d.sentGone) != 0 {
		t.Errorf("events sent new %q, gone %q; want PreSkillShellCommand, none", d.sentNew, d.sentGone)
	}
	wantNew := map[string][]string{
		"PermissionRequest":    {"mcp_skill", "mcp_skill.name", "tool_input.skill", "tool_kind"},
		"Stop":                 {"files", "files.*"},
		"PreSkillShellCommand": {"command_name", "hook_event_name"},
	}
	wantGone := map[string][]string{"PermissionRequest": {"tool_input.command"}, "Stop": {"legacy"}}
	for ev, want := range wantNew {
		if !slices.Equal(d.keysNew[ev], want) {
			t.Errorf("new keys of %s = %q, want %q", ev, d.keysNew[ev], want)
		}
	}
	for ev, want := range wantGone {
		if !slices.Equal(d.keysGone[ev], want) {
			t.Errorf("gone keys of %s = %q, want %q", ev, d.keysGone[ev], want)
		}
	}
	if len(d.keysNew) != len(wantNew) || len(d.keysGone) != len(wantGone) {
		t.Errorf("keys new %v, gone %v; want only %v and %v", d.keysNew, d.keysGone, wantNew, wantGone)
	}

	var out bytes.Buffer
	d.namedNew = []string{"PreSkillShellCommand", "Brand"}
	d.write(&out, agents.Claude, "1", "2")
	for _, line := range []string{
		"claude 1 -> 2\n",
		"    PreSkillShellCommand (clawd registers and decodes it)\n",
		"    Brand (new to clawd)\n",
		"  hook events the tests received from 2, not from 1: PreSkillShellCommand\n",
		"  PermissionRequest payload keys new: mcp_skill, mcp_skill.name, tool_input.skill, tool_kind\n",
		"  Stop payload keys gone: legacy\n",
	} {
		if !strings.Contains(out.String(), line) {
			t.Errorf("report lacks %q:\n%s", line, out.String())
		}
	}
}

func TestCompareSameReleases(t *testing.T) {
	tap := writeTap(t, map[string]string{"1-10-claude-.json": `{"hook_event_name":"Stop","a":[{"b":1}]}`})
	d, err := compare(agents.Claude, release{version: "1", tap: tap}, release{version: "1", tap: tap})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	d.write(&out, agents.Claude, "1", "1")
	if want := "claude 1 -> 1\n  nothing new (1 hook payloads from 1, 1 from 1)\n"; out.String() != want {
		t.Errorf("report = %q, want %q", out.String(), want)
	}
}

// driftTableRow is a line of scripts/drift.sh's AGENTS table.
var driftTableRow = regexp.MustCompile(`(?m)^\s*"([a-z0-9-]+)\s+(npm|go):(\S+)\s+(\S+)"$`)

// TestDriftTable holds scripts/drift.sh's table to the registry: every
// agent the end-to-end tests pin is tried, from the package it ships as.
func TestDriftTable(t *testing.T) {
	b, err := os.ReadFile("../drift.sh")
	if err != nil {
		t.Fatal(err)
	}
	rows := driftTableRow.FindAllStringSubmatch(string(b), -1)
	if len(rows) < 2 {
		t.Fatalf("read %d rows from drift.sh's table: the pattern no longer matches its lines", len(rows))
	}
	seen := map[string]bool{}
	for _, r := range rows {
		a := agents.Lookup(r[1])
		switch {
		case a == nil:
			t.Errorf("drift.sh tries %s, an agent the registry does not know", r[1])
		case len(a.Tested) == 0:
			t.Errorf("drift.sh tries %s, whose agents/%s.go names no Tested release", r[1], r[1])
		case r[2] == "npm" && a.Package != r[3]:
			t.Errorf("drift.sh looks %s up as npm package %s, the registry says %q", r[1], r[3], a.Package)
		}
		if _, err := regexp.Compile(r[4]); err != nil {
			t.Errorf("drift.sh's test pattern for %s: %v", r[1], err)
		}
		seen[r[1]] = true
	}
	for _, a := range agents.All() {
		if len(a.Tested) > 0 && !seen[a.ID] {
			t.Errorf("agents/%s.go names Tested releases but drift.sh's table has no row for %s", a.ID, a.ID)
		}
	}
}
