package runtime

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/runtime/client"
)

// logBuffer is a log destination safe for the runtime's goroutines.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// questionRequest is the request Claude Code's hook registers for the
// recorded AskUserQuestion (three questions: Database, Features, which
// is a multi-select, and Language) in session sid.
func questionRequest(t *testing.T, sid string) client.RequestBody {
	t.Helper()
	payload, err := os.ReadFile(filepath.Join("..", "testdata", "claude", "hooks", "PermissionRequest.AskUserQuestion.json"))
	if err != nil {
		t.Fatal(err)
	}
	e := permEvent(sid, "AskUserQuestion", "hq-"+sid)
	e.Kind = agents.KindQuestion
	return hookBody(e, string(payload))
}

// TestQuestionAnswered: a question's view carries its questions whole;
// answers that do not fit them are refused with a 400 that says why, and
// the request waits on; answers that fit reach the hook as Claude Code's
// own answer (agents.Claude.Answer's); the permission.answered record
// carries the labels picked and that text was typed, while the typed text
// reaches neither the record nor the log; a second answer is refused.
func TestQuestionAnswered(t *testing.T) {
	logs := &logBuffer{}
	env := startPerm(t, func(c *Config) {
		c.Logger = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	})
	body := questionRequest(t, "s1")
	res := env.hook(body)
	eventually(t, "the question listed", func() bool { return len(env.s.Permissions()) == 1 })
	v := env.list(t)[0]
	if v.Kind != client.KindQuestion || !v.Answerable || len(v.Questions) != 3 || !v.Questions[1].MultiSelect ||
		v.Questions[1].Options[1].Label != "Search, full text" || v.Questions[0].Options[2].Description != "In-memory key-value" {
		t.Fatalf("the question's view = %+v, want its 3 questions whole and answerable", v)
	}

	bad := []struct {
		name    string
		answers []agents.Answer
		msg     string
	}{
		{"no answers", nil, "3 questions"},
		{"too few", []agents.Answer{{Labels: []string{"SQLite"}}}, "1 answers for 3 questions"},
		{"no such option", []agents.Answer{{Labels: []string{"MySQL"}}, {}, {}}, `no option \"MySQL\"`},
		{"two for a single-select", []agents.Answer{{Labels: []string{"SQLite", "Redis"}}, {}, {}}, "takes one answer, got 2"},
		{"an option and text for a single-select", []agents.Answer{{Labels: []string{"SQLite"}, Text: "or else"}, {}, {}}, "takes one answer, got 2"},
		{"nothing answered", []agents.Answer{{}, {}, {}}, "no question is answered"},
		{"picked twice", []agents.Answer{{}, {Labels: []string{"Auth", "Auth"}}, {}}, "picked twice"},
	}
	for _, c := range bad {
		code, b := env.decide(t, v.ID, client.DecisionBody{Behavior: client.AnswerQuestions, Answers: c.answers, Via: "cli"})
		if code != http.StatusBadRequest || !strings.Contains(string(b), c.msg) {
			t.Errorf("%s: answer = %d %s, want 400 saying %q", c.name, code, b, c.msg)
		}
	}
	if code, b := env.decide(t, v.ID, client.DecisionBody{Behavior: client.AnswerQuestions, Answers: []agents.Answer{{Labels: []string{"SQLite"}}, {}, {}},
		Message: "why"}); code != http.StatusBadRequest || !strings.Contains(string(b), "answers only") {
		t.Errorf("answers with a message = %d %s, want 400", code, b)
	}
	if code, b := env.decide(t, v.ID, client.DecisionBody{Behavior: client.Allow, Answers: []agents.Answer{{Labels: []string{"SQLite"}}, {}, {}}}); code != http.StatusBadRequest ||
		!strings.Contains(string(b), `with behavior \"answer\"`) {
		t.Errorf("answers with an allow = %d %s, want 400", code, b)
	}
	noAnswer(t, res)

	const secret = "Audit log for the secret project"
	answers := []agents.Answer{
		{Labels: []string{"SQLite"}},
		{Labels: []string{"Auth", "Search, full text"}, Text: secret},
		{Text: "Zig, maybe"},
	}
	if code, b := env.decide(t, v.ID, client.DecisionBody{Behavior: client.AnswerQuestions, Answers: answers, Via: "cli"}); code != http.StatusOK {
		t.Fatalf("answer = %d %s", code, b)
	}
	r := wait(t, res)
	want, err := agents.Claude.Answer(body.Request, answers)
	if err != nil {
		t.Fatal(err)
	}
	if d := r.ans.Decision; d == nil || !d.Allow || !sameJSON(d.UpdatedInput, want.UpdatedInput) {
		t.Fatalf("the hook's answer = %s, want an allow with updated input %s", r.raw, want.UpdatedInput)
	}

	recs := answersOf(t, env.s, "s1")
	if len(recs) != 1 {
		t.Fatalf("%d permission.answered records, want 1", len(recs))
	}
	a := recs[0].Answer
	wantAnswers := []client.AnsweredQuestion{{Labels: []string{"SQLite"}}, {Labels: []string{"Auth", "Search, full text"}, Typed: true}, {Typed: true}}
	if a.Decision != client.DecisionAnswer || a.Request != client.KindQuestion || a.Source != client.SourceCLI || !reflect.DeepEqual(a.Answers, wantAnswers) {
		t.Errorf("the record's answer = %+v, want decision %q from the cli with %+v", a, client.DecisionAnswer, wantAnswers)
	}
	line, _ := json.Marshal(recs[0])
	for _, own := range []string{secret, "Zig, maybe"} {
		if strings.Contains(string(line), own) {
			t.Errorf("the record carries the person's own text %q: %s", own, line)
		}
		if strings.Contains(logs.String(), own) {
			t.Errorf("the log carries the person's own text %q:\n%s", own, logs)
		}
	}
	if code, b := env.decide(t, v.ID, client.DecisionBody{Behavior: client.AnswerQuestions, Answers: answers}); code != http.StatusConflict {
		t.Errorf("a second answer = %d %s, want 409", code, b)
	}
}

