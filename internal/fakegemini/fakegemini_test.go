package fakegemini

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// reply is a reply rebuilt the way the CLI's SDK reads it: text joined
// over the chunks, calls collected, the finish reason and usage of the
// last chunk.
type reply struct {
	Text   string
	Calls  []wireCall
	Finish string
	Usage  map[string]any
	Chunks int
}

type wireCall struct {
	Name string
	Args map[string]any
}

type wireResponse struct {
	Candidates []struct {
		Content struct {
			Role  string `json:"role"`
			Parts []struct {
				Text         *string   `json:"text"`
				FunctionCall *wireCall `json:"functionCall"`
			} `json:"parts"`
		} `json:"content"`
		FinishReason string `json:"finishReason"`
	} `json:"candidates"`
	UsageMetadata map[string]any `json:"usageMetadata"`
	ModelVersion  string         `json:"modelVersion"`
}

func (r *reply) add(t *testing.T, resp wireResponse) {
	t.Helper()
	r.Chunks++
	if len(resp.Candidates) != 1 {
		t.Fatalf("response with %d candidates, want 1", len(resp.Candidates))
	}
	c := resp.Candidates[0]
	if c.Content.Role != "model" {
		t.Errorf("content role %q, want model", c.Content.Role)
	}
	for _, p := range c.Content.Parts {
		if p.Text != nil {
			r.Text += *p.Text
		}
		if p.FunctionCall != nil {
			r.Calls = append(r.Calls, *p.FunctionCall)
		}
	}
	if r.Finish != "" {
		t.Errorf("a chunk after the one with finishReason %s", r.Finish)
	}
	r.Finish = c.FinishReason
	if resp.UsageMetadata != nil {
		r.Usage = resp.UsageMetadata
	}
}

// readSSE rebuilds a streamed reply: "data: <json>" events separated by
// blank lines.
func readSSE(t *testing.T, body io.Reader) reply {
	t.Helper()
	var r reply
	sc := bufio.NewScanner(body)
	for sc.Scan() {
		line := strings.TrimSuffix(sc.Text(), "\r")
		if line == "" {
			continue
		}
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			t.Fatalf("unexpected SSE line %q", line)
		}
		var resp wireResponse
		if err := json.Unmarshal([]byte(data), &resp); err != nil {
			t.Fatalf("event %q: %v", data, err)
		}
		r.add(t, resp)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return r
}

func start(t *testing.T, script Script) *Server {
	t.Helper()
	s := New(script)
	s.Start()
	t.Cleanup(s.Close)
	return s
}

