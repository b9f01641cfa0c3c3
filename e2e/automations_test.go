package e2e

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/clawdhq/clawd/internal/fakeanthropic"
)

// hookReceiver is a local webhook receiver that records what it gets.
type hookReceiver struct {
	*httptest.Server
	mu    sync.Mutex
	calls []map[string]any
	got   chan struct{}
	// hold, when set, keeps every call waiting until it is closed.
	hold chan struct{}
}

func newHookReceiver(t *testing.T) *hookReceiver {
	r := &hookReceiver{got: make(chan struct{}, 64)}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		var body map[string]any
		b, _ := io.ReadAll(req.Body)
		json.Unmarshal(b, &body)
		r.mu.Lock()
		r.calls = append(r.calls, body)
		hold := r.hold
		r.mu.Unlock()
		r.got <- struct{}{}
		if hold != nil {
			<-hold
		}
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(r.Close)
	return r
}

func (r *hookReceiver) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.calls)
}

// automationRun is a line of `clawd automations runs --json`.
type automationRun struct {
	ID           string `json:"id"`
	AutomationID string `json:"automation_id"`
	EventID      string `json:"event_id"`
	EventName    string `json:"event_name"`
	State        string `json:"state"`
	ErrorCode    string `json:"error_code"`
	Attempts     int    `json:"attempts"`
	CreatedAt    string `json:"created_at"`
}

// automationRuns lists the runs through the CLI, newest first.
func (w *world) automationRuns(ctx context.Context) []automationRun {
	w.t.Helper()
	r := w.mustClawd(ctx, "automations", "runs", "--json")
	var out []automationRun
	for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		if line == "" {
			continue
		}
		var run automationRun
		if err := json.Unmarshal([]byte(line), &run); err != nil {
			w.t.Fatalf("runs --json line %q: %v", line, err)
		}
		out = append(out, run)
	}
	return out
}

