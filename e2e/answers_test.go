//go:build !windows

package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/internal/fakeanthropic"
)

// The answer tests pin, with the real Claude Code, the format in which
// clawd answers its questions and plans: its PermissionRequest hook is a
// stand-in of the test's own that hands the payload to the test and prints
// what the test gives back, and the test plays the runtime with the agents
// package: it decodes the payload (agents.Claude.Decode, Describe), makes
// the decision (Answer, Approve, or a deny), sends it over the wire form
// the runtime uses and prints it with Render. What the model is told next
// is read at the fake API.

// answerHookScript is the stand-in: `answerhook.sh DIR EVENT`. It writes
// the payload to DIR/<time>-<pid>-EVENT.json (aside first, then renamed:
// a .json there is whole) and, for a PermissionRequest, prints the
// answer the test writes beside it (.answer, also renamed into place),
// waiting up to a minute for it, else no decision.
const answerHookScript = `#!/bin/sh
dir=$1 event=$2
base="$dir/$(date +%s%N)-$$-$event"
cat > "$base.part"
mv "$base.part" "$base.json"
[ "$event" = PermissionRequest ] || exit 0
i=0
while [ ! -f "$base.answer" ]; do
  i=$((i+1))
  if [ $i -gt 1200 ]; then echo '{}'; exit 0; fi
  sleep 0.05
done
cat "$base.answer"
`

// answerHook is the stand-in installed in a world: where it leaves its
// calls, and those the test answered.
type answerHook struct {
	t        *testing.T
	dir      string
	answered map[string]bool // payload files
}

// installAnswerHook writes the stand-in and a settings.json that runs it
// for events (and nothing else of clawd's).
func (w *world) installAnswerHook(events ...string) *answerHook {
	w.t.Helper()
	h := &answerHook{t: w.t, dir: filepath.Join(w.dir, "answer-calls"), answered: map[string]bool{}}
	script := filepath.Join(w.dir, "answerhook.sh")
	if err := os.MkdirAll(h.dir, 0o700); err != nil {
		w.t.Fatal(err)
	}
	if err := os.WriteFile(script, []byte(answerHookScript), 0o700); err != nil {
		w.t.Fatal(err)
	}
	hooks := map[string]any{}
	for _, ev := range events {
		cmd := shellQuote(script) + " " + shellQuote(h.dir) + " " + ev
		hooks[ev] = []any{map[string]any{"hooks": []any{map[string]any{"type": "command", "command": cmd, "timeout": 120}}}}
	}
	data, err := json.MarshalIndent(map[string]any{"hooks": hooks}, "", "  ")
	if err != nil {
		w.t.Fatal(err)
	}
	if err := os.WriteFile(w.settingsFile(), data, 0o600); err != nil {
		w.t.Fatal(err)
	}
	return h
}

// next waits for the next PermissionRequest not yet answered and returns
// its payload and the file it is in.
func (h *answerHook) next(timeout time.Duration) ([]byte, string) {
	h.t.Helper()
	var payload []byte
	var file string
	waitHookCalls(h.t, h.dir, timeout, "a PermissionRequest to answer", func(calls []hookCall) bool {
		for _, c := range ofEvent(calls, "PermissionRequest") {
			if !h.answered[c.File] {
				payload, file = c.Payload, c.File
				return true
			}
		}
		return false
	})
	return payload, file
}

// answer makes the stand-in print out for the call in file.
func (h *answerHook) answer(file string, out []byte) {
	h.t.Helper()
	h.answered[file] = true
	base := strings.TrimSuffix(file, ".json")
	if err := os.WriteFile(base+".tmp", out, 0o600); err != nil {
		h.t.Fatal(err)
	}
	if err := os.Rename(base+".tmp", base+".answer"); err != nil {
		h.t.Fatal(err)
	}
}

// describeClaude decodes a PermissionRequest payload as the hook does.
func describeClaude(t *testing.T, payload []byte) agents.Request {
	t.Helper()
	ev, err := agents.Claude.Decode(payload, "", func(string) string { return "" }, time.Now())
	if err != nil {
		t.Fatalf("decode %s: %v", payload, err)
	}
	return agents.Claude.Describe(ev, payload, false)
}

// hookOutput is what the hook prints for d: the decision goes over the
// wire the runtime answers the hook with, then through Render.
func hookOutput(t *testing.T, d agents.Decision) []byte {
	t.Helper()
	wire, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	var got agents.Decision
	if err := json.Unmarshal(wire, &got); err != nil {
		t.Fatalf("the decision's wire form %s: %v", wire, err)
	}
	return agents.Claude.Render("PermissionRequest", &got)
}

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
	// askAnswers: an option; two options and a text of one's own (a
	// multi-select's "Other"); a text of one's own instead of an option.
	askAnswers = []agents.Answer{
		{Labels: []string{"SQLite"}},
		{Labels: []string{"Auth", "Search, full text"}, Text: "Audit log"},
		{Text: "Zig, maybe"},
	}
	// askSeen is what the model must read for each question: Claude
	// Code's `"<question>"="<answer>"`, a multi-select's answers joined by
	// ", ", a label with ", " in it in quotes (as Claude's own dialog
	// writes it).
	askSeen = []string{
		`"Which database should we use?"="SQLite"`,
		`"Which features do you want?"="Auth, "Search, full text", Audit log"`,
		`"Which language?"="Zig, maybe"`,
	}
)

const (
	askMarker    = "E2E_ANSWER_ASK"
	planMarker   = "E2E_ANSWER_PLAN"
	askDone      = "Thanks for the answers."
	planDone     = "Plan approved, starting."
	thePlan      = "# Plan\n\n1. Add a table.\n2. Write tests.\n"
	keepPlanning = "Keep planning: add a rollback step."
)

