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
// runs and a preview and a remote link, with Chinese titles and
// folders, and its home two remote profiles.
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
	policy := client.AutomationPolicy{Timeout: "15s", Retry: "safe", MaxAttempts: 3, Backoff: "1s", Concurrency: "serial"}
	defaults := client.AutomationPolicy{Timeout: "15s", Retry: "unsafe", MaxAttempts: 3, Backoff: "1s", Concurrency: "serial"}
	f.automations = client.AutomationsState{Definitions: []client.Automation{
		{ID: "post-done", Name: "完成时通知", Event: "turn.completed",
			Condition: json.RawMessage(`{"path":"agent.id","op":"eq","value":"claude"}`),
			Action:    client.AutomationAction{Type: "webhook"}, Policy: policy, EffectivePolicy: policy,
			Hash: "h1", Leaves: []string{"url: https://example.com/hook"},
			BindingStates: []client.AutomationBindingState{{Key: "claude", State: client.BindingActive}}},
		{ID: "ding", Event: "turn.failed", Action: client.AutomationAction{Type: "sound"}, EffectivePolicy: defaults,
			BindingStates: []client.AutomationBindingState{{State: client.BindingNeedsReview}}},
		{ID: "off", Enabled: &off, Event: "turn.started", Action: client.AutomationAction{Type: "command"}, EffectivePolicy: defaults},
	}}
	f.runs = []client.AutomationRun{
		{ID: "r1", AutomationID: "post-done", EventName: "turn.completed", State: "succeeded", Attempts: 1, CreatedAt: created},
		{ID: "r2", AutomationID: "ding", EventName: "turn.failed", State: "outcome_unknown",
			ErrorCode: "timeout", Attempts: 3, CreatedAt: created},
	}
	ev := &client.AutomationEvent{EventName: "turn.completed"}
	ev.Session.ID, ev.Session.Title = "s1", "修复登录页面"
	f.preview = client.AutomationPreview{Event: ev, Matched: true, Binding: "claude",
		Input: map[string]any{"text": "done"}}
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
	return inLang(t, f.home, "zh_CN.UTF-8", nil, args...)
}

// inLang runs clawd against home with the locale lang and stdin, and
// returns what it printed; it fails unless clawd exits 0.
func inLang(t *testing.T, home, lang string, stdin []byte, args ...string) string {
	t.Helper()
	return inEnv(t, home, map[string]string{"LANG": lang}, stdin, args...)
}

