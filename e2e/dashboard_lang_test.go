//go:build linux

package e2e

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestDashboardChinese is the dashboard of a runtime set to Simplified
// Chinese ([ui] language = "zh-CN") in real Chromium: the page says
// lang="zh-CN", its headings and the request's buttons are Chinese, and
// Allow (允许) still answers a real blocking PermissionRequest with
// Claude's allow JSON; the recap's durations read as Chinese words.
func TestDashboardChinese(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	w := newWorld(t)
	if err := os.WriteFile(filepath.Join(w.clawdHome, "config.toml"), []byte("[ui]\nlanguage = \"zh-CN\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, tab := w.serveDashboard(ctx)

	if lang := pageEval[string](t, tab, `document.documentElement.lang`); lang != "zh-CN" {
		t.Errorf(`<html lang> = %q, want "zh-CN"`, lang)
	}
	for sel, want := range map[string]string{"#needs-h": "等你处理", "#sessions-h": "会话", "#events-h": "事件", "#conn": "实时", "#pause": "暂停通知 1 小时"} {
		if got := pageEval[string](t, tab, `document.querySelector("`+sel+`").textContent.trim()`); !strings.HasPrefix(got, want) {
			t.Errorf("%s reads %q, want %q", sel, got, want)
		}
	}

	const sid = "5e550000-0000-4000-8000-0000000021c1"
	const project = "/home/ada/src/clawd"
	if r := w.clawd(ctx, claudePayload(t, "SessionStart.json", sid, project), "hook", "claude"); r.code != 0 {
		t.Fatalf("clawd hook claude SessionStart: %s", r)
	}
	allow := w.blockingHook(ctx, claudePayload(t, "PermissionRequest.json", sid, project))
	waitPage(t, tab, "the request under 等你处理", `document.querySelectorAll("#needs-list li button.allow").length === 1`, 10*time.Second)
	buttons := pageEval[[]string](t, tab, `[...document.querySelectorAll("#needs-list li button")].map((b) => b.textContent)`)
	if len(buttons) < 3 || buttons[0] != "允许" || buttons[1] != "拒绝" || buttons[len(buttons)-1] != "在终端中回答" {
		t.Errorf("the request's buttons read %q, want 允许, 拒绝, …, 在终端中回答", buttons)
	}
	if row := pageEval[string](t, tab, `document.querySelector("#session-list li").textContent`); !strings.Contains(row, "等你处理") {
		t.Errorf("the session row reads %q, want its state in Chinese (等你处理)", row)
	}
	if err := chromedp.Do(tab, chromedp.Click(chromedp.CSS("#needs-list li button.allow"))); err != nil {
		t.Fatalf("click 允许: %v", err)
	}
	r := allow.wait(t)
	if !jsonEqual(r.stdout, string(readTestdata(t, "claude", "outputs", "PermissionRequest.allow.json"))) {
		t.Errorf("the hook after 允许 in the dashboard printed %q, want Claude's allow JSON", r.stdout)
	}
	waitPage(t, tab, "等你处理 empty", `document.querySelectorAll("#needs-list li").length === 0 && !document.getElementById("needs-empty").hidden`, 10*time.Second)
	if empty := pageEval[string](t, tab, `document.getElementById("needs-empty").textContent`); empty != "没有等你处理的事。" {
		t.Errorf("the empty Needs you reads %q, want it in Chinese", empty)
	}
	// The recap's durations are Chinese words too: the week so far is
	// "6天17小时" or so, the few seconds clawd has run so many 秒.
	waitPage(t, tab, "the recap", `document.getElementById("recap-coverage").textContent !== ""`, 20*time.Second)
	if cov := pageEval[string](t, tab, `document.getElementById("recap-coverage").textContent`); !regexp.MustCompile(`\d+天\d\d小时`).MatchString(cov) || !regexp.MustCompile(`\d+秒`).MatchString(cov) {
		t.Errorf("the recap's coverage reads %q, want its durations in Chinese (…天…小时, …秒)", cov)
	}
}
