package sessions

import (
	"bytes"
	"crypto/rand"
	"encoding/base32"
	"encoding/json"
	"fmt"
	"time"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/internal/text"
	"github.com/clawdhq/clawd/runtime/client"
	"github.com/clawdhq/clawd/statemachine"
)

// Limits of the one-line texts lists show of a request, in runes (and
// options).
const (
	maxSummary = 120
	// MaxLabel is the most a name or a label of a request shows: a
	// suggestion's, a subagent's, the folder and the MCP server and tool
	// of its card.
	MaxLabel   = 80
	maxOptions = 32
)

// Request is one request registered by a hook: a permission, a question
// or a plan.
type Request struct {
	seq uint64
	// view is the request as clients see it; guarded by Broker.mu.
	view client.PermissionView
	// added is view as the request was added, never changed after: the
	// hook's handler reads it without Broker.mu (Added), while a client
	// may be closing the request.
	added          client.PermissionView
	toolInput      json.RawMessage
	inputTruncated bool
	rawSuggestions []json.RawMessage
	message        string
	// asked is what the agent's hook said the request asks, for the
	// agent's Answer and Approve: its kind, input, questions and plan.
	asked agents.Request

	// hookEvent is the agent's name of the hook that asked
	// (PermissionRequest), which the answer's record names too.
	hookEvent  string
	key        statemachine.Key
	pendingKey string
	closedAt   time.Time
	// answer gets exactly one Answer, from whoever closes the request.
	answer chan client.Answer
}

// Added is the request as it was listed, which its hook's handler may
// read while a client closes it.
func (r *Request) Added() client.PermissionView { return r.added }

// Answer delivers the request's one answer, from whoever closes it.
func (r *Request) Answer() <-chan client.Answer { return r.answer }

// detail is the request in full. The caller holds Broker.mu.
func (r *Request) detail() client.PermissionDetail {
	v := r.view
	if v.Kind == client.KindPlan {
		v.Plan, v.PlanTruncated = r.asked.Plan, false
	}
	return client.PermissionDetail{
		PermissionView: v,
		ToolInput:      r.toolInput,
		InputTruncated: r.inputTruncated,
		RawSuggestions: r.rawSuggestions,
		Message:        r.message,
	}
}

// newRequest is the request a hook registers with body, whose event
// e the state machine applied with res.
func newRequest(e *agents.Event, body *client.RequestBody, res statemachine.Result, headless bool, now time.Time) *Request {
	kind := client.KindPermission
	switch {
	case e.Kind == agents.KindQuestion || body.Kind == agents.RequestQuestion:
		kind = client.KindQuestion
	case body.Kind == agents.RequestPlan:
		kind = client.KindPlan
	}
	req := &Request{
		view: client.PermissionView{
			ID:          newPermID(),
			Kind:        kind,
			Agent:       e.Agent,
			SessionID:   e.SessionID,
			Title:       res.Session.Title,
			Cwd:         res.Session.Cwd,
			Tool:        e.ToolName,
			Summary:     summarize(e, body),
			Suggestions: labels(body.SuggestionLabels, len(body.Suggestions)),
			Options:     options(body.Options),
			Headless:    headless,
			SubagentID:  oneLine(e.SubagentID, MaxLabel),
			CreatedAt:   now.UTC(),
			State:       client.RequestPending,
		},
		toolInput:      body.ToolInput,
		inputTruncated: body.InputTruncated,
		rawSuggestions: body.Suggestions,
		message:        body.Message,
		asked: agents.Request{Kind: requestKinds[kind], ToolInput: body.ToolInput, InputTruncated: body.InputTruncated,
			Questions: body.Questions, Plan: body.Plan},
		hookEvent:  e.HookEvent,
		key:        res.Session.Key(),
		pendingKey: res.PendingKey,
		answer:     make(chan client.Answer, 1),
	}
	req.view.QuestionView = questionView(e.Agent, kind, &req.asked)
	if req.view.SubagentID != "" {
		// A type alone is no subagent: Claude Code names one on the main
		// thread of an --agent session too.
		req.view.SubagentType = oneLine(e.SubagentType, MaxLabel)
	}
	return req
}

// requestKinds are the agents' names of the request kinds.
var requestKinds = map[client.RequestKind]agents.RequestKind{
	client.KindPermission: agents.RequestPermission,
	client.KindQuestion:   agents.RequestQuestion,
	client.KindPlan:       agents.RequestPlan,
}

var permIDEncoding = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

// newPermID returns 10 random base32 characters (50 bits): short enough
// to type in `clawd permissions allow ID`.
func newPermID() string {
	var b [7]byte
	rand.Read(b[:]) // crypto/rand never fails on supported platforms
	return permIDEncoding.EncodeToString(b[:])[:10]
}

// summarize is the one line a list shows for a request: the agent's own
// summary, else a question's text, the first string of the tool input or
// the hook's message.
func summarize(e *agents.Event, body *client.RequestBody) string {
	s := body.Summary
	if s == "" && e.Kind == agents.KindQuestion {
		s = body.Message // an MCP elicitation
	}
	if s == "" {
		s = firstString(body.ToolInput)
	}
	if s == "" {
		s = body.Message
	}
	return oneLine(s, maxSummary)
}

// options are a question's choices as a list shows them.
func options(in []string) []string {
	var out []string
	for _, o := range in {
		if l := oneLine(o, maxSummary); l != "" && len(out) < maxOptions {
			out = append(out, l)
		}
	}
	return out
}

// firstString returns the first top-level string value of a JSON object
// in document order, or the value itself when in is a string (a truncated
// preview may be one).
func firstString(in json.RawMessage) string {
	if len(in) == 0 {
		return ""
	}
	dec := json.NewDecoder(bytes.NewReader(in))
	tok, err := dec.Token()
	if err != nil {
		return ""
	}
	if s, ok := tok.(string); ok {
		return s
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return ""
	}
	for dec.More() {
		if _, err := dec.Token(); err != nil { // the key
			return ""
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return ""
		}
		var s string
		if json.Unmarshal(v, &s) == nil && s != "" {
			return s
		}
	}
	return ""
}

// oneLine is the one line a list shows of s: internal/text's policy, cut
// to n runes.
func oneLine(s string, n int) string { return text.Line(s, n) }

// labels names each of n offered suggestions for a button or a menu, in
// order: `clawd permissions always ID N` picks the Nth. A missing label
// reads "Apply suggestion N"; equal labels get a number, never dropped, so
// N keeps pointing at the raw suggestion.
func labels(given []string, n int) []string {
	if n == 0 {
		return nil
	}
	out := make([]string, 0, n)
	seen := map[string]int{}
	for i := range n {
		l := ""
		if i < len(given) {
			l = oneLine(given[i], MaxLabel)
		}
		if l == "" {
			l = fmt.Sprintf("Apply suggestion %d", i+1)
		}
		if seen[l]++; seen[l] > 1 {
			l = fmt.Sprintf("%s (%d)", l, seen[l])
		}
		out = append(out, l)
	}
	return out
}
