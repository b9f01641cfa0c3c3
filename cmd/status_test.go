package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/internal/golden"
	"github.com/clawdhq/clawd/internal/i18n"
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
	if !strings.HasPrefix(out.String(), "nothing needs you · 1 working\n") {
		t.Errorf("status output does not start with its summary:\n%s", out)
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
	line := formatEvent(i18n.Printer{}, rec)
	for _, want := range []string{"claude", "…000001", "tool.start", "working", "Bash", `"Fix it"`} {
		if !strings.Contains(line, want) {
			t.Errorf("formatEvent = %q, lacks %q", line, want)
		}
	}
}

// TestStatusIntegrations: clawd status says which agents' hooks the
// runtime repaired or gave up on; fine ones take no line.
func TestStatusIntegrations(t *testing.T) {
	snap := client.Snapshot{DisplayState: "idle", Integrations: []client.Integration{
		{Agent: "claude", State: client.IntegrationNeedsManualFix, Detail: "another program keeps rewriting it"},
		{Agent: "codex", State: client.IntegrationRepaired, Repairs: 2, Detail: "last repaired at 10:00:00"},
		{Agent: "qwen", State: client.IntegrationRepaired, Repairs: 1, Detail: "last repaired at 11:00:00"},
		{Agent: "gemini", State: client.IntegrationOK},
		{Agent: "opencode", State: client.IntegrationNotInstalled},
	}}
	for lang, want := range map[string]string{
		"C.UTF-8": "" +
			"claude: hooks need a manual fix (clawd doctor): another program keeps rewriting it\n" +
			"codex: hooks repaired 2 times by the runtime: last repaired at 10:00:00\n" +
			"qwen: hooks repaired 1 time by the runtime: last repaired at 11:00:00\n" +
			"no agent hooked up: clawd install --all\n",
		"zh_CN.UTF-8": "" +
			"claude：钩子需要手动修复（clawd doctor）：another program keeps rewriting it\n" +
			"codex：运行时已修复钩子 2 次：last repaired at 10:00:00\n" +
			"qwen：运行时已修复钩子 1 次：last repaired at 11:00:00\n" +
			"还没有接入任何智能体：clawd install --all\n",
	} {
		e, out, _ := testEnv(t, t.TempDir(), nil, map[string]string{"LANG": lang})
		renderStatus(e, snap)
		if out.String() != want {
			t.Errorf("LANG=%s renderStatus =\n%s\nwant\n%s", lang, out, want)
		}
	}
}

// TestStatusProblems: what is wrong with the runtime itself takes a line
// each, its text made safe for the terminal, with what to do.
func TestStatusProblems(t *testing.T) {
	snap := client.Snapshot{DisplayState: "idle", Problems: []client.Problem{
		{ID: "dashboard", Text: "the dashboard is unavailable: ports 23333-23337 are all held", Remedy: "clawd doctor names who holds them"},
		{ID: "history", Text: "the history cannot be written\x1b[31m (disk full)"},
	}}
	e, out, _ := testEnv(t, t.TempDir(), nil, map[string]string{"LANG": "C.UTF-8"})
	renderStatus(e, snap)
	want := "! the dashboard is unavailable: ports 23333-23337 are all held (clawd doctor names who holds them)\n" +
		"! the history cannot be written[31m (disk full)\n" +
		"no agent hooked up: clawd install --all\n"
	if out.String() != want {
		t.Errorf("renderStatus =\n%q\nwant\n%q", out, want)
	}
}

