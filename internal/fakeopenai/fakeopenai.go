// Package fakeopenai is a scripted stand-in for OpenAI's model APIs, for
// tests that drive real agent CLIs offline:
//
//   - the Responses API, as Codex 0.169.0 reads it: a custom model provider
//     in Codex's config.toml with base_url = Server.URL()+"/v1" and
//     wire_api = "responses";
//   - the Chat Completions API (POST /v1/chat/completions, streaming and
//     not, and GET /v1/models), which Qwen Code, opencode and Copilot CLI
//     speak to an OpenAI-compatible provider whose base URL is
//     Server.URL()+"/v1".
//
// Both answer from the same Script. /v1/responses replies with server-sent
// events (response.created, response.output_item.added/done, the
// output_text events of a message, response.completed with usage);
// /v1/chat/completions with chat.completion.chunk events ending in
// "data: [DONE]", or one chat.completion object when the request does not
// stream. Every request is recorded. Anything else is answered 404, and a
// proxy request (CONNECT, or a request line with a full URL: what a client
// sends when HTTPS_PROXY points here) is answered 403 and recorded as
// outbound, so a test can prove the agent tried to reach nothing else.
//
// A request is matched to a Conversation by the latest prompt the person
// typed: the last user message that holds text of its own, beside the
// <tag>...</tag> blocks the agents wrap their context in (Codex sends
// <environment_context> and <turn_aborted> as user messages, Qwen Code
// puts <system-reminder> parts before the prompt, Copilot CLI a
// <current_datetime> line). The step is the number of model replies after
// that prompt: runs of model output (calls, assistant messages, web
// searches) in the request, each ended by the tool outputs the agent sent
// back. So a conversation's steps are the model's successive replies
// within one turn, and every new prompt starts it again. Chat messages are
// read into the same Items as Responses input: an assistant message
// becomes a message item and a function_call item per tool call, a tool
// message a function_call_output.
//
// Side requests are answered apart: a title request (a json_schema format
// with a "title" property, or a tool-less chat request whose system
// message asks for a title, as opencode's title generator does) gets
// Script.Title; a compaction request (request_kind "compaction" in
// x-codex-turn-metadata) and any other request without tools get
// Script.SideText.
package fakeopenai

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/clawdhq/clawd/internal/fakeapi"
)

// DefaultTitle answers the thread-title side request when Script.Title is
// empty.
const DefaultTitle = "Fake title"

// DefaultSideText answers compaction and other tool-less requests when
// Script.SideText is empty.
const DefaultSideText = "Summary: the user asked for a small change and it was done."

// DefaultModel is the model GET /v1/models lists when Script.Model is
// empty.
const DefaultModel = "fake-model"

// Script says what the fake model answers.
type Script struct {
	// Conversations are tried in order; the first that matches answers.
	Conversations []Conversation
	// Title is the thread title the title side request gets.
	Title string
	// SideText answers compaction and other tool-less requests.
	SideText string
	// Model is the model id GET /v1/models lists.
	Model string
	// BeforeReply, when set, runs before each /v1/responses or
	// /v1/chat/completions reply is sent, with the request as it will be
	// recorded. The agent waits meanwhile, which lets a test look at the
	// world between two model replies.
	BeforeReply func(Request)
}

// Conversation is one scripted exchange.
type Conversation struct {
	// Match is a substring of the latest prompt that selects this
	// conversation; "" matches every turn request.
	Match string
	// Steps are the replies in order. Past the last step the last step's
	// text is repeated if it only answered text; else the text is "Done.".
	Steps []Step
}

// Step is one model reply: hosted web searches, then text, then tool
// calls; or an HTTP error.
type Step struct {
	// Searches are queries of completed hosted web_search_call items
	// (Responses only: a chat reply leaves them out).
	Searches []string
	// Text is an assistant message. A step without calls ends the turn.
	Text  string
	Calls []Call
	// Error, when set, answers with an HTTP error instead.
	Error *APIError
}

// Call is one tool call the model makes.
type Call struct {
	// Name is the tool, e.g. exec_command, apply_patch, spawn_agent;
	// run_shell_command (Qwen Code) or bash (opencode, Copilot CLI).
	Name string
	// Namespace is the tool's namespace, e.g. multi_agent_v1.
	Namespace string
	// Args are the arguments of a function call, marshalled to the JSON
	// string the agent expects; nil means {}.
	Args any
	// Freeform makes the call a custom_tool_call whose input is Input
	// verbatim (apply_patch is such a tool in Codex 0.169.0). Responses
	// only.
	Freeform bool
	Input    string
}

