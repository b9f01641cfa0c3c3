//go:build linux

package e2e

import (
	"context"
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/tidwall/gjson"

	"github.com/clawdhq/clawd/internal/fakeanthropic"
	"github.com/clawdhq/clawd/runtime/client"
)

const (
	// limitedMarker selects the prompts the fake API answers with 429.
	limitedMarker = "RATE-LIMITED-7a1"
	// recoverMarker selects the prompt it answers with text.
	recoverMarker = "RECOVER-7a1"
	recoveredText = "Recovered: the limit has passed."
	rateLimitMsg  = "Number of requests has exceeded your per-minute rate limit"
	// rateLimitWait is the retry-after of each 429: Claude Code waits at
	// least that long before its retry.
	rateLimitWait = 2 * time.Second
	// rateLimitReason is what Claude Code 2.1.328 makes of that 429: the
	// turn's last message, which its StopFailure hook carries as
	// last_assistant_message (with "error": "rate_limit").
	rateLimitReason = "API Error: Request rejected (429) · " + rateLimitMsg
)

// TestFailureRateLimitStaysShown is issue 24 with the real Claude Code:
// its TUI (under tmux, with clawd's hooks and a retry budget of one)
// sends a prompt the fake API answers with HTTP 429 and the real API's
// rate_limit_error body and retry headers. Claude Code retries once,
// after the retry-after, gets the 429 again, gives up and fires
// StopFailure. Then `clawd status --json` has the session's outcome
// "failed" with the failure's text, the human `clawd status` row reads
// "failed: API Error: Request rejected (429) …", and the dashboard's row
// says the same, past the failure's few seconds of one-shot. A
// PermissionRequest of another session (a real `clawd hook claude`
// process with the recorded payload) makes the display and status's
// first line say needs you, the failed session still failed below it;
// a second 429 turn while the request waits does not take the display
// from needs you. The session's next prompt succeeds: the outcome is
// done and the reason gone, in status and in the page.
func TestFailureRateLimitStaysShown(t *testing.T) {
	t.Parallel()
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	deadline := time.Now().Add(3*time.Minute + 30*time.Second)
	w := newWorld(t)
	var mu sync.Mutex
	var limitedAt []time.Time // when each 429 went out
	w.startAPI(fakeanthropic.Script{
		// The recovery comes first: Claude Code may fold the failed
		// prompts into the message that carries the next one.
		Conversations: []fakeanthropic.Conversation{
			{Match: recoverMarker, Steps: []fakeanthropic.Step{fakeanthropic.Text(recoveredText)}},
			{Match: limitedMarker, Steps: []fakeanthropic.Step{fakeanthropic.RateLimited(rateLimitMsg, rateLimitWait)}},
		},
		BeforeReply: func(r fakeanthropic.Request) {
			if r.Conversation == limitedMarker {
				mu.Lock()
				limitedAt = append(limitedAt, time.Now())
				mu.Unlock()
			}
		},
	})
	srv := w.startServe()
	defer srv.shutdown()
	w.install(ctx)
	// Beside clawd's hook, a recorder keeps StopFailure's payload as the
	// CLI sent it.
	rec := w.newHookRecorder()
	w.addForeignHook("StopFailure", rec.command("StopFailure"))
	es := w.startEvents()
	es.sync(ctx)
	tab := newBrowser(t)
	w.openDashboard(ctx, tab, srv)

	// Claude Code retries a 429 ten times by default, backing off to
	// about 40 s between tries (3 minutes in all); one retry is enough
	// to see it honour retry-after and get the same answer.
	id := newUUID(t)
	c := w.startInteractiveClaudeEnv(id, deadline, append(w.claudeEnv(), "CLAUDE_CODE_MAX_RETRIES=1"))
	c.submit("please answer " + limitedMarker)
	evs := es.waitFor(90*time.Second, "the session's turn.failure", func(evs []event) bool {
		return len(ofKind(forSession(evs, id), "turn.failure")) == 1
	})
	c.WaitFor(regexp.MustCompile(regexp.QuoteMeta("Request rejected (429)")), 10*time.Second)
	failure := ofKind(forSession(evs, id), "turn.failure")[0]
	if got := gjson.Get(failure.raw, "error_text").String(); got != rateLimitReason {
		t.Errorf("turn.failure error_text = %q, want %q", got, rateLimitReason)
	}
	if got := gjson.Get(failure.raw, "error_kind").String(); got != "rate_limit" {
		t.Errorf("turn.failure error_kind = %q, want rate_limit", got)
	}
	// Nothing else waits: the failure shows on the display for its
	// one-shot.
	if failure.DisplayState != "error" {
		t.Errorf("display_state after the failure = %q, want error: %s", failure.DisplayState, failure.raw)
	}
	calls := rec.waitFor(10*time.Second, "StopFailure recorded", hasEvent("StopFailure"))
	sf := ofEvent(calls, "StopFailure")[0]
	t.Logf("StopFailure payload: %s", sf.Payload)
	if sf.str("session_id") != id || sf.str("error") != "rate_limit" || sf.str("last_assistant_message") != rateLimitReason {
		t.Errorf("StopFailure payload = %s, want session %s, error rate_limit and last_assistant_message %q", sf.Payload, id, rateLimitReason)
	}
	w.checkRateLimited(t, 2, &mu, &limitedAt)

	// The outcome outlasts the one-shot: the session is idle again and
	// still reads failed, with the reason, everywhere.
	sv := w.awaitSessionView(ctx, id, "idle and failed", func(s client.SessionView) bool {
		return s.State == "idle" && s.Outcome == "failed"
	})
	if sv.FailReason != rateLimitReason || sv.OutcomeAt.IsZero() {
		t.Errorf("clawd status --json: fail_reason %q at %v, want %q and a time", sv.FailReason, sv.OutcomeAt, rateLimitReason)
	}
	wantRow := "failed: API Error: Request rejected (429)"
	lines := w.statusLines(ctx)
	if rowOf(lines, wantRow) < 0 {
		t.Errorf("clawd status has no row reading %q:\n%s", wantRow, strings.Join(lines, "\n"))
	}
	rowA := `document.querySelector('#session-list li[data-key="claude/` + id + `"] .state')`
	waitPage(t, tab, "the failed row", rowA+` && `+rowA+`.textContent === `+jsString(t, "failed: "+rateLimitReason), 10*time.Second)

	// A permission request in another session: needs you outranks the
	// failure, on the display and at the top of status; the failed
	// session still says failed.
	sidB := newUUID(t)
	if r := w.clawd(ctx, claudePayload(t, "SessionStart.json", sidB, w.project), "hook", "claude"); r.code != 0 {
		t.Fatalf("clawd hook claude SessionStart: %s", r)
	}
	ask := w.blockingHook(ctx, claudePayload(t, "PermissionRequest.json", sidB, w.project))
	evs = es.waitFor(10*time.Second, "B's permission.request", func(evs []event) bool {
		return len(ofKind(forSession(evs, sidB), "permission.request")) == 1
	})
	askSeq := gjson.Get(ofKind(forSession(evs, sidB), "permission.request")[0].raw, "seq").Int()
	w.checkNeedsYouOverFailed(ctx, t, id)
	rowB := `document.querySelector('#session-list li[data-key="claude/` + sidB + `"]')`
	waitPage(t, tab, "B needing you above the failed A",
		rowB+` && `+rowB+`.querySelector(".state").textContent === "needs you" && `+
			`document.querySelector("#session-list li").dataset.key === "claude/`+sidB+`" && `+
			rowA+`.textContent === `+jsString(t, "failed: "+rateLimitReason), 10*time.Second)

	// A's next turn fails too while the request waits: its one-shot does
	// not take the display from needs you.
	c.submit("try again " + limitedMarker)
	evs = es.waitFor(90*time.Second, "the session's second turn.failure", func(evs []event) bool {
		return len(ofKind(forSession(evs, id), "turn.failure")) == 2
	})
	if f := ofKind(forSession(evs, id), "turn.failure")[1]; f.DisplayState != "waiting" ||
		gjson.Get(f.raw, "error_text").String() != rateLimitReason {
		t.Errorf("the failure while B waits: %s, want display_state waiting and the reason", f.raw)
	}
	w.checkRateLimited(t, 4, &mu, &limitedAt)
	w.checkNeedsYouOverFailed(ctx, t, id)
	for _, e := range es.snapshot() {
		if gjson.Get(e.raw, "seq").Int() >= askSeq && e.DisplayState != "waiting" {
			t.Errorf("while B's request waits, an event has display_state %q, want waiting: %s", e.DisplayState, e.raw)
		}
	}
	if err := chromedp.Do(tab, chromedp.Click(chromedp.CSS("#needs-list li button.deny"))); err != nil {
		t.Fatalf("click Deny: %v", err)
	}
	if r := ask.wait(t); gjson.Get(r.stdout, "hookSpecificOutput.decision.behavior").String() != "deny" {
		t.Errorf("B's hook after Deny printed %q, want Claude's deny", r.stdout)
	}

	// The next prompt succeeds: the failure is over.
	c.submit("now " + recoverMarker)
	c.WaitFor(regexp.MustCompile(regexp.QuoteMeta(recoveredText)), 60*time.Second)
	sv = w.awaitSessionView(ctx, id, "done", func(s client.SessionView) bool { return s.Outcome == "done" })
	if sv.FailReason != "" {
		t.Errorf("clawd status --json after the good turn: fail_reason %q, want none", sv.FailReason)
	}
	lines = w.statusLines(ctx)
	if rowOf(lines, "failed") >= 0 || rowOf(lines, "done") < 0 {
		t.Errorf("clawd status after the good turn, want a done row and no failed one:\n%s", strings.Join(lines, "\n"))
	}
	waitPage(t, tab, "the row done", `/^done /.test(`+rowA+`.textContent)`, 10*time.Second)

	if rc := c.exit(); rc != 0 {
		t.Errorf("claude exited %d after /exit, want 0", rc)
	}
	checkHooksExitedZero(t, w, c.debug(), "UserPromptSubmit", "StopFailure:rate_limit", "Stop")
	t.Logf("TestFailureRateLimitStaysShown took %v", time.Since(start).Round(time.Millisecond))
}

