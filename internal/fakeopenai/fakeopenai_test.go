package fakeopenai

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

// wire is an output item as streamed.
type wire struct {
	Type      string `json:"type"`
	ID        string `json:"id"`
	Role      string `json:"role"`
	Status    string `json:"status"`
	Name      string `json:"name"`
	Namespace string `json:"namespace"`
	CallID    string `json:"call_id"`
	Arguments string `json:"arguments"`
	Input     string `json:"input"`
	Content   []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	Action struct {
		Type  string `json:"type"`
		Query string `json:"query"`
	} `json:"action"`
}

// reply is a response rebuilt from its stream, the way Codex reads it:
// the items of output_item.done, text joined from the deltas.
type reply struct {
	ID     string
	Names  []string
	Items  []wire
	Deltas map[string]string // message id -> joined deltas
	Usage  map[string]any
}

func assemble(t *testing.T, events []sseEvent) reply {
	t.Helper()
	r := reply{Deltas: map[string]string{}}
	for i, e := range events {
		r.Names = append(r.Names, e.Name)
		var v struct {
			Type        string `json:"type"`
			Seq         int    `json:"sequence_number"`
			OutputIndex int    `json:"output_index"`
			ItemID      string `json:"item_id"`
			Delta       string `json:"delta"`
			Text        string `json:"text"`
			Item        wire   `json:"item"`
			Response    struct {
				ID     string         `json:"id"`
				Status string         `json:"status"`
				Output []wire         `json:"output"`
				Usage  map[string]any `json:"usage"`
			} `json:"response"`
		}
		if err := json.Unmarshal([]byte(e.Data), &v); err != nil {
			t.Fatalf("event %s: data %q: %v", e.Name, e.Data, err)
		}
		if v.Type != e.Name {
			t.Errorf("event %s carries type %q", e.Name, v.Type)
		}
		if v.Seq != i {
			t.Errorf("event %d (%s) has sequence_number %d", i, e.Name, v.Seq)
		}
		switch e.Name {
		case "response.created":
			r.ID = v.Response.ID
			if v.Response.Status != "in_progress" {
				t.Errorf("response.created status %q, want in_progress", v.Response.Status)
			}
		case "response.output_item.added":
			if v.OutputIndex != len(r.Items) {
				t.Errorf("output_item.added index %d, want %d", v.OutputIndex, len(r.Items))
			}
		case "response.output_text.delta":
			r.Deltas[v.ItemID] += v.Delta
		case "response.output_text.done":
			if r.Deltas[v.ItemID] != v.Text {
				t.Errorf("output_text.done text %q, deltas joined %q", v.Text, r.Deltas[v.ItemID])
			}
		case "response.output_item.done":
			if v.OutputIndex != len(r.Items) {
				t.Errorf("output_item.done index %d, want %d", v.OutputIndex, len(r.Items))
			}
			r.Items = append(r.Items, v.Item)
		case "response.completed":
			if v.Response.ID != r.ID || v.Response.Status != "completed" {
				t.Errorf("response.completed id %q status %q, want %q completed", v.Response.ID, v.Response.Status, r.ID)
			}
			if len(v.Response.Output) != len(r.Items) {
				t.Errorf("response.completed lists %d output items, the stream %d", len(v.Response.Output), len(r.Items))
			}
			r.Usage = v.Response.Usage
		}
	}
	if n := len(r.Names); n == 0 || r.Names[0] != "response.created" || r.Names[n-1] != "response.completed" {
		t.Errorf("events %v, want response.created first and response.completed last", r.Names)
	}
	return r
}

// msg is a message input item.
func msg(role, text string) map[string]any {
	typ := "input_text"
	if role == "assistant" {
		typ = "output_text"
	}
	return map[string]any{"type": "message", "role": role, "content": []any{map[string]any{"type": typ, "text": text}}}
}

func fcall(id string) map[string]any {
	return map[string]any{"type": "function_call", "name": "exec_command", "arguments": `{"cmd":"true"}`, "call_id": id}
}

func fout(id, out string) map[string]any {
	return map[string]any{"type": "function_call_output", "call_id": id, "output": out}
}