// TestQuestionNotAnswerable: a question clawd cannot hand an answer to
// (an agent whose hook takes none, or a question whose input the hook
// cut) is shown with its questions, marked not answerable, and an answer
// is refused with the reason and the way to the terminal; the terminal
// still closes it.
func TestQuestionNotAnswerable(t *testing.T) {
	env := startPerm(t, nil)
	st := env.follow(t)

	qwenPayload, err := os.ReadFile(filepath.Join("..", "testdata", "qwen", "hooks", "PermissionRequest.ask_user_question.json"))
	if err != nil {
		t.Fatal(err)
	}
	qe := agents.Event{Agent: "qwen", Kind: agents.KindQuestion, SessionID: "q1", Time: time.Now().UTC(), ToolName: "ask_user_question",
		HookEvent: "PermissionRequest", Cwd: "/tmp/p"}
	qres := env.hook(client.RequestBody{Event: qe, Request: agents.Qwen.Describe(qe, qwenPayload, false), WaitSeconds: 3595})
	q := st.next(t, "added", 5*time.Second).Permission

	claudePayload, err := os.ReadFile(filepath.Join("..", "testdata", "claude", "hooks", "PermissionRequest.AskUserQuestion.json"))
	if err != nil {
		t.Fatal(err)
	}
	ce := permEvent("c1", "AskUserQuestion", "hc")
	ce.Kind = agents.KindQuestion
	cut := claudePayload[:len(claudePayload)-200]
	cres := env.hook(client.RequestBody{Event: ce, Request: agents.Claude.Describe(ce, cut, true), WaitSeconds: 3595})
	c := st.next(t, "added", 5*time.Second).Permission

	for _, tc := range []struct {
		name string
		v    client.PermissionView
		why  string
	}{
		{"qwen", q, agents.Qwen.Supports.QuestionsInTerminal},
		{"a cut input", c, "did not read its questions whole"},
	} {
		if tc.v.Answerable {
			t.Errorf("%s: the view says answerable: %+v", tc.name, tc.v)
		}
		code, b := env.decide(t, tc.v.ID, client.DecisionBody{Behavior: client.AnswerQuestions, Answers: []agents.Answer{{Labels: []string{"SQLite"}}}})
		if code != http.StatusBadRequest || !strings.Contains(string(b), tc.why) || !strings.Contains(string(b), "terminal") {
			t.Errorf("%s: answer = %d %s, want 400 saying %q and pointing at the terminal", tc.name, code, b, tc.why)
		}
		code, b = env.decide(t, tc.v.ID, client.DecisionBody{Behavior: client.Allow})
		if code != http.StatusBadRequest || strings.Contains(string(b), "clawd answer") {
			t.Errorf("%s: allow = %d %s, want 400 without offering clawd answer", tc.name, code, b)
		}
	}
	if len(q.Questions) != 1 || q.Questions[0].Options[1].Label != "SQLite" {
		t.Errorf("qwen's question view = %+v, want its question shown", q.Questions)
	}
	noAnswer(t, qres)
	noAnswer(t, cres)
	for _, v := range []client.PermissionView{q, c} {
		if code, b := env.decide(t, v.ID, client.DecisionBody{Behavior: client.Terminal}); code != http.StatusOK {
			t.Errorf("terminal = %d %s", code, b)
		}
	}
	for _, ch := range []<-chan hookResult{qres, cres} {
		if r := wait(t, ch); r.ans.Decision != nil || r.ans.Reason != client.ReasonTerminal {
			t.Errorf("answer = %s, want the terminal", r.raw)
		}
	}
}

