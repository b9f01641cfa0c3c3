package fakeanthropic

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"
)

// sseEvent is one server-sent event.
type sseEvent struct {
	Name string
	Data string
}

// readSSE parses a text/event-stream body.
func readSSE(t *testing.T, r io.Reader) []sseEvent {
	t.Helper()
	var out []sseEvent
	var cur sseEvent
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if cur.Name != "" || cur.Data != "" {
				out = append(out, cur)
			}
			cur = sseEvent{}
		case strings.HasPrefix(line, "event: "):
			cur.Name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			cur.Data += strings.TrimPrefix(line, "data: ")
		default:
			t.Fatalf("unexpected SSE line %q", line)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("read SSE: %v", err)
	}
	if cur.Name != "" || cur.Data != "" {
		t.Fatalf("SSE stream ended inside an event: %+v", cur)
	}
	return out
}

// assembled is a message rebuilt from its stream, the way an SDK does it.
type assembled struct {
	ID         string
	StopReason string
	Blocks     []Block
	Names      []string
}

func assemble(t *testing.T, events []sseEvent) assembled {
	t.Helper()
	var a assembled
	partial := map[int]*strings.Builder{}
	for _, e := range events {
		a.Names = append(a.Names, e.Name)
		var v struct {
			Type    string `json:"type"`
			Index   int    `json:"index"`
			Message struct {
				ID string `json:"id"`
			} `json:"message"`
			ContentBlock Block `json:"content_block"`
			Delta        struct {
				Type        string `json:"type"`
				Text        string `json:"text"`
				PartialJSON string `json:"partial_json"`
				StopReason  string `json:"stop_reason"`
			} `json:"delta"`
		}
		if err := json.Unmarshal([]byte(e.Data), &v); err != nil {
			t.Fatalf("event %s: data %q: %v", e.Name, e.Data, err)
		}
		if v.Type != e.Name {
			t.Errorf("event %s carries type %q", e.Name, v.Type)
		}
		switch e.Name {
		case "message_start":
			a.ID = v.Message.ID
		case "content_block_start":
			if v.Index != len(a.Blocks) {
				t.Fatalf("content_block_start index %d, want %d", v.Index, len(a.Blocks))
			}
			b := v.ContentBlock
			b.Input = nil
			a.Blocks = append(a.Blocks, b)
			partial[v.Index] = &strings.Builder{}
		case "content_block_delta":
			switch v.Delta.Type {
			case "text_delta":
				a.Blocks[v.Index].Text += v.Delta.Text
			case "input_json_delta":
				partial[v.Index].WriteString(v.Delta.PartialJSON)
			default:
				t.Errorf("unknown delta type %q", v.Delta.Type)
			}
		case "content_block_stop":
			if a.Blocks[v.Index].Type == "tool_use" {
				a.Blocks[v.Index].Input = json.RawMessage(partial[v.Index].String())
			}
		case "message_delta":
			a.StopReason = v.Delta.StopReason
		}
	}
	return a
}

// conversation builds a Messages request body: a prompt, then for each
// earlier step an assistant tool call and its tool result.
func conversation(prompt string, steps int, tools bool, stream bool) []byte {
	msgs := []any{map[string]any{"role": "user", "content": []any{
		map[string]any{"type": "text", "text": "<system-reminder>ctx</system-reminder>"},
		map[string]any{"type": "text", "text": prompt},
	}}}
	for i := 0; i < steps; i++ {
		msgs = append(msgs,
			map[string]any{"role": "assistant", "content": []any{
				map[string]any{"type": "tool_use", "id": "toolu_x", "name": "Bash", "input": map[string]any{"command": "true"}}}},
			map[string]any{"role": "user", "content": []any{
				map[string]any{"type": "tool_result", "tool_use_id": "toolu_x", "content": "ok"},
				map[string]any{"type": "text", "text": "<system-reminder>later</system-reminder>"}}})
	}
	body := map[string]any{"model": "claude-test", "max_tokens": 100, "stream": stream,
		"system": []any{map[string]any{"type": "text", "text": "You are Claude Code."}}, "messages": msgs}
	if tools {
		body["tools"] = []any{map[string]any{"name": "Bash"}, map[string]any{"name": "Write"}}
	}
	data, _ := json.Marshal(body)
	return data
}