// codexTools is the tool list Codex 0.169.0 offers gpt-5.5 (short form).
var codexTools = []any{
	map[string]any{"type": "function", "name": "exec_command"},
	map[string]any{"type": "custom", "name": "apply_patch"},
	map[string]any{"type": "namespace", "name": "multi_agent_v1", "tools": []any{
		map[string]any{"type": "function", "name": "spawn_agent"}}},
	map[string]any{"type": "web_search"},
}

// turnInput is what Codex sends for a prompt: developer instructions, the
// environment context as a user message, the prompt, then history.
func turnInput(prompt string, history ...map[string]any) []any {
	in := []any{msg("developer", "You are Codex."), msg("user", "<environment_context>\n  <cwd>/p</cwd>\n</environment_context>"),
		msg("user", prompt)}
	for _, h := range history {
		in = append(in, h)
	}
	return in
}

// post sends a Responses request as Codex does and returns the response.
func post(t *testing.T, s *Server, body map[string]any, header map[string]string) *http.Response {
	t.Helper()
	data, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest(http.MethodPost, s.URL()+"/v1/responses", bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Authorization", "Bearer sk-fake")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

func turnBody(input []any) map[string]any {
	return map[string]any{"model": "gpt-5.5", "stream": true, "input": input, "tools": codexTools,
		"tool_choice": "auto", "parallel_tool_calls": false, "store": false}
}

// streamOf posts body and rebuilds the streamed reply.
func streamOf(t *testing.T, s *Server, body map[string]any, header map[string]string) reply {
	t.Helper()
	resp := post(t, s, body, header)
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
		data, _ := io.ReadAll(resp.Body)
		t.Fatalf("POST /v1/responses: %d %s %s", resp.StatusCode, resp.Header.Get("Content-Type"), data)
	}
	return assemble(t, readSSE(t, resp.Body))
}

func start(t *testing.T, script Script) *Server {
	t.Helper()
	s := New(script)
	s.Start()
	t.Cleanup(s.Close)
	return s
}

func TestTurnSteps(t *testing.T) {
	patch := AddFilePatch("hello.txt", "hello\n")
	s := start(t, Script{Conversations: []Conversation{
		{Match: "OTHER", Steps: []Step{Text("wrong conversation")}},
		{Match: "MARKER", Steps: []Step{
			Exec("echo hi > out.txt"),
			Patch(patch),
			Calls(Call{Name: "spawn_agent", Namespace: "multi_agent_v1", Args: map[string]any{"message": "help"}},
				Call{Name: "exec_command", Args: ExecArgs("ls")}),
			Search("codex hooks", "Searched."),
		}},
	}})
	meta := `{"session_id":"s1","thread_id":"t1","turn_id":"u1","request_kind":"turn","thread_source":"user"}`
	hdr := map[string]string{"originator": "codex_exec", "x-codex-turn-metadata": meta}
	const prompt = "Please MARKER now"

	// Step 0: exec_command with cmd.
	r0 := streamOf(t, s, turnBody(turnInput(prompt)), hdr)
	if len(r0.Items) != 1 || r0.Items[0].Type != "function_call" || r0.Items[0].Name != "exec_command" {
		t.Fatalf("step 0 items = %+v, want one exec_command function_call", r0.Items)
	}
	var args map[string]any
	if err := json.Unmarshal([]byte(r0.Items[0].Arguments), &args); err != nil || args["cmd"] != "echo hi > out.txt" {
		t.Errorf("step 0 arguments = %s (%v), want cmd %q unescaped", r0.Items[0].Arguments, err, "echo hi > out.txt")
	}
	if r0.Usage["total_tokens"] == nil {
		t.Errorf("response.completed has no usage: %v", r0.Usage)
	}
	call0 := r0.Items[0].CallID

	// Step 1: apply_patch as a custom tool call, after the exec output.
	hist := []map[string]any{fcall(call0), fout(call0, "Process exited with code 0")}
	r1 := streamOf(t, s, turnBody(turnInput(prompt, hist...)), hdr)
	if len(r1.Items) != 1 || r1.Items[0].Type != "custom_tool_call" || r1.Items[0].Name != "apply_patch" || r1.Items[0].Input != patch {
		t.Fatalf("step 1 items = %+v, want a custom_tool_call apply_patch with the patch", r1.Items)
	}

	// Step 2: two calls in one reply, one namespaced.
	hist = append(hist, map[string]any{"type": "custom_tool_call", "name": "apply_patch", "input": patch, "call_id": "c1"},
		map[string]any{"type": "custom_tool_call_output", "call_id": "c1", "output": "Success"})
	r2 := streamOf(t, s, turnBody(turnInput(prompt, hist...)), hdr)
	if len(r2.Items) != 2 || r2.Items[0].Namespace != "multi_agent_v1" || r2.Items[0].Name != "spawn_agent" ||
		r2.Items[1].Name != "exec_command" || r2.Items[0].CallID == r2.Items[1].CallID {
		t.Fatalf("step 2 items = %+v, want spawn_agent (multi_agent_v1) and exec_command with distinct call ids", r2.Items)
	}

	// Step 3: both calls answered count as one reply; a web search, then
	// the message.
	hist = append(hist, fcall("c2"), fcall("c3"), fout("c2", "ok"), fout("c3", "ok"))
	r3 := streamOf(t, s, turnBody(turnInput(prompt, hist...)), hdr)
	if len(r3.Items) != 2 || r3.Items[0].Type != "web_search_call" || r3.Items[0].Action.Query != "codex hooks" ||
		r3.Items[0].Status != "completed" || r3.Items[1].Type != "message" || r3.Items[1].Role != "assistant" {
		t.Fatalf("step 3 items = %+v, want a completed web_search_call then an assistant message", r3.Items)
	}
	if got := r3.Deltas[r3.Items[1].ID]; got != "Searched." || len(r3.Items[1].Content) != 1 || r3.Items[1].Content[0].Text != "Searched." {
		t.Errorf("step 3 message: deltas %q, content %+v, want %q", got, r3.Items[1].Content, "Searched.")
	}

	// Past the last step the text step repeats.
	hist = append(hist, map[string]any{"type": "web_search_call", "status": "completed"}, msg("assistant", "Searched."),
		fcall("c4"), fout("c4", "ok"))
	if r := streamOf(t, s, turnBody(turnInput(prompt, hist...)), hdr); len(r.Items) != 1 || r.Items[0].Content[0].Text != "Searched." {
		t.Errorf("past the last step: items %+v, want the last text again", r.Items)
	}

	reqs := s.OfKind(KindTurn)
	if len(reqs) != 5 {
		t.Fatalf("recorded %d turn requests, want 5", len(reqs))
	}
	for i, r := range reqs {
		if r.Prompt != prompt || r.Step != i || r.Conversation != "MARKER" {
			t.Errorf("request %d: prompt %q step %d conversation %q, want %q %d MARKER", i, r.Prompt, r.Step, r.Conversation, prompt, i)
		}
		if r.Originator != "codex_exec" || r.Metadata.SessionID != "s1" || r.Metadata.TurnID != "u1" || r.Subagent {
			t.Errorf("request %d: originator %q metadata %+v subagent %v", i, r.Originator, r.Metadata, r.Subagent)
		}
		if r.Authorization != "sk-fake" || r.Header.Get("Authorization") != "" {
			t.Errorf("request %d: authorization %q, header %q; want the key apart and not in Header", i, r.Authorization, r.Header.Get("Authorization"))
		}
		if r.Model != "gpt-5.5" || !r.Stream || r.Status != http.StatusOK {
			t.Errorf("request %d: model %q stream %v status %d", i, r.Model, r.Stream, r.Status)
		}
	}
	if want := []string{"exec_command", "apply_patch", "multi_agent_v1", "multi_agent_v1.spawn_agent", "web_search"}; !slices.Equal(reqs[0].Tools, want) {
		t.Errorf("tools = %v, want %v", reqs[0].Tools, want)
	}

	calls := s.IssuedCalls("MARKER")
	if names := field(calls, func(it Item) string { return it.Name }); !slices.Equal(names, []string{"exec_command", "apply_patch", "spawn_agent", "exec_command"}) {
		t.Errorf("IssuedCalls names = %v", names)
	}
	if calls[0].CallID != call0 {
		t.Errorf("IssuedCalls[0] call id %q, want the streamed %q", calls[0].CallID, call0)
	}
	if out, ok := s.CallOutput(call0); !ok || out.Text != "Process exited with code 0" || out.Type != "function_call_output" {
		t.Errorf("CallOutput(%q) = %+v, %v; want the exec output", call0, out, ok)
	}
	if _, ok := s.CallOutput("nope"); ok {
		t.Errorf("CallOutput(nope) found an output")
	}
}

func field[T any](xs []T, f func(T) string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = f(x)
	}
	return out
}

