package agents

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestDecodeOpenClawRun decodes what clawd's OpenClaw plugin sent from the
// real OpenClaw 2026.9.6 (../testdata/openclaw/run-exec): one headless
// session in the project, the run's first model call a prompt and the
// second a continuation, the exec call by its id, and the turn's end.
func TestDecodeOpenClawRun(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	files, err := filepath.Glob(filepath.Join("..", "testdata", "openclaw", "run-exec", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	var got []string
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		event := strings.TrimSuffix(filepath.Base(f)[3:], ".json")
		e, err := OpenClaw.Decode(data, event, func(string) string { return "" }, now)
		if err != nil {
			t.Fatalf("Decode(%s) = %v", f, err)
		}
		if err := e.Validate(); err != nil {
			t.Errorf("%s: %v", f, err)
		}
		if e.Agent != "openclaw" || e.SessionID != "fc4089b2-af29-42ea-a702-8bdc2d4e215f" || e.Cwd != "/home/user/project" ||
			!e.Headless || e.AgentPID != 23363 || e.TurnID != "aac6c816-bf8f-4a1d-9c9c-6a3da9aa68d3" {
			t.Errorf("%s: Decode = %+v, want openclaw's one headless session in the project", f, e)
		}
		if (e.Kind == KindToolStart || e.Kind == KindToolEnd) && (e.ToolName != "exec" || e.ToolUseID != "call_7996c6fba402821f08d7effa") {
			t.Errorf("%s names %s %s, want exec call_7996…", e.Kind, e.ToolName, e.ToolUseID)
		}
		got = append(got, string(e.Kind))
	}
	want := "prompt.submit tool.start tool.end prompt.continue turn.end"
	if strings.Join(got, " ") != want {
		t.Errorf("kinds %v, want %s", got, want)
	}
	checkAnswers(t, OpenClaw)
}

// TestDecodeOpenClaw: the outcomes of a model call, a failed tool, and
// which session ends end a session.
func TestDecodeOpenClaw(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	const base = `"session_id":"s1","run_id":"r1","cwd":"/p"`
	for _, c := range []struct {
		event, extra string
		kind         Kind
		reason, err  string
	}{
		{"model_call_ended", `"outcome":"error","failure_kind":"timeout","error_present":true`, KindTurnFailure, "", ""},
		{"model_call_ended", `"outcome":"error","failure_kind":"aborted","error_present":true`, KindTurnEnd, ReasonInterrupt, ""},
		{"model_call_ended", `"outcome":"error","failure_kind":"terminated"`, KindTurnEnd, ReasonInterrupt, ""},
		{"model_call_ended", `"outcome":"pending"`, "", "", "outcome"},
		{"after_tool_call", `"tool_name":"exec","tool_call_id":"c","error_present":true`, KindToolFailure, "", ""},
		{"session_end", `"reason":"idle"`, KindSessionEnd, "idle", ""},
		{"session_end", `"reason":"daily"`, KindSessionEnd, "daily", ""},
		{"session_end", `"reason":"deleted"`, KindSessionEnd, "deleted", ""},
		{"session_end", ``, KindSessionEnd, "unknown", ""},
		{"session_end", `"reason":"new"`, "", "", "goes on"},
		{"session_end", `"reason":"reset"`, "", "", "goes on"},
		{"session_end", `"reason":"compaction"`, "", "", "goes on"},
		{"session_start", ``, KindSessionStart, "", ""},
	} {
		payload := `{"type":"` + c.event + `",` + base
		if c.extra != "" {
			payload += "," + c.extra
		}
		payload += "}"
		e, err := OpenClaw.Decode([]byte(payload), c.event, func(string) string { return "" }, now)
		if c.err != "" {
			if !errors.Is(err, ErrNothingToShow) || !strings.Contains(err.Error(), c.err) {
				t.Errorf("Decode(%s) = %+v, %v; want ErrNothingToShow (%s)", payload, e, err, c.err)
			}
			continue
		}
		if err != nil || e.Kind != c.kind || e.Reason != c.reason {
			t.Errorf("Decode(%s) = %+v, %v; want %s reason %q", payload, e, err, c.kind, c.reason)
		}
	}
}