// APIError is an HTTP error reply.
type APIError struct {
	Status  int    // default 400
	Type    string // default invalid_request_error
	Message string
}

// Text returns a step that answers text and ends the turn.
func Text(s string) Step { return Step{Text: s} }

// Tool returns a step that calls one function tool.
func Tool(name string, args any) Step { return Step{Calls: []Call{{Name: name, Args: args}}} }

// Calls returns a step that makes several calls in one reply.
func Calls(calls ...Call) Step { return Step{Calls: calls} }

// ExecArgs are the exec_command arguments of Exec: yield_time_ms is how
// long Codex waits for the command before it reports it as still running
// (and fires no PostToolUse); 10 s is plenty for the tests' commands even
// on a loaded machine.
func ExecArgs(cmd string) map[string]any {
	return map[string]any{"cmd": cmd, "yield_time_ms": 10000}
}

// Exec returns a step that runs a shell command through exec_command, the
// tool Codex reports to hooks as Bash.
func Exec(cmd string) Step { return Tool("exec_command", ExecArgs(cmd)) }

// ExecEscalated returns a step that runs cmd outside the sandbox: Codex
// asks for approval first (PermissionRequest, then its own prompt) when
// approval_policy is on-request; `codex exec` rejects it outright.
func ExecEscalated(cmd, justification string) Step {
	args := ExecArgs(cmd)
	args["sandbox_permissions"] = "require_escalated"
	args["justification"] = justification
	return Tool("exec_command", args)
}

// Patch returns a step that edits files with apply_patch.
func Patch(patch string) Step {
	return Step{Calls: []Call{{Name: "apply_patch", Freeform: true, Input: patch}}}
}

// AddFilePatch returns an apply_patch patch that creates path (relative to
// the session's cwd, or absolute) holding content.
func AddFilePatch(path, content string) string {
	var b strings.Builder
	b.WriteString("*** Begin Patch\n*** Add File: " + path + "\n")
	for _, line := range strings.SplitAfter(strings.TrimSuffix(content, "\n"), "\n") {
		b.WriteString("+" + strings.TrimSuffix(line, "\n") + "\n")
	}
	b.WriteString("*** End Patch\n")
	return b.String()
}

// Search returns a step that reports a completed hosted web search for
// query, then answers text (ending the turn).
func Search(query, text string) Step { return Step{Searches: []string{query}, Text: text} }

// Fail returns a step that answers an HTTP error.
func Fail(status int, typ, message string) Step {
	return Step{Error: &APIError{Status: status, Type: typ, Message: message}}
}

// Item is the short form of one input item of a request, or of one output
// item of a reply. Chat messages are read into Items too (see the package
// comment).
type Item struct {
	// Type is message, function_call, function_call_output,
	// custom_tool_call, custom_tool_call_output, web_search_call, ...
	Type string
	// Role is a message's role (user, developer, assistant).
	Role string
	// Text is a message's text, or a tool output flattened to text.
	Text      string
	Name      string
	Namespace string
	CallID    string
	// Arguments is a function call's JSON argument string, Input a custom
	// tool call's input, Query a web search's query.
	Arguments string
	Input     string
	Query     string
}

// Kinds of requests.
const (
	KindTurn       = "turn"       // a model request of a turn, with tools
	KindTitle      = "title"      // a title side request
	KindCompaction = "compaction" // history compaction
	KindSide       = "side"       // any other tool-less request
	KindModels     = "models"     // GET /v1/models
	KindOther      = "other"      // anything else: answered 404
	KindOutbound   = "outbound"   // a proxy request for another host
)

// TurnMetadata is the part of the x-codex-turn-metadata header the fake
// reads.
type TurnMetadata struct {
	SessionID    string `json:"session_id"`
	ThreadID     string `json:"thread_id"`
	TurnID       string `json:"turn_id"`
	RequestKind  string `json:"request_kind"`
	ThreadSource string `json:"thread_source"`
	AgentName    string `json:"agent_name"`
}