func post(t *testing.T, s *Server, path string, body map[string]any) *http.Response {
	t.Helper()
	data, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest(http.MethodPost, s.URL()+path, bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("x-goog-api-key", "fake-key")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

const streamPath = "/v1beta/models/gemini-3.8-flash:streamGenerateContent"

// generate posts a turn request the way Gemini CLI streams it.
func generate(t *testing.T, s *Server, body map[string]any) reply {
	t.Helper()
	resp := post(t, s, streamPath+"?alt=sse", body)
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
		data, _ := io.ReadAll(resp.Body)
		t.Fatalf("POST %s: %d %s %s", streamPath, resp.StatusCode, resp.Header.Get("Content-Type"), data)
	}
	return readSSE(t, resp.Body)
}

func text(s string) map[string]any { return map[string]any{"text": s} }

// cliContents is what Gemini CLI 0.61.0 sends for a prompt: one user
// content with its session context part and the prompt, then history.
func cliContents(prompt string, history ...map[string]any) []any {
	out := []any{map[string]any{"role": "user", "parts": []any{
		text("<session_context>\nThis is the Gemini CLI.\n</session_context>"), text(prompt)}}}
	for _, h := range history {
		out = append(out, h)
	}
	return out
}

func turnBody(contents []any) map[string]any {
	return map[string]any{"contents": contents,
		"systemInstruction": map[string]any{"parts": []any{text("You are Gemini CLI.")}},
		"tools": []any{map[string]any{"functionDeclarations": []any{
			map[string]any{"name": "run_shell_command"}, map[string]any{"name": "write_file"}}}},
		"generationConfig": map[string]any{"temperature": 1}}
}

// modelCall and callResponse are the history the CLI sends after a call.
func modelCall(name string, args any) map[string]any {
	return map[string]any{"role": "model", "parts": []any{map[string]any{
		"functionCall":     map[string]any{"id": name + "_1_0", "name": name, "args": args},
		"thoughtSignature": "skip_thought_signature_validator"}}}
}

func callResponse(name, output string) map[string]any {
	return map[string]any{"role": "user", "parts": []any{map[string]any{"functionResponse": map[string]any{
		"id": name + "_1_0", "name": name, "response": map[string]any{"output": output}}}}}
}

func TestTurnSteps(t *testing.T) {
	s := start(t, Script{Conversations: []Conversation{
		{Match: "OTHER", Steps: []Step{Text("wrong conversation")}},
		{Match: "MARKER", Steps: []Step{
			Shell("echo hi > out.txt", "write hi"),
			Calls(Call{Name: "write_file", Args: map[string]any{"file_path": "a.txt", "content": "a"}},
				Call{Name: "write_file", Args: map[string]any{"file_path": "b.txt", "content": "b"}}),
			Text("All done, héllo."),
		}},
	}})
	const prompt = "please MARKER now"

	r0 := generate(t, s, turnBody(cliContents(prompt)))
	want0 := []wireCall{{"run_shell_command", map[string]any{"command": "echo hi > out.txt", "description": "write hi"}}}
	if !reflect.DeepEqual(r0.Calls, want0) || r0.Text != "" || r0.Finish != "STOP" || r0.Usage["totalTokenCount"] == nil {
		t.Fatalf("step 0 = %+v, want %v, finish STOP with usage", r0, want0)
	}

	hist := []map[string]any{modelCall("run_shell_command", want0[0].Args), callResponse("run_shell_command", "Output: hi")}
	r1 := generate(t, s, turnBody(cliContents(prompt, hist...)))
	if len(r1.Calls) != 2 || r1.Calls[1].Args["file_path"] != "b.txt" || r1.Chunks != 1 {
		t.Fatalf("step 1 = %+v, want two write_file calls in one chunk", r1)
	}

	// Both calls in one model content, both responses in one user
	// content, as the CLI sends them back.
	twoCalls, responses := modelCall("write_file", nil), callResponse("write_file", "ok a")
	twoCalls["parts"] = append(twoCalls["parts"].([]any), modelCall("write_file", nil)["parts"].([]any)...)
	responses["parts"] = append(responses["parts"].([]any), callResponse("write_file", "ok b")["parts"].([]any)...)
	hist = append(hist, twoCalls, responses)
	r2 := generate(t, s, turnBody(cliContents(prompt, hist...)))
	if r2.Text != "All done, héllo." || len(r2.Calls) != 0 || r2.Chunks != 2 || r2.Finish != "STOP" {
		t.Fatalf("step 2 = %+v, want the text over two chunks, finish STOP", r2)
	}

	// Past the last step the text repeats.
	hist = append(hist, map[string]any{"role": "model", "parts": []any{text("All done, héllo.")}},
		map[string]any{"role": "user", "parts": []any{text("<system-note>continue</system-note>")}})
	if r := generate(t, s, turnBody(cliContents(prompt, hist...))); r.Text != "All done, héllo." {
		t.Errorf("past the last step: %+v, want the text again", r)
	}

	reqs := s.OfKind(KindTurn)
	if len(reqs) != 4 {
		t.Fatalf("recorded %d turn requests, want 4", len(reqs))
	}
	for i, r := range reqs {
		if r.Prompt != prompt || r.Step != i || r.Conversation != "MARKER" {
			t.Errorf("request %d: prompt %q step %d conversation %q, want %q %d MARKER", i, r.Prompt, r.Step, r.Conversation, prompt, i)
		}
		if r.Model != "gemini-3.8-flash" || r.Action != "streamGenerateContent" || !r.Stream || r.Query != "alt=sse" ||
			r.APIKey != "fake-key" || r.Header.Get("x-goog-api-key") != "" || r.System != "You are Gemini CLI." {
			t.Errorf("request %d: model %q action %q stream %v query %q key %q (header %q) system %q", i, r.Model, r.Action,
				r.Stream, r.Query, r.APIKey, r.Header.Get("x-goog-api-key"), r.System)
		}
		if !slices.Equal(r.Tools, []string{"run_shell_command", "write_file"}) || r.Status != http.StatusOK {
			t.Errorf("request %d: tools %v status %d", i, r.Tools, r.Status)
		}
	}
	if c := reqs[1].Contents[1].Parts[0]; c.Type != "functionCall" || c.Name != "run_shell_command" || c.ID == "" {
		t.Errorf("request 1 history part = %+v, want the function call", c)
	}
	calls := s.IssuedCalls("MARKER")
	if names := field(calls, func(p Part) string { return p.Name }); !slices.Equal(names, []string{"run_shell_command", "write_file", "write_file"}) {
		t.Errorf("IssuedCalls = %v", names)
	}
	if calls[0].Args != `{"command":"echo hi > out.txt","description":"write hi"}` {
		t.Errorf("IssuedCalls[0].Args = %s", calls[0].Args)
	}
	rs := s.FunctionResponses("write_file")
	if len(rs) != 2 || rs[1].Response != `{"output":"ok b"}` {
		t.Errorf("FunctionResponses(write_file) = %+v, want the two outputs", rs)
	}
	if rs := s.FunctionResponses("nope"); rs != nil {
		t.Errorf("FunctionResponses(nope) = %+v", rs)
	}
}

func field[T any](xs []T, f func(T) string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = f(x)
	}
	return out
}

