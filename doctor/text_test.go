package doctor

import (
	"bytes"
	"strings"
	"testing"

	"github.com/clawdhq/clawd/internal/i18n"
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
	r.WriteText(&plain, false, i18n.Printer{})
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
	r.WriteText(&colour, true, i18n.Printer{})
	if !strings.Contains(colour.String(), "\x1b[31mfail   \x1b[0m claude.hooks.missing") || strings.Contains(colour.String(), "\x1b[2J") {
		t.Errorf("WriteText with colour =\n%q", colour.String())
	}
}

// TestWriteTextChinese: the report's frame in Simplified Chinese, the
// statuses aligned in terminal columns; ids, findings and fixes as they
// are.
func TestWriteTextChinese(t *testing.T) {
	r := Report{Checks: []Check{
		{ID: "runtime.reachable", Status: OK, Finding: "up"},
		{ID: "claude.hooks.missing", Agent: "claude", Status: Fail, Finding: "2 missing", Fix: "clawd doctor --fix"},
		{ID: "desktop.tray", Status: Skipped, Finding: "no desktop"},
		{ID: "autostart", Status: Warn, Finding: "nothing starts clawd serve at login", Fix: "clawd autostart enable"},
	}}
	var b bytes.Buffer
	r.WriteText(&b, false, i18n.For(i18n.Chinese))
	want := "运行时\n" +
		"  正常 runtime.reachable: up\n\n" +
		"Claude Code (claude)\n" +
		"  失败 claude.hooks.missing: 2 missing\n" +
		"       修复：clawd doctor --fix\n\n" +
		"桌面\n" +
		"  跳过 desktop.tray: no desktop\n\n" +
		"自启动\n" +
		"  警告 autostart: nothing starts clawd serve at login\n" +
		"       修复：clawd autostart enable\n\n" +
		"1 项失败，1 项警告：clawd doctor --fix 会修复能修复的部分\n"
	if b.String() != want {
		t.Errorf("WriteText in Chinese =\n%s\nwant\n%s", b.String(), want)
	}
}