// Request is what the server recorded about one HTTP request.
type Request struct {
	Method string
	// Path is the path without the query; for an outbound proxy request
	// it is the target (host:port or the full URL).
	Path string
	Kind string
	// Header holds the request headers except Authorization;
	// Authorization is the bearer token sent, if any.
	Header        http.Header
	Authorization string
	// The fields below are set for POST /v1/responses and
	// /v1/chat/completions; Originator, Metadata and Subagent come from
	// Codex's headers.
	Originator string // codex_exec, codex-tui, ...
	Metadata   TurnMetadata
	Subagent   bool // a sub-agent thread's request
	Model      string
	Stream     bool
	Tools      []string // namespaced tools as namespace.name
	// Input is the request's input items, or its chat messages as Items.
	Input []Item
	// Prompt is the latest prompt the person typed, Step the number of
	// model replies after it.
	Prompt string
	Step   int
	// Conversation is the Match of the conversation that answered,
	// "<title>", "<side>" or "<default>" for the fallbacks.
	Conversation string
	// Output is what was sent: the reply's items, or the error.
	Output []Item
	Error  *APIError
	// Status is the HTTP status code of the reply.
	Status int
}

// Server is a running fake API. Start, URL, Close and Requests are its
// fakeapi.Base's; URL has no trailing slash (an agent's base URL is URL()+"/v1").
type Server struct {
	script Script
	*fakeapi.Base[Request]
}

// New returns a server for script. Call Start before use.
func New(script Script) *Server {
	if script.Model == "" {
		script.Model = DefaultModel
	}
	if script.Title == "" {
		script.Title = DefaultTitle
	}
	if script.SideText == "" {
		script.SideText = DefaultSideText
	}
	s := &Server{script: script}
	s.Base = fakeapi.New[Request](http.HandlerFunc(s.serveHTTP))
	return s
}

// OfKind returns the recorded requests of one kind.
func (s *Server) OfKind(kind string) []Request {
	return s.Where(func(r Request) bool { return r.Kind == kind })
}

// IssuedCalls returns the tool calls the model made in the conversation
// matched by marker, in order.
func (s *Server) IssuedCalls(marker string) []Item {
	var out []Item
	for _, r := range s.Requests() {
		if r.Kind != KindTurn || r.Conversation != marker {
			continue
		}
		for _, it := range r.Output {
			if it.CallID != "" {
				out = append(out, it)
			}
		}
	}
	return out
}

// CallOutput returns the output the agent sent back for a call, from the
// latest request that carries one.
func (s *Server) CallOutput(callID string) (Item, bool) {
	reqs := s.Requests()
	for i := len(reqs) - 1; i >= 0; i-- {
		for _, it := range reqs[i].Input {
			if it.CallID == callID && strings.HasSuffix(it.Type, "_output") {
				return it, true
			}
		}
	}
	return Item{}, false
}

