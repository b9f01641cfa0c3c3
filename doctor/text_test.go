package doctor

import (
	"bytes"
	"strings"
	"testing"
)

// TestWriteText: checks grouped under the runtime, each agent by name,
// and the desktop; the fix only where something is wrong; colour only
// when asked for; a summary line.
func TestWriteText(t *testing.T) {
	r := Report{Checks: []Check{
		{ID: "runtime.reachable", Status: OK, Finding: "up"},
		{ID: "claude.hooks.missing", Agent: "claude", Status: Fail, Finding: "2 missing", Fix: "clawd doctor --fix"},
		{ID: "claude.hooks.stale", Agent: "claude", Status: OK, Finding: "fine", Fix: "never shown"},
		{ID: "desktop.tray", Status: Warn, Finding: "no tray host\x1b[2J", Fix: "enable it"},
	}}
	var plain bytes.Buffer
	r.WriteText(&plain, false)
	want := "runtime\n" +
		"  ok      runtime.reachable: up\n\n" +
		"Claude Code (claude)\n" +
		"  fail    claude.hooks.missing: 2 missing\n" +
		"          fix: clawd doctor --fix\n" +
		"  ok      claude.hooks.stale: fine\n\n" +
		"desktop\n" +
		"  warn    desktop.tray: no tray host[2J\n" + // the escape dropped, inert
		"          fix: enable it\n\n" +
		"1 failed, 1 warning: clawd doctor --fix repairs what it can\n"
	if plain.String() != want {
		t.Errorf("WriteText =\n%q\nwant\n%q", plain.String(), want)
	}
	var colour bytes.Buffer
	r.WriteText(&colour, true)
	if !strings.Contains(colour.String(), "\x1b[31mfail   \x1b[0m claude.hooks.missing") || strings.Contains(colour.String(), "\x1b[2J") {
		t.Errorf("WriteText with colour =\n%q", colour.String())
	}
}