// inEnv runs clawd against home with HOME /home/user and vars, and
// returns what it printed; it fails unless clawd exits 0.
func inEnv(t *testing.T, home string, vars map[string]string, stdin []byte, args ...string) string {
	t.Helper()
	all := map[string]string{"HOME": "/home/user"}
	for k, v := range vars {
		all[k] = v
	}
	e, out, errb := testEnv(t, home, stdin, all)
	e.now = func() time.Time { return tablesNow }
	if code := run(t.Context(), e, append([]string{"clawd"}, args...)); code != 0 {
		t.Fatalf("%v clawd %s = %d: %s", vars, strings.Join(args, " "), code, errb)
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
		[]string{"3月28日 周六", bar(100, 539, barWidth), "1分40秒", "1", "1", "1", "40秒", "0", "<1%"},
		[]string{"3月29日 周日", bar(539, 539, barWidth), "8分59秒", "4", "7", "10", "2分06秒", "1", "43%（这天共 23 小时）"})
	checkAligned(t, out,
		[]string{"  ~/项目", bar(419, 419, barWidth), "忙碌 6分59秒，6 轮"},
		[]string{"  ~/project/sub", bar(220, 419, barWidth), "忙碌 3分40秒，2 轮"})
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

// TestAutomationsCommandsChinese: the rest of clawd automations speaks
// Chinese (show, the trust and test prompts answered 是, add, edit and rm
// with and without a runtime, retry, cancel, pause, resume and preview),
// and English as it always did.
func TestAutomationsCommandsChinese(t *testing.T) {
	f := newFakeAPI(t)
	fillTables(t, f)
	file := filepath.Join(f.home, automations.File)
	idle := t.TempDir() // no runtime
	idleFile := filepath.Join(idle, automations.File)
	snippet := []byte("[[automation]]\nid = \"beep\"\nevent = \"turn.completed\"\naction = { type = \"sound\" }\n")
	show := `post-done (完成时通知)
  on turn.completed when {"path":"agent.id","op":"eq","value":"claude"}
  does webhook
  sends:
    - url: https://example.com/hook
  policy: timeout 15s, retry safe, at most 3 attempts, backoff 1s, serial
  hash h1
  binding claude: active
`
	review := "ding needs review: clawd automations trust ding\n"
	for _, c := range []struct {
		home  string
		args  []string
		stdin string // the English answer; the Chinese one is 是 for y
		en    string // all of it
		zh    []string
	}{
		{f.home, []string{"show", "post-done"}, "", show, []string{"post-done（完成时通知）\n",
			`  事件：turn.completed，条件：{"path":"agent.id","op":"eq","value":"claude"}` + "\n",
			"  动作：webhook\n  发送内容：\n    - url: https://example.com/hook\n",
			"  策略：超时 15s，重试 safe，最多尝试 3 次，退避 1s，serial\n", "  哈希 h1\n", "  绑定 claude：生效中\n"}},
		{f.home, []string{"trust", "post-done"}, "y\n", show + "Trust post-done to do this on every event it matches? [y/N] \ntrusted post-done (h1)\n",
			[]string{"  绑定 claude：生效中\n信任 post-done，让它在每个匹配的事件上这样做吗？[y/N] \n已信任 post-done（h1）\n"}},
		{f.home, []string{"test", "post-done"}, "y\n",
			show + "A test run does this for real, once, without asking for trust. Go on? [y/N] \ntest run r9 queued: clawd automations runs --automation post-done\n",
			[]string{"测试运行会真实地执行一次，且不需要信任。继续吗？[y/N] \n测试运行 r9 已排队：clawd automations runs --automation post-done\n"}},
		{f.home, []string{"retry", "r2"}, "", "r2: queued again\n", []string{"r2：已重新排队\n"}},
		{f.home, []string{"cancel", "r1"}, "", "r1: cancelled\n", []string{"r1：已取消\n"}},
		{f.home, []string{"pause"}, "", "automations paused: no new run starts; nothing already sent is undone\n",
			[]string{"自动化已暂停：不再启动新的运行；已经发出的不会撤回\n"}},
		{f.home, []string{"resume"}, "", "automations resumed\n", []string{"自动化已恢复\n"}},
		{f.home, []string{"preview", "post-done"}, "",
			"event: turn.completed of session s1 (修复登录页面)\nit would run through claude, but is not trusted yet: clawd automations trust post-done\ninput: {\n  \"text\": \"done\"\n}\n",
			[]string{"事件：会话 s1（修复登录页面）的 turn.completed\n会通过 claude 运行，但还未被信任：clawd automations trust post-done\n输入：{\n"}},
		{f.home, []string{"add"}, string(snippet), "added beep in " + file + "\n" + review,
			[]string{"已在 " + file + " 中添加 beep\nding 待审阅：clawd automations trust ding\n"}},
		{f.home, []string{"edit", "beep", "--file", "-"}, string(snippet), "edited beep in " + file + "\n" + review,
			[]string{"已在 " + file + " 中修改 beep\n"}},
		{f.home, []string{"rm", "beep"}, "", "removed beep in " + file + "\n" + review, []string{"已从 " + file + " 中删除 beep\n"}},
		{idle, []string{"add"}, string(snippet), "added beep in " + idleFile + "\nclawd serve is not running: it reads the file when it starts.\n",
			[]string{"已在 " + idleFile + " 中添加 beep\nclawd serve 未运行：它启动时会读取该文件。\n"}},
		{idle, []string{"rm", "beep"}, "", "removed beep in " + idleFile + "\nclawd serve is not running: it reads the file when it starts.\n",
			[]string{"已从 " + idleFile + " 中删除 beep\nclawd serve 未运行"}},
	} {
		args := append([]string{"automations"}, c.args...)
		if got := inLang(t, c.home, "C.UTF-8", []byte(c.stdin), args...); got != c.en {
			t.Errorf("clawd %s printed\n%s\nwant\n%s", strings.Join(args, " "), got, c.en)
		}
		// The English run changed the file: put it back for the Chinese one.
		switch c.args[0] {
		case "add":
			inLang(t, c.home, "C.UTF-8", nil, "automations", "rm", "beep")
		case "rm":
			inLang(t, c.home, "C.UTF-8", snippet, "automations", "add")
		}
		wantText(t, "clawd "+strings.Join(args, " "), inLang(t, c.home, "zh_CN.UTF-8", []byte(strings.ReplaceAll(c.stdin, "y\n", "是\n")), args...), c.zh...)
	}
}

// fitRows lays rows out in a table fitted to width.
func fitRows(rows [][]string, width int) string {
	var b strings.Builder
	tw := newTable(&b).Fit(width)
	for _, r := range rows {
		tw.Row(r...)
	}
	tw.Flush()
	return b.String()
}

// TestTableFit: a table given a width cuts its widest columns, with an
// ellipsis, until every line fits; without one, or when it fits, nothing
// is cut; no column is cut below minCut.
func TestTableFit(t *testing.T) {
	rows := [][]string{
		{"AGENT", "STATE", "TITLE", "FOLDER"},
		{"claude", "needs you", "Fix the login bug in the shop's checkout page", "~/shop"},
		{"codex", "working (Bash)", "修复登录页面的错误并且添加测试", "~/srv/api"},
	}
	draw := func(width int) string { return fitRows(rows, width) }
	whole := draw(0)
	if !strings.Contains(whole, rows[1][2]) || !strings.Contains(whole, rows[2][2]) || strings.Contains(whole, text.Ellipsis) {
		t.Errorf("Fit(0) cut a cell:\n%s", whole)
	}
	if got := draw(200); got != whole {
		t.Errorf("Fit(200) =\n%s\nwant it as wide as it is:\n%s", got, whole)
	}
	for _, width := range []int{60, 50, 44} {
		out := draw(width)
		for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
			if w := text.Width(l); w > width {
				t.Errorf("Fit(%d): line %q is %d columns", width, l, w)
			}
		}
		if !strings.Contains(out, "Fix the") || !strings.Contains(out, text.Ellipsis) || !strings.Contains(out, "~/srv/api") {
			t.Errorf("Fit(%d) = \n%s\nwant the title cut with %s, the folder whole", width, out, text.Ellipsis)
		}
		checkAligned(t, out, []string{"AGENT", "STATE", "TITLE", "FOLDER"}, []string{"claude", "needs you", "Fix the", "~/shop"})
	}
	// Too narrow for anything: every column keeps minCut columns.
	for _, l := range strings.Split(strings.TrimSuffix(draw(10), "\n"), "\n")[1:] {
		if !strings.Contains(l, "~/shop") && !strings.Contains(l, "~/srv/a…") && !strings.Contains(l, "~/srv/api") {
			t.Errorf("Fit(10): line %q lost its folder", l)
		}
	}
}

