// Package fakeanthropic is a scripted stand-in for the Anthropic Messages API,
// for tests that drive the real Claude Code CLI offline: point
// ANTHROPIC_BASE_URL at Server.URL and the model answers from a Script.
//
// It serves POST /v1/messages (SSE streaming and plain JSON),
// POST /v1/messages/count_tokens and GET /v1/models[/id], accepts any query
// (Claude Code adds ?beta=true), and records every request it sees.
//
// A request is matched to a Conversation by the latest prompt the person
// typed: the last user message that holds no tool_result block. The step is
// the number of assistant messages after that prompt, so a conversation's
// steps are the model's successive replies within one turn.
package fakeanthropic

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/clawdhq/clawd/internal/fakeapi"
)

// DefaultSideText answers requests that carry no tools (session titles,
// summaries, compaction, classifiers) when Script.SideText is empty.
const DefaultSideText = "Fake title"

// DefaultModel is the model id reported when a request names none.
const DefaultModel = "claude-sonnet-4-5"

// Script says what the fake model answers.
type Script struct {
	// Conversations are tried in order; the first that matches answers.
	Conversations []Conversation
	// SideText answers tool-less requests no side conversation matched.
	SideText string
	// Model is the id GET /v1/models reports.
	Model string
	// BeforeReply, when set, runs before each /v1/messages reply is sent,
	// with the request as it will be recorded. The client waits meanwhile,
	// which lets a test look at the world between two model turns.
	BeforeReply func(Request)
}

// Conversation is one scripted exchange.
type Conversation struct {
	// Match is a substring of the latest prompt (or of the system prompt)
	// that selects this conversation; "" matches every request.
	Match string
	// Side marks a conversation for tool-less requests. Normal
	// conversations answer only requests that offer tools.
	Side bool
	// Steps are the replies in order. Past the last step a text step is
	// repeated; anything else becomes the text "Done.".
	Steps []Step
}

// Step is one model reply: text, tool calls (after the text), or an error.
type Step struct {
	Text     string
	ToolUses []ToolUse
	// Error, when set, answers with an HTTP error instead.
	Error *APIError
	// Reply, when set, makes the reply from the request it answers
	// instead (a tool input that names a file only the request names);
	// the fields above are then ignored.
	Reply func(Request) Step
}

// ToolUse is one tool call the model makes.
type ToolUse struct {
	Name  string
	Input any // marshalled to JSON; nil means {}
}

// APIError is an HTTP error reply. Without RetryAfter it carries
// x-should-retry: false, so the client gives up at once.
type APIError struct {
	Status  int    // default 400
	Type    string // default invalid_request_error
	Message string
	// RetryAfter, when positive, is sent the way the real API answers a
	// rate-limited request: retry-after in whole seconds (rounded up),
	// x-should-retry: true, and the anthropic-ratelimit-requests-* headers
	// of a spent limit that resets then.
	RetryAfter time.Duration
}

// Text returns a step that answers text and ends the turn.
func Text(s string) Step { return Step{Text: s} }

// Tool returns a step that calls one tool.
func Tool(name string, input any) Step {
	return Step{ToolUses: []ToolUse{{Name: name, Input: input}}}
}

// Tools returns a step that calls several tools in one assistant message.
func Tools(uses ...ToolUse) Step { return Step{ToolUses: uses} }

// Question is one question of Claude Code's AskUserQuestion tool, in the
// tool's input schema.
type Question struct {
	Question    string   `json:"question"`
	Header      string   `json:"header"`
	Options     []Option `json:"options"`
	MultiSelect bool     `json:"multiSelect"`
}

// Option is one choice of a Question.
type Option struct {
	Label       string `json:"label"`
	Description string `json:"description"`
}

// AskUserQuestion returns a step that asks the person questions through
// Claude Code's AskUserQuestion tool.
func AskUserQuestion(questions ...Question) Step {
	return Tool("AskUserQuestion", map[string]any{"questions": questions})
}