func TestEscalatedExec(t *testing.T) {
	st := ExecEscalated("touch /x", "Need to write /x")
	if len(st.Calls) != 1 || st.Calls[0].Name != "exec_command" {
		t.Fatalf("ExecEscalated = %+v, want one exec_command call", st)
	}
	got := st.Calls[0].Args.(map[string]any)
	want := map[string]any{"cmd": "touch /x", "yield_time_ms": 10000,
		"sandbox_permissions": "require_escalated", "justification": "Need to write /x"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ExecEscalated args = %v, want %v", got, want)
	}
	if plain := Exec("ls").Calls[0].Args.(map[string]any); plain["sandbox_permissions"] != nil {
		t.Errorf("Exec args = %v, want no sandbox_permissions", plain)
	}
}

func TestAddFilePatch(t *testing.T) {
	for _, tc := range []struct{ path, content, want string }{
		{"a.txt", "hi\n", "*** Begin Patch\n*** Add File: a.txt\n+hi\n*** End Patch\n"},
		{"a.txt", "hi", "*** Begin Patch\n*** Add File: a.txt\n+hi\n*** End Patch\n"},
		{"/abs/b.txt", "one\ntwo\n", "*** Begin Patch\n*** Add File: /abs/b.txt\n+one\n+two\n*** End Patch\n"},
	} {
		if got := AddFilePatch(tc.path, tc.content); got != tc.want {
			t.Errorf("AddFilePatch(%q, %q) = %q, want %q", tc.path, tc.content, got, tc.want)
		}
	}
}

