package present

import (
	"strings"
	"unicode"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/internal/i18n"
	"github.com/clawdhq/clawd/internal/text"
	"github.com/clawdhq/clawd/runtime/client"
)

// How questions and plans read: the tray, `clawd permissions` and the
// dashboard show a question's options and a plan's lines through these,
// so the three number and cut them alike.

// QuestionTitle is a question as a list heads it: "Database: Which
// database should we use?", one inert line of at most max runes.
func QuestionTitle(q agents.Question, max int) string {
	s := q.Text
	if h := strings.TrimSpace(q.Header); h != "" && h != q.Text {
		s = h + ": " + s
	}
	return text.Line(s, max)
}

// OptionLine is an option as a list shows it: its label and, after a
// dash, its description, one inert line of at most max runes.
func OptionLine(o agents.QuestionOption, max int) string {
	s := o.Label
	if d := strings.TrimSpace(o.Description); d != "" {
		s += " — " + d
	}
	return text.Line(s, max)
}

// OneAtATime reports whether clicking an option can answer qs at once: a
// single question that takes one option.
func OneAtATime(qs []agents.Question) bool {
	return len(qs) == 1 && !qs[0].MultiSelect
}

// PlanLines is the start of a plan as a person reads it: at most limit
// of its lines (limit <= 0: all), each one inert line of at most width runes
// (internal/text's policy) that keeps its indentation, with runs of blank
// lines as one and none at the ends; more counts the lines left out.
func PlanLines(plan string, limit, width int) (lines []string, more int) {
	blank := false
	for raw := range strings.Lines(plan) {
		body := strings.TrimLeftFunc(raw, unicode.IsSpace)
		indent := indentOf(raw[:len(raw)-len(body)])
		w := 0
		if width > 0 {
			w = max(width-len(indent), 1)
		}
		line := text.Line(body, w)
		if line == "" {
			blank = len(lines) > 0
			continue
		}
		if blank {
			lines, blank = append(lines, ""), false
		}
		lines = append(lines, indent+line)
	}
	if limit > 0 && len(lines) > limit {
		more = len(lines) - limit
		lines = lines[:limit]
		for more > 0 && len(lines) > 0 && lines[len(lines)-1] == "" {
			lines = lines[:len(lines)-1]
		}
	}
	return lines, more
}

// indentOf is a line's leading whitespace as spaces, a tab four, at most
// 16: a nested list stays nested, and no line hides past the edge.
func indentOf(ws string) string {
	n := 0
	for _, r := range ws {
		switch r {
		case '\t':
			n += 4
		case ' ':
			n++
		}
	}
	return strings.Repeat(" ", min(n, 16))
}

// answeredList says what a question's answers picked, for Answered:
// "SQLite; Auth, Export, your own answer", questions apart by "; ".
func answeredList(p i18n.Printer, answers []client.AnsweredQuestion) string {
	var qs []string
	for _, a := range answers {
		items := make([]string, 0, len(a.Labels)+1)
		for _, l := range a.Labels {
			items = append(items, text.Line(l, 40))
		}
		if a.Typed {
			items = append(items, p.T("answered.typed"))
		}
		if len(items) > 0 {
			qs = append(qs, strings.Join(items, p.T("list.sep")))
		}
	}
	return strings.Join(qs, p.T("answered.questions_sep"))
}
