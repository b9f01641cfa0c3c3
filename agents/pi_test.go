package agents

import (
	"errors"
	"testing"
	"time"
)

// TestDecodePi decodes what clawd's Pi extension sends (the shape of
// installers/pi_extension.ts, as TestPiPrompt in e2e records it from the
// real Pi): the kinds, a failed tool, Pi's own session name over the
// prompt's, headless without a UI, and a reload that is no session end.
func TestDecodePi(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	const base = `"session_id":"01a231d1-8f38","session_file":"/h/.pi/agent/sessions/x.jsonl","cwd":"/p","pid":4242`
	for _, c := range []struct {
		name, payload string
		kind          Kind
		check         func(Event) bool
	}{
		{"start", `{"type":"session_start",` + base + `,"reason":"startup"}`, KindSessionStart,
			func(e Event) bool {
				return e.Source == "startup" && e.AgentPID == 4242 && e.Transcript != "" && !e.Headless
			}},
		{"prompt", `{"type":"before_agent_start",` + base + `,"headless":true,"prompt":"Fix the build\nnow"}`, KindPromptSubmit,
			func(e Event) bool {
				return e.Title == "Fix the build" && e.TitleSource == TitleFromPrompt && e.Headless
			}},
		{"named", `{"type":"before_agent_start",` + base + `,"session_name":"Release prep","prompt":"Fix the build"}`, KindPromptSubmit,
			func(e Event) bool { return e.Title == "Release prep" && e.TitleSource == TitleFromAgent }},
		{"tool", `{"type":"tool_execution_start",` + base + `,"tool_call_id":"call_1","tool_name":"bash"}`, KindToolStart,
			func(e Event) bool { return e.ToolUseID == "call_1" && e.ToolName == "bash" }},
		{"tool failed", `{"type":"tool_execution_end",` + base + `,"tool_call_id":"call_1","tool_name":"bash","is_error":true}`, KindToolFailure,
			func(e Event) bool { return e.ToolUseID == "call_1" }},
		{"tool ok", `{"type":"tool_execution_end",` + base + `,"tool_call_id":"call_1","tool_name":"bash","is_error":false}`, KindToolEnd, nil},
		{"turn", `{"type":"agent_end",` + base + `}`, KindTurnEnd, nil},
		{"end", `{"type":"session_shutdown",` + base + `,"reason":"quit"}`, KindSessionEnd,
			func(e Event) bool { return e.Reason == "quit" }},
	} {
		e, err := Pi.Decode([]byte(c.payload), "", func(string) string { return "" }, now)
		if err != nil || e.Kind != c.kind || e.SessionID != "01a231d1-8f38" || e.Cwd != "/p" || (c.check != nil && !c.check(e)) {
			t.Errorf("%s: Decode = %+v, %v; want %s", c.name, e, err, c.kind)
		}
		if err == nil {
			if verr := e.Validate(); verr != nil {
				t.Errorf("%s: %v", c.name, verr)
			}
		}
	}
	_, err := Pi.Decode([]byte(`{"type":"session_shutdown",`+base+`,"reason":"reload"}`), "", func(string) string { return "" }, now)
	if !errors.Is(err, ErrNothingToShow) {
		t.Errorf("a reload's shutdown decodes with %v, want ErrNothingToShow", err)
	}
	checkAnswers(t, Pi)
}
