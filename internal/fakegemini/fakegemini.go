// Package fakegemini is a scripted stand-in for the Gemini API
// (generativelanguage.googleapis.com), for tests that drive the real
// Gemini CLI offline: with API-key auth, GOOGLE_GEMINI_BASE_URL=Server.URL()
// makes the model answer from a Script.
//
// It serves what Gemini CLI 0.61.0 calls, headless and interactive:
// POST /v1beta/models/<model>:streamGenerateContent?alt=sse (server-sent
// events), :generateContent (one JSON object) and :countTokens, and GET
// /v1beta/models; and records every request it sees. Anything else is
// answered 404, and a proxy request (CONNECT, or a request line with a full
// URL: what a client sends when HTTPS_PROXY points here) is answered 403
// and recorded as outbound, so a test can prove the agent tried to reach
// nothing else.
//
// A request is matched to a Conversation by the latest prompt the person
// typed: the last user content with a text part that does not start with
// "<" (Gemini CLI sends its <session_context> as such a part) and no
// functionResponse. The step is the number of model contents after it, so
// a conversation's steps are the model's successive replies within one
// turn, and every new prompt starts it again.
//
// Side requests are answered apart: a request for JSON (responseMimeType
// application/json or a response schema: the CLI's model router, its
// next-speaker check) gets an object built from the schema (enums their
// first value, strings "fake", numbers their minimum or 1); any other
// request without tools gets Script.SideText.
package fakegemini

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/clawdhq/clawd/internal/fakeapi"
)

// DefaultSideText answers tool-less requests when Script.SideText is empty.
const DefaultSideText = "Summary: the user asked for a small change and it was done."

// DefaultModel is the model GET /v1beta/models lists when Script.Model is
// empty.
const DefaultModel = "gemini-fake"

