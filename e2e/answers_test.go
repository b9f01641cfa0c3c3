//go:build linux

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/tidwall/gjson"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/internal/fakeanthropic"
	"github.com/clawdhq/clawd/internal/fakedesktop"
	"github.com/clawdhq/clawd/runtime/client"
)

// The questions the fake model asks, and what the person answers.
var (
	askQuestions = []fakeanthropic.Question{
		{Question: "Which database should we use?", Header: "Database", Options: []fakeanthropic.Option{
			{Label: "Postgres", Description: "Relational, strong consistency"},
			{Label: "SQLite", Description: "Embedded, zero setup"},
			{Label: "Redis", Description: "In-memory key-value"}}},
		{Question: "Which features do you want?", Header: "Features", MultiSelect: true, Options: []fakeanthropic.Option{
			{Label: "Auth", Description: "Login and sessions"},
			{Label: "Search, full text", Description: "A label with a comma"},
			{Label: "Export", Description: "CSV export"}}},
		{Question: "Which language?", Header: "Language", Options: []fakeanthropic.Option{
			{Label: "Go", Description: "Compiled"},
			{Label: "Rust", Description: "Also compiled"}}},
	}
	// askSeen is what the model must read for each question, answered
	// SQLite; Auth, "Search, full text" and "Audit log" typed (a
	// multi-select's "Other"); "Zig, maybe" typed instead of an option:
	// Claude Code's `"<question>"="<answer>"`, a multi-select's answers
	// joined by ", ", a label with ", " in it in quotes (as Claude's own
	// dialog writes it).
	askSeen = []string{
		`"Which database should we use?"="SQLite"`,
		`"Which features do you want?"="Auth, "Search, full text", Audit log"`,
		`"Which language?"="Zig, maybe"`,
	}
)

// askTraySeen is what the model reads of the tray's answers, which take
// options only (text of one's own is typed in the terminal).
var askTraySeen = []string{
	`"Which database should we use?"="SQLite"`,
	`"Which features do you want?"="Auth, "Search, full text""`,
	`"Which language?"="Go"`,
}

// The conversations: the same questions answered from the dashboard,
// the command line and the tray, and a plan sent back twice, then
// approved.
const (
	askDashMarker = "E2E_ANSWER_DASH"
	askCLIMarker  = "E2E_ANSWER_CLI"
	askTrayMarker = "E2E_ANSWER_TRAY"
	planMarker    = "E2E_ANSWER_PLAN"
	askDone       = "Thanks for the answers"
	planDone      = "Plan approved, starting."
	thePlan       = "# Plan\n\n1. Add a table.\n2. Write tests.\n"
	keepPlanning  = "Keep planning: add a rollback step."
)

// checkQuestions checks the questions decoded from the payload are the
// ones the model asked.
func checkQuestions(t *testing.T, got []agents.Question) {
	t.Helper()
	var want []agents.Question
	for _, q := range askQuestions {
		aq := agents.Question{Header: q.Header, Text: q.Question, MultiSelect: q.MultiSelect, Custom: true}
		for _, o := range q.Options {
			aq.Options = append(aq.Options, agents.QuestionOption{Label: o.Label, Description: o.Description})
		}
		want = append(want, aq)
	}
	if !slices.EqualFunc(got, want, func(a, b agents.Question) bool {
		return a.Header == b.Header && a.Text == b.Text && a.MultiSelect == b.MultiSelect && a.Custom == b.Custom && slices.Equal(a.Options, b.Options)
	}) {
		t.Fatalf("the request's questions = %+v, want %+v", got, want)
	}
}

// onlyToolID returns the id of the one call of tool the fake model made
// in the conversation.
func (w *world) onlyToolID(t *testing.T, marker, tool string) string {
	t.Helper()
	ids := w.issuedToolIDs(marker)[tool]
	if len(ids) != 1 {
		t.Fatalf("the fake model called %s %d times in %s, want once", tool, len(ids), marker)
	}
	return ids[0]
}

