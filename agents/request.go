package agents

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/tidwall/gjson"
)

// RequestKind says how a person can answer a request.
type RequestKind string

// Request kinds.
const (
	// RequestPermission is a "may I?": allow, deny, an offered "always"
	// rule, or the agent's own terminal.
	RequestPermission RequestKind = "permission"
	// RequestQuestion is a question of the agent's (Claude's
	// AskUserQuestion, an MCP elicitation): answered with the agent's
	// Answer when the request has Questions and the agent an Answer, else
	// in the agent's terminal.
	RequestQuestion RequestKind = "question"
	// RequestPlan is a plan to review (Plan): approve (the agent's
	// Approve), send back with a message to keep planning (a deny), or the
	// terminal.
	RequestPlan RequestKind = "plan"
)

// Request is a blocking event as a person sees it: how it can be
// answered, what it asks in one line, and what an "always" decision gives
// back to the agent. The hook builds it from the agent's payload
// (Agent.Describe) and sends it with the event; the runtime shows it
// through its one text policy, knowing nothing of the agent.
type Request struct {
	Kind RequestKind `json:"request_kind,omitempty"`
	// ToolInput is the tool's input as the agent sent it, or a preview
	// (a JSON string of its start, InputTruncated) when it is larger than
	// MaxRequestInput or the payload was cut.
	ToolInput      json.RawMessage `json:"tool_input,omitempty"`
	InputTruncated bool            `json:"input_truncated,omitempty"`
	// Suggestions are the agent's offered permission updates, passed back
	// verbatim in an "always" decision; SuggestionLabels name them.
	Suggestions      []json.RawMessage `json:"suggestions,omitempty"`
	SuggestionLabels []string          `json:"suggestion_labels,omitempty"`
	// Summary is the request in one line: the command, the file, the URL.
	// Empty, the runtime shows the first string of the tool input.
	Summary string `json:"summary,omitempty"`
	// Description is what the agent says the call is for, in its own
	// words (Bash's description); empty when it says nothing.
	Description string `json:"description,omitempty"`
	// URL is the address a fetch reads (WebFetch); Prompt is what the
	// agent asks of the page.
	URL    string `json:"url,omitempty"`
	Prompt string `json:"prompt,omitempty"`
	// MCPServer and MCPTool name an MCP tool by its server and its own
	// name; both empty for the agent's own tools.
	MCPServer string `json:"mcp_server,omitempty"`
	MCPTool   string `json:"mcp_tool,omitempty"`
	// Change is what the call would change in a file (an Edit, a Write,
	// a patch), which the runtime shows as a diff; nil for other calls.
	Change *FileChange `json:"change,omitempty"`
	// Options are a question's choices, as one list of labels (each
	// prefixed with its question's header when it asks several).
	Options []string `json:"options,omitempty"`
	// Questions are what a question tool asks, in its order, when clawd
	// reads them whole (none when the input was cut or is too large to
	// answer from here). With the agent's Answer set, a person answers
	// them from clawd; without, they are shown and answered in the
	// agent's terminal.
	Questions []Question `json:"questions,omitempty"`
	// Plan is a RequestPlan's plan, as the agent wrote it (Markdown).
	Plan string `json:"plan,omitempty"`
	// Message is a question's own text (an MCP elicitation's).
	Message string `json:"message,omitempty"`
}

// Question is one question an agent's question tool asks.
type Question struct {
	// Header is its short label ("Database"); may be empty.
	Header string `json:"header,omitempty"`
	// Text is the question itself.
	Text string `json:"question"`
	// Options are its choices, in the agent's order.
	Options []QuestionOption `json:"options,omitempty"`
	// MultiSelect: several options may be picked.
	MultiSelect bool `json:"multi_select,omitempty"`
	// Custom: the person may type an answer of their own (Claude's
	// "Other"): instead of an option, or besides those picked of a
	// MultiSelect question.
	Custom bool `json:"custom,omitempty"`
}

// QuestionOption is one choice of a Question.
type QuestionOption struct {
	Label       string `json:"label"`
	Description string `json:"description,omitempty"`
}

// Answer is a person's answer to one Question: the labels of the options
// picked (at most one unless MultiSelect) and their own text (Custom
// only). A zero Answer leaves the question unanswered.
type Answer struct {
	Labels []string `json:"labels,omitempty"`
	Text   string   `json:"text,omitempty"`
}

// ErrBadAnswer reports answers that do not fit a request's questions.
var ErrBadAnswer = errors.New("the answers do not fit the questions")

// ErrCannotAnswer reports a request clawd cannot answer from here: the
// agent takes no answer from its hooks, the request is not a question it
// reads, or its input was cut. The person answers in the terminal.
var ErrCannotAnswer = errors.New("this request cannot be answered from clawd: answer it in the agent's terminal")

// Limits of questions and answers.
const (
	// maxQuestions bounds the questions of a request (Claude asks at
	// most 4).
	maxQuestions = 8
	// maxLabel and maxOptionText bound an option's label and
	// description; maxQuestionText a question's text. A question tool
	// whose input passes one is not answered from clawd (an answer must
	// name the labels exactly).
	maxLabel        = 1 << 10
	maxOptionText   = 4 << 10
	maxQuestionText = MaxRequestMessage
	// MaxAnswerText caps the text a person types as their own answer.
	MaxAnswerText = 8 << 10
)

// questionFields names the fields of a question tool's input: its
// questions are objects with question, header and options (label,
// description), as Claude's AskUserQuestion has them.
type questionFields struct {
	// multi is the name of the multi-select flag.
	multi string
	// custom is the name of the flag that allows an answer of one's own,
	// "" when the tool always allows one; customDefault its value when
	// absent.
	custom        string
	customDefault bool
}

