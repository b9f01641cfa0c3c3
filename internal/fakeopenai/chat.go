package fakeopenai

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// chatBody is the part of a Chat Completions request the server reads.
type chatBody struct {
	Model         string `json:"model"`
	Stream        bool   `json:"stream"`
	StreamOptions struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	Messages []chatMessage `json:"messages"`
	Tools    []struct {
		Type     string `json:"type"`
		Name     string `json:"name"`
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	} `json:"tools"`
	ResponseFormat struct {
		Type       string `json:"type"`
		JSONSchema struct {
			Schema struct {
				Properties map[string]json.RawMessage `json:"properties"`
			} `json:"schema"`
		} `json:"json_schema"`
	} `json:"response_format"`
}

// chatMessage is one message of a Chat Completions request.
type chatMessage struct {
	Role      string          `json:"role"`
	Content   json.RawMessage `json:"content"`
	ToolCalls []struct {
		ID       string `json:"id"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	} `json:"tool_calls"`
	ToolCallID string `json:"tool_call_id"`
}

// chatItems reads messages into Items: an assistant message is a message
// item (when it has text, or no calls either) and a function_call per tool
// call; a tool message is a function_call_output.
func chatItems(messages []chatMessage) []Item {
	var out []Item
	for _, m := range messages {
		text := textOf(m.Content)
		switch m.Role {
		case "assistant":
			if text != "" || len(m.ToolCalls) == 0 {
				out = append(out, Item{Type: "message", Role: m.Role, Text: text})
			}
			for _, c := range m.ToolCalls {
				out = append(out, Item{Type: "function_call", Name: c.Function.Name, CallID: c.ID,
					Arguments: c.Function.Arguments})
			}
		case "tool":
			out = append(out, Item{Type: "function_call_output", CallID: m.ToolCallID, Text: text})
		default:
			out = append(out, Item{Type: "message", Role: m.Role, Text: text})
		}
	}
	return out
}

// asksForTitle reports whether a tool-less chat request is a title
// request: its system message asks for a title (opencode's title
// generator: "You are a title generator. You output ONLY a thread title.").
func asksForTitle(items []Item) bool {
	for _, it := range items {
		if it.Type == "message" && (it.Role == "system" || it.Role == "developer") &&
			strings.Contains(strings.ToLower(it.Text), "title") {
			return true
		}
	}
	return false
}

func (s *Server) chat(w http.ResponseWriter, r *http.Request, rec Request) {
	raw, err := io.ReadAll(r.Body)
	var b chatBody
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
	rec.Model, rec.Stream = b.Model, b.Stream
	for _, t := range b.Tools {
		rec.Tools = append(rec.Tools, cmp.Or(t.Function.Name, t.Name, t.Type))
	}
	rec.Input = chatItems(b.Messages)
	rec.Prompt, rec.Step = locate(rec.Input)

	var st Step
	switch {
	case b.ResponseFormat.Type == "json_schema":
		st = s.schemaAnswer(&rec, b.ResponseFormat.JSONSchema.Schema.Properties)
	case b.ResponseFormat.Type == "json_object":
		rec.Kind, rec.Conversation = KindSide, "<side>"
		st = Text("{}")
	case len(rec.Tools) == 0 && asksForTitle(rec.Input):
		rec.Kind, rec.Conversation = KindTitle, "<title>"
		st = Text(s.script.Title)
	case len(rec.Tools) == 0:
		rec.Kind, rec.Conversation = KindSide, "<side>"
		st = Text(s.script.SideText)
	default:
		rec.Kind = KindTurn
		st, rec.Conversation = s.choose(rec)
	}
	n, ok := s.reply(w, &rec, st)
	if !ok {
		return
	}
	model := cmp.Or(b.Model, s.script.Model)
	if b.Stream {
		streamChat(w, n, model, rec.Output, b.StreamOptions.IncludeUsage)
		return
	}
	writeChat(w, n, model, rec.Output)
}

// chatReply is a reply as Chat Completions carries it: the text and the
// function calls (web searches and freeform calls have no place there).
func chatReply(items []Item) (text string, calls []map[string]any) {
	for _, it := range items {
		switch it.Type {
		case "message":
			text += it.Text
		case "function_call":
			calls = append(calls, map[string]any{"id": it.CallID, "type": "function",
				"function": map[string]any{"name": it.Name, "arguments": it.Arguments}})
		}
	}
	return text, calls
}

func finishReason(calls []map[string]any) string {
	if len(calls) > 0 {
		return "tool_calls"
	}
	return "stop"
}

var chatUsage = map[string]any{"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110}

// writeChat writes the reply as one chat.completion object.
func writeChat(w http.ResponseWriter, n int, model string, items []Item) {
	text, calls := chatReply(items)
	msg := map[string]any{"role": "assistant", "content": text}
	if len(calls) > 0 {
		msg["tool_calls"] = calls
		if text == "" {
			msg["content"] = nil
		}
	}
	data, _ := marshal(map[string]any{
		"id": fmt.Sprintf("chatcmpl-fake-%06d", n), "object": "chat.completion", "created": 1735689600,
		"model": model, "choices": []any{map[string]any{"index": 0, "message": msg,
			"finish_reason": finishReason(calls)}},
		"usage": chatUsage,
	})
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(data)
}

// streamChat writes the reply as chat.completion.chunk events: the role,
// the text in two deltas (a client must join them), each call's id and
// name then its arguments, the finish reason, the usage when asked for,
// and [DONE].
func streamChat(w http.ResponseWriter, n int, model string, items []Item, usage bool) {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	send := func(data string) {
		fmt.Fprintf(w, "data: %s\n\n", data)
		if flusher != nil {
			flusher.Flush()
		}
	}
	id := fmt.Sprintf("chatcmpl-fake-%06d", n)
	chunk := func(delta map[string]any, finish any) {
		data, _ := marshal(map[string]any{"id": id, "object": "chat.completion.chunk", "created": 1735689600,
			"model": model, "choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}})
		send(string(data))
	}
	text, calls := chatReply(items)
	chunk(map[string]any{"role": "assistant", "content": ""}, nil)
	if text != "" {
		for _, part := range halves(text) {
			chunk(map[string]any{"content": part}, nil)
		}
	}
	for i, c := range calls {
		fn := c["function"].(map[string]any)
		chunk(map[string]any{"tool_calls": []any{map[string]any{"index": i, "id": c["id"], "type": "function",
			"function": map[string]any{"name": fn["name"], "arguments": ""}}}}, nil)
		chunk(map[string]any{"tool_calls": []any{map[string]any{"index": i,
			"function": map[string]any{"arguments": fn["arguments"]}}}}, nil)
	}
	chunk(map[string]any{}, finishReason(calls))
	if usage {
		data, _ := marshal(map[string]any{"id": id, "object": "chat.completion.chunk", "created": 1735689600,
			"model": model, "choices": []any{}, "usage": chatUsage})
		send(string(data))
	}
	send("[DONE]")
}
