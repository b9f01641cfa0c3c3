package cmd

import (
	"encoding/json"
	"fmt"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/clawdhq/clawd/internal/text"
	"github.com/clawdhq/clawd/remote"
	"github.com/clawdhq/clawd/runtime"
	"github.com/clawdhq/clawd/runtime/automations"
	"github.com/clawdhq/clawd/runtime/client"
	"github.com/clawdhq/clawd/runtime/recap"
)

// TestNoTabwriter: every table clawd prints for people goes through
// newTable, which measures cells in terminal columns; text/tabwriter
// counts runes, so one Chinese title would shift every column after it.
func TestNoTabwriter(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		n++
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			if path, _ := strconv.Unquote(imp.Path.Value); path == "text/tabwriter" {
				t.Errorf("%s imports text/tabwriter: lay its table out with newTable (table.go)", name)
			}
		}
	}
	if n < 10 {
		t.Fatalf("found %d source files in cmd/, want them all", n)
	}
}

// checkAligned fails unless the table of rows in out is aligned (see
// aligned).
func checkAligned(t *testing.T, out string, rows ...[]string) {
	t.Helper()
	if err := aligned(out, rows...); err != nil {
		t.Errorf("%v:\n%s", err, out)
	}
}

// aligned checks that each row of a table, found as the next line of out
// that holds its cells in order, starts every cell at the same terminal
// column (text.Width: a Chinese character takes two) as the other rows'
// cells of that column. Empty cells are not looked for.
func aligned(out string, rows ...[]string) error {
	lines := strings.Split(out, "\n")
	starts := map[int]int{} // by column: where the first row's cell starts
	next := 0
	for _, row := range rows {
		found := false
		for ; next < len(lines) && !found; next++ {
			cols, ok := cellColumns(lines[next], row)
			if !ok {
				continue
			}
			found = true
			for j, c := range cols {
				if c < 0 {
					continue
				}
				if want, ok := starts[j]; !ok {
					starts[j] = c
				} else if c != want {
					return fmt.Errorf("in %q, %q starts at column %d, the cells above it at %d", lines[next], row[j], c, want)
				}
			}
		}
		if !found {
			return fmt.Errorf("no line after the rows before holds %q in order", row)
		}
	}
	return nil
}

// cellColumns returns the terminal column where each of cells starts in
// line, looked for in order (-1 for an empty cell); ok is false when one
// is not there.
func cellColumns(line string, cells []string) (cols []int, ok bool) {
	at := 0
	for _, c := range cells {
		if c == "" {
			cols = append(cols, -1)
			continue
		}
		i := strings.Index(line[at:], c)
		if i < 0 {
			return nil, false
		}
		cols = append(cols, text.Width(line[:at+i]))
		at += i + len(c)
	}
	return cols, true
}

func TestCheckAligned(t *testing.T) {
	ok := "标题      文件夹\n修复登录  ~/shop\nfix       ~/商店\n"
	checkAligned(t, ok, []string{"标题", "文件夹"}, []string{"修复登录", "~/shop"}, []string{"fix", "~/商店"})
	// What text/tabwriter makes of it: runes, not columns.
	bad := "标题    文件夹\n修复登录  ~/shop\nfix   ~/商店\n"
	if aligned(bad, []string{"标题", "文件夹"}, []string{"修复登录", "~/shop"}, []string{"fix", "~/商店"}) == nil {
		t.Errorf("aligned passed a misaligned table:\n%s", bad)
	}
}

// tablesNow is when the CLI asks the fake runtime for the tables below
// (runCLI's and TestJSONNeverTranslated's clock).
var tablesNow = created.Add(2 * time.Minute)

