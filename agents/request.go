package agents

import (
	"bytes"
	"encoding/json"
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
	// RequestQuestion is answered in the agent's terminal only (Claude's
	// AskUserQuestion, an MCP elicitation).
	RequestQuestion RequestKind = "question"
	// RequestPlan is a plan to review: approve, or the terminal.
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
	// Options are a question's choices.
	Options []string `json:"options,omitempty"`
	// Message is a question's own text (an MCP elicitation's).
	Message string `json:"message,omitempty"`
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
