package cmd

import (
	"bytes"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/internal/golden"
	"github.com/clawdhq/clawd/internal/i18n"
	"github.com/clawdhq/clawd/runtime/client"
)

// askQuestions are the recorded AskUserQuestion's questions
// (testdata/claude/hooks/PermissionRequest.AskUserQuestion.json).
var askQuestions = []agents.Question{
	{Header: "Database", Text: "Which database should we use?", Custom: true, Options: []agents.QuestionOption{
		{Label: "Postgres", Description: "Relational, strong consistency"}, {Label: "SQLite", Description: "Embedded, zero setup"},
		{Label: "Redis", Description: "In-memory key-value"}}},
	{Header: "Features", Text: "Which features do you want?", MultiSelect: true, Custom: true, Options: []agents.QuestionOption{
		{Label: "Auth", Description: "Login and sessions"}, {Label: "Search, full text", Description: "A label with a comma"},
		{Label: "Export", Description: "CSV export"}}},
	{Header: "Language", Text: "Which language?", Custom: true, Options: []agents.QuestionOption{
		{Label: "Go", Description: "Compiled"}, {Label: "Rust", Description: "Also compiled"}, {Label: "1.5"}}},
}

func questionView(id string, qs ...agents.Question) client.PermissionView {
	return client.PermissionView{ID: id, Kind: client.KindQuestion, Agent: "claude", SessionID: "s1", Cwd: "/home/user/project",
		Tool: "AskUserQuestion", Summary: qs[0].Text, CreatedAt: created, State: "pending",
		QuestionView: client.QuestionView{Questions: qs, Answerable: true}}
}

func planView(id, plan string) client.PermissionView {
	return client.PermissionView{ID: id, Kind: client.KindPlan, Agent: "claude", SessionID: "s2", Cwd: "/home/user/project",
		Tool: "ExitPlanMode", Summary: plan, CreatedAt: created, State: "pending", QuestionView: client.QuestionView{Plan: plan}}
}

func TestPickAnswers(t *testing.T) {
	one := askQuestions[:1]
	cases := []struct {
		name        string
		qs          []agents.Question
		opts, texts []string
		want        []agents.Answer
		err         string
	}{
		{"a label", one, []string{"SQLite"}, nil, []agents.Answer{{Labels: []string{"SQLite"}}}, ""},
		{"a number of the one question", one, []string{"3"}, nil, []agents.Answer{{Labels: []string{"Redis"}}}, ""},
		{"Q.N of the one question", one, []string{"1.1"}, nil, []agents.Answer{{Labels: []string{"Postgres"}}}, ""},
		{"a label in another case", one, []string{"sqlite"}, nil, []agents.Answer{{Labels: []string{"SQLite"}}}, ""},
		{"text alone", one, nil, []string{"Zig, maybe"}, []agents.Answer{{Text: "Zig, maybe"}}, ""},
		{"a number out of range", one, []string{"4"}, nil, nil, "options 1-3"},
		{"no such label", one, []string{"MySQL"}, nil, nil, `no option "MySQL"`},
		{"several questions", askQuestions, []string{"1.2", "Auth", "2:Search, full text", "Go"}, []string{"2:Audit log", "3:Zig: maybe"},
			[]agents.Answer{{Labels: []string{"SQLite"}}, {Labels: []string{"Auth", "Search, full text"}, Text: "Audit log"}, {Labels: []string{"Go"}, Text: "Zig: maybe"}}, ""},
		{"a label that reads as a number wins", askQuestions, []string{"1.5"}, nil, []agents.Answer{{}, {}, {Labels: []string{"1.5"}}}, ""},
		{"a bare number with several questions", askQuestions, []string{"2"}, nil, nil, `no option "2"`},
		{"text without its question", askQuestions, nil, []string{"Audit log"}, nil, "--text 2:TEXT"},
		{"text for a question that is not", askQuestions, nil, []string{"4:x"}, nil, "--text 2:TEXT"},
		{"two texts for one question", one, nil, []string{"a", "b"}, nil, "one --text each"},
		{"an empty text", one, nil, []string{" "}, nil, "empty"},
		{"Q.N out of range", askQuestions, []string{"2.9"}, nil, nil, "no such option"},
	}
	twice := []agents.Question{askQuestions[0], askQuestions[0]}
	cases = append(cases, struct {
		name        string
		qs          []agents.Question
		opts, texts []string
		want        []agents.Answer
		err         string
	}{"a label two questions have", twice, []string{"SQLite"}, nil, nil, "questions 1 and 2: say which"})
	for _, c := range cases {
		got, err := pickAnswers(c.qs, c.opts, c.texts)
		switch {
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%s: pickAnswers(%q, %q) = %+v, %v; want an error saying %q", c.name, c.opts, c.texts, got, err, c.err)
		case c.err == "" && (err != nil || !reflect.DeepEqual(got, c.want)):
			t.Errorf("%s: pickAnswers(%q, %q) = %+v, %v; want %+v", c.name, c.opts, c.texts, got, err, c.want)
		}
	}
}