// fillTables gives the fake runtime a history, a recap, automations with
// runs and a remote link, with Chinese titles and folders, and its home
// two remote profiles.
func fillTables(t *testing.T, f *fakeAPI) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "runtime", "testdata", "recap", "replay.golden.json"))
	if err != nil {
		t.Fatal(err)
	}
	var sum recap.Summary
	if err := json.Unmarshal(data, &sum); err != nil {
		t.Fatal(err)
	}
	sum.Folders[0].Name = "/home/user/项目"
	off := false
	f.mu.Lock()
	defer f.mu.Unlock()
	f.recap = sum
	f.history = client.History{Sessions: []client.HistoryEntry{
		{Agent: "claude", SessionID: "5e550001", Title: "修复登录页面", Cwd: "/home/user/商店",
			LastActive: tablesNow.Add(-90 * time.Second), Turns: 3, Ended: true},
		{Agent: "codex", SessionID: "c0de0002", Cwd: "/srv/ci", LastActive: tablesNow.Add(-3 * time.Hour), Turns: 12, Headless: true},
		{Agent: "claude", Host: "box", SessionID: "box:abc3", Title: "Refactor", Cwd: "/home/me/shop",
			LastActive: tablesNow.Add(-2 * time.Second), Turns: 1, Live: true},
	}}
	f.automations = runtime.AutomationsState{Definitions: []automations.DefinitionView{
		{Definition: automations.Definition{ID: "post-done", Name: "完成时通知", Event: automations.TurnCompleted,
			Action: automations.Action{Type: "webhook"}}, Bindings: []automations.BindingView{{State: automations.BindingActive}}},
		{Definition: automations.Definition{ID: "ding", Event: automations.TurnFailed, Action: automations.Action{Type: "sound"}},
			Bindings: []automations.BindingView{{State: automations.BindingNeedsReview}}},
		{Definition: automations.Definition{ID: "off", Enabled: &off, Event: automations.TurnStarted, Action: automations.Action{Type: "command"}}},
	}}
	f.runs = []automations.Run{
		{ID: "r1", AutomationID: "post-done", EventName: automations.TurnCompleted, State: automations.StateSucceeded, Attempts: 1, CreatedAt: created},
		{ID: "r2", AutomationID: "ding", EventName: automations.TurnFailed, State: automations.StateOutcomeUnknown,
			ErrorCode: "timeout", Attempts: 3, CreatedAt: created},
	}
	f.links = []client.RemoteLink{{Profile: "box", Label: "box", Kind: client.LinkSSH, State: client.LinkUp,
		Since: tablesNow.Add(-3 * time.Minute), Ingress: "127.0.0.1:5555", RemotePort: 40123, Generation: 2}}

	st, err := remote.Load(f.home)
	if err != nil {
		t.Fatal(err)
	}
	st.Put(&remote.Profile{Name: "box", Kind: client.LinkSSH, Target: "me@box.example", RemotePort: 40123, Token: "t", Generation: 2})
	st.Put(&remote.Profile{Name: "win", Kind: client.LinkWSL, Distro: "Ubuntu", RemotePort: 40124, Token: "t", Generation: 1, Disabled: true})
	if err := st.Save(); err != nil {
		t.Fatal(err)
	}
}

// chinese runs clawd against f's home in Simplified Chinese, by the
// locale, and returns what it printed.
func chinese(t *testing.T, f *fakeAPI, args ...string) string {
	t.Helper()
	e, out, errb := testEnv(t, f.home, nil, map[string]string{"HOME": "/home/user", "LANG": "zh_CN.UTF-8"})
	e.now = func() time.Time { return tablesNow }
	if code := run(t.Context(), e, append([]string{"clawd"}, args...)); code != 0 {
		t.Fatalf("clawd %s = %d: %s", strings.Join(args, " "), code, errb)
	}
	return out.String()
}

// wantText fails unless out holds every one of want.
func wantText(t *testing.T, what, out string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(out, w) {
			t.Errorf("%s lacks %q:\n%s", what, w, out)
		}
	}
}