func TestFitWidths(t *testing.T) {
	for _, tt := range []struct {
		widths []int
		limit  int
		want   []int
	}{
		{[]int{5, 40, 10}, 0, []int{5, 40, 10}},
		{[]int{5, 40, 10}, 59, []int{5, 40, 10}},
		{[]int{5, 40, 10}, 40, []int{5, 21, 10}},
		{[]int{5, 40, 30}, 40, []int{5, 15, 15}},
		{[]int{5, 40, 30}, 10, []int{5, minCut, minCut}},
	} {
		if got := fitWidths(tt.widths, tt.limit); fmt.Sprint(got) != fmt.Sprint(tt.want) {
			t.Errorf("fitWidths(%v, %d) = %v, want %v", tt.widths, tt.limit, got, tt.want)
		}
	}
}

// giveDropRows is a table with a name and a state that must stay whole,
// a title and a folder that may give way, and a count that may go.
var giveDropRows = [][]string{
	{"NAME", "STATE", "TITLE", "FOLDER", "TURNS"},
	{"claude", "needs you", "Fix the login bug in checkout", "~/shop/checkout", "12"},
	{"codex", "working", "Refactor", "~/srv/api", "3"},
}

// drawGiveDrop lays giveDropRows out in width, the title then the folder
// giving way, and drop left out.
func drawGiveDrop(width int, drop ...int) (*table, string) {
	var b strings.Builder
	tw := newTable(&b).Fit(width).Give(2, 3).Drop(drop...)
	for _, r := range giveDropRows {
		tw.Row(r...)
	}
	tw.Flush()
	return tw, b.String()
}