// readQuestions reads the questions of a question tool's input; nil when
// it has none, or one that clawd could not answer exactly (too many, too
// long, a label missing or given twice).
func readQuestions(qs gjson.Result, f questionFields) []Question {
	if !qs.IsArray() {
		return nil
	}
	var out []Question
	ok := true
	qs.ForEach(func(_, q gjson.Result) bool {
		text := q.Get("question")
		if text.Type != gjson.String || text.String() == "" || len(text.String()) > maxQuestionText || len(out) == maxQuestions {
			ok = false
			return false
		}
		nq := Question{Text: text.String(), Header: clipUTF8(q.Get("header").String(), maxLabel),
			MultiSelect: q.Get(f.multi).Bool(), Custom: true}
		if f.custom != "" {
			nq.Custom = f.customDefault
			if c := q.Get(f.custom); c.IsBool() {
				nq.Custom = c.Bool()
			}
		}
		seen := map[string]bool{}
		q.Get("options").ForEach(func(_, o gjson.Result) bool {
			label, desc := o.Get("label"), o.Get("description")
			if label.Type != gjson.String || label.String() == "" || len(label.String()) > maxLabel ||
				len(desc.String()) > maxOptionText || seen[label.String()] || len(nq.Options) == maxOptions {
				ok = false
				return false
			}
			seen[label.String()] = true
			nq.Options = append(nq.Options, QuestionOption{Label: label.String(), Description: desc.String()})
			return true
		})
		out = append(out, nq)
		return ok
	})
	if !ok {
		return nil
	}
	return out
}

// fitAnswers reports whether answers fit qs: one per question, in
// order; labels among the question's options, none twice; one label or
// one text of one's own for a question that is not MultiSelect; text only
// where Custom; at least one question answered.
func fitAnswers(qs []Question, answers []Answer) error {
	if len(qs) == 0 {
		return fmt.Errorf("%w: the request has no questions", ErrCannotAnswer)
	}
	if len(answers) != len(qs) {
		return fmt.Errorf("%w: %d answers for %d questions", ErrBadAnswer, len(answers), len(qs))
	}
	answered := false
	for i, a := range answers {
		q := qs[i]
		text := strings.TrimSpace(a.Text) != ""
		if text && !q.Custom {
			return fmt.Errorf("%w: question %d takes no answer of one's own", ErrBadAnswer, i+1)
		}
		if len(a.Text) > MaxAnswerText {
			return fmt.Errorf("%w: question %d: the answer is longer than %d bytes", ErrBadAnswer, i+1, MaxAnswerText)
		}
		n := len(a.Labels)
		if text {
			n++
		}
		if n > 1 && !q.MultiSelect {
			return fmt.Errorf("%w: question %d takes one answer, got %d", ErrBadAnswer, i+1, n)
		}
		seen := map[string]bool{}
		for _, l := range a.Labels {
			if seen[l] || !slices.ContainsFunc(q.Options, func(o QuestionOption) bool { return o.Label == l }) {
				return fmt.Errorf("%w: question %d has no option %q (or it is picked twice)", ErrBadAnswer, i+1, l)
			}
			seen[l] = true
		}
		answered = answered || n > 0
	}
	if !answered {
		return fmt.Errorf("%w: no question is answered", ErrBadAnswer)
	}
	return nil
}

// Limits of a Request.
const (
	// MaxRequestInput caps the tool input sent with a request. Past it (a
	// Write of a large file) the runtime gets a preview: a large input is
	// never a reason to deny.
	MaxRequestInput = 256 << 10
	// MaxRequestMessage caps a question's text.
	MaxRequestMessage = 8 << 10
	// maxOptions bounds a question's choices.
	maxOptions = 32
)

// hookRequest describes the request of a payload in Claude Code's shape,
// which Codex and Qwen Code share: tool_input, permission_suggestions
// and, for a question, message. cut says the payload was cut at the hook's
// stdin cap.
func hookRequest(ev Event, payload []byte, cut bool) Request {
	r := Request{Kind: RequestPermission}
	if ev.Kind == KindQuestion {
		r.Kind = RequestQuestion
	}
	if in := gjson.GetBytes(payload, "tool_input"); in.Exists() {
		r.ToolInput, r.InputTruncated = inputPreview(in.Raw, cut)
	}
	gjson.GetBytes(payload, "permission_suggestions").ForEach(func(_, s gjson.Result) bool {
		if gjson.Valid(s.Raw) { // a cut payload may end inside one
			r.Suggestions = append(r.Suggestions, json.RawMessage(s.Raw))
		}
		return true
	})
	if ev.Kind == KindQuestion {
		if m := gjson.GetBytes(payload, "message"); m.Type == gjson.String {
			r.Message = clipUTF8(m.String(), MaxRequestMessage)
		}
	}
	return r
}

// inputPreview returns raw as it is when it is complete and within
// MaxRequestInput, else a JSON string of its first MaxRequestInput bytes
// and true.
func inputPreview(raw string, cut bool) (json.RawMessage, bool) {
	if !cut && len(raw) <= MaxRequestInput && gjson.Valid(raw) {
		return json.RawMessage(raw), false
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(clipUTF8(raw, MaxRequestInput)); err != nil {
		return nil, true
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), true
}

// clipUTF8 cuts s to at most n bytes, at a rune boundary.
func clipUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// inputString returns the string field name of a tool input, "" when it
// has none (or is a truncated preview).
func inputString(in json.RawMessage, name string) string {
	if r := gjson.GetBytes(in, name); r.Type == gjson.String {
		return r.String()
	}
	return ""
}
