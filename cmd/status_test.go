package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/runtime/client"
)

// syncBuffer is a bytes.Buffer safe for a command writing while the test
// reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func feed(t *testing.T, home string, names ...string) {
	t.Helper()
	vars := map[string]string{"CLAUDE_CODE_SESSION_ATTENDED": "1"}
	for _, n := range names {
		e, _, _ := testEnv(t, home, fixture(t, n), vars)
		if code := run(context.Background(), e, []string{"clawd", "hook", "claude"}); code != 0 {
			t.Fatalf("hook %s = %d", n, code)
		}
	}
}

func TestStatus(t *testing.T) {
	home := t.TempDir()
	startRuntime(t, home)
	feed(t, home, "SessionStart.json", "UserPromptSubmit.json", "PreToolUse.json")

	e, out, _ := testEnv(t, home, nil, map[string]string{"HOME": "/home/user"})
	if code := run(context.Background(), e, []string{"clawd", "status"}); code != 0 {
		t.Fatalf("status = %d", code)
	}
	// The display may still hold "thinking" for its minimum display time.
	if !strings.Contains(out.String(), "display: working") && !strings.Contains(out.String(), "display: thinking") {
		t.Errorf("status output lacks the display state:\n%s", out)
	}
	for _, want := range []string{"AGENT", "claude", "working", "CAPTURE_ALL please", "~/project", "just now"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("status output lacks %q:\n%s", want, out)
		}
	}

	e, out, _ = testEnv(t, home, nil, nil)
	if code := run(context.Background(), e, []string{"clawd", "status", "--json"}); code != 0 {
		t.Fatalf("status --json = %d", code)
	}
	var raw struct {
		DisplayState string           `json:"display_state"`
		Sessions     []map[string]any `json:"sessions"`
	}
	if err := json.Unmarshal(out.Bytes(), &raw); err != nil {
		t.Fatalf("status --json is not JSON: %v\n%s", err, out)
	}
	if (raw.DisplayState != "working" && raw.DisplayState != "thinking") || len(raw.Sessions) != 1 {
		t.Fatalf("status --json = %s", out)
	}
	for _, k := range []string{"agent", "session_id", "state", "title", "cwd", "headless", "updated_at"} {
		if _, ok := raw.Sessions[0][k]; !ok {
			t.Errorf("status --json session lacks %q: %v", k, raw.Sessions[0])
		}
	}
}

func TestStatusAndEventsWithoutRuntime(t *testing.T) {
	for _, args := range [][]string{{"status"}, {"status", "--json"}, {"events"}, {"events", "--json"}, {"status", "--watch"}} {
		e, out, errb := testEnv(t, t.TempDir(), nil, nil)
		code := run(context.Background(), e, append([]string{"clawd"}, args...))
		msg := errb.String()
		if code != 1 || out.Len() != 0 || !strings.Contains(msg, "clawd is not running") || strings.Count(msg, "\n") != 1 {
			t.Errorf("clawd %v without runtime: exit %d, stdout %q, stderr %q; want exit 1 and one line", args, code, out, msg)
		}
	}
}

func TestEventsJSON(t *testing.T) {
	home := t.TempDir()
	startRuntime(t, home)
	var out syncBuffer
	e, _, _ := testEnv(t, home, nil, nil)
	e.stdout = &out
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() { done <- run(ctx, e, []string{"clawd", "events", "--json"}) }()

	// Post until the stream shows the first event: the subscription may
	// not be live yet when the first one goes out.
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(out.String(), "session.start") {
		if time.Now().After(deadline) {
			t.Fatal("no event on clawd events --json")
		}
		feed(t, home, "SessionStart.json")
		time.Sleep(50 * time.Millisecond)
	}
	feed(t, home, "UserPromptSubmit.json", "PreToolUse.json", "PostToolUse.json")
	for !strings.Contains(out.String(), "tool.end") {
		if time.Now().After(deadline) {
			t.Fatalf("tool.end never streamed:\n%s", out.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	if code := <-done; code != 0 {
		t.Errorf("events after cancel = %d, want 0", code)
	}
	var kinds, states []string
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var r client.EventRecord
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		if r.Agent != "claude" || r.SessionID == "" || r.Kind == "" || r.State == "" {
			t.Errorf("record lacks a required field: %s", line)
		}
		kinds = append(kinds, string(r.Kind))
		states = append(states, r.State)
		// Nothing from the payloads' content reaches the stream.
		for _, secret := range []string{"CAPTURE_ALL please\\n", "echo hello", "tool_response", "transcript_path"} {
			if strings.Contains(line, secret) {
				t.Errorf("stream line carries %q: %s", secret, line)
			}
		}
	}
	got := strings.Join(kinds[len(kinds)-3:], " ") + " / " + strings.Join(states[len(states)-3:], " ")
	if want := "prompt.submit tool.start tool.end / thinking working working"; got != want {
		t.Errorf("last records = %s, want %s", got, want)
	}
}

func TestEventsHumanFormat(t *testing.T) {
	rec := client.EventRecord{Event: agents.Event{Agent: "claude", Kind: agents.KindToolStart, SessionID: "5e550000-0000-4000-8000-000000000001",
		Time: time.Now(), ToolName: "Bash", Title: "Fix it"}, State: "working"}
	line := formatEvent(rec)
	for _, want := range []string{"claude", "…000001", "tool.start", "working", "Bash", `"Fix it"`} {
		if !strings.Contains(line, want) {
			t.Errorf("formatEvent = %q, lacks %q", line, want)
		}
	}
}

// TestStatusIntegrations: clawd status says which agents' hooks the
// runtime repaired or gave up on; fine ones take no line.
func TestStatusIntegrations(t *testing.T) {
	var b bytes.Buffer
	renderStatus(&b, client.Snapshot{DisplayState: "idle", Integrations: []client.Integration{
		{Agent: "claude", State: client.IntegrationNeedsManualFix, Detail: "another program keeps rewriting it"},
		{Agent: "codex", State: client.IntegrationRepaired, Repairs: 2, Detail: "last repaired at 10:00:00"},
		{Agent: "gemini", State: client.IntegrationOK},
		{Agent: "opencode", State: client.IntegrationNotInstalled},
	}}, time.Now(), "")
	want := "display: idle\n" +
		"claude: hooks need a manual fix (clawd doctor): another program keeps rewriting it\n" +
		"codex: hooks repaired 2 times by the runtime: last repaired at 10:00:00\n" +
		"no sessions\n"
	if b.String() != want {
		t.Errorf("renderStatus =\n%s\nwant\n%s", b.String(), want)
	}
}