// TestTableGiveDrop: the Give columns are cut first, in their order and
// only as far as needed; then the Drop columns go, in their order and as
// few as it takes, the Give columns taking back the room; only then are
// the other columns cut.
func TestTableGiveDrop(t *testing.T) {
	for _, tt := range []struct {
		width int
		drop  []int
		want  []string
	}{
		{0, []int{4}, []string{
			"NAME    STATE      TITLE                          FOLDER           TURNS",
			"claude  needs you  Fix the login bug in checkout  ~/shop/checkout  12",
			"codex   working    Refactor                       ~/srv/api        3",
		}},
		// The title gives 12 columns; the folder nothing.
		{60, []int{4}, []string{
			"NAME    STATE      TITLE              FOLDER           TURNS",
			"claude  needs you  Fix the login bu…  ~/shop/checkout  12",
			"codex   working    Refactor           ~/srv/api        3",
		}},
		// The title down to minCut, then the folder.
		{50, []int{4}, []string{
			"NAME    STATE      TITLE     FOLDER          TURNS",
			"claude  needs you  Fix the…  ~/shop/checko…  12",
			"codex   working    Refactor  ~/srv/api       3",
		}},
		// Both at minCut is 44: TURNS goes, and the folder gets 3 back;
		// FOLDER, second to drop, stays.
		{40, []int{4, 3}, []string{
			"NAME    STATE      TITLE     FOLDER",
			"claude  needs you  Fix the…  ~/shop/che…",
			"codex   working    Refactor  ~/srv/api",
		}},
		// Without TURNS still 37: FOLDER goes too, the title gets room.
		{30, []int{4, 3}, []string{
			"NAME    STATE      TITLE",
			"claude  needs you  Fix the lo…",
			"codex   working    Refactor",
		}},
		// Nothing left to drop: STATE, not a Give column, is cut last.
		{30, []int{4}, []string{
			"NAME    STATE     TITLE     FOLDER",
			"claude  needs y…  Fix the…  ~/shop/…",
			"codex   working   Refactor  ~/srv/a…",
		}},
	} {
		_, out := drawGiveDrop(tt.width, tt.drop...)
		if want := strings.Join(tt.want, "\n") + "\n"; out != want {
			t.Errorf("Fit(%d).Give(2, 3).Drop(%v) =\n%s\nwant\n%s", tt.width, tt.drop, out, want)
		}
	}
}

// TestTableWidth: Width is the widest line Flush writes, indent
// included, once the table is fitted; wider than the Fit width only when
// minCut columns do not fit.
func TestTableWidth(t *testing.T) {
	for _, tt := range []struct {
		width int
		drop  []int
		want  int
	}{
		{0, nil, 72},
		{200, nil, 72},
		{60, nil, 60},
		{50, nil, 50},
		{40, []int{4}, 40},
		{30, []int{4}, 36},
	} {
		tw, out := drawGiveDrop(tt.width, tt.drop...)
		if got := tw.Width(); got != tt.want {
			t.Errorf("Fit(%d).Drop(%v).Width() = %d, want %d", tt.width, tt.drop, got, tt.want)
		}
		widest := 0
		for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
			widest = max(widest, text.Width(l))
		}
		if widest != tt.want {
			t.Errorf("Fit(%d).Drop(%v) wrote lines up to %d columns, want %d:\n%s", tt.width, tt.drop, widest, tt.want, out)
		}
	}
	var b strings.Builder
	tw := newTable(&b).Indent(2).Fit(60).Give(2)
	if got := tw.Width(); got != 0 {
		t.Errorf("an empty table's Width() = %d, want 0", got)
	}
	for _, r := range giveDropRows {
		tw.Row(r...)
	}
	if got := tw.Width(); got != 60 {
		t.Errorf("Indent(2).Fit(60).Width() = %d, want 60, the indent within it", got)
	}
}

// TestTableCuts: Cuts says which columns Fit cuts a cell of: none
// unlimited, the Give columns first when narrow, and never a dropped one.
func TestTableCuts(t *testing.T) {
	for _, tt := range []struct {
		width int
		drop  []int
		cut   []bool // by column
	}{
		{0, nil, []bool{false, false, false, false, false}},
		{200, nil, []bool{false, false, false, false, false}},
		{60, nil, []bool{false, false, true, false, false}},
		{40, []int{4}, []bool{false, false, true, true, false}},
	} {
		tw, _ := drawGiveDrop(tt.width, tt.drop...)
		for col, want := range tt.cut {
			if got := tw.Cuts(col); got != want {
				t.Errorf("Fit(%d).Give(2, 3).Drop(%v).Cuts(%d) = %v, want %v", tt.width, tt.drop, col, got, want)
			}
		}
	}
}

// TestTableDropsBlankColumns: too wide, a column that is "" or "-" in
// every row goes before any cell is cut; one with something in a row
// stays, and with room enough nothing goes.
func TestTableDropsBlankColumns(t *testing.T) {
	rows := [][]string{
		{"ID", "SESSION", "SUMMARY", "OFFERS"},
		{"k3ab12", "-", "rm -rf build && npm run build", ""},
		{"k3cd34", "-", "src/login.ts", "-"},
	}
	draw := func(width int) string { return fitRows(rows, width) }
	if got, want := draw(40), "ID      SUMMARY\nk3ab12  rm -rf build && npm run build\nk3cd34  src/login.ts\n"; got != want {
		t.Errorf("in 40 columns:\n%s\nwant:\n%s", got, want)
	}
	if got := draw(0); !strings.HasPrefix(got, "ID      SESSION  SUMMARY                        OFFERS\n") {
		t.Errorf("with no limit, the blank columns stay:\n%s", got)
	}
	rows[2][1] = "Fix the login"
	if got := draw(40); !strings.Contains(got, "SESSION") || strings.Contains(got, "OFFERS") {
		t.Errorf("in 40 columns, a column with one cell kept, the blank one gone:\n%s", got)
	}
}

