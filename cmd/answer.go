package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/internal/i18n"
	"github.com/clawdhq/clawd/internal/lazy"
	"github.com/clawdhq/clawd/internal/present"
	"github.com/clawdhq/clawd/internal/text"
	"github.com/clawdhq/clawd/runtime/client"
)

type answerOptions struct {
	texts []string
}

// newAnswerCmd is `clawd answer ID OPTION... [--text TEXT]`: the person's
// answer to an agent's question, as `clawd permissions` numbers its
// options.
func newAnswerCmd(e *env) *cli.Command {
	o := &answerOptions{}
	return &cli.Command{
		Name:        "answer",
		Usage:       e.t("help.answer.usage"),
		Description: e.t("help.answer.description"),
		ArgsUsage:   "ID [OPTION...]",
		// A text of one's own may hold commas: --text "Zig, maybe".
		DisableSliceFlagSeparator: true,
		Flags: []cli.Flag{
			&cli.StringSliceFlag{Name: "text", Aliases: []string{"t"}, Usage: e.t("help.answer.flag_text"), Destination: &o.texts, HideDefault: true},
		},
		ShellComplete: completeArgs(pendingWords(e)),
		Action: func(ctx context.Context, c *cli.Command) error {
			return runAnswer(ctx, e, o, c.Args().Slice())
		},
	}
}

func runAnswer(ctx context.Context, e *env, o *answerOptions, args []string) error {
	if len(args) == 0 || args[0] == "" || (len(args) == 1 && len(o.texts) == 0) {
		return exitCode(2, errors.New("usage: clawd answer ID OPTION... [--text TEXT] (the ID and the options as `clawd permissions` lists them)"))
	}
	c, d, err := requestOfKind(ctx, e, args[0], client.KindQuestion, "a question", "answer it with `clawd permissions` or `clawd plan`")
	if err != nil {
		return err
	}
	id := d.ID
	if len(d.Questions) == 0 {
		return exitCode(1, fmt.Errorf("clawd has no options of %s to pick from: answer it in the agent's terminal (`clawd permissions terminal %s`)", id, id))
	}
	answers, err := pickAnswers(d.Questions, args[1:], o.texts)
	if err != nil {
		return exitCode(2, err)
	}
	if _, err := c.Decide(ctx, id, client.DecisionBody{Behavior: client.AnswerQuestions, Answers: answers, Via: client.SourceCLI}); err != nil {
		return permissionError(err, id)
	}
	printWrapped(e.stdout, e.columns(), 2, e.t("permissions.done.answered", id, cell(d.Summary), answerWords(e.printer(), answers)))
	return nil
}

// requestOfKind reads the request typed names (resolveRequest), and
// refuses it unless it is of kind: what a command answers it with fits
// that kind alone (an approval is an allow, which must never allow a tool
// call that is no plan). what names the kind, how says what to do
// instead. The detail's ID is the whole id.
func requestOfKind(ctx context.Context, e *env, typed string, kind client.RequestKind, what, how string) (*client.Client, client.PermissionDetail, error) {
	c, err := connect(ctx, e)
	if err != nil {
		return nil, client.PermissionDetail{}, err
	}
	id, err := resolveRequest(ctx, c, typed)
	if err != nil {
		return nil, client.PermissionDetail{}, err
	}
	d, err := c.Permission(ctx, id)
	if err != nil {
		return nil, d, permissionError(err, id)
	}
	if d.Kind != kind {
		return nil, d, exitCode(1, fmt.Errorf("%s is not %s (it is a %s): %s", id, what, text.Line(string(d.Kind), 0), how))
	}
	d.ID = id
	return c, d, nil
}

// answerWords is what was answered, in one line: the labels picked, and
// "your own text" where text was typed, questions apart by "; ".
func answerWords(p i18n.Printer, answers []agents.Answer) string {
	var qs []string
	for _, a := range answers {
		items := make([]string, 0, len(a.Labels)+1)
		for _, l := range a.Labels {
			items = append(items, text.Line(l, 40))
		}
		if strings.TrimSpace(a.Text) != "" {
			items = append(items, p.T("permissions.done.own_text"))
		}
		if len(items) > 0 {
			qs = append(qs, strings.Join(items, p.T("list.sep")))
		}
	}
	return strings.Join(qs, p.T("permissions.done.questions_sep"))
}

var (
	// optionNumber is Q.N, option N of question Q.
	optionNumber = lazy.Regexp(`^([0-9]+)\.([0-9]+)$`)
	// questionPrefix is the Q: before a label or a text that says which
	// question it answers.
	questionPrefix = lazy.Regexp(`^([0-9]+):(.*)$`)
)

