package fakeopenai

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
)

// chatCall is a tool call as a client rebuilds it from the chunks.
type chatCall struct {
	ID, Name, Arguments string
}

// chatResult is a chat reply rebuilt the way the agents' OpenAI clients
// do: text joined from the deltas, calls joined by index.
type chatResult struct {
	ID     string
	Text   string
	Calls  []chatCall
	Finish string
	Usage  map[string]any
	Chunks int
}

// readChatStream parses a chat.completion.chunk stream that must end in
// [DONE].
func readChatStream(t *testing.T, r io.Reader) chatResult {
	t.Helper()
	var res chatResult
	done := false
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			continue
		}
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			t.Fatalf("unexpected stream line %q", line)
		}
		if done {
			t.Fatalf("data after [DONE]: %q", data)
		}
		if data == "[DONE]" {
			done = true
			continue
		}
		var c struct {
			ID      string `json:"id"`
			Object  string `json:"object"`
			Choices []struct {
				Index int `json:"index"`
				Delta struct {
					Role      string  `json:"role"`
					Content   *string `json:"content"`
					ToolCalls []struct {
						Index    int    `json:"index"`
						ID       string `json:"id"`
						Type     string `json:"type"`
						Function struct {
							Name      string `json:"name"`
							Arguments string `json:"arguments"`
						} `json:"function"`
					} `json:"tool_calls"`
				} `json:"delta"`
				FinishReason *string `json:"finish_reason"`
			} `json:"choices"`
			Usage map[string]any `json:"usage"`
		}
		if err := json.Unmarshal([]byte(data), &c); err != nil {
			t.Fatalf("chunk %q: %v", data, err)
		}
		res.Chunks++
		if c.Object != "chat.completion.chunk" || c.ID == "" || res.ID != "" && c.ID != res.ID {
			t.Errorf("chunk object %q id %q, want chat.completion.chunk with the stream's id %q", c.Object, c.ID, res.ID)
		}
		res.ID = c.ID
		if c.Usage != nil {
			res.Usage = c.Usage
		}
		for _, ch := range c.Choices {
			if ch.Delta.Content != nil {
				res.Text += *ch.Delta.Content
			}
			for _, tc := range ch.Delta.ToolCalls {
				for len(res.Calls) <= tc.Index {
					res.Calls = append(res.Calls, chatCall{})
				}
				call := &res.Calls[tc.Index]
				if tc.ID != "" {
					call.ID = tc.ID
				}
				call.Name += tc.Function.Name
				call.Arguments += tc.Function.Arguments
			}
			if ch.FinishReason != nil {
				res.Finish = *ch.FinishReason
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("read stream: %v", err)
	}
	if !done {
		t.Errorf("stream did not end with data: [DONE]")
	}
	return res
}