// checkRateLimited checks the 429s the fake API sent so far: want of
// them, two per failed turn, the retry at least retry-after after the
// first try (Claude Code read the header).
func (w *world) checkRateLimited(t *testing.T, want int, mu *sync.Mutex, at *[]time.Time) {
	t.Helper()
	n := 0
	for _, r := range w.api.MessageRequests() {
		if r.Conversation == limitedMarker {
			n++
			if r.Status != 429 {
				t.Errorf("a %s request got %d, want 429", limitedMarker, r.Status)
			}
		}
	}
	mu.Lock()
	times := append([]time.Time(nil), (*at)...)
	mu.Unlock()
	if n != want || len(times) != want {
		t.Fatalf("the fake API answered %d (%d timed) rate-limited requests, want %d: a try and one retry per turn", n, len(times), want)
	}
	if gap := times[want-1].Sub(times[want-2]); gap < rateLimitWait {
		t.Errorf("Claude Code retried %v after the 429, want at least its retry-after %v", gap.Round(time.Millisecond), rateLimitWait)
	} else {
		t.Logf("Claude Code retried the 429 after %v (retry-after %v)", gap.Round(time.Millisecond), rateLimitWait)
	}
}

// checkNeedsYouOverFailed checks that the display says needs you and the
// first line of `clawd status` counts the one that needs you and the one
// that failed, with the needs-you row above the failed
// session's, which still reads failed with the reason.
func (w *world) checkNeedsYouOverFailed(ctx context.Context, t *testing.T, failed string) {
	t.Helper()
	snap := w.statusSnapshot(ctx)
	if snap.DisplayState != "waiting" {
		t.Errorf("clawd status --json: display_state %q, want waiting", snap.DisplayState)
	}
	if s, ok := findSession(snap, failed); !ok || s.Outcome != "failed" || s.FailReason != rateLimitReason {
		t.Errorf("clawd status --json: the failed session is %+v (found %v), want outcome failed with the reason", s, ok)
	}
	lines := w.statusLines(ctx)
	if len(lines) == 0 || lines[0] != "1 needs you · 1 failed → clawd permissions" {
		t.Errorf("clawd status first line = %q, want \"1 needs you · 1 failed → clawd permissions\"", strings.Join(lines, "\n"))
	}
	needs, fail := rowOf(lines, "needs you"), rowOf(lines, "failed: API Error: Request rejected (429)")
	if needs < 1 || fail < 1 || needs > fail {
		t.Errorf("clawd status rows, want the needs-you row above the failed one:\n%s", strings.Join(lines, "\n"))
	}
}