func TestLocate(t *testing.T) {
	u := func(s string) Item { return Item{Type: "message", Role: "user", Text: s} }
	a := func(s string) Item { return Item{Type: "message", Role: "assistant", Text: s} }
	fc := Item{Type: "function_call", CallID: "c"}
	fo := Item{Type: "function_call_output", CallID: "c"}
	ctc := Item{Type: "custom_tool_call", CallID: "p"}
	cto := Item{Type: "custom_tool_call_output", CallID: "p"}
	ws := Item{Type: "web_search_call"}
	dev := Item{Type: "message", Role: "developer", Text: "instructions"}
	for _, tc := range []struct {
		name   string
		items  []Item
		prompt string
		step   int
	}{
		{"none", []Item{dev, u("<environment_context>x</environment_context>")}, "", 0},
		{"fresh prompt", []Item{dev, u("<environment_context>"), u("go")}, "go", 0},
		{"one call answered", []Item{u("go"), fc, fo}, "go", 1},
		{"two replies", []Item{u("go"), fc, fo, ctc, cto}, "go", 2},
		{"parallel calls are one reply", []Item{u("go"), fc, fc, fo, fo}, "go", 1},
		{"text with a call is one reply", []Item{u("go"), a("looking"), fc, fo}, "go", 1},
		{"search then text is one reply", []Item{u("go"), ws, a("found")}, "go", 1},
		{"a new prompt starts over", []Item{u("first"), fc, fo, a("done"), u("second")}, "second", 0},
		{"codex notices are no prompt", []Item{u("go"), fc, fo, u("<turn_aborted>\nx</turn_aborted>"), fc, fo}, "go", 2},
		{"leading space before <", []Item{u("go"), u("  \n<subagent_notification>"), fc, fo}, "go", 1},
		{"copilot's datetime before the prompt", []Item{u("<current_datetime>2026-12-01</current_datetime>\n\ngo")},
			"<current_datetime>2026-12-01</current_datetime>\n\ngo", 0},
		{"qwen's reminders before the prompt", []Item{u("<system-reminder>\nskills\n</system-reminder>\n<system-reminder>date</system-reminder>\ngo"), fc, fo},
			"<system-reminder>\nskills\n</system-reminder>\n<system-reminder>date</system-reminder>\ngo", 1},
		{"a reminder alone is no prompt", []Item{u("go"), fc, fo, u("<system-reminder>todo</system-reminder>"), fc, fo}, "go", 2},
	} {
		prompt, step := locate(tc.items)
		if prompt != tc.prompt || step != tc.step {
			t.Errorf("%s: locate(%v) = %q, %d, want %q, %d", tc.name, tc.items, prompt, step, tc.prompt, tc.step)
		}
	}
}