// postChat sends a Chat Completions request and returns the response.
func postChat(t *testing.T, s *Server, body map[string]any) *http.Response {
	t.Helper()
	data, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest(http.MethodPost, s.URL()+"/v1/chat/completions", bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer fake-key")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// chatStream posts a streaming request and rebuilds the reply.
func chatStream(t *testing.T, s *Server, body map[string]any) chatResult {
	t.Helper()
	body["stream"] = true
	resp := postChat(t, s, body)
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
		data, _ := io.ReadAll(resp.Body)
		t.Fatalf("POST /v1/chat/completions: %d %s %s", resp.StatusCode, resp.Header.Get("Content-Type"), data)
	}
	return readChatStream(t, resp.Body)
}

func fnTool(name string) map[string]any {
	return map[string]any{"type": "function", "function": map[string]any{"name": name,
		"parameters": map[string]any{"type": "object"}}}
}

// qwenMessages is what Qwen Code 0.24.4 sends for a prompt: the system
// prompt, then one user message whose text parts are its reminders and,
// last, the prompt.
func qwenMessages(prompt string, history ...map[string]any) []any {
	msgs := []any{
		map[string]any{"role": "system", "content": "You are Qwen Code."},
		map[string]any{"role": "user", "content": []any{
			map[string]any{"type": "text", "text": "<system-reminder>\nThe following skills are available.\n</system-reminder>"},
			map[string]any{"type": "text", "text": "<system-reminder>\nThis is the Qwen Code.\n</system-reminder>"},
			map[string]any{"type": "text", "text": prompt},
		}},
	}
	for _, h := range history {
		msgs = append(msgs, h)
	}
	return msgs
}

func TestChatTurnSteps(t *testing.T) {
	s := start(t, Script{Conversations: []Conversation{
		{Match: "OTHER", Steps: []Step{Text("wrong conversation")}},
		{Match: "MARKER", Steps: []Step{
			Tool("run_shell_command", map[string]any{"command": "echo hi > out.txt"}),
			Calls(Call{Name: "read_file", Args: map[string]any{"path": "a"}}, Call{Name: "read_file", Args: map[string]any{"path": "b"}}),
			Text("All done, héllo."),
		}},
	}})
	tools := []any{fnTool("run_shell_command"), fnTool("read_file")}
	const prompt = "please MARKER"

	r0 := chatStream(t, s, map[string]any{"model": "fake-model", "messages": qwenMessages(prompt), "tools": tools,
		"stream_options": map[string]any{"include_usage": true}})
	if len(r0.Calls) != 1 || r0.Calls[0].Name != "run_shell_command" || r0.Calls[0].ID == "" || r0.Finish != "tool_calls" || r0.Text != "" {
		t.Fatalf("step 0 = %+v, want one run_shell_command call with an id, finish tool_calls, no text", r0)
	}
	var args map[string]any
	if err := json.Unmarshal([]byte(r0.Calls[0].Arguments), &args); err != nil || args["command"] != "echo hi > out.txt" {
		t.Errorf("step 0 arguments %q (%v), want the command unescaped", r0.Calls[0].Arguments, err)
	}
	if r0.Usage["total_tokens"] == nil {
		t.Errorf("step 0 usage %v, want a usage chunk (include_usage)", r0.Usage)
	}
	call0 := r0.Calls[0].ID

	// Step 1, after the call's output; Qwen sends the assistant message
	// without content.
	hist := []map[string]any{
		{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{"id": call0, "type": "function",
			"function": map[string]any{"name": "run_shell_command", "arguments": r0.Calls[0].Arguments}}}},
		{"role": "tool", "tool_call_id": call0, "content": []any{map[string]any{"type": "text", "text": "Exit Code: 0"}}},
	}
	r1 := chatStream(t, s, map[string]any{"model": "fake-model", "messages": qwenMessages(prompt, hist...), "tools": tools})
	if len(r1.Calls) != 2 || r1.Calls[0].ID == r1.Calls[1].ID || r1.Calls[1].Arguments != `{"path":"b"}` || r1.Usage != nil {
		t.Fatalf("step 1 = %+v, want two read_file calls with distinct ids, no usage chunk", r1)
	}

	// Step 2: two calls answered count as one reply; opencode sends the
	// assistant message with "" content.
	hist = append(hist,
		map[string]any{"role": "assistant", "content": "", "tool_calls": []any{
			map[string]any{"id": "c1", "type": "function", "function": map[string]any{"name": "read_file", "arguments": "{}"}},
			map[string]any{"id": "c2", "type": "function", "function": map[string]any{"name": "read_file", "arguments": "{}"}}}},
		map[string]any{"role": "tool", "tool_call_id": "c1", "content": "a"},
		map[string]any{"role": "tool", "tool_call_id": "c2", "content": "b"})
	r2 := chatStream(t, s, map[string]any{"model": "fake-model", "messages": qwenMessages(prompt, hist...), "tools": tools})
	if r2.Text != "All done, héllo." || len(r2.Calls) != 0 || r2.Finish != "stop" || r2.Chunks < 4 {
		t.Fatalf("step 2 = %+v, want the text in several chunks, finish stop", r2)
	}

	reqs := s.OfKind(KindTurn)
	if len(reqs) != 3 {
		t.Fatalf("recorded %d turn requests, want 3", len(reqs))
	}
	for i, r := range reqs {
		if !strings.HasSuffix(r.Prompt, prompt) || r.Step != i || r.Conversation != "MARKER" || r.Path != "/v1/chat/completions" {
			t.Errorf("request %d: prompt %q step %d conversation %q path %s, want the prompt, step %d, MARKER", i, r.Prompt, r.Step, r.Conversation, r.Path, i)
		}
		if r.Authorization != "fake-key" || r.Model != "fake-model" || !r.Stream || r.Status != http.StatusOK {
			t.Errorf("request %d: authorization %q model %q stream %v status %d", i, r.Authorization, r.Model, r.Stream, r.Status)
		}
		if !slices.Equal(r.Tools, []string{"run_shell_command", "read_file"}) {
			t.Errorf("request %d: tools %v", i, r.Tools)
		}
	}
	names := field(s.IssuedCalls("MARKER"), func(it Item) string { return it.Name })
	if !slices.Equal(names, []string{"run_shell_command", "read_file", "read_file"}) {
		t.Errorf("IssuedCalls names = %v", names)
	}
	if out, ok := s.CallOutput(call0); !ok || out.Text != "Exit Code: 0" || out.Type != "function_call_output" {
		t.Errorf("CallOutput(%q) = %+v, %v; want the tool message", call0, out, ok)
	}
}