func post(t *testing.T, url string, body []byte) *http.Response {
	t.Helper()
	resp, err := http.Post(url, "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatalf("POST %s: %v", url, err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

var lifecycle = Script{Conversations: []Conversation{
	{Match: "TITLE_ME", Side: true, Steps: []Step{Text("Side title")}},
	{Match: "MARKER", Steps: []Step{
		Tool("Bash", map[string]any{"command": "echo hello > out.txt"}),
		{Text: "Writing two files.", ToolUses: []ToolUse{
			{Name: "Write", Input: map[string]any{"file_path": "/p/a.txt", "content": "a"}},
			{Name: "Read", Input: map[string]any{"file_path": "/p/a.txt"}},
		}},
		Fail(529, "overloaded_error", "busy"),
	}},
	{Match: "ENDS", Steps: []Step{Text("All done.")}},
}}

func TestStreamingSteps(t *testing.T) {
	s := New(lifecycle)
	s.Start()
	defer s.Close()

	tests := []struct {
		step       int
		wantStop   string
		wantBlocks []Block // IDs are only checked for being set
	}{
		{0, "tool_use", []Block{{Type: "tool_use", Name: "Bash", Input: json.RawMessage(`{"command":"echo hello > out.txt"}`)}}},
		{1, "tool_use", []Block{
			{Type: "text", Text: "Writing two files."},
			{Type: "tool_use", Name: "Write", Input: json.RawMessage(`{"content":"a","file_path":"/p/a.txt"}`)},
			{Type: "tool_use", Name: "Read", Input: json.RawMessage(`{"file_path":"/p/a.txt"}`)},
		}},
	}
	for _, tt := range tests {
		resp := post(t, s.URL()+"/v1/messages?beta=true", conversation("Please MARKER now", tt.step, true, true))
		if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
			t.Fatalf("step %d: status %d, content type %q", tt.step, resp.StatusCode, resp.Header.Get("Content-Type"))
		}
		a := assemble(t, readSSE(t, resp.Body))
		if a.StopReason != tt.wantStop {
			t.Errorf("step %d: stop_reason = %q, want %q", tt.step, a.StopReason, tt.wantStop)
		}
		if a.Names[0] != "message_start" || a.Names[len(a.Names)-2] != "message_delta" || a.Names[len(a.Names)-1] != "message_stop" {
			t.Errorf("step %d: event order %v", tt.step, a.Names)
		}
		if len(a.Blocks) != len(tt.wantBlocks) {
			t.Fatalf("step %d: blocks = %+v, want %+v", tt.step, a.Blocks, tt.wantBlocks)
		}
		for i, want := range tt.wantBlocks {
			got := a.Blocks[i]
			if want.Type == "tool_use" && !strings.HasPrefix(got.ID, "toolu_") {
				t.Errorf("step %d block %d: id %q", tt.step, i, got.ID)
			}
			got.ID = ""
			if got.Type != want.Type || got.Text != want.Text || got.Name != want.Name || string(got.Input) != string(want.Input) {
				t.Errorf("step %d block %d = %+v (input %s), want %+v (input %s)", tt.step, i, got, got.Input, want, want.Input)
			}
		}
	}

	// The recorded requests say what was asked and what was answered.
	reqs := s.MessageRequests()
	if len(reqs) != 2 {
		t.Fatalf("recorded %d message requests, want 2", len(reqs))
	}
	r := reqs[1]
	if r.Query != "beta=true" || !r.Stream || r.Model != "claude-test" ||
		r.Prompt != "<system-reminder>ctx</system-reminder>\nPlease MARKER now" ||
		r.Step != 1 || r.Conversation != "MARKER" || r.StopReason != "tool_use" || r.System != "You are Claude Code." ||
		strings.Join(r.Tools, ",") != "Bash,Write" {
		t.Errorf("recorded request = %+v", r)
	}
	if len(r.Blocks) != 3 || r.Blocks[1].Name != "Write" {
		t.Errorf("recorded reply blocks = %+v", r.Blocks)
	}
	if got := r.Messages[2].Blocks[0]; got.Type != "tool_result" || got.ID != "toolu_x" || got.Text != "ok" {
		t.Errorf("recorded tool_result = %+v", got)
	}
}

func TestNonStreamingAndErrors(t *testing.T) {
	s := New(lifecycle)
	s.Start()
	defer s.Close()

	// Step 2 of MARKER is an HTTP error.
	resp := post(t, s.URL()+"/v1/messages", conversation("MARKER", 2, true, true))
	var e struct {
		Type  string `json:"type"`
		Error struct{ Type, Message string }
	}
	if err := json.NewDecoder(resp.Body).Decode(&e); err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 529 || e.Type != "error" || e.Error.Type != "overloaded_error" || e.Error.Message != "busy" {
		t.Errorf("error step: %d %+v", resp.StatusCode, e)
	}
	if resp.Header.Get("x-should-retry") != "false" {
		t.Errorf("error step: x-should-retry = %q", resp.Header.Get("x-should-retry"))
	}

	// Past the last step: a final error step is not repeated.
	resp = post(t, s.URL()+"/v1/messages", conversation("MARKER", 3, true, false))
	var m struct {
		Type       string  `json:"type"`
		Role       string  `json:"role"`
		Content    []Block `json:"content"`
		StopReason string  `json:"stop_reason"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&m); err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 || m.Type != "message" || m.Role != "assistant" || m.StopReason != "end_turn" ||
		len(m.Content) != 1 || m.Content[0].Text != "Done." {
		t.Errorf("past the last step: %d %+v", resp.StatusCode, m)
	}

	// A final text step is repeated.
	resp = post(t, s.URL()+"/v1/messages", conversation("ENDS", 4, true, false))
	m.Content = nil
	if err := json.NewDecoder(resp.Body).Decode(&m); err != nil {
		t.Fatal(err)
	}
	if len(m.Content) != 1 || m.Content[0].Text != "All done." {
		t.Errorf("repeated text step: %+v", m)
	}
}

func TestSideAndDefaultReplies(t *testing.T) {
	s := New(lifecycle)
	s.Start()
	defer s.Close()

	tests := []struct {
		prompt string
		tools  bool
		want   string
		conv   string
	}{
		{"Please MARKER now", false, DefaultSideText, "<side>"}, // no tools: never the main conversation
		{"TITLE_ME please", false, "Side title", "TITLE_ME"},
		{"TITLE_ME please", true, "OK (fake server default reply).", "<default>"},
		{"nothing matches", true, "OK (fake server default reply).", "<default>"},
	}
	for _, tt := range tests {
		resp := post(t, s.URL()+"/v1/messages?beta=true", conversation(tt.prompt, 0, tt.tools, true))
		a := assemble(t, readSSE(t, resp.Body))
		if len(a.Blocks) != 1 || a.Blocks[0].Text != tt.want || a.StopReason != "end_turn" {
			t.Errorf("prompt %q tools %v: %+v, want text %q", tt.prompt, tt.tools, a, tt.want)
		}
	}
	reqs := s.MessageRequests()
	for i, tt := range tests {
		if reqs[i].Conversation != tt.conv {
			t.Errorf("request %d: conversation = %q, want %q", i, reqs[i].Conversation, tt.conv)
		}
	}
}

func TestPromptAfterInterrupt(t *testing.T) {
	// A prompt typed after an interrupted tool call arrives inside the
	// tool_result message; it starts a new turn (step 0).
	msgs := []Message{
		{Role: "user", Blocks: []MessageBlock{{Type: "text", Text: "first MARKER"}}},
		{Role: "assistant", Blocks: []MessageBlock{{Type: "tool_use"}}},
		{Role: "user", Blocks: []MessageBlock{
			{Type: "tool_result"},
			{Type: "text", Text: "[Request interrupted by user for tool use]"},
			{Type: "text", Text: "now ENDS"},
		}},
	}
	if p, step := locate(msgs); p != "now ENDS" || step != 0 {
		t.Errorf("locate = %q, %d, want %q, 0", p, step, "now ENDS")
	}
	msgs[2].Blocks = msgs[2].Blocks[:2]
	if p, step := locate(msgs); p != "first MARKER" || step != 1 {
		t.Errorf("locate = %q, %d, want %q, 1", p, step, "first MARKER")
	}
}

func TestOtherEndpoints(t *testing.T) {
	s := New(Script{})
	s.Start()
	defer s.Close()

	resp := post(t, s.URL()+"/v1/messages/count_tokens?beta=true", []byte(`{"messages":[]}`))
	var c struct {
		InputTokens int `json:"input_tokens"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&c); err != nil || c.InputTokens == 0 {
		t.Errorf("count_tokens: %v %+v", err, c)
	}

	get := func(path string) (int, map[string]any) {
		resp, err := http.Get(s.URL() + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var v map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&v)
		return resp.StatusCode, v
	}
	if code, v := get("/v1/models?beta=true"); code != 200 || len(v["data"].([]any)) != 1 {
		t.Errorf("GET /v1/models = %d %v", code, v)
	}
	if code, v := get("/v1/models/claude-x"); code != 200 || v["id"] != DefaultModel {
		t.Errorf("GET /v1/models/claude-x = %d %v", code, v)
	}
	if code, _ := get("/v1/other"); code != 404 {
		t.Errorf("GET /v1/other = %d, want 404", code)
	}
	resp = post(t, s.URL()+"/v1/messages", []byte(`not json`))
	if resp.StatusCode != 400 {
		t.Errorf("bad body: status %d, want 400", resp.StatusCode)
	}

	var paths []string
	for _, r := range s.Requests() {
		paths = append(paths, r.Method+" "+r.Path)
	}
	want := "POST /v1/messages/count_tokens,GET /v1/models,GET /v1/models/claude-x,GET /v1/other,POST /v1/messages"
	if got := strings.Join(paths, ","); got != want {
		t.Errorf("recorded %s, want %s", got, want)
	}
}

func TestBeforeReply(t *testing.T) {
	var seen []int
	s := New(Script{
		Conversations: []Conversation{{Match: "X", Steps: []Step{Tool("Bash", nil), Text("done")}}},
		BeforeReply:   func(r Request) { seen = append(seen, r.Step) },
	})
	s.Start()
	defer s.Close()
	for step := 0; step < 2; step++ {
		resp := post(t, s.URL()+"/v1/messages", conversation("X", step, true, true))
		a := assemble(t, readSSE(t, resp.Body))
		if step == 0 && string(a.Blocks[0].Input) != "{}" {
			t.Errorf("nil input streamed as %s, want {}", a.Blocks[0].Input)
		}
	}
	if len(seen) != 2 || seen[0] != 0 || seen[1] != 1 {
		t.Errorf("BeforeReply saw steps %v, want [0 1]", seen)
	}
}

// TestFailureRateLimited checks the 429 a rate-limited request gets: the
// real API's error body and retry headers, to every retry of the request
// (a retry resends the same step), also when it asked for a stream.
func TestFailureRateLimited(t *testing.T) {
	const msg = "Number of requests has exceeded your per-minute rate limit"
	s := New(Script{Conversations: []Conversation{
		{Match: "LIMITED", Steps: []Step{RateLimited(msg, 1500*time.Millisecond)}},
	}})
	s.Start()
	defer s.Close()

	for i, stream := range []bool{true, false, true} {
		before := time.Now().UTC().Truncate(time.Second)
		resp := post(t, s.URL()+"/v1/messages?beta=true", conversation("please LIMITED", 0, true, stream))
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		want := `{"type":"error","error":{"message":"` + msg + `","type":"rate_limit_error"}}`
		if resp.StatusCode != http.StatusTooManyRequests || !jsonSame(t, string(body), want) {
			t.Errorf("request %d: %d %s, want 429 %s", i, resp.StatusCode, body, want)
		}
		h := resp.Header
		if ct := h.Get("Content-Type"); ct != "application/json" {
			t.Errorf("request %d: Content-Type %q, want application/json", i, ct)
		}
		// 1.5 s is sent as 2: retry-after counts whole seconds.
		if h.Get("retry-after") != "2" || h.Get("x-should-retry") != "true" ||
			h.Get("anthropic-ratelimit-requests-limit") != "50" || h.Get("anthropic-ratelimit-requests-remaining") != "0" {
			t.Errorf("request %d: retry headers %v, want retry-after 2, x-should-retry true and a spent limit of 50", i, h)
		}
		reset, err := time.Parse(time.RFC3339, h.Get("anthropic-ratelimit-requests-reset"))
		if err != nil || reset.Before(before.Add(2*time.Second)) || reset.After(time.Now().Add(3*time.Second)) {
			t.Errorf("request %d: anthropic-ratelimit-requests-reset %q (%v), want about 2 s from now", i, h.Get("anthropic-ratelimit-requests-reset"), err)
		}
	}
	reqs := s.MessageRequests()
	if len(reqs) != 3 {
		t.Fatalf("recorded %d message requests, want 3", len(reqs))
	}
	for i, r := range reqs {
		if r.Status != 429 || r.Error == nil || r.Error.Type != "rate_limit_error" || r.Error.Message != msg ||
			r.Error.RetryAfter != 1500*time.Millisecond || r.Conversation != "LIMITED" {
			t.Errorf("recorded request %d: status %d, error %+v, conversation %q", i, r.Status, r.Error, r.Conversation)
		}
	}
}

// TestFailureRetryHeaders checks the retry headers on their own: none to
// wait for without a delay, else whole seconds rounded up and the reset
// that many seconds after now.
func TestFailureRetryHeaders(t *testing.T) {
	now := time.Date(2026, 12, 2, 10, 0, 0, 0, time.FixedZone("CET", 3600))
	tests := []struct {
		after time.Duration
		want  http.Header
	}{
		{0, http.Header{"X-Should-Retry": {"false"}}},
		{-time.Second, http.Header{"X-Should-Retry": {"false"}}},
		{time.Second, http.Header{"X-Should-Retry": {"true"}, "Retry-After": {"1"},
			"Anthropic-Ratelimit-Requests-Limit": {"50"}, "Anthropic-Ratelimit-Requests-Remaining": {"0"},
			"Anthropic-Ratelimit-Requests-Reset": {"2026-12-02T09:00:01Z"}}},
		{time.Millisecond, http.Header{"X-Should-Retry": {"true"}, "Retry-After": {"1"},
			"Anthropic-Ratelimit-Requests-Limit": {"50"}, "Anthropic-Ratelimit-Requests-Remaining": {"0"},
			"Anthropic-Ratelimit-Requests-Reset": {"2026-12-02T09:00:01Z"}}},
		{61 * time.Second, http.Header{"X-Should-Retry": {"true"}, "Retry-After": {"61"},
			"Anthropic-Ratelimit-Requests-Limit": {"50"}, "Anthropic-Ratelimit-Requests-Remaining": {"0"},
			"Anthropic-Ratelimit-Requests-Reset": {"2026-12-02T09:01:01Z"}}},
	}
	for _, tt := range tests {
		h := http.Header{}
		retryHeaders(h, tt.after, now)
		if !reflect.DeepEqual(h, tt.want) {
			t.Errorf("retryHeaders(%v) = %v, want %v", tt.after, h, tt.want)
		}
	}
}

// jsonSame reports whether two JSON texts hold the same value.
func jsonSame(t *testing.T, a, b string) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal([]byte(a), &x); err != nil {
		return false
	}
	if err := json.Unmarshal([]byte(b), &y); err != nil {
		t.Fatal(err)
	}
	return reflect.DeepEqual(x, y)
}