// planModeOn is the TUI's mode line in plan mode.
var planModeOn = regexp.MustCompile(`plan mode on`)

// enterPlanMode presses Shift+Tab, which cycles the permission modes,
// until the TUI is in plan mode.
func (c *interactiveClaude) enterPlanMode() {
	c.t.Helper()
	for range 4 {
		c.SendKeys("BTab")
		if _, ok := c.await(planModeOn, 2*time.Second); ok {
			return
		}
	}
	c.t.Fatalf("Shift+Tab never put Claude Code in plan mode:\n%s", c.Capture())
}

// TestAnswersClaude: the real Claude Code's TUI, with clawd installed and
// `clawd serve` running with its tray on a fake desktop, asks three
// questions with AskUserQuestion (a single-select, a multi-select with a
// label holding ", ", and one more) three times, and clawd answers each
// time, from elsewhere each time: the dashboard in real Chromium (an
// option, two options and text of one's own, text instead of an option),
// `clawd answer` (the same, by label, number and Q:TEXT) and the tray's
// menu over D-Bus (options ticked, then Send). The model's next request
// carries the answers each time, as Claude's own dialog would have given
// them, while the event stream records the labels and that text was
// typed, and neither it nor the runtime's log the text. Then, in plan
// mode, the model calls ExitPlanMode three times: the tray's Keep
// planning and the dashboard's (with a message) send the plan back, the
// model reading clawd's message and the person's as the tool's error
// while plan mode stays; `clawd plan approve` approves it, and Claude
// Code leaves plan mode for the mode it was in before. `clawd agents
// --json` says which agents clawd answers the questions of.
func TestAnswersClaude(t *testing.T) {
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	deadline, _ := ctx.Deadline()
	w := newDesktopWorld(t)
	ask := func(marker string) fakeanthropic.Conversation {
		return fakeanthropic.Conversation{Match: marker, Steps: []fakeanthropic.Step{
			fakeanthropic.AskUserQuestion(askQuestions...), fakeanthropic.Text(askDone + " (" + marker + ").")}}
	}
	w.startAPI(fakeanthropic.Script{Conversations: []fakeanthropic.Conversation{
		ask(askDashMarker), ask(askCLIMarker), ask(askTrayMarker),
		{Match: planMarker, Steps: []fakeanthropic.Step{fakeanthropic.WritePlan(thePlan), fakeanthropic.ExitPlanMode(),
			fakeanthropic.ExitPlanMode(), fakeanthropic.ExitPlanMode(), fakeanthropic.Text(planDone)}},
	}})
	serve := w.startServe()
	defer serve.shutdown()
	item := w.startWatcher(ctx)
	events := w.startEvents()
	events.sync(ctx)
	w.install(ctx)
	checkAnswersQuestions(ctx, t, w)
	tab := newBrowser(t)
	w.openDashboard(ctx, tab, serve)
	sid := newUUID(t)
	c := w.startInteractiveClaude(sid, deadline)

	// askNow submits the conversation's prompt and returns its question
	// once clawd lists it.
	askNow := func(marker string) client.PermissionView {
		t.Helper()
		c.submit("Please " + marker + " now")
		list := w.waitPermissions(ctx, 60*time.Second, "the question of "+marker, func(l []client.PermissionView) bool {
			return len(ofSession(l, sid)) == 1
		})
		p := ofSession(list, sid)[0]
		if p.Kind != client.KindQuestion || !p.Answerable {
			t.Fatalf("%s: the request = %+v, want an answerable question", marker, p)
		}
		checkQuestions(t, p.Questions)
		return p
	}
	// modelRead waits for the turn's end and checks what the model read of
	// the answers.
	modelRead := func(marker string, seen []string) {
		t.Helper()
		c.WaitFor(regexp.MustCompile(regexp.QuoteMeta(askDone+" ("+marker+").")), 30*time.Second)
		res, ok := w.toolResult(w.onlyToolID(t, marker, "AskUserQuestion"))
		if !ok || res.IsError {
			t.Fatalf("%s: AskUserQuestion's tool_result = %+v (found %v), want the answers", marker, res, ok)
		}
		for _, s := range seen {
			if !strings.Contains(res.Text, s) {
				t.Errorf("%s: AskUserQuestion's tool_result lacks %s:\n%s", marker, s, res.Text)
			}
		}
		w.waitPermissions(ctx, 10*time.Second, "the question gone", func(l []client.PermissionView) bool { return len(ofSession(l, sid)) == 0 })
	}

	// From the dashboard: SQLite; Auth, "Search, full text" and Audit log
	// typed; Zig, maybe typed.
	p := askNow(askDashMarker)
	card := fmt.Sprintf(`#needs-list li[data-key=%q]`, p.ID)
	waitPage(t, tab, "the question's card", `!!document.querySelector('`+card+` fieldset.ask')`, 10*time.Second)
	input := func(q, o int) string { return fmt.Sprintf(`%s input[name="ask-%s-%d"][value="%d"]`, card, p.ID, q, o) }
	other := func(q int) string { return fmt.Sprintf(`%s fieldset.ask:nth-of-type(%d) input.other`, card, q) }
	if err := chromedp.Do(tab,
		chromedp.Click(chromedp.CSS(input(0, 1))), chromedp.Click(chromedp.CSS(input(1, 0))), chromedp.Click(chromedp.CSS(input(1, 1))),
		chromedp.SendKeys(chromedp.CSS(other(2)), "Audit log"), chromedp.SendKeys(chromedp.CSS(other(3)), "Zig, maybe"),
		chromedp.Click(chromedp.CSS(card+" button.send")),
	); err != nil {
		t.Fatalf("answer in the dashboard: %v", err)
	}
	modelRead(askDashMarker, askSeen)

	// From the command line, as `clawd permissions` numbers the options.
	p = askNow(askCLIMarker)
	if r := w.mustPerm(ctx); !strings.Contains(r.stdout, "1.2) SQLite — Embedded, zero setup") || !strings.Contains(r.stdout, "clawd answer "+p.ID) {
		t.Errorf("clawd permissions does not number the options for clawd answer:\n%s", r.stdout)
	}
	r := w.mustClawd(ctx, "answer", p.ID, "SQLite", "2.1", "Search, full text", "--text", "2:Audit log", "--text", "3:Zig, maybe")
	if !strings.HasPrefix(r.stdout, "answered "+p.ID) || strings.Contains(r.stdout, "Zig") {
		t.Errorf("clawd answer printed %q, want what it answered without the text", r.stdout)
	}
	modelRead(askCLIMarker, askSeen)

	// From the tray: tick SQLite, Auth, "Search, full text" and Go, then
	// Send.
	p = askNow(askTrayMarker)
	root := waitMenu(ctx, t, item, "Needs you (1)")
	request := labelWith(t, root, "project asks: Which database should we use?")
	picks := []string{"SQLite — Embedded, zero setup", "Auth — Login and sessions", "Search, full text — A label with a comma", "Go — Compiled"}
	for _, label := range picks {
		if err := item.ClickPath(ctx, request, label); err != nil {
			t.Fatalf("click %q: %v", label, err)
		}
		waitMenuNode(ctx, t, item, label+" ticked", func(root *fakedesktop.MenuNode) bool {
			n := root.FindPath(request, label)
			return n != nil && n.ToggleType == "checkmark" && n.ToggleState == 1
		})
	}
	waitMenuNode(ctx, t, item, "Send answers enabled", func(root *fakedesktop.MenuNode) bool {
		n := root.FindPath(request, "Send answers")
		return n != nil && n.Enabled
	})
	if err := item.ClickPath(ctx, request, "Send answers"); err != nil {
		t.Fatal(err)
	}
	modelRead(askTrayMarker, askTraySeen)

	// The plan: keep planning from the tray, again from the dashboard with
	// a message, then approve from the command line.
	c.enterPlanMode()
	c.submit("Please " + planMarker + " now")
	plan := func(n int) client.PermissionView {
		t.Helper()
		list := w.waitPermissions(ctx, 60*time.Second, fmt.Sprintf("plan review %d", n), func(l []client.PermissionView) bool {
			return len(ofSession(l, sid)) == 1
		})
		p := ofSession(list, sid)[0]
		if p.Kind != client.KindPlan || p.Plan != thePlan {
			t.Fatalf("plan review %d = %+v, want the plan written %q", n, p, thePlan)
		}
		return p
	}
	plan(1)
	root = waitMenu(ctx, t, item, "Needs you (1)")
	request = labelWith(t, root, "project: review the plan")
	if root.FindPath(request, "1. Add a table.") == nil {
		t.Errorf("the plan's submenu does not show its lines:\n%s", root)
	}
	if err := item.ClickPath(ctx, request, "Keep planning"); err != nil {
		t.Fatal(err)
	}
	p = plan(2)
	card = fmt.Sprintf(`#needs-list li[data-key=%q]`, p.ID)
	waitPage(t, tab, "the plan's card", `(document.querySelector('`+card+` pre.plan-text') || {}).textContent === "# Plan\n\n1. Add a table.\n2. Write tests."`, 10*time.Second)
	if err := chromedp.Do(tab, chromedp.SendKeys(chromedp.CSS(card+" textarea.keep-message"), keepPlanning),
		chromedp.Click(chromedp.CSS(card+" button.keep"))); err != nil {
		t.Fatalf("keep planning in the dashboard: %v", err)
	}
	p = plan(3)
	if r := w.mustPerm(ctx); !strings.Contains(r.stdout, "clawd plan approve "+p.ID) || !strings.Contains(r.stdout, "  1. Add a table.") {
		t.Errorf("clawd permissions does not show the plan with how to approve it:\n%s", r.stdout)
	}
	w.mustClawd(ctx, "plan", "approve", p.ID)
	c.WaitFor(regexp.MustCompile(regexp.QuoteMeta(planDone)), 30*time.Second)
	ids := w.issuedToolIDs(planMarker)["ExitPlanMode"]
	if len(ids) != 3 {
		t.Fatalf("the fake model called ExitPlanMode %d times, want 3", len(ids))
	}
	for i, want := range []string{"keep planning", keepPlanning} {
		if res, ok := w.toolResult(ids[i]); !ok || !res.IsError || !strings.Contains(res.Text, want) {
			t.Errorf("kept planning %d: tool_result = %+v (found %v), want an error with %q", i+1, res, ok, want)
		}
	}
	if res, ok := w.toolResult(ids[2]); !ok || res.IsError || !strings.Contains(res.Text, "User has approved your plan") {
		t.Errorf("approved: tool_result = %+v (found %v), want \"User has approved your plan\"", res, ok)
	}

	evs := events.waitFor(15*time.Second, "the plan turn's end", func(evs []event) bool {
		return len(slices.DeleteFunc(forSession(evs, sid), func(e event) bool { return e.Kind != "turn.end" })) == 4
	})
	var stops []event
	for _, e := range forSession(evs, sid) {
		if e.Kind == "turn.end" {
			stops = append(stops, e)
		}
	}
	// Leaving plan mode, Claude Code goes back to the mode before it:
	// Shift+Tab went through accept edits on the way.
	if got := gjson.Get(stops[3].raw, "permission_mode").String(); got != "acceptEdits" {
		t.Errorf("after the approval, permission_mode = %q, want acceptEdits, the mode before plan mode", got)
	}
	checkAnswerRecords(t, w, serve, evs, sid)
	if rc := c.exit(); rc != 0 {
		t.Errorf("claude exited %d after /exit, want 0", rc)
	}
	t.Logf("answered three times and reviewed a plan in %v", time.Since(start).Round(time.Millisecond))
}