// TestSideRequests: the CLI's model router asks for JSON of a schema; a
// tool-less request gets the side text; countTokens and the model list
// answer.
func TestSideRequests(t *testing.T) {
	s := start(t, Script{SideText: "the side text", Model: "gemini-x",
		Conversations: []Conversation{{Steps: []Step{Shell("true", "")}}}})
	router := map[string]any{
		"contents": []any{map[string]any{"role": "user", "parts": []any{text("<session_context>x</session_context>")}},
			map[string]any{"role": "user", "parts": []any{text("say hello")}}},
		"generationConfig": map[string]any{"responseMimeType": "application/json", "responseJsonSchema": map[string]any{
			"type": "OBJECT", "properties": map[string]any{
				"complexity_reasoning": map[string]any{"type": "STRING"},
				"complexity_score":     map[string]any{"type": "INTEGER", "minimum": 1},
				"next_speaker":         map[string]any{"type": "string", "enum": []any{"user", "model"}},
				"flags":                map[string]any{"type": "ARRAY"},
				"sure":                 map[string]any{"type": "BOOLEAN"},
			}}}}
	resp := post(t, s, "/v1beta/models/gemini-3.5-flash-lite:generateContent", router)
	var out wireResponse
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || resp.StatusCode != 200 {
		t.Fatalf("router request: %d %v", resp.StatusCode, err)
	}
	var r reply
	r.add(t, out)
	var got map[string]any
	if err := json.Unmarshal([]byte(r.Text), &got); err != nil {
		t.Fatalf("router answer %q: %v", r.Text, err)
	}
	want := map[string]any{"complexity_reasoning": "fake", "complexity_score": 1.0, "next_speaker": "user",
		"flags": []any{}, "sure": false}
	if !reflect.DeepEqual(got, want) || r.Finish != "STOP" {
		t.Errorf("router answer %v finish %q, want %v", got, r.Finish, want)
	}

	if r := generate(t, s, map[string]any{"contents": cliContents("summarize")}); r.Text != "the side text" {
		t.Errorf("tool-less request answered %+v, want the side text", r)
	}

	resp = post(t, s, "/v1beta/models/gemini-x:countTokens", map[string]any{"contents": cliContents("x")})
	var ct struct{ TotalTokens int }
	if err := json.NewDecoder(resp.Body).Decode(&ct); err != nil || ct.TotalTokens == 0 {
		t.Errorf("countTokens: %+v %v", ct, err)
	}
	get, err := http.Get(s.URL() + "/v1beta/models")
	if err != nil {
		t.Fatal(err)
	}
	defer get.Body.Close()
	var models struct{ Models []struct{ Name string } }
	if err := json.NewDecoder(get.Body).Decode(&models); err != nil || len(models.Models) != 1 || models.Models[0].Name != "models/gemini-x" {
		t.Errorf("GET /v1beta/models: %+v %v", models, err)
	}

	reqs := s.Requests()
	kinds := field(reqs, func(r Request) string { return r.Kind })
	if want := []string{KindSide, KindSide, KindCountTokens, KindModels}; !slices.Equal(kinds, want) {
		t.Errorf("kinds %v, want %v", kinds, want)
	}
	if !reqs[0].JSON || reqs[0].Stream || reqs[0].Model != "gemini-3.5-flash-lite" || reqs[0].Prompt != "say hello" || reqs[1].JSON {
		t.Errorf("router request recorded as %+v", reqs[0])
	}
	if n := len(s.IssuedCalls("")); n != 0 {
		t.Errorf("side requests issued %d calls", n)
	}
}