// WritePlan returns a step that writes plan, with the Write tool, to the
// plan file Claude Code's plan mode names in the request it answers. It
// answers text saying so when the request names none.
func WritePlan(plan string) Step {
	return Step{Reply: func(r Request) Step {
		path := r.PlanFile()
		if path == "" {
			return Text("fake server: the request names no plan file")
		}
		return Tool("Write", map[string]any{"file_path": path, "content": plan})
	}}
}

// ExitPlanMode returns a step that asks to leave plan mode with the plan
// written to the plan file (Claude Code reads the plan from there).
func ExitPlanMode() Step { return Tool("ExitPlanMode", nil) }

// planFileRe finds the plan file in the reminder Claude Code's plan mode
// adds to a request: "... create your plan at PATH using the Write tool"
// before the file exists, "A plan file already exists at PATH" after.
var planFileRe = regexp.MustCompile(`(?:create your plan at|plan file already exists at) (\S+\.md)`)

// PlanFile returns the plan file that plan mode's reminder in the request
// names, the latest one; "" when there is none.
func (r Request) PlanFile() string {
	path := ""
	for _, m := range r.Messages {
		for _, b := range m.Blocks {
			if b.Type != "text" {
				continue
			}
			for _, sub := range planFileRe.FindAllStringSubmatch(b.Text, -1) {
				path = sub[1]
			}
		}
	}
	return path
}

// Fail returns a step that answers an HTTP error.
func Fail(status int, typ, message string) Step {
	return Step{Error: &APIError{Status: status, Type: typ, Message: message}}
}

// RateLimited returns a step that answers as the real API does when a
// rate limit is hit: HTTP 429, a rate_limit_error with message, and
// retry-after (see APIError.RetryAfter). The client's retries get the
// same answer: they resend the same step.
func RateLimited(message string, retryAfter time.Duration) Step {
	return Step{Error: &APIError{Status: http.StatusTooManyRequests, Type: "rate_limit_error",
		Message: message, RetryAfter: retryAfter}}
}

// Block is a content block of a reply.
type Block struct {
	Type  string          `json:"type"` // text or tool_use
	Text  string          `json:"text,omitempty"`
	ID    string          `json:"id,omitempty"`
	Name  string          `json:"name,omitempty"`
	Input json.RawMessage `json:"input,omitempty"`
}

// Message is the short form of one message of a request.
type Message struct {
	Role   string
	Blocks []MessageBlock
}

// MessageBlock is the short form of one content block of a request message.
type MessageBlock struct {
	Type      string // text, tool_use, tool_result, ...
	Text      string // text blocks; tool_result content flattened to text
	Name      string // tool_use
	ID        string // tool_use id, or tool_use_id of a tool_result
	IsError   bool   // tool_result
	InputJSON string // tool_use input
}

// Request is what the server recorded about one HTTP request.
type Request struct {
	Method string
	Path   string // without the query
	Query  string
	// The fields below are set for POST /v1/messages.
	Model    string
	Stream   bool
	Tools    []string
	System   string
	Messages []Message
	// Prompt is the latest prompt the person typed, Step the number of
	// assistant messages after it.
	Prompt string
	Step   int
	// Conversation is the Match of the conversation that answered,
	// "<side>" for the default side text, "<default>" for the fallback.
	Conversation string
	// Reply is what was sent: the blocks and stop reason, or the error.
	Blocks     []Block
	StopReason string
	Error      *APIError
	// Status is the HTTP status code of the reply.
	Status int
}

// Server is a running fake API. Start, URL, Close and Requests are its
// fakeapi.Base's; URL has no trailing slash.
type Server struct {
	script Script
	*fakeapi.Base[Request]
}

// New returns a server for script. Call Start before use.
func New(script Script) *Server {
	if script.SideText == "" {
		script.SideText = DefaultSideText
	}
	if script.Model == "" {
		script.Model = DefaultModel
	}
	s := &Server{script: script}
	s.Base = fakeapi.New[Request](http.HandlerFunc(s.serveHTTP))
	return s
}