// pickAnswers turns the options and texts of `clawd answer` into one
// answer per question. An option is a label as the agent wrote it (the
// exact label wins over any other reading), N (option N of the only
// question), Q.N (option N of question Q), Q:LABEL, or a label in any
// case when only one option has it. A text answers the only question, or
// question Q when written Q:TEXT. Whether the answers fit the questions
// (one option where only one is taken) the agent's Answer checks in the
// runtime, which says why not.
func pickAnswers(qs []agents.Question, opts, texts []string) ([]agents.Answer, error) {
	answers := make([]agents.Answer, len(qs))
	pick := func(q, n int) {
		answers[q].Labels = append(answers[q].Labels, qs[q].Options[n].Label)
	}
	question := func(s string) (int, bool) {
		q, err := strconv.Atoi(s)
		return q - 1, err == nil && q >= 1 && q <= len(qs)
	}
	for _, opt := range opts {
		if q, n, err := findLabel(qs, opt, false); err != nil || q >= 0 {
			if err != nil {
				return nil, err
			}
			pick(q, n)
			continue
		}
		if n, err := strconv.Atoi(opt); err == nil && len(qs) == 1 {
			if n < 1 || n > len(qs[0].Options) {
				return nil, fmt.Errorf("option %d: the question has options 1-%d", n, len(qs[0].Options))
			}
			pick(0, n-1)
			continue
		}
		if m := optionNumber().FindStringSubmatch(opt); m != nil {
			q, ok := question(m[1])
			n, _ := strconv.Atoi(m[2])
			if !ok || n < 1 || n > len(qs[q].Options) {
				return nil, fmt.Errorf("option %s: no such option (see `clawd permissions`)", opt)
			}
			pick(q, n-1)
			continue
		}
		if m := questionPrefix().FindStringSubmatch(opt); m != nil {
			if q, ok := question(m[1]); ok {
				if n := labelIndex(qs[q], m[2], true); n >= 0 {
					pick(q, n)
					continue
				}
			}
		}
		q, n, err := findLabel(qs, opt, true)
		if err != nil {
			return nil, err
		}
		if q < 0 {
			return nil, fmt.Errorf("no option %q: give a label or a number as `clawd permissions` lists them, or your own answer with --text", text.Line(opt, 60))
		}
		pick(q, n)
	}
	for _, t := range texts {
		q := 0
		if len(qs) > 1 {
			m := questionPrefix().FindStringSubmatch(t)
			ok := false
			if m != nil {
				q, ok = question(m[1])
			}
			if !ok {
				return nil, fmt.Errorf("%d questions: say which one your text answers, as --text 2:TEXT", len(qs))
			}
			t = m[2]
		}
		if strings.TrimSpace(t) == "" {
			return nil, errors.New("--text is empty: type your answer after it")
		}
		if answers[q].Text != "" {
			return nil, fmt.Errorf("question %d: one --text each", q+1)
		}
		answers[q].Text = t
	}
	return answers, nil
}

// findLabel finds the one option labelled label across qs (any case, with
// fold); q is -1 when none is, an error when several questions have one.
func findLabel(qs []agents.Question, label string, fold bool) (q, n int, err error) {
	q, n = -1, -1
	var in []string
	for i := range qs {
		if k := labelIndex(qs[i], label, fold); k >= 0 {
			if q < 0 {
				q, n = i, k
			}
			in = append(in, strconv.Itoa(i+1))
		}
	}
	if len(in) > 1 {
		return -1, -1, fmt.Errorf("%q is an option of questions %s: say which, as Q.N or Q:LABEL (%s:%s)",
			text.Line(label, 60), strings.Join(in, " and "), in[0], text.Line(label, 60))
	}
	return q, n, nil
}

// labelIndex is the index of q's option labelled label (any case, with
// fold; then only when one option is), else -1.
func labelIndex(q agents.Question, label string, fold bool) int {
	found := -1
	for i, o := range q.Options {
		switch {
		case o.Label == label:
			return i
		case fold && strings.EqualFold(o.Label, label):
			if found >= 0 {
				return -1
			}
			found = i
		}
	}
	if !fold {
		return -1
	}
	return found
}

// Limits of the questions and plans `clawd permissions` prints below its
// table.
const (
	planLines = 12
	askWidth  = 100
)

// renderAsks prints, below the table of `clawd permissions`, each
// question with its options numbered as `clawd answer` takes them, and
// the start of each plan with how to approve it or keep planning.
func renderAsks(w io.Writer, pr i18n.Printer, list []client.PermissionView) {
	for _, p := range list {
		id := text.Line(p.ID, 0)
		switch {
		case p.Kind == client.KindQuestion && len(p.Questions) > 0:
			fmt.Fprintln(w)
			how := pr.T("permissions.answer_here", id)
			if !p.Answerable {
				how = pr.T("permissions.answer_there", id)
			}
			fmt.Fprintf(w, "%s  %s\n", id, how)
			several := len(p.Questions) > 1
			for i, q := range p.Questions {
				title := present.QuestionTitle(q, askWidth)
				if q.MultiSelect {
					title += pr.T("permissions.several")
				}
				fmt.Fprintf(w, "  %d. %s\n", i+1, title)
				for j, o := range q.Options {
					num := strconv.Itoa(j + 1)
					if several {
						num = strconv.Itoa(i+1) + "." + num
					}
					fmt.Fprintf(w, "     %s) %s\n", num, present.OptionLine(o, askWidth))
				}
				if q.Custom && p.Answerable {
					hint := "--text TEXT"
					if several {
						hint = "--text " + strconv.Itoa(i+1) + ":TEXT"
					}
					fmt.Fprintf(w, "     %s\n", pr.T("permissions.own_answer", hint))
				}
			}
		case p.Kind == client.KindPlan && p.Plan != "":
			fmt.Fprintln(w)
			fmt.Fprintf(w, "%s  %s\n", id, pr.T("permissions.plan_how", id))
			lines, more := present.PlanLines(p.Plan, planLines, askWidth)
			for _, l := range lines {
				if l == "" {
					fmt.Fprintln(w)
					continue
				}
				fmt.Fprintf(w, "  %s\n", l)
			}
			if more > 0 || p.PlanTruncated {
				fmt.Fprintf(w, "  %s\n", pr.T("permissions.plan_more", id))
			}
		}
	}
}
