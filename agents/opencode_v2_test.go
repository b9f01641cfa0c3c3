package agents

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestDecodeOpencodeV2 decodes what clawd's opencode 2 plugin sends for
// the documented v2 stream (../testdata/opencode/documented-v2-run): one
// session in the envelope's folder, the turn's first step a prompt and
// the second its continuation, the shell call by its id, the evaluation
// a blocking request of that call, the child's start and stop under its
// root, the title opencode gave, and the turn's end.
func TestDecodeOpencodeV2(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	files, err := filepath.Glob(filepath.Join("..", "testdata", "opencode", "documented-v2-run", "*.json"))
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
		e, err := Opencode.Decode(data, event, func(string) string { return "" }, now)
		if err != nil {
			t.Fatalf("Decode(%s) = %v", f, err)
		}
		if err := e.Validate(); err != nil {
			t.Errorf("%s: %v", f, err)
		}
		if e.SessionID != "ses_1" || (e.Cwd != "/work/p" && e.Kind != KindPermissionRequest) || e.AgentPID != 0 {
			t.Errorf("%s: Decode = %+v, want session ses_1 in /work/p, no pid", f, e)
		}
		switch e.Kind {
		case KindToolStart, KindToolEnd, KindPermissionRequest:
			if e.ToolName != "shell" || e.ToolUseID != "call_1" {
				t.Errorf("%s names %s %s, want shell call_1", e.Kind, e.ToolName, e.ToolUseID)
			}
		case KindSubagentStart, KindSubagentStop:
			if e.SubagentID != "ses_child" || e.SubagentType != "explore" && e.Kind == KindSubagentStop {
				t.Errorf("%s: subagent %s %s, want ses_child explore", e.Kind, e.SubagentID, e.SubagentType)
			}
		case KindSessionUpdate:
			if e.Title != "Say hello" || e.TitleSource != TitleFromAgent {
				t.Errorf("title %q (%s), want Say hello from opencode", e.Title, e.TitleSource)
			}
		}
		if spec, ok := Opencode.Hook(event); !ok || spec.Blocking != (event == OpencodeEvaluate) {
			t.Errorf("%s: hook spec %+v, %v; want registered, blocking only for the evaluation", event, spec, ok)
		}
		got = append(got, string(e.Kind))
	}
	want := "session.start prompt.submit tool.start permission.request tool.end prompt.continue subagent.start subagent.stop session.update turn.end"
	if strings.Join(got, " ") != want {
		t.Errorf("kinds %v, want %s", got, want)
	}
}

// TestOpencodeV2Answers: the evaluation's answers, and its description:
// the resources as the summary, "always in this session" as the one
// suggestion, which the answer carries back as "always".
func TestOpencodeV2Answers(t *testing.T) {
	for _, c := range []struct {
		d    *Decision
		want string
	}{
		{nil, "{}\n"},
		{&Decision{Allow: true}, `{"decision":"allow"}` + "\n"},
		{&Decision{Allow: true, UpdatedPermissions: []json.RawMessage{json.RawMessage(`{"decision":"always"}`)}}, `{"decision":"always"}` + "\n"},
		{&Decision{}, `{"decision":"deny"}` + "\n"},
		{&Decision{Message: " use git status "}, `{"decision":"deny","message":"use git status"}` + "\n"},
	} {
		if got := string(Opencode.Render(OpencodeEvaluate, c.d)); got != c.want {
			t.Errorf("Render(%s, %+v) = %q, want %q", OpencodeEvaluate, c.d, got, c.want)
		}
	}
	if got := string(Opencode.NoDecision(OpencodeEvaluate)); got != "{}\n" {
		t.Errorf("NoDecision(%s) = %q, want {}", OpencodeEvaluate, got)
	}
	// v1's answers are v1's.
	if got := string(Opencode.Render("permission.asked", &Decision{Allow: true})); got != `{"reply":"once"}`+"\n" {
		t.Errorf("v1 Render = %q, want once", got)
	}
	payload, err := os.ReadFile(filepath.Join("..", "testdata", "opencode", "documented-v2-run", "04-permission.evaluate.json"))
	if err != nil {
		t.Fatal(err)
	}
	e, err := Opencode.Decode(payload, OpencodeEvaluate, func(string) string { return "" }, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	r := Opencode.Describe(e, payload, false)
	if r.Summary != "echo probe-test-123" || len(r.Suggestions) != 1 || string(r.Suggestions[0]) != `{"decision":"always"}` ||
		r.SuggestionLabels[0] != "Always allow shell in this session" {
		t.Errorf("Describe = %+v, want the command and the always suggestion", r)
	}
}

// TestOpencodeV1StaysV1: a v1 payload of an event both versions have
// still decodes as v1 (properties.info), and the v1 plugin's events are
// its own twelve (question.asked among them).
func TestOpencodeV1StaysV1(t *testing.T) {
	e, err := Opencode.Decode([]byte(`{"type":"session.created","properties":{"info":{"id":"ses_v1","directory":"/p","title":"Fix it"}},"clawd":{"directory":"/p","pid":7}}`),
		"session.created", func(string) string { return "" }, time.Now())
	if err != nil || e.SessionID != "ses_v1" || e.AgentPID != 7 || e.Title != "Fix it" {
		t.Errorf("v1 session.created = %+v, %v; want ses_v1 decoded as v1", e, err)
	}
	if n := len(OpencodeV1Hooks()); n != 12 {
		t.Errorf("OpencodeV1Hooks = %d events, want the v1 plugin's 12", n)
	}
}