// typedTexts are what the person typed in TestAnswersClaude: they go to
// the agent and nowhere else.
var typedTexts = []string{"Audit log", "Zig, maybe", keepPlanning}

// checkAnswerRecords checks the permission.answered records of session
// sid: each question's answer with its labels, typed text marked, from
// the dashboard, the command line and the tray in turn, then the plan
// sent back twice and approved; no record, no log of the runtime's, holds
// what the person typed.
func checkAnswerRecords(t *testing.T, w *world, serve *server, evs []event, sid string) {
	t.Helper()
	var got []string
	for _, e := range evs {
		if e.SessionID != sid {
			continue
		}
		for _, typed := range typedTexts {
			if strings.Contains(e.raw, typed) {
				t.Errorf("an event record carries what the person typed (%q): %s", typed, e.raw)
			}
		}
		if a := e.Answer; a != nil && e.Kind == string(client.KindPermissionAnswered) {
			got = append(got, fmt.Sprintf("%s %s %s %v", a.Request, a.Decision, a.Source, a.Answers))
		}
	}
	want := []string{
		"question answer dashboard [{[SQLite] false} {[Auth Search, full text] true} {[] true}]",
		"question answer cli [{[SQLite] false} {[Auth Search, full text] true} {[] true}]",
		"question answer tray [{[SQLite] false} {[Auth Search, full text] false} {[Go] false}]",
		"plan deny tray []", "plan deny dashboard []", "plan allow cli []",
	}
	if !slices.Equal(got, want) {
		t.Errorf("permission.answered records:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	logs := serve.stderr.String()
	if files, _ := filepath.Glob(filepath.Join(w.clawdHome, "logs", "*")); len(files) > 0 {
		for _, f := range files {
			b, _ := os.ReadFile(f)
			logs += string(b)
		}
	}
	for _, typed := range typedTexts {
		if strings.Contains(logs, typed) {
			t.Errorf("the runtime's logs carry what the person typed (%q)", typed)
		}
	}
}

// checkAnswersQuestions checks that `clawd agents --json` says, for every
// agent, whether clawd answers its questions: Claude Code's it does, and
// every agent whose questions clawd sees but cannot answer says why.
func checkAnswersQuestions(ctx context.Context, t *testing.T, w *world) {
	t.Helper()
	r := w.mustClawd(ctx, "agents", "--all", "--json")
	var list []struct {
		ID       string          `json:"id"`
		Supports json.RawMessage `json:"supports"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &list); err != nil || len(list) != len(agents.All()) {
		t.Fatalf("clawd agents --all --json: %v, %d agents, want %d:\n%s", err, len(list), len(agents.All()), r.stdout)
	}
	for _, a := range list {
		var s struct {
			AnswersQuestions *bool  `json:"answers_questions"`
			InTerminal       string `json:"questions_in_terminal"`
		}
		json.Unmarshal(a.Supports, &s)
		switch {
		case s.AnswersQuestions == nil:
			t.Errorf("clawd agents --json: %s has no answers_questions: %s", a.ID, a.Supports)
		case *s.AnswersQuestions != agents.Lookup(a.ID).Supports.AnswersQuestions:
			t.Errorf("clawd agents --json: %s answers_questions = %v, want the registry's", a.ID, *s.AnswersQuestions)
		case a.ID == "claude" && !*s.AnswersQuestions:
			t.Errorf("clawd agents --json: Claude Code's questions are not answered from clawd")
		case a.ID == "codex" && s.InTerminal == "":
			t.Errorf("clawd agents --json: codex says nothing of why its questions are answered in its terminal")
		}
	}
}

// waitMenuNode waits until the tray's menu satisfies ok.
func waitMenuNode(ctx context.Context, t *testing.T, item *fakedesktop.Item, what string, ok func(*fakedesktop.MenuNode) bool) {
	t.Helper()
	var root *fakedesktop.MenuNode
	err := fakedesktop.Eventually(ctx, 50*time.Millisecond, func() (bool, error) {
		var err error
		root, err = item.Layout(ctx)
		return err == nil && ok(root), err
	})
	if err != nil {
		t.Fatalf("the tray's menu never showed %s: %v\n%s", what, err, root)
	}
}
