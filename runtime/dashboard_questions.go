package runtime

import (
	"github.com/clawdhq/clawd/internal/present"
	"github.com/clawdhq/clawd/internal/text"
	"github.com/clawdhq/clawd/runtime/client"
)

// dashAsks is what a request card shows of a question or a plan, each
// string one inert line (internal/text's policy; plan lines keep their
// indentation): the page sets them as text, never as markup.
type dashAsks struct {
	// Questions are the questions a card answers (the view's Answerable
	// ones), or shows for the terminal.
	Questions []dashQuestion `json:"asks,omitempty"`
	// OneAtATime: a click on an option answers (present.OneAtATime).
	OneAtATime bool `json:"one_at_a_time,omitempty"`
	// PlanLines are the plan's lines as the view carries them.
	PlanLines []string `json:"plan_lines,omitempty"`
}

type dashQuestion struct {
	Title   string       `json:"title"`
	Multi   bool         `json:"multi,omitempty"`
	Custom  bool         `json:"custom,omitempty"`
	Options []dashOption `json:"options"`
}

type dashOption struct {
	// Label is the option's exact label, which an answer names; Text
	// and Description are what the card shows.
	Label       string `json:"label"`
	Text        string `json:"text"`
	Description string `json:"description,omitempty"`
}

// dashAsksOf dresses p's questions and plan for its card, and takes them
// out of the view the card also carries, which would only repeat them.
func dashAsksOf(p *client.PermissionView) dashAsks {
	var d dashAsks
	for _, q := range p.Questions {
		dq := dashQuestion{Title: present.QuestionTitle(q, 0), Multi: q.MultiSelect, Custom: q.Custom}
		for _, o := range q.Options {
			dq.Options = append(dq.Options, dashOption{Label: o.Label, Text: text.Line(o.Label, 0), Description: text.Line(o.Description, 0)})
		}
		d.Questions = append(d.Questions, dq)
	}
	d.OneAtATime = present.OneAtATime(p.Questions)
	if p.Plan != "" {
		d.PlanLines, _ = present.PlanLines(p.Plan, 0, 0)
	}
	p.Questions, p.Plan = nil, ""
	return d
}
