package tray

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clawdhq/clawd/internal/config"
	"github.com/clawdhq/clawd/internal/golden"
	"github.com/clawdhq/clawd/internal/i18n"
	"github.com/clawdhq/clawd/runtime/client"
	"github.com/clawdhq/clawd/tray/notify"
)

// checkGolden compares got with testdata/name (see internal/golden).
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	golden.Check(t, filepath.Join("testdata", name), []byte(got))
}

// busyView is a menu with every kind of line: requests of each kind,
// sessions in many states and with the outcomes of their last turns,
// notifications paused.
func busyView(p i18n.Printer) View {
	return View{Now: t0, Printer: p, View: client.View{
		NotificationsPausedUntil: time.Date(2026, 11, 30, 13, 0, 0, 0, time.Local),
		Snapshot: client.Snapshot{DisplayState: "waiting", Sessions: []client.SessionView{
			sess("claude", "idle1", "idle", 3*time.Hour),
			sess("claude", "work", "working", 10*time.Second, func(s *client.SessionView) { s.Tool = "Bash"; s.Title = "修复登录" }),
			sess("codex", "ci", "thinking", time.Second, func(s *client.SessionView) { s.Headless = true }),
			sess("claude", "wait", "waiting", 2*time.Minute, func(s *client.SessionView) { s.Pending = 1 }),
			sess("gemini", "boom", "error", 3*time.Second),
			sess("claude", "sub", "juggling", time.Minute, func(s *client.SessionView) { s.Subagents = 2 }),
			sess("claude", "q", "waiting", 0, func(s *client.SessionView) { s.Pending, s.Questions, s.Title = 1, 1, "选颜色" }),
			sess("opencode", "old", "sleeping", 72*time.Hour),
			sess("claude", "fin", "idle", 3*time.Minute, func(s *client.SessionView) {
				s.BaseState, s.Outcome, s.OutcomeAt = "idle", "done", t0.Add(-3*time.Minute)
			}),
			sess("qwen", "api", "idle", time.Minute, func(s *client.SessionView) {
				s.BaseState, s.Outcome, s.OutcomeAt, s.FailReason = "idle", "failed", t0.Add(-time.Minute), "API Error: 429 请求过多"
			}),
		}},
		Permissions: []client.PermissionView{
			perm("p1", "claude", "wait", client.KindPermission, func(p *client.PermissionView) {
				p.Suggestions = []string{"Allow Bash(npm test:*) in this project"}
			}),
			perm("p2", "claude", "q", client.KindQuestion, func(p *client.PermissionView) {
				p.Tool, p.Summary, p.Options, p.Title = "AskUserQuestion", "哪种颜色？", []string{"红", "蓝"}, "选颜色"
			}),
			perm("p3", "claude", "other", client.KindPlan),
			perm("p4", "claude", "wait", client.KindPermission, func(p *client.PermissionView) { p.SubagentID, p.SubagentType = "afc7", "Explore" }),
		}}}
}

// TestBuildChinese is the whole tray in Simplified Chinese: the menu and
// its tooltip, against a golden file.
func TestBuildChinese(t *testing.T) {
	m := Build(busyView(i18n.For(i18n.Chinese)))
	checkGolden(t, "menu_zh-CN.golden", "tooltip: "+m.Tooltip+"\n"+strings.Join(outline(m.Items, 0), "\n")+"\n")
	dnd := Build(View{Now: t0, Printer: i18n.For(i18n.Chinese), View: client.View{DND: true}})
	if want := "clawd: 没有运行中的智能体 · 勿扰"; dnd.Tooltip != want {
		t.Errorf("Chinese tooltip in do-not-disturb = %q, want %q", dnd.Tooltip, want)
	}
}

// TestNotificationChinese is one notification, as the desktop gets it,
// in Simplified Chinese: a permission request through the notifier's own
// mapping and policy.
func TestNotificationChinese(t *testing.T) {
	zh := i18n.For(i18n.Chinese)
	c := client.Change{Permission: &client.PermissionChange{Type: client.ChangeAdded, Permission: client.PermissionView{
		ID: "p1", Kind: client.KindPermission, Agent: "claude", SessionID: "s1", Tool: "Bash", Summary: "npm test",
		Cwd: "/home/u/shop", Title: "修复登录",
	}}}
	oc, ok := occurrence(zh, c)
	if !ok {
		t.Fatal("occurrence(permission added) = false")
	}
	notes := notify.NewPolicy(config.DefaultNotifications(), zh).Observe(oc, notify.Gate{}, t0)
	if len(notes) != 1 {
		t.Fatalf("Observe = %d notes, want 1", len(notes))
	}
	checkGolden(t, "notification_zh-CN.golden", "summary: "+notes[0].Summary+"\nbody: "+notes[0].Body+"\n")
}