// withReminder is conversation's body with text added to the first user
// message, as Claude Code adds its reminders.
func withReminder(t *testing.T, body []byte, text string) []byte {
	t.Helper()
	var b map[string]any
	if err := json.Unmarshal(body, &b); err != nil {
		t.Fatal(err)
	}
	first := b["messages"].([]any)[0].(map[string]any)
	first["content"] = append(first["content"].([]any), map[string]any{"type": "text", "text": text})
	data, err := json.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestQuestionAndPlanSteps checks the steps that drive Claude Code's
// question and plan tools: AskUserQuestion's input in the tool's schema,
// the plan written to the plan file the request names (the latest, when
// it names one twice), and ExitPlanMode.
func TestQuestionAndPlanSteps(t *testing.T) {
	s := New(Script{Conversations: []Conversation{
		{Match: "ASK", Steps: []Step{AskUserQuestion(Question{Question: "Which?", Header: "Pick",
			Options: []Option{{Label: "x", Description: "the x"}, {Label: "y", Description: "the y"}}, MultiSelect: true})}},
		{Match: "PLAN", Steps: []Step{WritePlan("# Plan\n"), ExitPlanMode()}},
	}})
	s.Start()
	defer s.Close()
	reply := func(body []byte) Block {
		t.Helper()
		a := assemble(t, readSSE(t, post(t, s.URL()+"/v1/messages", body).Body))
		if len(a.Blocks) != 1 {
			t.Fatalf("reply blocks = %+v, want one", a.Blocks)
		}
		return a.Blocks[0]
	}

	b := reply(conversation("ASK", 0, true, true))
	want := `{"questions":[{"question":"Which?","header":"Pick","options":[{"label":"x","description":"the x"},{"label":"y","description":"the y"}],"multiSelect":true}]}`
	if b.Name != "AskUserQuestion" || string(b.Input) != want {
		t.Errorf("AskUserQuestion step = %s %s, want AskUserQuestion %s", b.Name, b.Input, want)
	}

	const reminder = "## Plan File Info:\nNo plan file exists yet. You should create your plan at /h/.claude/plans/a-b.md using the Write tool.\n"
	b = reply(withReminder(t, conversation("PLAN", 0, true, true), reminder+
		"Later: A plan file already exists at /h/.claude/plans/c-d.md. You can read it."))
	if want := `{"content":"# Plan\n","file_path":"/h/.claude/plans/c-d.md"}`; b.Name != "Write" || string(b.Input) != want {
		t.Errorf("WritePlan step = %s %s, want Write %s", b.Name, b.Input, want)
	}
	if got := s.MessageRequests()[1].PlanFile(); got != "/h/.claude/plans/c-d.md" {
		t.Errorf("PlanFile() = %q, want the latest plan file named", got)
	}
	if b = reply(conversation("PLAN", 0, true, true)); b.Type != "text" || !strings.Contains(b.Text, "names no plan file") {
		t.Errorf("WritePlan without a plan file named = %+v, want a text saying so", b)
	}
	if b = reply(withReminder(t, conversation("PLAN", 1, true, true), reminder)); b.Name != "ExitPlanMode" || string(b.Input) != "{}" {
		t.Errorf("ExitPlanMode step = %s %s, want ExitPlanMode {}", b.Name, b.Input)
	}
}