// TestAnswersClaude: the real Claude Code's TUI asks three questions with
// AskUserQuestion (one option, a multi-select with an answer of one's own,
// and an answer of one's own instead of an option): its PermissionRequest
// payload decodes to those questions, and the allow agents.Claude.Answer
// makes gets each answer to the model, in the next request's tool_result.
// Then, in plan mode, the model writes a plan and calls ExitPlanMode: the
// payload decodes to the plan; a deny with a message (keep planning) gets
// the message to the model as the tool's error, and plan mode stays;
// agents.Claude.Approve's allow approves the plan, the model is told so
// and Claude Code leaves plan mode for the mode it was in before.
func TestAnswersClaude(t *testing.T) {
	t.Parallel()
	start := time.Now()
	deadline := start.Add(3 * time.Minute)
	w := newWorld(t)
	w.startAPI(fakeanthropic.Script{Conversations: []fakeanthropic.Conversation{
		{Match: askMarker, Steps: []fakeanthropic.Step{fakeanthropic.AskUserQuestion(askQuestions...), fakeanthropic.Text(askDone)}},
		{Match: planMarker, Steps: []fakeanthropic.Step{fakeanthropic.WritePlan(thePlan), fakeanthropic.ExitPlanMode(),
			fakeanthropic.ExitPlanMode(), fakeanthropic.Text(planDone)}},
	}})
	h := w.installAnswerHook("PermissionRequest", "Stop")
	c := w.startInteractiveClaude(newUUID(t), deadline)

	// The questions.
	c.submit("Please " + askMarker + " now")
	payload, file := h.next(60 * time.Second)
	req := describeClaude(t, payload)
	if req.Kind != agents.RequestQuestion {
		t.Fatalf("AskUserQuestion's request kind = %q, want %q: %s", req.Kind, agents.RequestQuestion, payload)
	}
	checkQuestions(t, req.Questions)
	d, err := agents.Claude.Answer(req, askAnswers)
	if err != nil {
		t.Fatalf("Claude.Answer(%+v): %v", askAnswers, err)
	}
	out := hookOutput(t, d)
	t.Logf("the hook prints %s", out)
	h.answer(file, out)
	c.WaitFor(regexp.MustCompile(regexp.QuoteMeta(askDone)), 30*time.Second)
	res, ok := w.toolResult(w.onlyToolID(t, askMarker, "AskUserQuestion"))
	if !ok || res.IsError {
		t.Fatalf("AskUserQuestion's tool_result = %+v (found %v), want the answers", res, ok)
	}
	t.Logf("the model read: %s", res.Text)
	for _, s := range askSeen {
		if !strings.Contains(res.Text, s) {
			t.Errorf("AskUserQuestion's tool_result lacks %s:\n%s", s, res.Text)
		}
	}

	// The plan: keep planning, then approve.
	c.enterPlanMode()
	c.submit("Please " + planMarker + " now")
	payload, file = h.next(60 * time.Second)
	req = describeClaude(t, payload)
	if req.Kind != agents.RequestPlan || req.Plan != thePlan {
		t.Fatalf("ExitPlanMode's request: kind %q, plan %q; want %q and the plan written %q\n%s", req.Kind, req.Plan, agents.RequestPlan, thePlan, payload)
	}
	if got := gjson.GetBytes(payload, "permission_mode").String(); got != "plan" {
		t.Errorf("ExitPlanMode's payload has permission_mode %q, want plan", got)
	}
	h.answer(file, hookOutput(t, agents.Decision{Message: keepPlanning}))
	payload, file = h.next(30 * time.Second)
	if req = describeClaude(t, payload); req.Kind != agents.RequestPlan {
		t.Fatalf("the second ExitPlanMode's request kind = %q, want %q", req.Kind, agents.RequestPlan)
	}
	if got := gjson.GetBytes(payload, "permission_mode").String(); got != "plan" {
		t.Errorf("after keep planning, permission_mode = %q, want plan still", got)
	}
	h.answer(file, hookOutput(t, agents.Claude.Approve(req)))
	c.WaitFor(regexp.MustCompile(regexp.QuoteMeta(planDone)), 30*time.Second)
	ids := w.issuedToolIDs(planMarker)["ExitPlanMode"]
	if len(ids) != 2 {
		t.Fatalf("the fake model called ExitPlanMode %d times, want 2", len(ids))
	}
	if res, ok := w.toolResult(ids[0]); !ok || !res.IsError || res.Text != keepPlanning {
		t.Errorf("kept planning: tool_result = %+v (found %v), want the error %q", res, ok, keepPlanning)
	}
	if res, ok := w.toolResult(ids[1]); !ok || res.IsError || !strings.Contains(res.Text, "User has approved your plan") {
		t.Errorf("approved: tool_result = %+v (found %v), want \"User has approved your plan\"", res, ok)
	}
	stops := waitHookCalls(t, h.dir, 15*time.Second, "the plan turn's Stop", func(calls []hookCall) bool {
		return len(ofEvent(calls, "Stop")) == 2
	})
	// Leaving plan mode, Claude Code goes back to the mode before it:
	// Shift+Tab went through accept edits on the way.
	if mode := ofEvent(stops, "Stop")[1].str("permission_mode"); mode != "acceptEdits" {
		t.Errorf("after the approval, permission_mode = %q, want acceptEdits, the mode before plan mode", mode)
	}
	t.Logf("answered questions and a plan in %v", time.Since(start).Round(time.Millisecond))
}

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