// TestPlanDecisions: a plan's view carries its plan (cut at
// client.MaxViewPlan, whole in the detail); approving it gives Claude
// Code's approval, sending it back a deny with the person's message, or a
// message of clawd's when they gave none; the record says deny on a plan
// and carries no message.
func TestPlanDecisions(t *testing.T) {
	env := startPerm(t, nil)
	st := env.follow(t)
	long := "# Plan\n" + strings.Repeat("- a step of the plan\n", client.MaxViewPlan/20+10)
	plan := func(sid, text string) (client.PermissionView, <-chan hookResult) {
		in, _ := json.Marshal(map[string]string{"plan": text})
		res := env.hook(hookBody(permEvent(sid, "ExitPlanMode", "hp-"+sid), `{"tool_input":`+string(in)+`}`))
		return st.next(t, "added", 5*time.Second).Permission, res
	}

	p, res := plan("s1", long)
	if p.Kind != client.KindPlan || !p.PlanTruncated || len(p.Plan) != client.MaxViewPlan || !strings.HasPrefix(long, p.Plan) {
		t.Errorf("a long plan's view: %d bytes, truncated %v; want its first %d", len(p.Plan), p.PlanTruncated, client.MaxViewPlan)
	}
	if d := env.detail(t, p.ID); d.Plan != long || d.PlanTruncated {
		t.Errorf("a long plan's detail: %d bytes, truncated %v; want it whole (%d)", len(d.Plan), d.PlanTruncated, len(long))
	}
	if code, b := env.decide(t, p.ID, client.DecisionBody{Behavior: client.Deny, Message: "Add a rollback step.", Via: "dashboard"}); code != http.StatusOK {
		t.Fatalf("keep planning = %d %s", code, b)
	}
	if r := wait(t, res); r.ans.Decision == nil || r.ans.Decision.Allow || r.ans.Decision.Message != "Add a rollback step." {
		t.Errorf("keep planning's answer = %s, want a deny with the message", r.raw)
	}

	p, res = plan("s2", "1. Do it.")
	if p.Plan != "1. Do it." || p.PlanTruncated {
		t.Errorf("a short plan's view: %q, truncated %v", p.Plan, p.PlanTruncated)
	}
	if code, b := env.decide(t, p.ID, client.DecisionBody{Behavior: client.Deny, Via: "tray"}); code != http.StatusOK {
		t.Fatalf("keep planning without a message = %d %s", code, b)
	}
	if r := wait(t, res); r.ans.Decision == nil || r.ans.Decision.Allow || !strings.Contains(r.ans.Decision.Message, "keep planning") {
		t.Errorf("keep planning without a message: answer %s, want a deny that says to keep planning", r.raw)
	}

	for _, sid := range []string{"s1", "s2"} {
		recs := answersOf(t, env.s, sid)
		if len(recs) != 1 {
			t.Fatalf("%s: %d answers, want 1", sid, len(recs))
		}
		line, _ := json.Marshal(recs[0])
		if a := recs[0].Answer; a.Decision != client.DecisionDeny || a.Request != client.KindPlan || strings.Contains(string(line), "rollback") {
			t.Errorf("%s: the record %s, want a deny on a plan without the message", sid, line)
		}
	}
}

// sameJSON reports whether a and b are the same JSON value.
func sameJSON(a, b []byte) bool {
	var x, y any
	return json.Unmarshal(a, &x) == nil && json.Unmarshal(b, &y) == nil && reflect.DeepEqual(x, y)
}

// TestDashAsks: a card gets a question's labels exactly as the agent
// wrote them (an answer names them) but shows them, the questions and a
// plan as inert text; the view it also carries no longer repeats them.
func TestDashAsks(t *testing.T) {
	p := client.PermissionView{Kind: client.KindQuestion, QuestionView: client.QuestionView{Answerable: true, Questions: []agents.Question{
		{Header: "DB", Text: "Which\u202e one?\x1b[2J", Options: []agents.QuestionOption{{Label: "<b>SQLite</b>\u202e", Description: "tiny\ncore"}}},
	}}}
	d := dashAsksOf(&p)
	want := dashAsks{OneAtATime: true, Questions: []dashQuestion{{Title: "DB: Which one?[2J",
		Options: []dashOption{{Label: "<b>SQLite</b>\u202e", Text: "<b>SQLite</b>", Description: "tiny core"}}}}}
	if !reflect.DeepEqual(d, want) || p.Questions != nil {
		t.Errorf("dashAsksOf = %+v (view's questions %v), want %+v and none left in the view", d, p.Questions, want)
	}
	plan := client.PermissionView{Kind: client.KindPlan, QuestionView: client.QuestionView{Plan: "# Plan\u2066\n\n  1. Go\x07\n"}}
	if d := dashAsksOf(&plan); !reflect.DeepEqual(d.PlanLines, []string{"# Plan", "", "  1. Go"}) || plan.Plan != "" {
		t.Errorf("dashAsksOf(plan) = %q (view's plan %q), want its lines inert and none left in the view", d.PlanLines, plan.Plan)
	}
}