// MessageRequests returns the recorded POST /v1/messages requests.
func (s *Server) MessageRequests() []Request {
	return s.Where(func(r Request) bool { return r.Method == http.MethodPost && r.Path == "/v1/messages" })
}

func (s *Server) nextMessageID() string { return fmt.Sprintf("msg_fake_%06d", s.Next()) }

func (s *Server) serveHTTP(w http.ResponseWriter, r *http.Request) {
	rec := Request{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery}
	path := strings.TrimSuffix(r.URL.Path, "/")
	switch {
	case r.Method == http.MethodPost && path == "/v1/messages":
		s.messages(w, r, rec)
	case r.Method == http.MethodPost && path == "/v1/messages/count_tokens":
		_, _ = io.Copy(io.Discard, r.Body)
		rec.Status = http.StatusOK
		s.Record(rec)
		writeJSON(w, http.StatusOK, map[string]any{"input_tokens": 1234})
	case (r.Method == http.MethodGet || r.Method == http.MethodHead) && path == "/v1/models":
		rec.Status = http.StatusOK
		s.Record(rec)
		m := s.model()
		writeJSON(w, http.StatusOK, map[string]any{
			"data": []any{m}, "has_more": false, "first_id": s.script.Model, "last_id": s.script.Model,
		})
	case (r.Method == http.MethodGet || r.Method == http.MethodHead) && strings.HasPrefix(path, "/v1/models/"):
		rec.Status = http.StatusOK
		s.Record(rec)
		writeJSON(w, http.StatusOK, s.model())
	default:
		rec.Status = http.StatusNotFound
		s.Record(rec)
		writeError(w, &APIError{Status: http.StatusNotFound, Type: "not_found_error",
			Message: "fake server: " + r.URL.Path})
	}
}

func (s *Server) model() map[string]any {
	return map[string]any{"type": "model", "id": s.script.Model, "display_name": "Fake Model",
		"created_at": "2025-01-01T00:00:00Z"}
}

// body is the part of a Messages request the server reads.
type body struct {
	Model  string          `json:"model"`
	Stream bool            `json:"stream"`
	System json.RawMessage `json:"system"`
	Tools  []struct {
		Name string `json:"name"`
	} `json:"tools"`
	Messages []json.RawMessage `json:"messages"`
}

func (s *Server) messages(w http.ResponseWriter, r *http.Request, rec Request) {
	raw, err := io.ReadAll(r.Body)
	var b body
	if err == nil {
		err = json.Unmarshal(raw, &b)
	}
	if err != nil {
		rec.Error = &APIError{Status: http.StatusBadRequest, Type: "invalid_request_error",
			Message: "fake server: bad JSON body"}
		rec.Status = rec.Error.Status
		s.Record(rec)
		writeError(w, rec.Error)
		return
	}
	rec.Model, rec.Stream = b.Model, b.Stream
	for _, t := range b.Tools {
		rec.Tools = append(rec.Tools, t.Name)
	}
	rec.System = textOf(b.System)
	for _, m := range b.Messages {
		rec.Messages = append(rec.Messages, parseMessage(m))
	}
	rec.Prompt, rec.Step = locate(rec.Messages)

	st, which := s.choose(rec)
	rec.Conversation = which
	if st.Reply != nil {
		st = st.Reply(rec)
	}
	if st.Error != nil {
		e := *st.Error
		if e.Status == 0 {
			e.Status = http.StatusBadRequest
		}
		if e.Type == "" {
			e.Type = "invalid_request_error"
		}
		if e.Message == "" {
			e.Message = "fake error"
		}
		rec.Error, rec.Status = &e, e.Status
	} else {
		rec.Blocks, rec.StopReason = render(st)
		rec.Status = http.StatusOK
	}
	if s.script.BeforeReply != nil {
		s.script.BeforeReply(rec)
	}
	s.Record(rec)

	if rec.Error != nil {
		retryHeaders(w.Header(), rec.Error.RetryAfter, time.Now())
		writeError(w, rec.Error)
		return
	}
	model := b.Model
	if model == "" {
		model = s.script.Model
	}
	id := s.nextMessageID()
	if b.Stream {
		stream(w, id, model, rec.Blocks, rec.StopReason)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"id": id, "type": "message", "role": "assistant", "model": model,
		"content": rec.Blocks, "stop_reason": rec.StopReason, "stop_sequence": nil,
		"usage": usage(12),
	})
}