func TestSideRequests(t *testing.T) {
	s := start(t, Script{Title: "Write hi to file", SideText: "the summary",
		Conversations: []Conversation{{Steps: []Step{Exec("true")}}}})

	// The TUI's thread-title request: no tools, a json_schema format.
	title := map[string]any{"model": "gpt-5.5", "stream": true, "input": []any{msg("user", "write hi")},
		"text": map[string]any{"format": map[string]any{"type": "json_schema", "name": "title", "strict": true,
			"schema": map[string]any{"type": "object", "properties": map[string]any{"title": map[string]any{"type": "string"}}}}}}
	r := streamOf(t, s, title, map[string]string{"x-codex-turn-metadata": `{"thread_source":"thread_title"}`})
	if len(r.Items) != 1 || r.Items[0].Type != "message" {
		t.Fatalf("title reply items = %+v, want one message", r.Items)
	}
	var got map[string]string
	if err := json.Unmarshal([]byte(r.Items[0].Content[0].Text), &got); err != nil || got["title"] != "Write hi to file" {
		t.Errorf("title reply text %q (%v), want {\"title\":\"Write hi to file\"}", r.Items[0].Content[0].Text, err)
	}

	// Another json_schema gets "fake" for every property.
	other := map[string]any{"model": "gpt-5.5", "input": []any{msg("user", "x")},
		"text": map[string]any{"format": map[string]any{"type": "json_schema",
			"schema": map[string]any{"properties": map[string]any{"verdict": map[string]any{}}}}}}
	r = streamOf(t, s, other, nil)
	if text := r.Items[0].Content[0].Text; text != `{"verdict":"fake"}` {
		t.Errorf("json_schema reply %q, want {\"verdict\":\"fake\"}", text)
	}

	// Compaction carries tools but is a side request.
	comp := turnBody(turnInput("go"))
	r = streamOf(t, s, comp, map[string]string{"x-codex-turn-metadata": `{"request_kind":"compaction"}`})
	if len(r.Items) != 1 || r.Items[0].Content[0].Text != "the summary" {
		t.Errorf("compaction reply = %+v, want the side text", r.Items)
	}
	// A request without tools.
	r = streamOf(t, s, map[string]any{"model": "gpt-5.5", "input": []any{msg("user", "summarize")}}, nil)
	if len(r.Items) != 1 || r.Items[0].Content[0].Text != "the summary" {
		t.Errorf("tool-less reply = %+v, want the side text", r.Items)
	}

	kinds := field(s.Requests(), func(r Request) string { return r.Kind })
	if want := []string{KindTitle, KindSide, KindCompaction, KindSide}; !slices.Equal(kinds, want) {
		t.Errorf("recorded kinds %v, want %v", kinds, want)
	}
	if n := len(s.IssuedCalls("")); n != 0 {
		t.Errorf("side requests issued %d calls, want none", n)
	}
}

func TestSubagentAndDefault(t *testing.T) {
	s := start(t, Script{Conversations: []Conversation{{Match: "MAIN", Steps: []Step{Text("main")}}}})
	r := streamOf(t, s, turnBody(turnInput("write sub to sub.txt")), map[string]string{"x-openai-subagent": "collab_spawn",
		"x-codex-turn-metadata": `{"thread_source":"subagent","agent_name":"/root/helper"}`})
	if len(r.Items) != 1 || r.Items[0].Content[0].Text != "OK (fake server default reply)." {
		t.Errorf("unmatched turn reply = %+v, want the default text", r.Items)
	}
	rec := s.Requests()[0]
	if !rec.Subagent || rec.Conversation != "<default>" || rec.Metadata.AgentName != "/root/helper" {
		t.Errorf("recorded %+v, want a sub-agent request answered by <default>", rec)
	}
}