func TestErrorsAndBeforeReply(t *testing.T) {
	var seen []string
	s := start(t, Script{
		Conversations: []Conversation{{Match: "FAIL", Steps: []Step{Fail(429, "quota")}}, {Match: "EMPTY"}},
		BeforeReply:   func(r Request) { seen = append(seen, r.Conversation) },
	})
	resp := post(t, s, streamPath+"?alt=sse", turnBody(cliContents("FAIL please")))
	data, _ := io.ReadAll(resp.Body)
	var e struct {
		Error struct {
			Code    int
			Message string
			Status  string
		}
	}
	if resp.StatusCode != 429 || json.Unmarshal(data, &e) != nil || e.Error.Code != 429 || e.Error.Message != "quota" ||
		e.Error.Status != "RESOURCE_EXHAUSTED" {
		t.Errorf("error step: %d %s, want 429 RESOURCE_EXHAUSTED", resp.StatusCode, data)
	}
	if r := generate(t, s, turnBody(cliContents("EMPTY"))); r.Text != "OK (fake server default reply)." {
		t.Errorf("empty conversation reply = %+v", r)
	}
	req, _ := http.NewRequest(http.MethodPost, s.URL()+streamPath, strings.NewReader("{"))
	resp2, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp2.Body.Close()
	if resp2.StatusCode != http.StatusBadRequest {
		t.Errorf("bad JSON: status %d, want 400", resp2.StatusCode)
	}
	recs := s.Requests()
	if len(recs) != 3 || recs[0].Status != 429 || recs[0].Error == nil || recs[0].Output != nil || recs[2].Status != 400 {
		t.Errorf("recorded %+v", recs)
	}
	if !slices.Equal(seen, []string{"FAIL", "<default>"}) {
		t.Errorf("BeforeReply saw %v, want [FAIL <default>]", seen)
	}
}

func TestLocate(t *testing.T) {
	u := func(texts ...string) Content {
		c := Content{Role: "user"}
		for _, s := range texts {
			c.Parts = append(c.Parts, Part{Type: "text", Text: s})
		}
		return c
	}
	m := Content{Role: "model", Parts: []Part{{Type: "functionCall", Name: "x"}}}
	fr := Content{Role: "user", Parts: []Part{{Type: "functionResponse", Name: "x"}}}
	for _, tc := range []struct {
		name     string
		contents []Content
		prompt   string
		step     int
	}{
		{"none", []Content{u("<session_context>x</session_context>")}, "", 0},
		{"context and prompt in one content", []Content{u("<session_context>x</session_context>", "go")}, "go", 0},
		{"context apart", []Content{u("<session_context>"), u("go")}, "go", 0},
		{"one call answered", []Content{u("go"), m, fr}, "go", 1},
		{"two replies", []Content{u("go"), m, fr, m, fr}, "go", 2},
		{"a new prompt starts over", []Content{u("first"), m, fr, {Role: "model", Parts: []Part{{Type: "text", Text: "ok"}}}, u("second")}, "second", 0},
		{"a response with text is no prompt", []Content{u("go"), m, {Role: "user", Parts: []Part{{Type: "functionResponse"}, {Type: "text", Text: "extra"}}}}, "go", 1},
	} {
		prompt, step := locate(tc.contents)
		if prompt != tc.prompt || step != tc.step {
			t.Errorf("%s: locate = %q, %d, want %q, %d", tc.name, prompt, step, tc.prompt, tc.step)
		}
	}
}

func TestOtherAndOutbound(t *testing.T) {
	s := start(t, Script{})
	for _, path := range []string{"/v1beta/files", "/v1beta/models/a/b:generateContent", "/v1/models/x:embedContent"} {
		resp, err := http.Post(s.URL()+path, "application/json", strings.NewReader("{}"))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("POST %s: %d, want 404", path, resp.StatusCode)
		}
	}
	proxy, _ := url.Parse(s.URL())
	c := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(proxy)}}
	resp, err := c.Get("http://play.googleapis.invalid/log")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("proxied GET: %d, want 403", resp.StatusCode)
	}
	if _, err := c.Get("https://generativelanguage.googleapis.invalid/v1beta/models"); err == nil || !strings.Contains(err.Error(), "Forbidden") {
		t.Errorf("proxied HTTPS GET: %v, want the CONNECT refused", err)
	}
	kinds := field(s.Requests(), func(r Request) string { return r.Kind + " " + r.Path })
	want := []string{"other /v1beta/files", "other /v1beta/models/a/b:generateContent", "other /v1/models/x:embedContent",
		"outbound http://play.googleapis.invalid/log", "outbound generativelanguage.googleapis.invalid:443"}
	if !slices.Equal(kinds, want) {
		t.Errorf("recorded %v, want %v", kinds, want)
	}
}

func TestCloseStopsServing(t *testing.T) {
	s := New(Script{})
	s.Start()
	base := s.URL()
	s.Close()
	_, err := http.Get(base + "/v1beta/models")
	var ue *url.Error
	if err == nil || !errors.As(err, &ue) {
		t.Errorf("GET after Close: %v, want a connection error", err)
	}
}
