package sessions

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/internal/text"
	"github.com/clawdhq/clawd/runtime/client"
)

// keepPlanningMessage is what the model is told when the person sends a
// plan back without a message of their own: a deny needs words, or the
// model reads an empty error.
const keepPlanningMessage = "The user reviewed the plan and wants you to keep planning: do not start yet."

// questionView is what the view of a request of kind shows of its
// questions or its plan, as agent's hook described them in asked.
func questionView(agent string, kind client.RequestKind, asked *agents.Request) client.QuestionView {
	var q client.QuestionView
	switch kind {
	case client.KindQuestion:
		q.Questions = asked.Questions
		q.Answerable = answerer(agent, asked) != nil
	case client.KindPlan:
		q.Plan = text.ClipBytes(asked.Plan, client.MaxViewPlan)
		q.PlanTruncated = len(q.Plan) < len(asked.Plan)
	}
	return q
}

// answerer is agent's Answer when clawd can answer the question asked
// with it: the agent takes answers from its hook, and the hook read the
// questions whole. nil otherwise: the person answers in the terminal.
func answerer(agent string, asked *agents.Request) func(agents.Request, []agents.Answer) (agents.Decision, error) {
	a := agents.Lookup(agent)
	if a == nil || !a.Supports.AnswersQuestions || a.Answer == nil || len(asked.Questions) == 0 || asked.InputTruncated {
		return nil
	}
	return a.Answer
}

// decideQuestion turns a client's answers to question p into the hook's
// answer through the agent's Answer, or says why they do not fit.
func decideQuestion(p *Request, body *client.DecisionBody) (client.Answer, string) {
	switch {
	case p.view.Kind != client.KindQuestion:
		return client.Answer{}, fmt.Sprintf("behavior %q answers a question; this request is a %s", client.AnswerQuestions, p.view.Kind)
	case body.Suggestion != 0 || body.Message != "" || body.Interrupt:
		return client.Answer{}, fmt.Sprintf("behavior %q takes answers only (no suggestion, message or interrupt)", client.AnswerQuestions)
	}
	answer := answerer(p.view.Agent, &p.asked)
	if answer == nil {
		return client.Answer{}, cannotAnswer(p)
	}
	d, err := answer(p.asked, body.Answers)
	switch {
	case errors.Is(err, agents.ErrCannotAnswer):
		return client.Answer{}, cannotAnswer(p)
	case err != nil:
		return client.Answer{}, err.Error()
	}
	ans := client.Answer{Decision: &d}
	if problem := fits(ans); problem != "" {
		return client.Answer{}, problem
	}
	return ans, ""
}

// cannotAnswer says why question p is answered in the agent's terminal.
func cannotAnswer(p *Request) string {
	why := "clawd did not read its questions whole"
	if a := agents.Lookup(p.view.Agent); a != nil && !a.Supports.AnswersQuestions {
		why = a.Supports.QuestionsInTerminal
		if why == "" {
			why = a.Name + " takes no answers from clawd"
		}
	}
	return fmt.Sprintf("this question cannot be answered from clawd (%s): answer it in the agent's terminal (behavior %q)",
		text.Line(why, 0), client.Terminal)
}

// decidePlan is the hook's answer to plan p for d, a plain allow or deny
// already checked: an approval as the agent takes one (its Approve; a
// bare allow leaves Claude Code's plan dialog open), or a deny that sends
// the plan back with the person's message ("keep planning").
func decidePlan(p *Request, d *agents.Decision) (client.Answer, string) {
	if d.Allow {
		if a := agents.Lookup(p.view.Agent); a != nil && a.Approve != nil {
			approved := a.Approve(p.asked)
			approved.UpdatedPermissions = d.UpdatedPermissions
			d = &approved
		}
	} else if strings.TrimSpace(d.Message) == "" {
		d.Message = keepPlanningMessage
	}
	ans := client.Answer{Decision: d}
	if problem := fits(ans); problem != "" {
		return client.Answer{}, problem
	}
	return ans, ""
}

// fits says why ans cannot go to the hook, "" when it can: its line must
// stay within client.MaxAnswerLine, what the hook reads.
func fits(ans client.Answer) string {
	b, err := json.Marshal(ans)
	switch {
	case err != nil:
		return "the answer cannot be encoded: " + err.Error()
	case len(b) > client.MaxAnswerLine:
		return fmt.Sprintf("the answer is %d bytes, more than the %d the agent's hook takes: answer with shorter text, or in the agent's terminal",
			len(b), client.MaxAnswerLine)
	}
	return ""
}

// answeredQuestions is what the event stream records of answers: the
// labels picked and whether the person typed something, never what.
func answeredQuestions(answers []agents.Answer) []client.AnsweredQuestion {
	if len(answers) == 0 {
		return nil
	}
	out := make([]client.AnsweredQuestion, len(answers))
	for i, a := range answers {
		out[i] = client.AnsweredQuestion{Labels: a.Labels, Typed: strings.TrimSpace(a.Text) != ""}
	}
	return out
}