// choose picks the step that answers rec, and names the conversation.
func (s *Server) choose(rec Request) (Step, string) {
	hasTools := len(rec.Tools) > 0
	for _, c := range s.script.Conversations {
		if c.Side == hasTools {
			continue
		}
		if c.Match != "" && !strings.Contains(rec.Prompt, c.Match) && !strings.Contains(rec.System, c.Match) {
			continue
		}
		if len(c.Steps) == 0 {
			break
		}
		if rec.Step < len(c.Steps) {
			return c.Steps[rec.Step], c.Match
		}
		if last := c.Steps[len(c.Steps)-1]; last.Text != "" && last.Error == nil {
			return last, c.Match
		}
		return Text("Done."), c.Match
	}
	if !hasTools {
		return Text(s.script.SideText), "<side>"
	}
	return Text("OK (fake server default reply)."), "<default>"
}

func render(st Step) ([]Block, string) {
	var blocks []Block
	if st.Text != "" {
		blocks = append(blocks, Block{Type: "text", Text: st.Text})
	}
	for _, u := range st.ToolUses {
		in := u.Input
		if in == nil {
			in = map[string]any{}
		}
		data, err := marshal(in)
		if err != nil {
			data = []byte("{}")
		}
		blocks = append(blocks, Block{Type: "tool_use", ID: toolUseID(), Name: u.Name, Input: data})
	}
	if len(st.ToolUses) > 0 {
		return blocks, "tool_use"
	}
	return blocks, "end_turn"
}

func toolUseID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return "toolu_" + hex.EncodeToString(b[:])
}

func usage(out int) map[string]int {
	return map[string]int{"input_tokens": 100, "output_tokens": out,
		"cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
}

// stream writes the reply as the Messages API's server-sent events.
func stream(w http.ResponseWriter, id, model string, blocks []Block, stop string) {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("request-id", "req_fake_"+id)
	h.Set("Connection", "close")
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	ev := func(name string, v any) {
		data, _ := marshal(v)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, data)
		if flusher != nil {
			flusher.Flush()
		}
	}
	ev("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": id, "type": "message", "role": "assistant", "model": model,
		"content": []any{}, "stop_reason": nil, "stop_sequence": nil, "usage": usage(1)}})
	for i, b := range blocks {
		switch b.Type {
		case "text":
			ev("content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "text", "text": ""}})
			ev("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
				"delta": map[string]any{"type": "text_delta", "text": b.Text}})
		case "tool_use":
			ev("content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "tool_use", "id": b.ID, "name": b.Name,
					"input": map[string]any{}}})
			ev("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
				"delta": map[string]any{"type": "input_json_delta", "partial_json": string(b.Input)}})
		}
		ev("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
	}
	ev("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil},
		"usage": map[string]int{"output_tokens": 12}})
	ev("message_stop", map[string]any{"type": "message_stop"})
}

// marshal is json.Marshal without HTML escaping, so tool inputs such as
// "echo hi > out.txt" travel as written.
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	data, _ := marshal(v)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("request-id", "req_fake")
	w.WriteHeader(status)
	_, _ = w.Write(data)
}

