package present

import (
	"slices"
	"strings"
	"testing"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/internal/i18n"
	"github.com/clawdhq/clawd/runtime/client"
)

func TestPlanLines(t *testing.T) {
	cases := []struct {
		name       string
		plan       string
		max, width int
		want       []string
		more       int
	}{
		{"markdown", "# Plan\n\n1. Add a table.\n   - with an index\n\t- tabbed\n2. Write tests.\n", 0, 0,
			[]string{"# Plan", "", "1. Add a table.", "   - with an index", "    - tabbed", "2. Write tests."}, 0},
		{"blank runs as one, none at the ends", "\n\n a\n\n\n\nb\n\n", 0, 0, []string{" a", "", "b"}, 0},
		{"cut to max, no blank last", "a\n\nb\nc\n", 1, 0, []string{"a"}, 3},
		{"max counts blanks", "a\n\nb\nc\n", 3, 0, []string{"a", "", "b"}, 1},
		{"width", "abcdefgh\n  abcdefgh", 0, 5, []string{"abcd…", "  ab…"}, 0},
		{"deep indentation is bounded", strings.Repeat(" ", 100) + "x", 0, 0, []string{strings.Repeat(" ", 16) + "x"}, 0},
		{"escapes and bidi dropped", "\x1b[31mred\u202e\r\nok\x00", 0, 0, []string{"[31mred", "ok"}, 0},
		{"CRLF", "a\r\nb\r\n", 0, 0, []string{"a", "b"}, 0},
		{"empty", "", 3, 0, nil, 0},
	}
	for _, c := range cases {
		got, more := PlanLines(c.plan, c.max, c.width)
		if !slices.Equal(got, c.want) || more != c.more {
			t.Errorf("%s: PlanLines(%q, %d, %d) = %q, %d; want %q, %d", c.name, c.plan, c.max, c.width, got, more, c.want, c.more)
		}
	}
}

func TestQuestionLines(t *testing.T) {
	q := agents.Question{Header: "Database", Text: "Which\ndatabase?", Options: []agents.QuestionOption{{Label: "SQLite\u202e", Description: "Embedded"}, {Label: "Redis"}}}
	if got, want := QuestionTitle(q, 0), "Database: Which database?"; got != want {
		t.Errorf("QuestionTitle = %q, want %q", got, want)
	}
	if got, want := QuestionTitle(agents.Question{Header: "Same", Text: "Same"}, 0), "Same"; got != want {
		t.Errorf("QuestionTitle of a header that is the question = %q, want %q", got, want)
	}
	if got, want := OptionLine(q.Options[0], 0), "SQLite — Embedded"; got != want {
		t.Errorf("OptionLine = %q, want %q", got, want)
	}
	if got, want := OptionLine(q.Options[1], 0), "Redis"; got != want {
		t.Errorf("OptionLine without a description = %q, want %q", got, want)
	}
	for _, c := range []struct {
		qs   []agents.Question
		want bool
	}{
		{[]agents.Question{q}, true},
		{[]agents.Question{{MultiSelect: true}}, false},
		{[]agents.Question{q, q}, false},
		{nil, false},
	} {
		if got := OneAtATime(c.qs); got != c.want {
			t.Errorf("OneAtATime(%+v) = %v, want %v", c.qs, got, c.want)
		}
	}
}

// TestAnsweredQuestionsAndPlans: an answered question says what was
// picked, and that text was typed (never the text, which the record does
// not have); a plan sent back reads as such, not as a denial.
func TestAnsweredQuestionsAndPlans(t *testing.T) {
	p := i18n.For(i18n.English)
	a := client.PermissionAnswer{Request: client.KindQuestion, Decision: client.DecisionAnswer, Source: client.SourceTray,
		Answers: []client.AnsweredQuestion{{Labels: []string{"SQLite"}}, {}, {Labels: []string{"Auth", "Export"}, Typed: true}}}
	if got, want := Answered(p, a, "AskUserQuestion"), "Answered AskUserQuestion: SQLite; Auth, Export, an answer of their own — from the tray"; got != want {
		t.Errorf("Answered(question) = %q, want %q", got, want)
	}
	plan := client.PermissionAnswer{Request: client.KindPlan, Decision: client.DecisionDeny, Source: client.SourceCLI}
	if got, want := Answered(p, plan, "ExitPlanMode"), "Sent the plan back to keep planning (ExitPlanMode) — from the command line"; got != want {
		t.Errorf("Answered(plan kept) = %q, want %q", got, want)
	}
	for _, l := range i18n.Langs() {
		p := i18n.For(l)
		for _, got := range []string{Answered(p, a, "x"), Answered(p, plan, "x")} {
			if strings.Contains(got, "answered.") || strings.Contains(got, "%!") {
				t.Errorf("in %s: %q, want words", l, got)
			}
		}
	}
}