// TestRemoteListAt80: in an 80-column terminal, the most common, the
// generation and the port give their room to the link, which is whole.
func TestRemoteListAt80(t *testing.T) {
	f := newFakeAPI(t)
	fillTables(t, f)
	out := inEnv(t, f.home, map[string]string{"LANG": "C.UTF-8", "COLUMNS": "80"}, nil, "remote", "list")
	want := "NAME  MACHINE         LINK\n" +
		"box   me@box.example  up for 3m (tunnel: its port 40123 to 127.0.0.1:5555)\n" +
		"win   WSL Ubuntu      disabled (clawd remote enable win)\n"
	if out != want {
		t.Errorf("COLUMNS=80 clawd remote list:\n%s\nwant:\n%s", out, want)
	}
}

// TestTablesFitWidth: every table of clawd's, in English and Chinese, in
// 60 and in 200 columns: no line wider, and what tells the rows apart (a
// name, an id, a state) whole, the long parts given way or gone.
func TestTablesFitWidth(t *testing.T) {
	f := newFakeAPI(t)
	fillTables(t, f)
	for _, tt := range []struct {
		args []string
		lang string
		// want are in every width; narrow only at 60, wide only at 200.
		want, narrow, wide []string
	}{
		{[]string{"automations", "list"}, "C.UTF-8",
			[]string{"post-done", "turn.completed", "ding", "needs review", "off", "disabled"},
			[]string{"\nding needs review: clawd automations trust ding\n"},
			[]string{"sound    needs review: clawd automations trust ding\n"}},
		{[]string{"automations", "list"}, "zh_CN.UTF-8",
			[]string{"post-done", "ding", "待审阅", "已停用"}, []string{"\nding 待审阅：clawd automations trust ding\n"}, nil},
		{[]string{"automations", "runs"}, "C.UTF-8",
			[]string{"RUN", "AUTOMATION", "STATE", "r1", "post-done", "succeeded", "r2", "ding", "outcome unknown"},
			nil, []string{"TRIES", "CREATED", "turn.completed"}},
		{[]string{"automations", "runs"}, "zh_CN.UTF-8", []string{"r2", "ding", "结果未知"}, nil, []string{"尝试次数"}},
		{[]string{"remote", "list"}, "C.UTF-8", []string{"NAME", "LINK", "box", "win", "me@box.example", "up for 3m (tunnel: its port", "disabled (clawd remote enable win)"},
			nil, []string{"GENERATION", "REMOTE PORT"}},
		{[]string{"remote", "list"}, "zh_CN.UTF-8", []string{"box", "win", "已连接"}, nil, []string{"代次"}},
		{[]string{"recap"}, "C.UTF-8", []string{"DAY", "BUSY", "SESSIONS", "TURNS", "Sun 29 Mar", "8m59s", "Busiest agents"},
			nil, []string{"TOOLS", "WAITED", "FAILED", strings.Repeat("█", barWidth)}},
		{[]string{"recap"}, "zh_CN.UTF-8", []string{"日期", "3月29日 周日", "8分59秒"}, nil, []string{"工具", "等待"}},
		{[]string{"history"}, "C.UTF-8", []string{"ACTIVE", "AGENT", "SESSION", "claude", "codex", "claude @box", "c0de0002 (stale)"},
			nil, []string{"修复登录页面", "TURNS", "box:/home/me/shop"}},
	} {
		for _, width := range []int{60, 200} {
			what := fmt.Sprintf("COLUMNS=%d LANG=%s clawd %s", width, tt.lang, strings.Join(tt.args, " "))
			out := inEnv(t, f.home, map[string]string{"LANG": tt.lang, "COLUMNS": strconv.Itoa(width)}, nil, tt.args...)
			for _, l := range strings.Split(out, "\n") {
				if text.Width(l) > width {
					t.Errorf("%s: line %q is %d columns", what, l, text.Width(l))
				}
			}
			wantText(t, what, out, tt.want...)
			if width == 60 {
				wantText(t, what, out, tt.narrow...)
			} else {
				wantText(t, what, out, tt.wide...)
			}
		}
	}
}