// retryHeaders sets what an error reply says about retrying: nothing to
// wait for without retryAfter (x-should-retry: false), else the real
// API's rate-limit headers for a limit of 50 requests spent until
// now+retryAfter.
func retryHeaders(h http.Header, retryAfter time.Duration, now time.Time) {
	if retryAfter <= 0 {
		h.Set("x-should-retry", "false")
		return
	}
	secs := int((retryAfter + time.Second - 1) / time.Second)
	h.Set("x-should-retry", "true")
	h.Set("retry-after", strconv.Itoa(secs))
	h.Set("anthropic-ratelimit-requests-limit", "50")
	h.Set("anthropic-ratelimit-requests-remaining", "0")
	h.Set("anthropic-ratelimit-requests-reset", now.Add(time.Duration(secs)*time.Second).UTC().Format(time.RFC3339))
}

func writeError(w http.ResponseWriter, e *APIError) {
	writeJSON(w, e.Status, map[string]any{"type": "error",
		"error": map[string]string{"type": e.Type, "message": e.Message}})
}

// notPromptPrefixes start text blocks that Claude Code adds to a tool-result
// message itself; they are not something the person typed.
var notPromptPrefixes = []string{"<system-reminder>", "[Request interrupted"}

// locate returns the latest prompt the person typed and the number of
// assistant messages after it.
func locate(msgs []Message) (string, int) {
	last, prompt := -1, ""
	for i, m := range msgs {
		if m.Role != "user" {
			continue
		}
		if t, ok := promptText(m); ok {
			last, prompt = i, t
		}
	}
	if last < 0 {
		return "", 0
	}
	step := 0
	for _, m := range msgs[last+1:] {
		if m.Role == "assistant" {
			step++
		}
	}
	return prompt, step
}

// promptText returns the typed text of a user message, if it holds any. A
// message with tool_result blocks is a tool-result turn, unless it also
// carries a typed prompt (Claude Code merges a prompt typed after an
// interrupted tool call into the tool_result message).
func promptText(m Message) (string, bool) {
	var texts []string
	results := false
	for _, b := range m.Blocks {
		switch b.Type {
		case "text":
			texts = append(texts, b.Text)
		case "tool_result":
			results = true
		}
	}
	if !results {
		return strings.Join(texts, "\n"), true
	}
	var typed []string
	for _, t := range texts {
		if !hasAnyPrefix(strings.TrimLeft(t, " \t\r\n"), notPromptPrefixes) {
			typed = append(typed, t)
		}
	}
	if len(typed) == 0 {
		return "", false
	}
	return strings.Join(typed, "\n"), true
}

func hasAnyPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// rawBlock is a content block of a request as sent.
type rawBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	Name      string          `json:"name"`
	ID        string          `json:"id"`
	ToolUseID string          `json:"tool_use_id"`
	IsError   bool            `json:"is_error"`
	Input     json.RawMessage `json:"input"`
	Content   json.RawMessage `json:"content"`
}

func parseMessage(raw json.RawMessage) Message {
	var m struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	}
	_ = json.Unmarshal(raw, &m)
	out := Message{Role: m.Role}
	var s string
	if json.Unmarshal(m.Content, &s) == nil {
		out.Blocks = []MessageBlock{{Type: "text", Text: s}}
		return out
	}
	var blocks []rawBlock
	_ = json.Unmarshal(m.Content, &blocks)
	for _, b := range blocks {
		mb := MessageBlock{Type: b.Type, Text: b.Text, Name: b.Name, ID: b.ID, IsError: b.IsError}
		switch b.Type {
		case "tool_use":
			mb.InputJSON = string(b.Input)
		case "tool_result":
			mb.ID = b.ToolUseID
			mb.Text = textOf(b.Content)
		}
		out.Blocks = append(out.Blocks, mb)
	}
	return out
}

// textOf flattens a string or an array of content blocks to its text.
func textOf(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []rawBlock
	if json.Unmarshal(raw, &blocks) != nil {
		return ""
	}
	var texts []string
	for _, b := range blocks {
		if b.Type == "text" {
			texts = append(texts, b.Text)
		}
	}
	return strings.Join(texts, "\n")
}