// TestChatNotStreaming: one chat.completion object, as a client that does
// not stream gets it; Copilot CLI's prompt follows a datetime tag.
func TestChatNotStreaming(t *testing.T) {
	s := start(t, Script{Conversations: []Conversation{{Match: "MARKER", Steps: []Step{
		Tool("bash", map[string]any{"command": "touch x"}), Text("Done it."),
	}}}})
	msgs := []any{map[string]any{"role": "system", "content": "You are the GitHub Copilot CLI."},
		map[string]any{"role": "user", "content": "<current_datetime>2026-12-01T11:21:23Z</current_datetime>\n\nplease MARKER"}}
	decode := func(resp *http.Response) (msg struct {
		Role      string  `json:"role"`
		Content   *string `json:"content"`
		ToolCalls []struct {
			ID       string `json:"id"`
			Function struct{ Name, Arguments string }
		} `json:"tool_calls"`
	}, finish string) {
		t.Helper()
		var out struct {
			Object  string `json:"object"`
			Choices []struct {
				Message      json.RawMessage `json:"message"`
				FinishReason string          `json:"finish_reason"`
			} `json:"choices"`
			Usage map[string]any `json:"usage"`
		}
		data, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK || json.Unmarshal(data, &out) != nil || out.Object != "chat.completion" ||
			len(out.Choices) != 1 || out.Usage == nil {
			t.Fatalf("reply %d %s, want a chat.completion with one choice and usage", resp.StatusCode, data)
		}
		if err := json.Unmarshal(out.Choices[0].Message, &msg); err != nil {
			t.Fatal(err)
		}
		return msg, out.Choices[0].FinishReason
	}
	msg, finish := decode(postChat(t, s, map[string]any{"model": "m", "messages": msgs, "tools": []any{fnTool("bash")}}))
	if msg.Role != "assistant" || msg.Content != nil || len(msg.ToolCalls) != 1 || msg.ToolCalls[0].Function.Name != "bash" ||
		msg.ToolCalls[0].Function.Arguments != `{"command":"touch x"}` || finish != "tool_calls" {
		t.Errorf("step 0 message %+v finish %q, want one bash call and null content", msg, finish)
	}
	msgs = append(msgs, map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{
		"id": msg.ToolCalls[0].ID, "type": "function", "function": map[string]any{"name": "bash", "arguments": "{}"}}}},
		map[string]any{"role": "tool", "tool_call_id": msg.ToolCalls[0].ID, "content": "ok"})
	msg, finish = decode(postChat(t, s, map[string]any{"model": "m", "messages": msgs, "tools": []any{fnTool("bash")}}))
	if msg.Content == nil || *msg.Content != "Done it." || len(msg.ToolCalls) != 0 || finish != "stop" {
		t.Errorf("step 1 message %+v finish %q, want the text", msg, finish)
	}
	for i, r := range s.Requests() {
		if r.Stream || r.Conversation != "MARKER" || r.Step != i {
			t.Errorf("request %d: stream %v conversation %q step %d", i, r.Stream, r.Conversation, r.Step)
		}
	}
}

func TestChatSideRequests(t *testing.T) {
	s := start(t, Script{Title: "Say hello", SideText: "the side text",
		Conversations: []Conversation{{Steps: []Step{Tool("bash", nil)}}}})
	text := func(body map[string]any) string {
		t.Helper()
		return chatStream(t, s, body).Text
	}
	// opencode's title generator: no tools, the system prompt asks.
	title := map[string]any{"model": "m", "messages": []any{
		map[string]any{"role": "system", "content": "You are a title generator. You output ONLY a thread title."},
		map[string]any{"role": "user", "content": "Generate a title for this conversation:\n"},
		map[string]any{"role": "user", "content": `"say hello"`}}}
	if got := text(title); got != "Say hello" {
		t.Errorf("title request answered %q, want the title", got)
	}
	if got := text(map[string]any{"model": "m", "messages": []any{map[string]any{"role": "user", "content": "summarize"}}}); got != "the side text" {
		t.Errorf("tool-less request answered %q, want the side text", got)
	}
	schema := map[string]any{"model": "m", "messages": []any{map[string]any{"role": "user", "content": "x"}},
		"response_format": map[string]any{"type": "json_schema", "json_schema": map[string]any{"name": "t",
			"schema": map[string]any{"properties": map[string]any{"title": map[string]any{}, "why": map[string]any{}}}}}}
	if got := text(schema); got != `{"title":"Say hello","why":"fake"}` {
		t.Errorf("json_schema request answered %q", got)
	}
	jsonObj := map[string]any{"model": "m", "messages": []any{map[string]any{"role": "user", "content": "x"}},
		"tools": []any{fnTool("bash")}, "response_format": map[string]any{"type": "json_object"}}
	if got := text(jsonObj); got != "{}" {
		t.Errorf("json_object request answered %q, want {}", got)
	}
	kinds := field(s.Requests(), func(r Request) string { return r.Kind })
	if want := []string{KindTitle, KindSide, KindTitle, KindSide}; !slices.Equal(kinds, want) {
		t.Errorf("recorded kinds %v, want %v", kinds, want)
	}
}

