package doctor

import (
	"bytes"
	"strings"
	"testing"

	"github.com/clawdhq/clawd/internal/health"
	"github.com/clawdhq/clawd/internal/i18n"
)

// TestWriteText: checks grouped under the runtime, each agent by name,
// and the desktop; the fix only where something is wrong; colour only
// when asked for; the verdict first; the agents left out last.
func TestWriteText(t *testing.T) {
	r := Report{Checks: []Check{
		{ID: "runtime.reachable", Status: OK, Finding: "up"},
		{ID: "claude.hooks.missing", Agent: "claude", Status: Fail, Finding: "2 missing", Fix: "clawd doctor --fix"},
		{ID: "claude.hooks.stale", Agent: "claude", Status: OK, Finding: "fine", Fix: "never shown"},
		{ID: "desktop.tray", Status: Warn, Finding: "no tray host\x1b[2J", Fix: "enable it"},
	}, NotHere: []string{"cursor", "kiro"}}
	var plain bytes.Buffer
	r.WriteText(&plain, false, i18n.Printer{}, 0)
	want := "1 failed, 1 warning: clawd doctor --fix repairs what it can\n\n" +
		"runtime\n" +
		"  ok      runtime.reachable: up\n\n" +
		"Claude Code (claude)\n" +
		"  fail    claude.hooks.missing: 2 missing\n" +
		"          fix: clawd doctor --fix\n" +
		"  ok      claude.hooks.stale: fine\n\n" +
		"desktop\n" +
		"  warn    desktop.tray: no tray host[2J\n" + // the escape dropped, inert
		"          fix: enable it\n\n" +
		"2 more agents not on this machine (clawd doctor --all)\n"
	if plain.String() != want {
		t.Errorf("WriteText =\n%q\nwant\n%q", plain.String(), want)
	}
	var colour bytes.Buffer
	r.WriteText(&colour, true, i18n.Printer{}, 0)
	if !strings.Contains(colour.String(), "\x1b[31mfail   \x1b[0m claude.hooks.missing") || strings.Contains(colour.String(), "\x1b[2J") {
		t.Errorf("WriteText with colour =\n%q", colour.String())
	}
}

// TestWriteTextWraps: given a width, a long finding and its fix wrap at
// spaces, a path after a slash, the lines after the first under the
// check's text (a fix's under the fix); nothing is cut.
func TestWriteTextWraps(t *testing.T) {
	r := Report{Checks: []Check{
		{ID: "claude.hooks.missing", Agent: "claude", Status: Fail,
			Finding: "clawd's hooks are not installed in /home/someone/.claude/settings.json: Claude Code reports nothing",
			Fix:     "clawd install claude, or clawd doctor --fix"},
	}}
	var b bytes.Buffer
	r.WriteText(&b, false, i18n.Printer{}, 40)
	want := "1 failed, 0 warnings: clawd doctor --fix\nrepairs what it can\n\n" +
		"Claude Code (claude)\n" +
		"  fail    claude.hooks.missing: clawd's\n" +
		"          hooks are not installed in\n" +
		"          /home/someone/.claude/\n" +
		"          settings.json: Claude Code\n" +
		"          reports nothing\n" +
		"          fix: clawd install claude, or\n" +
		"               clawd doctor --fix\n"
	if b.String() != want {
		t.Errorf("WriteText(40) =\n%s\nwant\n%s", b.String(), want)
	}
}

// TestWriteTextChinese: the report in Simplified Chinese, the statuses
// aligned in terminal columns: its frame, and each check's finding and fix
// from their messages; ids, paths and commands as they are. A check
// without messages (read back from JSON) shows its English.
func TestWriteTextChinese(t *testing.T) {
	var none i18n.Msg
	r := Report{Checks: []Check{
		health.New("runtime.reachable", "", Warn, i18n.M("doctor.finding.not_running", "/h/.clawd"), i18n.Literal("clawd serve")),
		health.New("claude.hooks.missing", "claude", Fail,
			i18n.MN("doctor.finding.missing", 2, "/h/.claude/settings.json", "Stop, Notification", "Claude Code"),
			i18n.Literal("clawd doctor --fix --agent claude")),
		health.New("claude.hooks.duplicate", "claude", OK, i18n.M("doctor.finding.once"), none),
		health.New("claude.config", "claude", Fail, i18n.M("doctor.finding.error", "/h/.claude/settings.json: line 3: invalid character"),
			i18n.M("doctor.fixes.by_hand", "clawd doctor --fix --agent claude")),
		health.New("desktop.tray", "", Warn, i18n.M("doctor.finding.tray_none"), i18n.M("doctor.fixes.tray_none")),
		{ID: "desktop.notifications", Status: Skipped, Finding: "no desktop"},
		health.New("autostart", "", Warn, i18n.M("doctor.finding.autostart_none"), i18n.Literal("clawd autostart enable")),
	}}
	var b bytes.Buffer
	r.WriteText(&b, false, i18n.For(i18n.Chinese), 0)
	want := "2 项失败，3 项警告：clawd doctor --fix 会修复能修复的部分\n\n" +
		"运行时\n" +
		"  警告 runtime.reachable: clawd serve 没有为 /h/.clawd 运行：在它运行之前，智能体的钩子什么也送不到\n" +
		"       修复：clawd serve\n\n" +
		"Claude Code (claude)\n" +
		"  失败 claude.hooks.missing: /h/.claude/settings.json：Stop, Notification 没有 clawd 条目：Claude Code 不会报告它们\n" +
		"       修复：clawd doctor --fix --agent claude\n" +
		"  正常 claude.hooks.duplicate: 每个事件只运行一次 clawd\n" +
		"  失败 claude.config: 出错：/h/.claude/settings.json: line 3: invalid character\n" +
		"       修复：手动修复该文件（clawd 从不改写它无法读取或解析的文件），然后运行 clawd doctor --fix --agent claude\n\n" +
		"桌面\n" +
		"  警告 desktop.tray: 会话总线上没有托盘宿主（StatusNotifierWatcher）：有托盘宿主启动后图标才会显示\n" +
		"       修复：在 GNOME 上，启用 AppIndicator 扩展\n" +
		"  跳过 desktop.notifications: no desktop\n\n" +
		"自启动\n" +
		"  警告 autostart: 登录时没有任何东西启动 clawd serve：重启后，在 clawd serve 运行之前，每个钩子都会放行而不报告\n" +
		"       修复：clawd autostart enable\n"
	if b.String() != want {
		t.Errorf("WriteText in Chinese =\n%s\nwant\n%s", b.String(), want)
	}
	var en bytes.Buffer
	r.WriteText(&en, false, i18n.Printer{}, 0)
	for _, c := range r.Checks {
		if !strings.Contains(en.String(), c.Finding) {
			t.Errorf("WriteText in English lacks %s's finding %q:\n%s", c.ID, c.Finding, en.String())
		}
	}
}

// TestVerdictRuntimeDown: with clawd serve not running, the verdict says
// so first (--fix cannot help with that).
func TestVerdictRuntimeDown(t *testing.T) {
	r := Report{Checks: []Check{
		{ID: "runtime.reachable", Status: Fail, Finding: "not running"},
		{ID: "claude.connection", Agent: "claude", Status: Warn, Finding: "nothing arrived"},
	}}
	var b bytes.Buffer
	r.WriteText(&b, false, i18n.Printer{}, 0)
	want := "1 failed, 1 warning: clawd serve is not running, nothing reaches you\n"
	if first, _, _ := strings.Cut(b.String(), "\n"); first+"\n" != want {
		t.Errorf("WriteText's first line = %q, want %q", first, want)
	}
}