func TestErrorsAndBeforeReply(t *testing.T) {
	var seen []string
	s := start(t, Script{
		Conversations: []Conversation{
			{Match: "FAIL", Steps: []Step{Fail(500, "server_error", "fake upstream failure")}},
			{Match: "EMPTY"},
		},
		BeforeReply: func(r Request) { seen = append(seen, r.Conversation) },
	})
	resp := post(t, s, turnBody(turnInput("FAIL please")), nil)
	data, _ := io.ReadAll(resp.Body)
	var e struct {
		Error struct {
			Type, Message string
		}
	}
	if resp.StatusCode != 500 || json.Unmarshal(data, &e) != nil || e.Error.Type != "server_error" || e.Error.Message != "fake upstream failure" {
		t.Errorf("error step: %d %s, want 500 with the error object", resp.StatusCode, data)
	}
	// A conversation without steps falls through to the default.
	if r := streamOf(t, s, turnBody(turnInput("EMPTY")), nil); r.Items[0].Content[0].Text != "OK (fake server default reply)." {
		t.Errorf("empty conversation reply = %+v", r.Items)
	}
	// A body that is not JSON.
	req, _ := http.NewRequest(http.MethodPost, s.URL()+"/v1/responses", strings.NewReader("{"))
	resp2, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp2.Body.Close()
	if resp2.StatusCode != http.StatusBadRequest {
		t.Errorf("bad JSON: status %d, want 400", resp2.StatusCode)
	}
	recs := s.Requests()
	if len(recs) != 3 || recs[0].Status != 500 || recs[0].Error == nil || recs[0].Output != nil || recs[2].Status != 400 {
		t.Errorf("recorded %+v", recs)
	}
	if !slices.Equal(seen, []string{"FAIL", "<default>"}) {
		t.Errorf("BeforeReply saw %v, want [FAIL <default>]", seen)
	}
}

func TestOtherAndOutbound(t *testing.T) {
	s := start(t, Script{})
	resp, err := http.Get(s.URL() + "/v1/files")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("GET /v1/files: %d, want 404", resp.StatusCode)
	}

	// A client with the server as its proxy: a plain request arrives in
	// absolute form, an HTTPS one as CONNECT; both are refused.
	proxy, _ := url.Parse(s.URL())
	c := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(proxy)}}
	resp, err = c.Get("http://chatgpt.invalid/backend-api/x")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("proxied GET: %d, want 403", resp.StatusCode)
	}
	_, err = c.Get("https://api.openai.invalid/v1/responses")
	if err == nil || !strings.Contains(err.Error(), "Forbidden") {
		t.Errorf("proxied HTTPS GET: %v, want the CONNECT refused", err)
	}

	recs := s.Requests()
	want := []struct{ method, path, kind string }{
		{"GET", "/v1/files", KindOther},
		{"GET", "http://chatgpt.invalid/backend-api/x", KindOutbound},
		{"CONNECT", "api.openai.invalid:443", KindOutbound},
	}
	if len(recs) != len(want) {
		t.Fatalf("recorded %d requests, want %d: %+v", len(recs), len(want), recs)
	}
	for i, w := range want {
		if recs[i].Method != w.method || recs[i].Path != w.path || recs[i].Kind != w.kind {
			t.Errorf("request %d = %s %s (%s), want %s %s (%s)", i, recs[i].Method, recs[i].Path, recs[i].Kind, w.method, w.path, w.kind)
		}
	}
	if n := len(s.OfKind(KindOutbound)); n != 2 {
		t.Errorf("OfKind(outbound) = %d requests, want 2", n)
	}
}

func TestCloseStopsServing(t *testing.T) {
	s := New(Script{})
	s.Start()
	base := s.URL()
	s.Close()
	_, err := http.Get(base + "/v1/responses")
	var ue *url.Error
	if err == nil || !errors.As(err, &ue) {
		t.Errorf("GET after Close: %v, want a connection error", err)
	}
}
