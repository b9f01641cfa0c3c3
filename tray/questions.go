package tray

import (
	"fmt"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/internal/i18n"
	"github.com/clawdhq/clawd/internal/present"
	"github.com/clawdhq/clawd/runtime/client"
)

// Pick is one option of a question ticked in the menu: option Option of
// question Question of request Request.
type Pick struct {
	Request          string
	Question, Option int
}

// Picks are the options ticked in the menu and not sent yet. The
// controller keeps them between rebuilds (the menu's only state of its
// own) and drops those of requests that closed; Build shows them.
type Picks map[Pick]bool

// toggle ticks p, or unticks it when it was ticked. A question that
// takes one option keeps only the last one ticked.
func (ps Picks) toggle(p Pick, qs []agents.Question) {
	if ps[p] {
		delete(ps, p)
		return
	}
	if p.Question < len(qs) && !qs[p.Question].MultiSelect {
		for k := range ps {
			if k.Request == p.Request && k.Question == p.Question {
				delete(ps, k)
			}
		}
	}
	ps[p] = true
}

// answers are the picks of request p as one answer per question, labels
// in the options' order; ok is false when nothing is ticked.
func (ps Picks) answers(p client.PermissionView) (out []agents.Answer, ok bool) {
	out = make([]agents.Answer, len(p.Questions))
	for i, q := range p.Questions {
		for j, o := range q.Options {
			if ps[Pick{p.ID, i, j}] {
				out[i].Labels = append(out[i].Labels, o.Label)
				ok = true
			}
		}
	}
	return out, ok
}

// planMenuLines is how many of a plan's lines its submenu shows.
const planMenuLines = 6

// questionItems are the items of a question clawd can answer: with one
// question that takes one option, each option answers it when clicked;
// otherwise options are ticked (one per question that takes one) and
// "Send" answers them all. An answer of one's own ("Other") is typed in
// the agent's terminal, which the request's last item goes to.
func questionItems(pr i18n.Printer, p client.PermissionView, picks Picks, decide func(sub, label string, d client.DecisionBody) Item) []Item {
	key := "request:" + p.ID
	answer := func(a []agents.Answer) client.DecisionBody {
		return client.DecisionBody{Behavior: client.AnswerQuestions, Answers: a}
	}
	var items []Item
	if present.OneAtATime(p.Questions) {
		for j, o := range p.Questions[0].Options {
			it := decide(fmt.Sprintf("answer:0:%d", j), present.OptionLine(o, maxLabel),
				answer([]agents.Answer{{Labels: []string{o.Label}}}))
			items = append(items, it)
		}
		return items
	}
	several := len(p.Questions) > 1
	for i, q := range p.Questions {
		if several {
			title := present.QuestionTitle(q, maxLabel)
			if q.MultiSelect {
				title = clip(title + pr.T("tray.several"))
			}
			items = append(items, Item{Key: fmt.Sprintf("%s:question:%d", key, i), Label: title})
		}
		for j, o := range q.Options {
			pk := Pick{p.ID, i, j}
			items = append(items, Item{Key: fmt.Sprintf("%s:pick:%d:%d", key, i, j), Label: present.OptionLine(o, maxLabel),
				Enabled: true, Checkbox: true, Checked: picks[pk], Action: Action{Kind: ActPick, Request: p.ID, Pick: pk}})
		}
	}
	a, ok := picks.answers(p)
	send := decide("send", pr.T("tray.send"), answer(a))
	send.Enabled = ok
	return append(items, sep(key+":sep-send"), send)
}

// planItems are the items of a plan review: its first lines, then
// "Approve plan" and "Keep planning" (the agent is told to keep
// planning; what to change it is told in the terminal or the dashboard).
func planItems(pr i18n.Printer, p client.PermissionView, decide func(sub, label string, d client.DecisionBody) Item) []Item {
	key := "request:" + p.ID
	var items []Item
	lines, more := present.PlanLines(p.Plan, planMenuLines, maxLabel)
	for i, l := range lines {
		if l == "" {
			continue
		}
		items = append(items, Item{Key: fmt.Sprintf("%s:plan:%d", key, i), Label: l})
	}
	if more > 0 || p.PlanTruncated {
		items = append(items, Item{Key: key + ":plan-more", Label: pr.T("tray.plan_more")})
	}
	if len(items) > 0 {
		items = append(items, sep(key+":sep-plan"))
	}
	return append(items,
		decide("allow", pr.T("tray.approve_plan"), client.DecisionBody{Behavior: client.Allow}),
		decide("keep", pr.T("tray.keep_planning"), client.DecisionBody{Behavior: client.Deny}))
}