func (s *Server) serveHTTP(w http.ResponseWriter, r *http.Request) {
	h := r.Header.Clone()
	h.Del("Authorization")
	rec := Request{Method: r.Method, Path: r.URL.Path, Header: h,
		Authorization: strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")}
	switch {
	case r.Method == http.MethodConnect || r.URL.Host != "":
		// A client that uses this server as its proxy wants another host.
		rec.Kind, rec.Path = KindOutbound, r.RequestURI
		rec.Status = http.StatusForbidden
		s.Record(rec)
		http.Error(w, "fake openai: no network", http.StatusForbidden)
	case r.Method == http.MethodPost && strings.TrimSuffix(r.URL.Path, "/") == "/v1/responses":
		s.responses(w, r, rec)
	case r.Method == http.MethodPost && strings.TrimSuffix(r.URL.Path, "/") == "/v1/chat/completions":
		s.chat(w, r, rec)
	case (r.Method == http.MethodGet || r.Method == http.MethodHead) && strings.TrimSuffix(r.URL.Path, "/") == "/v1/models":
		rec.Kind, rec.Status = KindModels, http.StatusOK
		s.Record(rec)
		data, _ := marshal(map[string]any{"object": "list", "data": []any{map[string]any{
			"id": s.script.Model, "object": "model", "created": 1735689600, "owned_by": "fake"}}})
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(data)
	default:
		_, _ = io.Copy(io.Discard, r.Body)
		rec.Kind, rec.Status = KindOther, http.StatusNotFound
		s.Record(rec)
		writeError(w, &APIError{Status: http.StatusNotFound, Type: "not_found",
			Message: "fake openai: " + r.Method + " " + r.URL.Path})
	}
}

// body is the part of a Responses request the server reads.
type body struct {
	Model  string            `json:"model"`
	Stream bool              `json:"stream"`
	Input  []json.RawMessage `json:"input"`
	Tools  []struct {
		Type  string `json:"type"`
		Name  string `json:"name"`
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	} `json:"tools"`
	Text struct {
		Format struct {
			Type   string `json:"type"`
			Schema struct {
				Properties map[string]json.RawMessage `json:"properties"`
			} `json:"schema"`
		} `json:"format"`
	} `json:"text"`
}

func (s *Server) responses(w http.ResponseWriter, r *http.Request, rec Request) {
	raw, err := io.ReadAll(r.Body)
	var b body
	if err == nil {
		err = json.Unmarshal(raw, &b)
	}
	if err != nil {
		rec.Kind = KindTurn
		rec.Error = &APIError{Status: http.StatusBadRequest, Type: "invalid_request_error",
			Message: "fake openai: bad JSON body"}
		rec.Status = rec.Error.Status
		s.Record(rec)
		writeError(w, rec.Error)
		return
	}
	rec.Originator = r.Header.Get("originator")
	_ = json.Unmarshal([]byte(r.Header.Get("x-codex-turn-metadata")), &rec.Metadata)
	rec.Subagent = r.Header.Get("x-openai-subagent") != "" || rec.Metadata.ThreadSource == "subagent"
	rec.Model, rec.Stream = b.Model, b.Stream
	for _, t := range b.Tools {
		name := t.Name
		if name == "" {
			name = t.Type
		}
		rec.Tools = append(rec.Tools, name)
		for _, sub := range t.Tools {
			rec.Tools = append(rec.Tools, name+"."+sub.Name)
		}
	}
	for _, in := range b.Input {
		rec.Input = append(rec.Input, parseItem(in))
	}
	rec.Prompt, rec.Step = locate(rec.Input)

	var st Step
	switch {
	case b.Text.Format.Type == "json_schema":
		st = s.schemaAnswer(&rec, b.Text.Format.Schema.Properties)
	case rec.Metadata.RequestKind == "compaction":
		rec.Kind, rec.Conversation = KindCompaction, "<side>"
		st = Text(s.script.SideText)
	case len(rec.Tools) == 0:
		rec.Kind, rec.Conversation = KindSide, "<side>"
		st = Text(s.script.SideText)
	default:
		rec.Kind = KindTurn
		st, rec.Conversation = s.choose(rec)
	}
	n, ok := s.reply(w, &rec, st)
	if ok {
		stream(w, n, b.Model, rec.Output)
	}
}

// schemaAnswer is the reply to a side request for JSON of a schema with
// these properties: {"title": Script.Title} when there is a title (a
// title request), else "fake" for every property.
func (s *Server) schemaAnswer(rec *Request, props map[string]json.RawMessage) Step {
	rec.Kind, rec.Conversation = KindTitle, "<title>"
	answer := map[string]string{}
	for k := range props {
		answer[k] = "fake"
	}
	if _, ok := props["title"]; ok {
		answer["title"] = s.script.Title
	} else {
		rec.Kind, rec.Conversation = KindSide, "<side>"
	}
	data, _ := marshal(answer)
	return Text(string(data))
}

// reply renders step st into rec (or its error), runs BeforeReply and
// records rec. It writes the error itself and reports false then; else
// the caller writes rec.Output as reply number n.
func (s *Server) reply(w http.ResponseWriter, rec *Request, st Step) (n int, ok bool) {
	n = s.Next()
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
		rec.Output = render(st, n)
		rec.Status = http.StatusOK
	}
	if s.script.BeforeReply != nil {
		s.script.BeforeReply(*rec)
	}
	s.Record(*rec)
	if rec.Error != nil {
		writeError(w, rec.Error)
		return n, false
	}
	return n, true
}

// choose picks the step that answers a turn request, and names the
// conversation.
func (s *Server) choose(rec Request) (Step, string) {
	for _, c := range s.script.Conversations {
		if c.Match != "" && !strings.Contains(rec.Prompt, c.Match) {
			continue
		}
		if len(c.Steps) == 0 {
			break
		}
		if rec.Step < len(c.Steps) {
			return c.Steps[rec.Step], c.Match
		}
		if last := c.Steps[len(c.Steps)-1]; last.Text != "" && len(last.Calls) == 0 && last.Error == nil {
			return Text(last.Text), c.Match
		}
		return Text("Done."), c.Match
	}
	return Text("OK (fake server default reply)."), "<default>"
}

