package cmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/runtime/client"
)

// TestCompletePendingIDs: `clawd permissions allow <TAB>` offers the ids
// of the pending requests, with what each asks, as urfave/cli's scripts
// read them ("id:description").
func TestCompletePendingIDs(t *testing.T) {
	p1, p2 := pendingView("perm-1"), pendingView("perm-2")
	p2.Agent, p2.Summary = "codex", "rm -rf build\n:evil"
	f := newFakeAPI(t, p1, p2)
	for _, verb := range []string{"allow", "deny", "always", "terminal"} {
		code, out, errOut := runCLI(t, f.home, "permissions", verb, "--generate-shell-completion")
		want := "perm-1:Claude Code: echo hello > out.txt\nperm-2:Codex: rm -rf build :evil\n"
		if code != 0 || out != want {
			t.Errorf("clawd permissions %s <TAB> = %d, %q (stderr %q), want %q", verb, code, out, errOut, want)
		}
	}
	// After the id, no more ids.
	if _, out, _ := runCLI(t, f.home, "permissions", "allow", "perm-1", "--generate-shell-completion"); strings.Contains(out, "perm-") {
		t.Errorf("clawd permissions allow perm-1 <TAB> = %q, want no second id", out)
	}
	// Completing answers nothing.
	if len(f.decided) != 0 {
		t.Errorf("completion decided %v", f.decided)
	}
}

// TestAutostartRefusesGoRun: `go run`'s binary is deleted when it exits,
// so no login entry may name it (the installers' rule).
func TestAutostartRefusesGoRun(t *testing.T) {
	home := t.TempDir()
	e, _, errb := installTestEnv(home, "/tmp/go-build42/b001/exe/clawd")
	if code := run(context.Background(), e, []string{"clawd", "autostart", "enable"}); code != 1 || !strings.Contains(errb.String(), "made by `go run`") {
		t.Errorf("clawd autostart enable from go run = %d, %q; want 1 and the reason", code, errb)
	}
	if _, err := os.Stat(filepath.Join(home, ".config")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a refused enable wrote %s: %v", filepath.Join(home, ".config"), err)
	}
}

// TestStatusChinese: the status table and the remote links in Simplified
// Chinese, from the locale; the states are words, the agent ids stay ids.
func TestStatusChinese(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	e, out, _ := testEnv(t, t.TempDir(), nil, map[string]string{"LANG": "zh_CN.UTF-8", "HOME": "/home/u"})
	e.now = func() time.Time { return now }
	renderStatus(e, client.Snapshot{DisplayState: "working", Remotes: []client.RemoteLink{
		{Profile: "devbox", Kind: client.LinkWSL, State: client.LinkUp, Since: now.Add(-3 * time.Minute)},
		{Profile: "ci", Kind: client.LinkSSH, State: client.LinkDown, Since: now, Error: "connection refused", NextTry: now.Add(10 * time.Second)},
	}, Sessions: []client.SessionView{
		{Agent: "claude", SessionID: "s1", State: "working", Tool: "Bash", Title: "修复登录", Cwd: "/home/u/shop", UpdatedAt: now.Add(-90 * time.Second)},
		{Agent: "codex", SessionID: "s2", State: "idle", Headless: true, Cwd: "/srv/ci", UpdatedAt: now},
	}})
	// Aligned in terminal columns: a Chinese character takes two.
	want := "没有需要你处理的 · 1 个工作中 · 1 个空闲\n" +
		"远程 devbox：已连接 3 分钟\n" +
		"远程 ci：已断开: connection refused（10 秒后重试）\n" +
		"智能体  状态            标题      文件夹   时长\n" +
		"claude  工作中（Bash）  修复登录  ~/shop   1 分钟\n" +
		"codex   空闲（无界面）  -         /srv/ci  刚刚\n"
	if out.String() != want {
		t.Errorf("status in Chinese =\n%s\nwant\n%s", out, want)
	}
}

// TestCompleteAgents: `clawd install <TAB>` offers every agent of the
// registry, by id, in its order.
func TestCompleteAgents(t *testing.T) {
	var want strings.Builder
	for _, a := range agents.All() {
		fmt.Fprintf(&want, "%s:%s\n", a.ID, a.Name)
	}
	code, out, errOut := runCLI(t, t.TempDir(), "install", "--generate-shell-completion")
	if code != 0 || out != want.String() {
		t.Errorf("clawd install <TAB> = %d, %q (stderr %q), want %q", code, out, errOut, want.String())
	}
}

// TestCompletionLanguage: the completion scripts are the same in every
// language, and the descriptions beside the words they complete are in
// the language of whoever presses Tab: the script asks clawd for them then.
// (The root's words come from os.Args: completion.txtar checks those.)
func TestCompletionLanguage(t *testing.T) {
	clawd := func(lang string, args ...string) string {
		t.Helper()
		e, out, errb := testEnv(t, t.TempDir(), nil, map[string]string{"LANG": lang})
		if code := run(context.Background(), e, append([]string{"clawd"}, args...)); code != 0 {
			t.Fatalf("LANG=%s clawd %s = %d: %s", lang, strings.Join(args, " "), code, errb)
		}
		return out.String()
	}
	for _, shell := range []string{"bash", "zsh", "fish", "pwsh"} {
		if en, zh := clawd("C.UTF-8", "completion", shell), clawd("zh_CN.UTF-8", "completion", shell); en != zh || en == "" {
			t.Errorf("clawd completion %s differs in Chinese:\n%s\nin English:\n%s", shell, zh, en)
		}
	}
	for _, tt := range []struct {
		lang string
		args []string
		want []string
	}{
		{"zh_CN.UTF-8", []string{"status", "-"}, []string{"--json:以 JSON 输出快照\n", "--watch:持续显示变化，直到被中断\n", "--help:显示帮助\n"}},
		{"C.UTF-8", []string{"status", "-"}, []string{"--json:print the snapshot as JSON\n", "--help:show help\n"}},
		{"zh_CN.UTF-8", []string{"completion"}, []string{"bash:打印 bash 补全脚本\n"}},
	} {
		out := clawd(tt.lang, append(tt.args, "--generate-shell-completion")...)
		for _, w := range tt.want {
			if !strings.Contains(out, w) {
				t.Errorf("LANG=%s clawd %s <TAB> lacks %q:\n%s", tt.lang, strings.Join(tt.args, " "), w, out)
			}
		}
	}
}
