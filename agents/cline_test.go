package agents

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestDecodeClineRecorded decodes the payloads captured from Cline 3.0.65
// (testdata/cline/hooks) under the event the hook file passes.
func TestDecodeClineRecorded(t *testing.T) {
	now := time.Date(2026, 12, 2, 2, 46, 0, 0, time.UTC)
	tests := []struct {
		event string
		kind  Kind
		tool  string
	}{
		{"TaskStart", KindSessionStart, ""},
		{"PreToolUse", KindToolStart, "run_commands"},
		{"PostToolUse", KindToolEnd, "run_commands"},
		{"TaskComplete", KindTurnEnd, ""},
	}
	var hashes []string
	for _, tt := range tests {
		b, err := os.ReadFile(filepath.Join("..", "testdata", "cline", "hooks", tt.event+".json"))
		if err != nil {
			t.Fatal(err)
		}
		for _, argv := range []string{tt.event, ""} { // the hook's argument, or the payload's hookName
			e, err := Cline.Decode(b, argv, func(string) string { return "" }, now)
			if err != nil {
				t.Fatalf("%s (argv %q): %v", tt.event, argv, err)
			}
			if e.Kind != tt.kind || e.HookEvent != tt.event || e.SessionID != "1796179574754_flyut" || e.Cwd != "/home/user/project" ||
				e.ToolName != tt.tool || e.TurnID != "conv_1796179574951_9v7xpyg" || e.Time.Equal(now) {
				t.Errorf("%s (argv %q) decodes to %+v", tt.event, argv, e)
			}
			if err := e.Validate(); err != nil {
				t.Errorf("%s: %v", tt.event, err)
			}
			if tt.tool != "" && (e.ToolUseID != "call_9ef44228155993c6121c24f7" || e.InputHash == "") {
				t.Errorf("%s: tool use id %q, hash %q", tt.event, e.ToolUseID, e.InputHash)
			}
			if tt.tool != "" && argv != "" {
				hashes = append(hashes, e.InputHash)
			}
		}
	}
	if len(hashes) != 2 || hashes[0] != hashes[1] {
		t.Errorf("the call's fingerprints at start and end = %v, want one", hashes)
	}
}

// TestDecodeClineShapes decodes the events a one-shot run does not fire,
// in the shapes Cline declares: a prompt titles the session, a failed
// tool, an API error, a cancel and the shutdown; a subagent's event is
// dropped.
func TestDecodeClineShapes(t *testing.T) {
	now := time.Date(2026, 12, 2, 2, 46, 0, 0, time.UTC)
	const base = `"taskId":"conv_1","sessionContext":{"rootSessionId":"s1"},"workspaceRoots":["/p"],"agent_id":"a1","parent_agent_id":null`
	tests := []struct {
		payload string
		kind    Kind
		check   func(Event) bool
	}{
		{`{"hookName":"prompt_submit",` + base + `,"userPromptSubmit":{"prompt":"Fix the tests please","attachments":[]}}`, KindPromptSubmit,
			func(e Event) bool { return e.Title == "Fix the tests please" && e.TitleSource == TitleFromPrompt }},
		{`{"hookName":"tool_result",` + base + `,"tool_result":{"id":"c1","name":"editor","input":{}},"postToolUse":{"toolName":"editor","success":false}}`, KindToolFailure,
			func(e Event) bool { return e.ToolName == "editor" && e.ToolUseID == "c1" }},
		{`{"hookName":"agent_error",` + base + `,"iteration":1,"error":{"name":"APIError","message":"429 rate limited"}}`, KindTurnFailure,
			func(e Event) bool { return e.ErrorText == "429 rate limited" && e.ErrorKind == "error" }},
		{`{"hookName":"agent_abort",` + base + `,"reason":"user"}`, KindTurnEnd, func(e Event) bool { return e.Reason == ReasonInterrupt }},
		{`{"hookName":"session_shutdown",` + base + `,"reason":"exit"}`, KindSessionEnd, func(e Event) bool { return e.Reason == "exit" }},
		{`{"hookName":"agent_resume",` + base + `}`, KindSessionStart, func(e Event) bool { return e.Source == "resume" }},
	}
	for _, tt := range tests {
		e, err := Cline.Decode([]byte(tt.payload), "", func(string) string { return "" }, now)
		if err != nil || e.Kind != tt.kind || !tt.check(e) || e.SessionID != "s1" {
			t.Errorf("Decode(%s) = %+v, %v; want %s", tt.payload, e, err, tt.kind)
		}
	}
	sub := `{"hookName":"tool_call","taskId":"conv_2","sessionContext":{"rootSessionId":"s1"},"agent_id":"a2","parent_agent_id":"a1","tool_call":{"id":"c","name":"read_files","input":{}}}`
	if _, err := Cline.Decode([]byte(sub), "PreToolUse", func(string) string { return "" }, now); !errors.Is(err, ErrNothingToShow) {
		t.Errorf("a subagent's event: %v, want ErrNothingToShow", err)
	}
	if _, err := Cline.Decode([]byte(`{"hookName":"pre_compact",`+base+`}`), "", func(string) string { return "" }, now); !errors.Is(err, ErrUnknownEvent) {
		t.Errorf("an event clawd does not register: %v", err)
	}
}