// render turns a step into the reply's output items, with fresh ids.
func render(st Step, n int) []Item {
	var out []Item
	for _, q := range st.Searches {
		out = append(out, Item{Type: "web_search_call", Query: q})
	}
	if st.Text != "" {
		out = append(out, Item{Type: "message", Role: "assistant", Text: st.Text})
	}
	for _, c := range st.Calls {
		id := "call_" + randomHex(12)
		if c.Freeform {
			out = append(out, Item{Type: "custom_tool_call", Name: c.Name, Namespace: c.Namespace,
				CallID: id, Input: c.Input})
			continue
		}
		args := c.Args
		if args == nil {
			args = map[string]any{}
		}
		data, err := marshal(args)
		if err != nil {
			data = []byte("{}")
		}
		out = append(out, Item{Type: "function_call", Name: c.Name, Namespace: c.Namespace,
			CallID: id, Arguments: string(data)})
	}
	return out
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// wireItem is an output item as the Responses API streams it.
func wireItem(it Item, id string, done bool) map[string]any {
	switch it.Type {
	case "web_search_call":
		return map[string]any{"type": it.Type, "id": id, "status": "completed",
			"action": map[string]any{"type": "search", "query": it.Query}}
	case "message":
		content := []any{}
		status := "in_progress"
		if done {
			status = "completed"
			content = []any{map[string]any{"type": "output_text", "text": it.Text, "annotations": []any{}}}
		}
		return map[string]any{"type": it.Type, "id": id, "role": "assistant", "status": status, "content": content}
	case "custom_tool_call":
		m := map[string]any{"type": it.Type, "id": id, "status": "completed", "call_id": it.CallID,
			"name": it.Name, "input": it.Input}
		if it.Namespace != "" {
			m["namespace"] = it.Namespace
		}
		return m
	default: // function_call
		m := map[string]any{"type": it.Type, "id": id, "status": "completed", "call_id": it.CallID,
			"name": it.Name, "arguments": it.Arguments}
		if it.Namespace != "" {
			m["namespace"] = it.Namespace
		}
		return m
	}
}

// stream writes the reply as the Responses API's server-sent events.
func stream(w http.ResponseWriter, n int, model string, items []Item) {
	respID := fmt.Sprintf("resp_fake_%06d", n)
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("Connection", "close")
	h.Set("x-request-id", "req_"+respID)
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	seq := 0
	ev := func(name string, v map[string]any) {
		v["type"] = name
		v["sequence_number"] = seq
		seq++
		data, _ := marshal(v)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, data)
		if flusher != nil {
			flusher.Flush()
		}
	}
	resp := func(status string, output []any) map[string]any {
		m := map[string]any{"id": respID, "object": "response", "status": status, "model": model,
			"output": output}
		if status == "completed" {
			m["usage"] = map[string]any{
				"input_tokens": 100, "input_tokens_details": map[string]int{"cached_tokens": 0},
				"output_tokens": 10, "output_tokens_details": map[string]int{"reasoning_tokens": 0},
				"total_tokens": 110}
		}
		return m
	}
	ev("response.created", map[string]any{"response": resp("in_progress", []any{})})
	var output []any
	for i, it := range items {
		id := fmt.Sprintf("%s_fake_%06d_%d", itemPrefix(it.Type), n, i)
		ev("response.output_item.added", map[string]any{"output_index": i, "item": wireItem(it, id, false)})
		if it.Type == "message" {
			ev("response.content_part.added", map[string]any{"item_id": id, "output_index": i, "content_index": 0,
				"part": map[string]any{"type": "output_text", "text": "", "annotations": []any{}}})
			// Two deltas: a client must join them.
			for _, chunk := range halves(it.Text) {
				ev("response.output_text.delta", map[string]any{"item_id": id, "output_index": i,
					"content_index": 0, "delta": chunk})
			}
			ev("response.output_text.done", map[string]any{"item_id": id, "output_index": i,
				"content_index": 0, "text": it.Text})
			ev("response.content_part.done", map[string]any{"item_id": id, "output_index": i, "content_index": 0,
				"part": map[string]any{"type": "output_text", "text": it.Text, "annotations": []any{}}})
		}
		done := wireItem(it, id, true)
		output = append(output, done)
		ev("response.output_item.done", map[string]any{"output_index": i, "item": done})
	}
	if output == nil {
		output = []any{}
	}
	ev("response.completed", map[string]any{"response": resp("completed", output)})
}