// Script says what the fake model answers.
type Script struct {
	// Conversations are tried in order; the first that matches answers.
	Conversations []Conversation
	// SideText answers tool-less requests that do not ask for JSON.
	SideText string
	// Model is the model id GET /v1beta/models lists.
	Model string
	// BeforeReply, when set, runs before each generate reply is sent, with
	// the request as it will be recorded. The CLI waits meanwhile, which
	// lets a test look at the world between two model replies.
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

// Step is one model reply: text, then function calls; or an HTTP error.
type Step struct {
	// Text is the model's text. A step without calls ends the turn.
	Text  string
	Calls []Call
	// Error, when set, answers with an HTTP error instead.
	Error *APIError
}

// Call is one function call the model makes.
type Call struct {
	// Name is the tool, e.g. run_shell_command, write_file, replace.
	Name string
	// Args are the call's arguments; nil means {}.
	Args any
}

// APIError is an HTTP error reply in Google's format.
type APIError struct {
	Status  int    // HTTP status, default 400
	Code    string // the status name, default from Status (INVALID_ARGUMENT, ...)
	Message string
}

// Text returns a step that answers text and ends the turn.
func Text(s string) Step { return Step{Text: s} }

// Tool returns a step that calls one function.
func Tool(name string, args any) Step { return Step{Calls: []Call{{Name: name, Args: args}}} }

// Calls returns a step that makes several calls in one reply.
func Calls(calls ...Call) Step { return Step{Calls: calls} }

// Shell returns a step that runs command through Gemini CLI's
// run_shell_command tool.
func Shell(command, description string) Step {
	return Tool("run_shell_command", map[string]any{"command": command, "description": description})
}

// Fail returns a step that answers an HTTP error.
func Fail(status int, message string) Step {
	return Step{Error: &APIError{Status: status, Message: message}}
}

// Part is the short form of one part of a content.
type Part struct {
	// Type is text, functionCall, functionResponse, or the part's other
	// key (inlineData, ...).
	Type string
	Text string
	// Thought marks a text part as the model's thinking.
	Thought bool
	// Name and ID are a functionCall's or functionResponse's; Args is a
	// call's arguments, Response a function response, both as JSON.
	Name     string
	ID       string
	Args     string
	Response string
}

// Content is the short form of one content (turn) of a request.
type Content struct {
	Role  string // user or model
	Parts []Part
}

// Kinds of requests.
const (
	KindTurn        = "turn"        // a generate request of a turn, with tools
	KindSide        = "side"        // a generate request without tools, or for JSON
	KindCountTokens = "countTokens" // :countTokens
	KindModels      = "models"      // GET /v1beta/models
	KindOther       = "other"       // anything else: answered 404
	KindOutbound    = "outbound"    // a proxy request for another host
)

// Request is what the server recorded about one HTTP request.
type Request struct {
	Method string
	// Path is the path without the query; for an outbound proxy request
	// it is the target (host:port or the full URL).
	Path  string
	Query string
	Kind  string
	// Header holds the request headers except x-goog-api-key; APIKey is
	// the key sent in that header or in the key query parameter.
	Header http.Header
	APIKey string
	// The fields below are set for generate requests (Model and Method
	// for countTokens too).
	Model  string // from the path, e.g. gemini-3.8-flash
	Action string // generateContent, streamGenerateContent or countTokens
	Stream bool
	// Tools are the function declarations offered.
	Tools    []string
	System   string
	Contents []Content
	// JSON is set when the request asked for JSON (a side request).
	JSON bool
	// Prompt is the latest prompt the person typed, Step the number of
	// model replies after it.
	Prompt string
	Step   int
	// Conversation is the Match of the conversation that answered,
	// "<side>" for side requests, "<default>" for the fallback.
	Conversation string
	// Output is the reply's parts, or Error the error.
	Output []Part
	Error  *APIError
	// Status is the HTTP status code of the reply.
	Status int
}

// Server is a running fake API. Start, URL, Close and Requests are its
// fakeapi.Base's; URL has no trailing slash (GOOGLE_GEMINI_BASE_URL).
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

// OfKind returns the recorded requests of one kind.
func (s *Server) OfKind(kind string) []Request {
	return s.Where(func(r Request) bool { return r.Kind == kind })
}

// IssuedCalls returns the function calls the model made in the
// conversation matched by marker, in order.
func (s *Server) IssuedCalls(marker string) []Part {
	var out []Part
	for _, r := range s.Requests() {
		if r.Kind != KindTurn || r.Conversation != marker {
			continue
		}
		for _, p := range r.Output {
			if p.Type == "functionCall" {
				out = append(out, p)
			}
		}
	}
	return out
}

// FunctionResponses returns the function responses the CLI sent back for
// calls of tool name, in order, from the latest request that carries
// them (each request repeats the history).
func (s *Server) FunctionResponses(name string) []Part {
	reqs := s.Requests()
	for i := len(reqs) - 1; i >= 0; i-- {
		var out []Part
		for _, c := range reqs[i].Contents {
			for _, p := range c.Parts {
				if p.Type == "functionResponse" && p.Name == name {
					out = append(out, p)
				}
			}
		}
		if len(out) > 0 {
			return out
		}
	}
	return nil
}

func (s *Server) serveHTTP(w http.ResponseWriter, r *http.Request) {
	h := r.Header.Clone()
	h.Del("x-goog-api-key")
	rec := Request{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Header: h,
		APIKey: r.Header.Get("x-goog-api-key")}
	if rec.APIKey == "" {
		rec.APIKey = r.URL.Query().Get("key")
	}
	path := strings.TrimSuffix(r.URL.Path, "/")
	rest, isModel := strings.CutPrefix(path, "/v1beta/models/")
	model, action, hasAction := strings.Cut(rest, ":")
	isModel = isModel && hasAction && model != "" && !strings.Contains(model, "/")
	switch {
	case r.Method == http.MethodConnect || r.URL.Host != "":
		// A client that uses this server as its proxy wants another host.
		rec.Kind, rec.Path = KindOutbound, r.RequestURI
		rec.Status = http.StatusForbidden
		s.Record(rec)
		http.Error(w, "fake gemini: no network", http.StatusForbidden)
	case r.Method == http.MethodPost && isModel && (action == "generateContent" || action == "streamGenerateContent"):
		rec.Model, rec.Action = model, action
		s.generate(w, r, rec)
	case r.Method == http.MethodPost && isModel && action == "countTokens":
		_, _ = io.Copy(io.Discard, r.Body)
		rec.Model, rec.Action, rec.Kind, rec.Status = model, action, KindCountTokens, http.StatusOK
		s.Record(rec)
		writeJSON(w, http.StatusOK, map[string]any{"totalTokens": 42})
	case (r.Method == http.MethodGet || r.Method == http.MethodHead) && path == "/v1beta/models":
		rec.Kind, rec.Status = KindModels, http.StatusOK
		s.Record(rec)
		writeJSON(w, http.StatusOK, map[string]any{"models": []any{map[string]any{
			"name": "models/" + s.script.Model, "displayName": "Fake Gemini", "inputTokenLimit": 1048576,
			"outputTokenLimit": 65536, "supportedGenerationMethods": []string{"generateContent", "countTokens"}}}})
	default:
		_, _ = io.Copy(io.Discard, r.Body)
		rec.Kind, rec.Status = KindOther, http.StatusNotFound
		s.Record(rec)
		writeError(w, &APIError{Status: http.StatusNotFound, Message: "fake gemini: " + r.Method + " " + r.URL.Path})
	}
}

// body is the part of a generate request the server reads.
type body struct {
	Contents []struct {
		Role  string            `json:"role"`
		Parts []json.RawMessage `json:"parts"`
	} `json:"contents"`
	SystemInstruction struct {
		Parts []struct {
			Text string `json:"text"`
		} `json:"parts"`
	} `json:"systemInstruction"`
	Tools []struct {
		FunctionDeclarations []struct {
			Name string `json:"name"`
		} `json:"functionDeclarations"`
	} `json:"tools"`
	GenerationConfig struct {
		ResponseMimeType   string          `json:"responseMimeType"`
		ResponseSchema     json.RawMessage `json:"responseSchema"`
		ResponseJSONSchema json.RawMessage `json:"responseJsonSchema"`
	} `json:"generationConfig"`
}

func (s *Server) generate(w http.ResponseWriter, r *http.Request, rec Request) {
	rec.Stream = rec.Action == "streamGenerateContent"
	raw, err := io.ReadAll(r.Body)
	var b body
	if err == nil {
		err = json.Unmarshal(raw, &b)
	}
	if err != nil {
		rec.Kind = KindTurn
		rec.Error = &APIError{Status: http.StatusBadRequest, Message: "fake gemini: bad JSON body"}
		rec.Status = rec.Error.Status
		s.Record(rec)
		writeError(w, rec.Error)
		return
	}
	for _, t := range b.Tools {
		for _, f := range t.FunctionDeclarations {
			rec.Tools = append(rec.Tools, f.Name)
		}
	}
	var sys []string
	for _, p := range b.SystemInstruction.Parts {
		sys = append(sys, p.Text)
	}
	rec.System = strings.Join(sys, "\n")
	for _, c := range b.Contents {
		content := Content{Role: c.Role}
		for _, p := range c.Parts {
			content.Parts = append(content.Parts, parsePart(p))
		}
		rec.Contents = append(rec.Contents, content)
	}
	rec.Prompt, rec.Step = locate(rec.Contents)

	gc := b.GenerationConfig
	schema := gc.ResponseJSONSchema
	if len(schema) == 0 || string(schema) == "null" {
		schema = gc.ResponseSchema
	}
	rec.JSON = gc.ResponseMimeType == "application/json" || len(schema) > 0 && string(schema) != "null"
	var st Step
	switch {
	case rec.JSON:
		rec.Kind, rec.Conversation = KindSide, "<side>"
		var sc map[string]any
		_ = json.Unmarshal(schema, &sc)
		data, _ := marshal(fill(sc))
		st = Text(string(data))
	case len(rec.Tools) == 0:
		rec.Kind, rec.Conversation = KindSide, "<side>"
		st = Text(s.script.SideText)
	default:
		rec.Kind = KindTurn
		st, rec.Conversation = s.choose(rec)
	}

	n := s.Next()
	if st.Error != nil {
		e := *st.Error
		if e.Status == 0 {
			e.Status = http.StatusBadRequest
		}
		if e.Message == "" {
			e.Message = "fake error"
		}
		rec.Error, rec.Status = &e, e.Status
	} else {
		rec.Output = render(st)
		rec.Status = http.StatusOK
	}
	if s.script.BeforeReply != nil {
		s.script.BeforeReply(rec)
	}
	s.Record(rec)
	if rec.Error != nil {
		writeError(w, rec.Error)
		return
	}
	if rec.Stream {
		stream(w, n, rec.Model, rec.Output)
		return
	}
	writeJSON(w, http.StatusOK, response(n, rec.Model, wireParts(rec.Output), true))
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

// render turns a step into the reply's parts.
func render(st Step) []Part {
	var out []Part
	if st.Text != "" {
		out = append(out, Part{Type: "text", Text: st.Text})
	}
	for _, c := range st.Calls {
		args := c.Args
		if args == nil {
			args = map[string]any{}
		}
		data, err := marshal(args)
		if err != nil {
			data = []byte("{}")
		}
		out = append(out, Part{Type: "functionCall", Name: c.Name, Args: string(data)})
	}
	return out
}

// wireParts is parts as the API sends them.
func wireParts(parts []Part) []any {
	out := []any{}
	for _, p := range parts {
		if p.Type == "functionCall" {
			out = append(out, map[string]any{"functionCall": map[string]any{"name": p.Name, "args": json.RawMessage(p.Args)}})
			continue
		}
		out = append(out, map[string]any{"text": p.Text})
	}
	return out
}

// response is one GenerateContentResponse; the last one of a reply says
// why it stopped and carries the usage.
func response(n int, model string, parts []any, last bool) map[string]any {
	cand := map[string]any{"content": map[string]any{"role": "model", "parts": parts}, "index": 0}
	m := map[string]any{"candidates": []any{cand}, "modelVersion": model,
		"responseId": fmt.Sprintf("fake-response-%06d", n)}
	if last {
		cand["finishReason"] = "STOP"
		m["usageMetadata"] = map[string]any{"promptTokenCount": 100, "candidatesTokenCount": 10, "totalTokenCount": 110}
	}
	return m
}

// stream writes the reply as server-sent events: text in two chunks (a
// client must join them), then the calls with the finish reason.
func stream(w http.ResponseWriter, n int, model string, parts []Part) {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	var chunks [][]any
	var calls []Part
	for _, p := range parts {
		if p.Type == "text" {
			for _, half := range halves(p.Text) {
				chunks = append(chunks, wireParts([]Part{{Type: "text", Text: half}}))
			}
			continue
		}
		calls = append(calls, p)
	}
	if len(calls) > 0 || len(chunks) == 0 {
		chunks = append(chunks, wireParts(calls))
	}
	for i, c := range chunks {
		data, _ := marshal(response(n, model, c, i == len(chunks)-1))
		fmt.Fprintf(w, "data: %s\r\n\r\n", data)
		if flusher != nil {
			flusher.Flush()
		}
	}
}

// halves splits s in two at a character boundary near its middle.
func halves(s string) []string {
	half := len(s) / 2
	for half > 0 && !utf8.RuneStart(s[half]) {
		half--
	}
	return []string{s[:half], s[half:]}
}

// fill builds a value that fits schema (an OpenAPI schema as Gemini takes
// it, types in upper or lower case): objects get every property, enums
// their first value, strings "fake", numbers their minimum or 1.
func fill(schema map[string]any) any {
	if enum, ok := schema["enum"].([]any); ok && len(enum) > 0 {
		return enum[0]
	}
	typ, _ := schema["type"].(string)
	if list, ok := schema["type"].([]any); ok && len(list) > 0 {
		typ, _ = list[0].(string)
	}
	props, _ := schema["properties"].(map[string]any)
	switch strings.ToLower(typ) {
	case "array":
		return []any{}
	case "boolean":
		return false
	case "integer", "number":
		if m, ok := schema["minimum"].(float64); ok {
			return m
		}
		return 1
	case "string":
		return "fake"
	}
	if typ == "" && props == nil {
		return "fake"
	}
	out := map[string]any{}
	for k, v := range props {
		sub, _ := v.(map[string]any)
		out[k] = fill(sub)
	}
	return out
}

// locate returns the latest prompt the person typed and the number of
// model replies after it.
func locate(contents []Content) (string, int) {
	last, prompt := -1, ""
	for i, c := range contents {
		if c.Role != "user" {
			continue
		}
		var texts []string
		answers := false
		for _, p := range c.Parts {
			switch {
			case p.Type == "functionResponse":
				answers = true
			case p.Type == "text" && !strings.HasPrefix(strings.TrimLeft(p.Text, " \t\r\n"), "<"):
				texts = append(texts, p.Text)
			}
		}
		if len(texts) > 0 && !answers {
			last, prompt = i, strings.Join(texts, "\n")
		}
	}
	if last < 0 {
		return "", 0
	}
	steps := 0
	for _, c := range contents[last+1:] {
		if c.Role == "model" {
			steps++
		}
	}
	return prompt, steps
}

// parsePart reads one part of a request content.
func parsePart(raw json.RawMessage) Part {
	var p struct {
		Text         *string `json:"text"`
		Thought      bool    `json:"thought"`
		FunctionCall *struct {
			Name string          `json:"name"`
			ID   string          `json:"id"`
			Args json.RawMessage `json:"args"`
		} `json:"functionCall"`
		FunctionResponse *struct {
			Name     string          `json:"name"`
			ID       string          `json:"id"`
			Response json.RawMessage `json:"response"`
		} `json:"functionResponse"`
	}
	_ = json.Unmarshal(raw, &p)
	switch {
	case p.FunctionCall != nil:
		return Part{Type: "functionCall", Name: p.FunctionCall.Name, ID: p.FunctionCall.ID, Args: string(p.FunctionCall.Args)}
	case p.FunctionResponse != nil:
		return Part{Type: "functionResponse", Name: p.FunctionResponse.Name, ID: p.FunctionResponse.ID,
			Response: string(p.FunctionResponse.Response)}
	case p.Text != nil:
		return Part{Type: "text", Text: *p.Text, Thought: p.Thought}
	}
	var keys map[string]json.RawMessage
	_ = json.Unmarshal(raw, &keys)
	for k := range keys {
		if k != "thoughtSignature" {
			return Part{Type: k}
		}
	}
	return Part{Type: "unknown"}
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

func writeJSON(w http.ResponseWriter, status int, v any) {
	data, _ := marshal(v)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(data)
}

// statusNames are Google's status names of the HTTP codes a test uses.
var statusNames = map[int]string{
	400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED", 404: "NOT_FOUND",
	429: "RESOURCE_EXHAUSTED", 500: "INTERNAL", 503: "UNAVAILABLE",
}

func writeError(w http.ResponseWriter, e *APIError) {
	code := e.Code
	if code == "" {
		code = statusNames[e.Status]
	}
	if code == "" {
		code = "UNKNOWN"
	}
	writeJSON(w, e.Status, map[string]any{"error": map[string]any{"code": e.Status, "message": e.Message, "status": code}})
}