// TestStatusOutcomes draws the table of sessions in every status, most
// urgent first, with the outcomes of finished turns ("done 3m ago",
// "failed: <reason>"), against testdata/status.golden.txt and, in
// Chinese, testdata/status.zh-CN.golden.txt.
func TestStatusOutcomes(t *testing.T) {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	s := func(id, state, base string, ago time.Duration, mod ...func(*client.SessionView)) client.SessionView {
		v := client.SessionView{Agent: "claude", SessionID: id, State: state, BaseState: base, Title: id,
			Cwd: "/home/ann/" + id, UpdatedAt: now.Add(-ago)}
		for _, f := range mod {
			f(&v)
		}
		return v
	}
	failed := func(reason string, ago time.Duration) func(*client.SessionView) {
		return func(v *client.SessionView) { v.Outcome, v.OutcomeAt, v.FailReason = "failed", now.Add(-ago), reason }
	}
	done := func(ago time.Duration) func(*client.SessionView) {
		return func(v *client.SessionView) { v.Outcome, v.OutcomeAt = "done", now.Add(-ago) }
	}
	// The runtime lists sessions by their state now; status lists them
	// as the tray does, whatever order they come in.
	snap := client.Snapshot{DisplayState: "waiting", Sessions: []client.SessionView{
		s("idle", "idle", "idle", time.Hour),
		s("finished", "idle", "idle", 3*time.Minute, done(3*time.Minute)),
		s("thinking", "thinking", "thinking", time.Second),
		s("bash", "working", "working", 10*time.Second, func(v *client.SessionView) { v.Tool = "Bash" }),
		s("ratelimit", "idle", "idle", 2*time.Minute, failed("API Error: 429 "+
			`{"type":"error","error":{"type":"rate_limit_error","message":"This request would exceed the rate limit for your organization"}}`,
			2*time.Minute)),
		s("hostile", "error", "idle", 0, failed("bad\x1b[2J\u202e\nthing", 0)),
		s("ask", "waiting", "working", 0, func(v *client.SessionView) { v.Pending, v.Questions = 1, 1 }),
		s("three", "waiting", "working", 30*time.Second, func(v *client.SessionView) { v.Pending = 3 }),
	}}
	for _, tt := range []struct{ lang, golden string }{
		{"C.UTF-8", "status.golden.txt"},
		{"zh_CN.UTF-8", "status.zh-CN.golden.txt"},
	} {
		e, out, _ := testEnv(t, t.TempDir(), nil, map[string]string{"LANG": tt.lang, "HOME": "/home/ann"})
		e.now = func() time.Time { return now }
		renderStatus(e, snap)
		golden.Check(t, filepath.Join("testdata", tt.golden), out.Bytes())
		if strings.ContainsAny(out.String(), "\x1b\u202e") {
			t.Errorf("LANG=%s: the table holds an escape or a bidi override:\n%s", tt.lang, out)
		}
	}
}

// TestStatusFailure: a turn that failed, as Claude Code reports it, reads
// as failed with the agent's reason in clawd status, and --json carries
// the outcome, its time and the reason.
func TestStatusFailure(t *testing.T) {
	home := t.TempDir()
	startRuntime(t, home)
	feed(t, home, "StopFailure.json")

	e, out, _ := testEnv(t, home, nil, nil)
	if code := run(context.Background(), e, []string{"clawd", "status"}); code != 0 {
		t.Fatalf("status = %d", code)
	}
	if want := "failed: API Error: 400 fake invalid request for StopFailure"; !strings.Contains(out.String(), want) {
		t.Errorf("status output lacks %q:\n%s", want, out)
	}

	e, out, _ = testEnv(t, home, nil, nil)
	if code := run(context.Background(), e, []string{"clawd", "status", "--json"}); code != 0 {
		t.Fatalf("status --json = %d", code)
	}
	var snap client.Snapshot
	if err := json.Unmarshal(out.Bytes(), &snap); err != nil {
		t.Fatalf("status --json is not JSON: %v\n%s", err, out)
	}
	if len(snap.Sessions) != 1 {
		t.Fatalf("status --json = %s, want one session", out)
	}
	if s := snap.Sessions[0]; s.Outcome != "failed" || s.OutcomeAt.IsZero() ||
		s.FailReason != "API Error: 400 fake invalid request for StopFailure" {
		t.Errorf("status --json session: outcome %q at %v reason %q, want failed, a time, the agent's reason\n%s",
			s.Outcome, s.OutcomeAt, s.FailReason, out)
	}
}

// TestStatusSummary: the first line counts what wants the person, says
// where to answer when something waits, and says what the rest do when
// nothing wants the person.
func TestStatusSummary(t *testing.T) {
	needs := client.SessionView{State: "waiting", BaseState: "working", Pending: 1}
	asks := client.SessionView{State: "waiting", BaseState: "working", Pending: 1, Questions: 1}
	failed := client.SessionView{State: "idle", BaseState: "idle", Outcome: "failed"}
	working := client.SessionView{State: "working", BaseState: "working"}
	done := client.SessionView{State: "idle", BaseState: "idle", Outcome: "done"}
	for _, tt := range []struct {
		sessions []client.SessionView
		want     string
	}{
		{[]client.SessionView{needs, needs, needs, failed, working}, "3 need you · 1 failed → clawd permissions"},
		{[]client.SessionView{needs}, "1 needs you → clawd permissions"},
		{[]client.SessionView{asks, asks}, "2 have a question → clawd permissions"},
		{[]client.SessionView{failed, failed, done}, "2 failed"},
		{[]client.SessionView{working, working, done}, "nothing needs you · 2 working · 1 done"},
	} {
		if got := statusSummary(i18n.For(i18n.English), tt.sessions, false); got != tt.want {
			t.Errorf("statusSummary(%d sessions) = %q, want %q", len(tt.sessions), got, tt.want)
		}
	}
	if got := statusSummary(i18n.For(i18n.English), []client.SessionView{needs, failed}, true); got != "\x1b[1;33m1 needs you\x1b[0m · \x1b[31m1 failed\x1b[0m → clawd permissions" {
		t.Errorf("statusSummary coloured = %q", got)
	}
}