// halves splits s in two at a character boundary near its middle.
func halves(s string) []string {
	half := len(s) / 2
	for half > 0 && !utf8.RuneStart(s[half]) {
		half--
	}
	return []string{s[:half], s[half:]}
}

func itemPrefix(typ string) string {
	switch typ {
	case "message":
		return "msg"
	case "web_search_call":
		return "ws"
	case "custom_tool_call":
		return "ctc"
	default:
		return "fc"
	}
}

// marshal is json.Marshal without HTML escaping, so commands such as
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

func writeError(w http.ResponseWriter, e *APIError) {
	data, _ := marshal(map[string]any{"error": map[string]any{"type": e.Type, "message": e.Message, "code": nil}})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(e.Status)
	_, _ = w.Write(data)
}

// modelItems are the input item types that come from the model's replies.
var modelItems = map[string]bool{
	"function_call": true, "custom_tool_call": true, "local_shell_call": true,
	"web_search_call": true, "reasoning": true, "tool_search_call": true,
}

// locate returns the latest prompt the person typed and the number of
// model replies after it.
func locate(items []Item) (string, int) {
	last, prompt := -1, ""
	for i, it := range items {
		if it.Type == "message" && it.Role == "user" && ownText(it.Text) != "" {
			last, prompt = i, it.Text
		}
	}
	if last < 0 {
		return "", 0
	}
	steps, inReply := 0, false
	for _, it := range items[last+1:] {
		fromModel := modelItems[it.Type] || it.Type == "message" && it.Role == "assistant"
		if fromModel && !inReply {
			steps++
		}
		inReply = fromModel
	}
	return prompt, steps
}

// ownText returns text without the <tag>...</tag> blocks it starts with
// (and OpenClaw's <<<BEGIN_NAME>>>...<<<END_NAME>>> ones), and without the
// space around them: what the person typed, if anything. A block whose
// closing tag is missing takes the rest of the text.
func ownText(text string) string {
	for {
		text = strings.TrimLeft(text, " \t\r\n")
		if rest, ok := strings.CutPrefix(text, "<<<BEGIN_"); ok {
			name, _, _ := strings.Cut(rest, ">>>")
			_, after, closed := strings.Cut(rest, "<<<END_"+name+">>>")
			if !closed {
				return ""
			}
			text = after
			continue
		}
		if !strings.HasPrefix(text, "<") {
			return text
		}
		name := text[1:]
		if i := strings.IndexAny(name, " \t\r\n>"); i >= 0 {
			name = name[:i]
		}
		const letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
		if name == "" || !strings.ContainsRune(letters, rune(name[0])) ||
			strings.Trim(name, letters+"0123456789_-.:") != "" {
			return text // no tag: typed text that starts with "<"
		}
		_, rest, closed := strings.Cut(text, "</"+name+">")
		if !closed {
			return "" // a block that never ends takes the rest
		}
		text = rest
	}
}

// rawItem is an input item as sent.
type rawItem struct {
	Type      string          `json:"type"`
	Role      string          `json:"role"`
	Content   json.RawMessage `json:"content"`
	Name      string          `json:"name"`
	Namespace string          `json:"namespace"`
	CallID    string          `json:"call_id"`
	Arguments string          `json:"arguments"`
	Input     string          `json:"input"`
	Output    json.RawMessage `json:"output"`
	Action    struct {
		Query string `json:"query"`
	} `json:"action"`
}

func parseItem(raw json.RawMessage) Item {
	var r rawItem
	_ = json.Unmarshal(raw, &r)
	it := Item{Type: r.Type, Role: r.Role, Name: r.Name, Namespace: r.Namespace, CallID: r.CallID,
		Arguments: r.Arguments, Input: r.Input, Query: r.Action.Query}
	switch {
	case r.Type == "message":
		it.Text = textOf(r.Content)
	case strings.HasSuffix(r.Type, "_output"):
		it.Text = textOf(r.Output)
	}
	return it
}

// textOf flattens a string or an array of content parts to its text.
func textOf(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) != nil {
		return ""
	}
	var texts []string
	for _, p := range parts {
		if p.Text != "" {
			texts = append(texts, p.Text)
		}
	}
	return strings.Join(texts, "\n")
}