func TestChatErrorsAndModels(t *testing.T) {
	var seen []string
	s := start(t, Script{Model: "my-model",
		Conversations: []Conversation{{Match: "FAIL", Steps: []Step{Fail(429, "rate_limit_error", "slow down")}}},
		BeforeReply:   func(r Request) { seen = append(seen, r.Conversation) },
	})
	resp := postChat(t, s, map[string]any{"model": "m", "stream": true, "tools": []any{fnTool("bash")},
		"messages": []any{map[string]any{"role": "user", "content": "FAIL now"}}})
	data, _ := io.ReadAll(resp.Body)
	var e struct {
		Error struct{ Type, Message string }
	}
	if resp.StatusCode != 429 || json.Unmarshal(data, &e) != nil || e.Error.Type != "rate_limit_error" || e.Error.Message != "slow down" {
		t.Errorf("error step: %d %s, want 429 with the error object", resp.StatusCode, data)
	}
	req, _ := http.NewRequest(http.MethodPost, s.URL()+"/v1/chat/completions", strings.NewReader("{"))
	resp2, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp2.Body.Close()
	if resp2.StatusCode != http.StatusBadRequest {
		t.Errorf("bad JSON: status %d, want 400", resp2.StatusCode)
	}

	resp3, err := http.Get(s.URL() + "/v1/models")
	if err != nil {
		t.Fatal(err)
	}
	defer resp3.Body.Close()
	var models struct {
		Object string `json:"object"`
		Data   []struct{ ID, Object string }
	}
	if err := json.NewDecoder(resp3.Body).Decode(&models); err != nil || resp3.StatusCode != 200 || models.Object != "list" ||
		len(models.Data) != 1 || models.Data[0].ID != "my-model" || models.Data[0].Object != "model" {
		t.Errorf("GET /v1/models: %d %+v (%v), want a list of my-model", resp3.StatusCode, models, err)
	}
	kinds := field(s.Requests(), func(r Request) string { return r.Kind })
	if want := []string{KindTurn, KindTurn, KindModels}; !slices.Equal(kinds, want) {
		t.Errorf("recorded kinds %v, want %v", kinds, want)
	}
	if !slices.Equal(seen, []string{"FAIL"}) {
		t.Errorf("BeforeReply saw %v, want [FAIL]", seen)
	}
}

func TestOwnText(t *testing.T) {
	for in, want := range map[string]string{
		"go":                           "go",
		"  go ":                        "go ",
		"<a>x</a>go":                   "go",
		"<a>x</a>\n<b-c>y</b-c>\n\ngo": "go",
		"<a>x</a>":                     "",
		"<a>never closed":              "",
		"<a attr=\"1\">x</a> go":       "go",
		"<3 you":                       "<3 you",
		"< spaced":                     "< spaced",
		"":                             "",
		// OpenClaw's context blocks.
		"<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>\nx\n<<<END_OPENCLAW_INTERNAL_CONTEXT>>>": "",
		"<<<BEGIN_X>>>x<<<END_X>>> go": "go",
		"<<<BEGIN_X>>>never closed":    "",
	} {
		if got := ownText(in); got != want {
			t.Errorf("ownText(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestHalves(t *testing.T) {
	for _, s := range []string{"", "a", "ab", "héllo", "日本語", "€"} {
		h := halves(s)
		if h[0]+h[1] != s || !utf8Valid(h[0]) || !utf8Valid(h[1]) {
			t.Errorf("halves(%q) = %q", s, h)
		}
	}
}

func utf8Valid(s string) bool { return strings.ToValidUTF8(s, "\uFFFD") == s }