// waitRuns waits until cond holds of the runs.
func (w *world) waitRuns(ctx context.Context, what string, cond func([]automationRun) bool) []automationRun {
	w.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		runs := w.automationRuns(ctx)
		if cond(runs) {
			return runs
		}
		if time.Now().After(deadline) {
			w.t.Fatalf("%s: runs %+v", what, runs)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestAutomationsOnClaudeTurns: the real Claude Code finishes a turn and a
// trusted webhook definition fires once with the mapped fields; after an
// edit of its timeout, the next turn's run is blocked (trust_required)
// and the receiver sees nothing; a blocked run retried by the start of
// its id sends once its definition is trusted.
func TestAutomationsOnClaudeTurns(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	w := newWorld(t)
	const m1, m2 = "E2E_AUTOMATION_ONE", "E2E_AUTOMATION_TWO"
	w.startAPI(fakeanthropic.Script{Conversations: []fakeanthropic.Conversation{
		{Match: m1, Steps: []fakeanthropic.Step{fakeanthropic.Text("First turn done.")}},
		{Match: m2, Steps: []fakeanthropic.Step{fakeanthropic.Text("Second turn done.")}},
	}})
	rec := newHookReceiver(t)
	serve := w.startServe()
	defer serve.shutdown()
	w.install(ctx)

	def := `[[automation]]
id = "post-done"
name = "Post when a turn completes in this project"
event = "turn.completed"
condition = { all = [ { path = "agent.id", op = "eq", value = "claude" },
                      { path = "workspaces.0.name", op = "eq", value = "project" } ] }
action = { type = "webhook", url = "` + rec.URL + `/in" }
input = { title = { template = "${session.title} is done" }, agent = { path = "agent.id" } }
policy = { timeout = "15s", retry = "safe", max_attempts = 3, backoff = "1s", concurrency = "serial" }

[[automation]]
id = "answer"
event = "response.committed"
action = { type = "webhook", url = "` + rec.URL + `/answer" }
input = { text = { path = "payload.text" } }
`
	r := w.clawd(ctx, def, "automations", "add")
	if r.code != 0 || !strings.Contains(r.stdout, "added post-done, answer") || !strings.Contains(r.stdout, "post-done needs review") {
		t.Fatalf("automations add: %s", r)
	}
	// Untrusted, a turn sends nothing.
	first := w.runClaude(ctx, newUUID(t), "Please "+m1+" now")
	if first.code != 0 {
		t.Fatalf("claude -p: %s", first.result)
	}
	w.waitRuns(ctx, "the untrusted runs", func(rs []automationRun) bool {
		return len(rs) == 2 && rs[0].State == "blocked" && rs[1].State == "blocked" && rs[0].ErrorCode == "trust_required"
	})
	if n := rec.count(); n != 0 {
		t.Fatalf("the receiver got %d calls from untrusted definitions", n)
	}

	for _, id := range []string{"post-done", "answer"} {
		r := w.clawd(ctx, "y\n", "automations", "trust", id)
		if r.code != 0 || !strings.Contains(r.stdout, "trusted "+id) {
			t.Fatalf("automations trust %s: %s", id, r)
		}
	}
	second := w.runClaude(ctx, newUUID(t), "Please "+m2+" now")
	if second.code != 0 {
		t.Fatalf("claude -p: %s", second.result)
	}
	runs := w.waitRuns(ctx, "the trusted runs", func(rs []automationRun) bool {
		return len(rs) == 4 && rs[0].State == "succeeded" && rs[1].State == "succeeded"
	})
	if n := rec.count(); n != 2 {
		t.Fatalf("the receiver got %d calls, want 2 (one per definition)", n)
	}
	byPath := map[string]map[string]any{}
	rec.mu.Lock()
	for _, c := range rec.calls {
		ev, _ := c["event"].(map[string]any)
		byPath[ev["eventName"].(string)] = c
	}
	rec.mu.Unlock()
	done := byPath["turn.completed"]
	input, _ := done["input"].(map[string]any)
	if input["title"] != "Please "+m2+" now is done" || input["agent"] != "claude" {
		t.Errorf("turn.completed input = %v", input)
	}
	ev, _ := done["event"].(map[string]any)
	if ws, _ := ev["workspaces"].([]any); len(ws) == 0 || ev["schemaVersion"] != float64(1) || !strings.HasPrefix(ev["eventId"].(string), "hev_") {
		t.Errorf("envelope = %v", ev)
	}
	if in, _ := byPath["response.committed"]["input"].(map[string]any); in["text"] != "Second turn done." {
		t.Errorf("response.committed input = %v, want the final answer", in)
	}
	for _, r := range runs[:2] {
		if r.Attempts != 1 || r.ID == "" || r.EventID == "" || r.CreatedAt == "" {
			t.Errorf("run %+v", r)
		}
	}

	// An edit of an execution field: trust no longer holds.
	edited := strings.Replace(def[:strings.Index(def, "\n[[automation]]\nid = \"answer\"")], `timeout = "15s"`, `timeout = "20s"`, 1)
	r = w.clawd(ctx, edited, "automations", "edit", "post-done", "--file", "-")
	if r.code != 0 || !strings.Contains(r.stdout, "post-done needs review") {
		t.Fatalf("automations edit: %s", r)
	}
	third := w.runClaude(ctx, newUUID(t), "Please "+m1+" again")
	if third.code != 0 {
		t.Fatalf("claude -p: %s", third.result)
	}
	runs = w.waitRuns(ctx, "the run after the edit", func(rs []automationRun) bool {
		for _, r := range rs {
			if r.AutomationID == "post-done" && r.State == "blocked" && r.CreatedAt > runs[0].CreatedAt {
				return true
			}
		}
		return false
	})
	if n := rec.count(); n != 3 {
		t.Errorf("the receiver got %d calls, want 3 (the edited definition sends nothing; the answer one still does)", n)
	}

	// The first turn's answer run, blocked while untrusted, retried by
	// the start of its id: it sends now that its definition is trusted.
	var blocked automationRun
	for _, r := range runs {
		if r.AutomationID == "answer" && r.State == "blocked" {
			blocked = r
		}
	}
	if blocked.ID == "" {
		t.Fatalf("no blocked answer run in %+v", runs)
	}
	r = w.clawd(ctx, "", "automations", "retry", blocked.ID[:len(blocked.ID)-6])
	if r.code != 0 || r.stdout != blocked.ID+": queued again\n" {
		t.Fatalf("automations retry by prefix: %s", r)
	}
	w.waitRuns(ctx, "the retried run", func(rs []automationRun) bool {
		for _, r := range rs {
			if r.ID == blocked.ID {
				return r.State == "succeeded"
			}
		}
		return false
	})
	if n := rec.count(); n != 4 {
		t.Errorf("the receiver got %d calls, want 4 (the retried answer run sent once)", n)
	}
}

// TestAutomationsCrashMidAction: clawd serve is killed (SIGKILL) while a
// webhook is in flight; after a restart the run is outcome_unknown and the
// receiver saw the call at most once.
func TestAutomationsCrashMidAction(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	w := newWorld(t)
	rec := newHookReceiver(t)
	rec.hold = make(chan struct{})
	defer close(rec.hold)
	if err := os.WriteFile(filepath.Join(w.clawdHome, "automations.toml"), []byte(`[[automation]]
id = "slow"
event = "turn.started"
action = { type = "webhook", url = "`+rec.URL+`" }
policy = { timeout = "60s", retry = "safe" }
`), 0o600); err != nil {
		t.Fatal(err)
	}
	serve := w.startServe()
	w.mustClawd(ctx, "automations", "trust", "slow", "--yes")
	// A prompt, as a hook reports it.
	w.hookJSON(ctx, `{"session_id":"s-crash","hook_event_name":"UserPromptSubmit","cwd":"`+w.project+`","prompt":"go","prompt_id":"p-crash"}`)
	select {
	case <-rec.got:
	case <-ctx.Done():
		t.Fatal("the webhook never arrived")
	}
	serve.cmd.Process.Signal(syscall.SIGKILL)
	<-serve.done
	os.Remove(w.runtimeFile()) // what a killed runtime leaves

	serve2 := w.startServe()
	defer serve2.shutdown()
	runs := w.waitRuns(ctx, "the run after the restart", func(rs []automationRun) bool {
		return len(rs) == 1 && rs[0].State == "outcome_unknown"
	})
	if runs[0].Attempts != 1 {
		t.Errorf("run %+v", runs[0])
	}
	// The next runs' worker would have sent it by now if it were to.
	w.mustClawd(ctx, "automations", "runs")
	if n := rec.count(); n != 1 {
		t.Errorf("the receiver got %d calls, want exactly 1", n)
	}
}