// TestAnswerCommand: `clawd answer` sends the answers the options and
// texts name (a text with a comma whole), says what it answered without
// the text, and refuses what is not a question; `clawd plan` approves a
// plan and sends one back with the message, and refuses a request that
// is no plan (an approval is an allow).
func TestAnswerCommand(t *testing.T) {
	f := newFakeAPI(t, questionView("q1", askQuestions...), planView("pl1", "1. Do it."), planView("pl2", "1. Do it."), pendingView("b1"))
	code, out, errb := runCLI(t, f.home, "answer", "q1", "SQLite", "2.1", "2.2", "--text", "2:Audit, log", "--text", "3:Zig, maybe")
	want := client.DecisionBody{Behavior: client.AnswerQuestions, Via: "cli", Answers: []agents.Answer{
		{Labels: []string{"SQLite"}}, {Labels: []string{"Auth", "Search, full text"}, Text: "Audit, log"}, {Text: "Zig, maybe"}}}
	if got := f.decided["q1"]; code != 0 || !reflect.DeepEqual(got, want) {
		t.Errorf("answer = %d (stderr %q), sent %+v; want %+v", code, errb, got, want)
	}
	if wantOut := "answered q1 (Which database should we use?): SQLite; Auth, Search, full text, your own text; your own text\n"; out != wantOut {
		t.Errorf("answer printed %q, want %q", out, wantOut)
	}

	for _, c := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"answer", "b1", "1"}, 1, "b1 is not a question"},
		{[]string{"answer", "q1"}, 2, "usage: clawd answer ID OPTION..."},
		{[]string{"answer", "nosuch", "1"}, 1, "no such request: nosuch"},
		{[]string{"plan", "approve", "b1"}, 1, "b1 is not a plan review"},
		{[]string{"plan", "keep"}, 2, "usage: clawd plan keep ID"},
	} {
		code, _, errb := runCLI(t, f.home, c.args...)
		if code != c.code || !strings.Contains(errb, c.msg) {
			t.Errorf("%q = %d, stderr %q; want %d saying %q", c.args, code, errb, c.code, c.msg)
		}
	}
	if _, ok := f.decided["b1"]; ok {
		t.Errorf("a refused command decided b1: %+v", f.decided["b1"])
	}

	if code, out, errb := runCLI(t, f.home, "plan", "approve", "pl1"); code != 0 || !reflect.DeepEqual(f.decided["pl1"], client.DecisionBody{Behavior: client.Allow, Via: "cli"}) ||
		out != "approved the plan of pl1 (Claude Code)\n" {
		t.Errorf("plan approve = %d %q (stderr %q), sent %+v", code, out, errb, f.decided["pl1"])
	}
	if code, out, errb := runCLI(t, f.home, "plan", "keep", "pl2", "-m", "Add a rollback step."); code != 0 ||
		!reflect.DeepEqual(f.decided["pl2"], client.DecisionBody{Behavior: client.Deny, Message: "Add a rollback step.", Via: "cli"}) ||
		out != "sent the plan of pl2 back to Claude Code to keep planning\n" {
		t.Errorf("plan keep = %d %q (stderr %q), sent %+v", code, out, errb, f.decided["pl2"])
	}
}

// TestRenderAsks: below the table, `clawd permissions` shows each
// question with its options numbered as `clawd answer` takes them (N for
// one question, Q.N for several), a question clawd cannot answer with the
// way to the terminal, and a plan's first lines, escapes and bidi
// controls dropped (testdata/permissions-asks*.golden.txt, in English and
// Chinese).
func TestRenderAsks(t *testing.T) {
	long := "# Plan\n\n" + strings.Repeat("1. A step\n", 20)
	notHere := questionView("q3", askQuestions[0])
	notHere.Agent, notHere.Answerable = "qwen", false
	list := []client.PermissionView{
		questionView("q1", askQuestions...),
		questionView("q2", agents.Question{Text: "Proceed?\x1b[2J", Custom: true, Options: []agents.QuestionOption{{Label: "Yes\u202e"}, {Label: "No"}}}),
		notHere,
		planView("pl1", "# Plan\n\n1. Add a table.\n   - with an index\x1b]0;x\x07\n2. Write tests.\n"),
		planView("pl2", long),
		pendingView("b1"),
	}
	for _, l := range []struct {
		lang   i18n.Lang
		golden string
	}{{i18n.English, "permissions-asks.golden.txt"}, {i18n.Chinese, "permissions-asks.zh-CN.golden.txt"}} {
		var got bytes.Buffer
		renderPermissions(&got, i18n.For(l.lang), list, created.Add(2*time.Minute), "/home/user", 0)
		golden.Check(t, filepath.Join("testdata", l.golden), got.Bytes())
		if s := got.String(); strings.ContainsAny(s, "\x1b\x07\u202e") {
			t.Errorf("in %s the list carries an escape or a bidi control:\n%q", l.lang, s)
		}
	}
}