// statusSnapshot runs `clawd status --json`.
func (w *world) statusSnapshot(ctx context.Context) client.Snapshot {
	w.t.Helper()
	r := w.mustClawd(ctx, "status", "--json")
	var snap client.Snapshot
	if err := json.Unmarshal([]byte(r.stdout), &snap); err != nil {
		w.t.Fatalf("clawd status --json printed %q: %v", r.stdout, err)
	}
	return snap
}

// awaitSessionView polls `clawd status --json` until session id meets
// cond, and fails the test when it does not within 15 s.
func (w *world) awaitSessionView(ctx context.Context, id, what string, cond func(client.SessionView) bool) client.SessionView {
	w.t.Helper()
	end := time.Now().Add(15 * time.Second)
	for {
		s, ok := findSession(w.statusSnapshot(ctx), id)
		if ok && cond(s) {
			return s
		}
		if time.Now().After(end) {
			w.t.Fatalf("clawd status --json: session %s not %s within 15 s; last %+v (found %v)", id, what, s, ok)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// statusLines runs `clawd status` and returns its lines.
func (w *world) statusLines(ctx context.Context) []string {
	w.t.Helper()
	return strings.Split(strings.TrimRight(w.mustClawd(ctx, "status").stdout, "\n"), "\n")
}

// rowOf returns the index of the first session row (past the display
// line and the header) whose state column starts with state, or -1.
func rowOf(lines []string, state string) int {
	for i, l := range lines {
		if i < 2 {
			continue
		}
		if agent, rest, ok := strings.Cut(l, " "); ok && agent == "claude" && strings.HasPrefix(strings.TrimLeft(rest, " "), state) {
			return i
		}
	}
	return -1
}

// ofKind returns the events of one kind.
func ofKind(evs []event, kind string) []event {
	var out []event
	for _, e := range evs {
		if e.Kind == kind {
			out = append(out, e)
		}
	}
	return out
}

// jsString is s as a JavaScript string literal.
func jsString(t *testing.T, s string) string {
	t.Helper()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// addForeignHook adds a command hook for event to the user's Claude Code
// settings beside clawd's, as another tool would.
func (w *world) addForeignHook(event, command string) {
	w.t.Helper()
	data, err := os.ReadFile(w.settingsFile())
	if err != nil {
		w.t.Fatal(err)
	}
	var s map[string]any
	if err := json.Unmarshal(data, &s); err != nil {
		w.t.Fatalf("settings.json: %v", err)
	}
	hooks, _ := s["hooks"].(map[string]any)
	if hooks == nil {
		hooks = map[string]any{}
		s["hooks"] = hooks
	}
	groups, _ := hooks[event].([]any)
	hooks[event] = append(groups, map[string]any{"hooks": []any{map[string]any{"type": "command", "command": command}}})
	if data, err = json.MarshalIndent(s, "", "  "); err != nil {
		w.t.Fatal(err)
	}
	if err := os.WriteFile(w.settingsFile(), data, 0o600); err != nil {
		w.t.Fatal(err)
	}
}