// TestHistoryChinese: clawd history in Chinese, its columns in line past
// a Chinese title and folder.
func TestHistoryChinese(t *testing.T) {
	f := newFakeAPI(t)
	fillTables(t, f)
	out := chinese(t, f, "history")
	wantText(t, "clawd history", out, "最近活动", "智能体", "（运行中）", "（已失去响应）", "（无界面）", "1 分钟", "3 小时", "刚刚")
	checkAligned(t, out,
		[]string{"最近活动", "智能体", "标题", "文件夹", "轮次", "会话"},
		[]string{"1 分钟", "claude", "修复登录页面", "~/商店", "3", "5e550001"},
		[]string{"3 小时", "codex", "-", "/srv/ci", "12", "c0de0002（已失去响应）（无界面）"},
		[]string{"刚刚", "claude @box", "Refactor", "box:/home/me/shop", "1", "box:abc3（运行中）"})
}

// TestRecapChinese: clawd recap in Chinese, with Chinese dates in the
// first column and a Chinese folder in a chart, every column in line.
func TestRecapChinese(t *testing.T) {
	f := newFakeAPI(t)
	fillTables(t, f)
	out := chinese(t, f, "recap", "--folders")
	wantText(t, "clawd recap", out, "clawd 回顾：3月27日 周五 至 3月29日 周日（Europe/Berlin）",
		"（2小时22分 / 2天05小时）", "最忙的智能体", "忙碌 10分钟，8 轮，4 个会话", "最忙的文件夹",
		"等你处理：7 个权限请求，0 个提问，共 2分46秒", "失败：1 轮失败", "工具：11 次调用")
	checkAligned(t, out,
		[]string{"日期", "忙碌", "", "会话", "轮次", "工具", "等待", "失败", "观察到"},
		[]string{"3月27日 周五", "", "", "", "", "", "", "", "0%：clawd 未运行"},
		[]string{"3月28日 周六", bar(100, 539), "1分40秒", "1", "1", "1", "40秒", "0", "<1%"},
		[]string{"3月29日 周日", bar(539, 539), "8分59秒", "4", "7", "10", "2分06秒", "1", "43%（这天共 23 小时）"})
	checkAligned(t, out,
		[]string{"  ~/项目", bar(419, 419), "忙碌 6分59秒，6 轮"},
		[]string{"  ~/project/sub", bar(220, 419), "忙碌 3分40秒，2 轮"})
}

// TestAutomationsChinese: clawd automations list and runs in Chinese:
// Chinese headers and states, the columns in line.
func TestAutomationsChinese(t *testing.T) {
	f := newFakeAPI(t)
	fillTables(t, f)
	out := chinese(t, f, "automations", "list")
	checkAligned(t, out,
		[]string{"ID", "事件", "动作", "状态"},
		[]string{"post-done", "turn.completed", "webhook", "生效中"},
		[]string{"ding", "turn.failed", "sound", "待审阅：clawd automations trust ding"},
		[]string{"off", "turn.started", "command", "已停用"})

	out = chinese(t, f, "automations", "runs")
	when := created.Local().Format("2006-01-02 15:04:05")
	checkAligned(t, out,
		[]string{"运行", "自动化", "事件", "状态", "错误码", "尝试次数", "创建时间"},
		[]string{"r1", "post-done", "turn.completed", "成功", "-", "1", when},
		[]string{"r2", "ding", "turn.failed", "结果未知", "timeout", "3", when})
}

// TestRemoteListChinese: clawd remote list in Chinese: the link's state
// in words, a disabled remote's hint, the columns in line.
func TestRemoteListChinese(t *testing.T) {
	f := newFakeAPI(t)
	fillTables(t, f)
	out := chinese(t, f, "remote", "list")
	checkAligned(t, out,
		[]string{"名称", "机器", "远程端口", "代次", "连接"},
		[]string{"box", "me@box.example", "40123", "2", "已连接 3 分钟（隧道：对方端口 40123 到 127.0.0.1:5555）"},
		[]string{"win", "WSL Ubuntu", "40124", "1", "已停用（clawd remote enable win）"})
}
