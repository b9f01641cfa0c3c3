package agents

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestDecodeOMPRun decodes what clawd's OMP extension sent from the real
// OMP 18.2.3 (../testdata/omp/run-bash): one session in the project,
// headless under -p, the prompt's title, the bash call by its id, one
// turn.end and the end.
func TestDecodeOMPRun(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	files, err := filepath.Glob(filepath.Join("..", "testdata", "omp", "run-bash", "*.json"))
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
		e, err := OMP.Decode(data, event, func(string) string { return "" }, now)
		if err != nil {
			t.Fatalf("Decode(%s) = %v", f, err)
		}
		if err := e.Validate(); err != nil {
			t.Errorf("%s: %v", f, err)
		}
		if e.Agent != "omp" || e.SessionID != "01a2349d-94db-72cc-bb0f-0f0c881c40a4" || e.Cwd != "/home/user/project" || !e.Headless || e.AgentPID != 28522 {
			t.Errorf("%s: Decode = %+v, want omp's one headless session in the project", f, e)
		}
		switch e.Kind {
		case KindPromptSubmit:
			if e.Title != "PROBE now" || e.TitleSource != TitleFromPrompt {
				t.Errorf("prompt titled %q (%s), want PROBE now from the prompt", e.Title, e.TitleSource)
			}
		case KindToolStart, KindToolEnd:
			if e.ToolName != "bash" || e.ToolUseID != "call_7b41a5ae04e748f047e6796f" {
				t.Errorf("%s names %s %s, want bash call_7b41…", e.Kind, e.ToolName, e.ToolUseID)
			}
		}
		got = append(got, string(e.Kind))
	}
	want := "session.start prompt.submit tool.start tool.end turn.end session.end"
	if strings.Join(got, " ") != want {
		t.Errorf("kinds %v, want %s", got, want)
	}
	checkAnswers(t, OMP)
}

// TestDecodeOMPSwitch: a switch starts the session switched to, and the
// synthetic shutdown of the session left ends it; a failed tool is a
// tool.failure.
func TestDecodeOMPSwitch(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		event, payload string
		kind           Kind
		reason         string
	}{
		{"session_switch", `{"type":"session_switch","session_id":"B","cwd":"/p","reason":"resume"}`, KindSessionStart, ""},
		{"session_shutdown", `{"type":"session_shutdown","session_id":"A","cwd":"/p","reason":"switch"}`, KindSessionEnd, "switch"},
		{"session_shutdown", `{"type":"session_shutdown","session_id":"A","cwd":"/p","reason":"branch"}`, KindSessionEnd, "branch"},
		{"tool_execution_end", `{"type":"tool_execution_end","session_id":"A","tool_call_id":"c","tool_name":"bash","is_error":true}`, KindToolFailure, ""},
	} {
		e, err := OMP.Decode([]byte(c.payload), c.event, func(string) string { return "" }, now)
		if err != nil || e.Kind != c.kind || e.Reason != c.reason {
			t.Errorf("Decode(%s) = %+v, %v; want %s reason %q", c.payload, e, err, c.kind, c.reason)
		}
	}
}

// TestOMPAgentDir: OMP's agent folder from its variables, one resolver.
func TestOMPAgentDir(t *testing.T) {
	for _, c := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"HOME": "/h"}, "/h/.omp/agent"},
		{map[string]string{"HOME": "/h", "PI_CONFIG_DIR": ".mine"}, "/h/.mine/agent"},
		{map[string]string{"HOME": "/h", "PI_CONFIG_DIR": "/abs"}, "/h/abs/agent"},
		{map[string]string{"HOME": "/h", "PI_CONFIG_DIR": ".mine", "PI_CODING_AGENT_DIR": "/x/agent/"}, "/x/agent"},
	} {
		got, err := OMP.ConfigDir(func(k string) string { return c.env[k] })
		if err != nil || got != c.want {
			t.Errorf("ConfigDir(%v) = %q, %v; want %q", c.env, got, err, c.want)
		}
	}
	if _, err := OMP.ConfigDir(func(string) string { return "" }); err == nil {
		t.Error("ConfigDir without HOME: no error")
	}
}
