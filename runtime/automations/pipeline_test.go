package automations

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeClock is a clock tests move by hand.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Time
	timers []fakeTimer
}

type fakeTimer struct {
	at time.Time
	ch chan time.Time
}

func newFakeClock() *fakeClock { return &fakeClock{now: time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch := make(chan time.Time, 1)
	c.timers = append(c.timers, fakeTimer{c.now.Add(d), ch})
	return ch
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	var keep []fakeTimer
	for _, t := range c.timers {
		if !t.at.After(c.now) {
			t.ch <- c.now
		} else {
			keep = append(keep, t)
		}
	}
	c.timers = keep
	c.mu.Unlock()
}

// receiver is a webhook endpoint that records calls and answers what its
// script says, in order (200 when the script runs out).
type receiver struct {
	*httptest.Server
	mu     sync.Mutex
	calls  []receivedCall
	answer []int
	// answerFor, when set, answers a call instead of the script.
	answerFor func(b body, n int) int
	hold      chan struct{} // when set, each call waits on it
}

type receivedCall struct {
	body    body
	key     string
	headers http.Header
}

func newReceiver(t *testing.T, answers ...int) *receiver {
	r := &receiver{answer: answers}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		var b body
		raw, _ := io.ReadAll(req.Body)
		json.Unmarshal(raw, &b)
		r.mu.Lock()
		r.calls = append(r.calls, receivedCall{b, req.Header.Get("Idempotency-Key"), req.Header.Clone()})
		code := http.StatusOK
		switch {
		case r.answerFor != nil:
			code = r.answerFor(b, len(r.calls))
		case len(r.answer) > 0:
			code, r.answer = r.answer[0], r.answer[1:]
		}
		hold := r.hold
		r.mu.Unlock()
		if hold != nil {
			<-hold
		}
		w.WriteHeader(code)
		io.WriteString(w, "ok")
	}))
	t.Cleanup(r.Close)
	return r
}

func (r *receiver) got() []receivedCall {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]receivedCall(nil), r.calls...)
}

// testEngine is an engine on a temp clawd home with automations.toml doc.
func testEngine(t *testing.T, clock *fakeClock, doc string) *Engine {
	t.Helper()
	home := t.TempDir()
	if doc != "" {
		if err := os.WriteFile(filepath.Join(home, File), []byte(doc), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	e, err := Open(context.Background(), Options{Home: home, Now: clock.Now, After: clock.After, RepoRoot: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// drain dispatches every pending event and runs every due run, until
// nothing is left to do now.
func drain(t *testing.T, e *Engine) {
	t.Helper()
	ctx := context.Background()
	for {
		if _, err := e.DispatchOnce(ctx); err != nil {
			t.Fatal(err)
		}
		n, err := e.startDue(ctx)
		if err != nil {
			t.Fatal(err)
		}
		e.inflight.Wait()
		if n == 0 {
			return
		}
	}
}

func webhookDef(id, url, extra string) string {
	return "[[automation]]\nid = \"" + id + "\"\nevent = \"turn.completed\"\naction = { type = \"webhook\", url = \"" + url + "\" }\n" + extra
}

// completed is a turn.completed envelope of session sid.
func completed(sid, turn string, at time.Time) *Envelope {
	return &Envelope{SchemaVersion: 1, EventID: EventID(TurnCompleted, sid+":"+turn), EventName: TurnCompleted,
		OccurredAt: at, Source: "clawd", Session: SessionRef{ID: sid, Title: "Fix the shop"}, Turn: &TurnRef{ID: turn},
		Agent: &AgentRef{ID: "claude", Name: "Claude Code"}, Workspaces: []Workspace{{ID: "/src/shop", Name: "shop"}},
		PrimaryWorkspaceID: "/src/shop", Payload: map[string]any{"durationMs": 1200}}
}

func runsOf(t *testing.T, e *Engine) []Run {
	t.Helper()
	rs, err := e.Runs(context.Background(), RunFilter{Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

func trust(t *testing.T, e *Engine, id string) {
	t.Helper()
	d, ok := e.Definition(id)
	if !ok {
		t.Fatalf("no definition %s", id)
	}
	if err := e.Trust(context.Background(), id, d.Hash()); err != nil {
		t.Fatal(err)
	}
}

// TestTrustGatesActions: an untrusted definition's run is blocked with
// trust_required and the receiver sees nothing; trusted, it fires once
// with the event and the mapped input; an edit of its timeout blocks it
// again until trusted anew.
func TestTrustGatesActions(t *testing.T) {
	clock := newFakeClock()
	rec := newReceiver(t)
	doc := webhookDef("post", rec.URL, `input = { title = { template = "${session.title} is done" }, agent = { path = "agent.id" } }
policy = { timeout = "15s" }
`)
	e := testEngine(t, clock, doc)
	ctx := context.Background()

	e.Observe(ctx, completed("s1", "t1", clock.Now()))
	drain(t, e)
	rs := runsOf(t, e)
	if len(rs) != 1 || rs[0].State != StateBlocked || rs[0].ErrorCode != CodeTrustRequired {
		t.Fatalf("untrusted run = %+v, want blocked/trust_required", rs)
	}
	if n := len(rec.got()); n != 0 {
		t.Fatalf("the receiver got %d calls from an untrusted definition", n)
	}

	trust(t, e, "post")
	e.Observe(ctx, completed("s1", "t2", clock.Now()))
	// The same event again: kept once.
	e.Observe(ctx, completed("s1", "t2", clock.Now()))
	drain(t, e)
	calls := rec.got()
	if len(calls) != 1 {
		t.Fatalf("trusted: %d calls, want 1", len(calls))
	}
	if calls[0].body.Event.Turn.ID != "t2" || calls[0].body.Input["title"] != "Fix the shop is done" || calls[0].body.Input["agent"] != "claude" {
		t.Errorf("webhook body = %+v", calls[0].body)
	}
	if calls[0].key != "" {
		t.Errorf("an unsafe-policy webhook got Idempotency-Key %q", calls[0].key)
	}
	if rs := runsOf(t, e); rs[0].State != StateSucceeded || rs[0].Attempts != 1 || !strings.Contains(rs[0].InputSummary, `title="Fix the shop is done"`) {
		t.Errorf("trusted run = %+v", rs[0])
	}

	// The timeout is an execution field: the trust no longer holds.
	if err := os.WriteFile(e.file, []byte(strings.Replace(doc, `timeout = "15s"`, `timeout = "20s"`, 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := e.Reload(); err != nil {
		t.Fatal(err)
	}
	views, _ := e.Definitions(ctx)
	if views[0].Bindings[0].State != BindingNeedsReview {
		t.Errorf("binding after the edit = %+v, want needs_review", views[0].Bindings)
	}
	e.Observe(ctx, completed("s1", "t3", clock.Now()))
	drain(t, e)
	if rs := runsOf(t, e); rs[0].State != StateBlocked || rs[0].ErrorCode != CodeTrustRequired {
		t.Errorf("run after the edit = %+v, want blocked/trust_required", rs[0])
	}
	if n := len(rec.got()); n != 1 {
		t.Errorf("the receiver got %d calls, want still 1", n)
	}
	// Trusting an outdated hash is refused.
	if err := e.Trust(ctx, "post", views[0].Bindings[0].TrustedHash); err == nil {
		t.Error("Trust with the old hash succeeded")
	}
}

// TestRetries: safe retries transient failures with exponential backoff
// up to max_attempts; unsafe never retries; action failures are final;
// keyed sends the same Idempotency-Key on every attempt.
func TestRetries(t *testing.T) {
	ctx := context.Background()
	t.Run("safe", func(t *testing.T) {
		clock := newFakeClock()
		rec := newReceiver(t, 503, 502, 200)
		e := testEngine(t, clock, webhookDef("w", rec.URL, `policy = { retry = "safe", max_attempts = 3, backoff = "2s" }`+"\n"))
		trust(t, e, "w")
		e.Observe(ctx, completed("s", "t", clock.Now()))
		drain(t, e)
		r := runsOf(t, e)[0]
		if r.State != StateQueued || r.Attempts != 1 || r.ErrorCode != CodeTransient || !r.NextAt.Equal(clock.Now().Add(2*time.Second)) {
			t.Fatalf("after the first 503: %+v, want queued for 2s later", r)
		}
		clock.Advance(1999 * time.Millisecond)
		drain(t, e)
		if n := len(rec.got()); n != 1 {
			t.Fatalf("%d calls before the backoff ended, want 1", n)
		}
		clock.Advance(time.Millisecond)
		drain(t, e)
		r = runsOf(t, e)[0]
		if r.Attempts != 2 || !r.NextAt.Equal(clock.Now().Add(4*time.Second)) {
			t.Fatalf("after the second failure: %+v, want the backoff doubled to 4s", r)
		}
		clock.Advance(4 * time.Second)
		drain(t, e)
		if r = runsOf(t, e)[0]; r.State != StateSucceeded || r.Attempts != 3 || len(rec.got()) != 3 {
			t.Errorf("final: %+v after %d calls, want succeeded on the third", r, len(rec.got()))
		}
	})
	t.Run("unsafe", func(t *testing.T) {
		clock := newFakeClock()
		rec := newReceiver(t, 503)
		e := testEngine(t, clock, webhookDef("w", rec.URL, ""))
		trust(t, e, "w")
		e.Observe(ctx, completed("s", "t", clock.Now()))
		drain(t, e)
		clock.Advance(time.Hour)
		drain(t, e)
		if r := runsOf(t, e)[0]; r.State != StateFailed || r.ErrorCode != CodeTransient || r.Attempts != 1 || len(rec.got()) != 1 {
			t.Errorf("unsafe: %+v, %d calls; want failed after one call", r, len(rec.got()))
		}
	})
	t.Run("action failure is final", func(t *testing.T) {
		clock := newFakeClock()
		rec := newReceiver(t, 400)
		e := testEngine(t, clock, webhookDef("w", rec.URL, `policy = { retry = "safe" }`+"\n"))
		trust(t, e, "w")
		e.Observe(ctx, completed("s", "t", clock.Now()))
		drain(t, e)
		clock.Advance(time.Hour)
		drain(t, e)
		if r := runsOf(t, e)[0]; r.State != StateFailed || r.ErrorCode != CodeActionFailed || len(rec.got()) != 1 {
			t.Errorf("400: %+v, %d calls", r, len(rec.got()))
		}
	})
	t.Run("keyed", func(t *testing.T) {
		clock := newFakeClock()
		rec := newReceiver(t, 500, 200)
		e := testEngine(t, clock, webhookDef("w", rec.URL, `policy = { retry = "keyed", backoff = "1s" }`+"\n"))
		trust(t, e, "w")
		e.Observe(ctx, completed("s", "t", clock.Now()))
		drain(t, e)
		clock.Advance(time.Second)
		drain(t, e)
		calls := rec.got()
		if len(calls) != 2 || calls[0].key == "" || calls[0].key != calls[1].key {
			t.Errorf("keyed: %d calls with keys %q, want 2 with one key", len(calls), []string{calls[0].key, calls[len(calls)-1].key})
		}
	})
	t.Run("timeout", func(t *testing.T) {
		clock := newFakeClock()
		rec := newReceiver(t)
		rec.hold = make(chan struct{})
		defer close(rec.hold)
		e := testEngine(t, clock, webhookDef("w", rec.URL, `policy = { timeout = "1s" }`+"\n"))
		e.o.HTTP = &http.Client{Timeout: 50 * time.Millisecond}
		trust(t, e, "w")
		e.Observe(ctx, completed("s", "t", clock.Now()))
		drain(t, e)
		if r := runsOf(t, e)[0]; r.State != StateFailed || r.ErrorCode != CodeTransient && r.ErrorCode != CodeTimeout {
			t.Errorf("a receiver that never answers: %+v, want a failed run classed as timeout or transient", r)
		}
	})
}

// TestSerialGate: a serial definition runs one event of a session at a
// time, in order, even across a retry's backoff; another session, or a
// parallel definition, does not wait.
func TestSerialGate(t *testing.T) {
	ctx := context.Background()
	clock := newFakeClock()
	rec := newReceiver(t)
	failed := false
	rec.answerFor = func(b body, _ int) int {
		if b.Event.Session.ID == "s1" && b.Event.Turn.ID == "t1" && !failed {
			failed = true
			return 503
		}
		return 200
	}
	e := testEngine(t, clock, webhookDef("w", rec.URL, `policy = { retry = "safe", backoff = "10s" }`+"\n"))
	trust(t, e, "w")
	e.Observe(ctx, completed("s1", "t1", clock.Now()))
	e.Observe(ctx, completed("s1", "t2", clock.Now()))
	e.Observe(ctx, completed("s2", "t1", clock.Now()))
	drain(t, e)
	calls := rec.got()
	var turns []string
	for _, c := range calls {
		turns = append(turns, c.body.Event.Session.ID+"/"+c.body.Event.Turn.ID)
	}
	// s1/t1 failed and waits 10 s: s1/t2 waits behind it; s2 goes.
	if len(calls) != 2 || !slices.Contains(turns, "s1/t1") || !slices.Contains(turns, "s2/t1") {
		t.Fatalf("calls %v, want s1/t1 and s2/t1 (s1/t2 behind s1/t1's backoff)", turns)
	}
	clock.Advance(10 * time.Second)
	drain(t, e)
	turns = nil
	for _, c := range rec.got() {
		turns = append(turns, c.body.Event.Session.ID+"/"+c.body.Event.Turn.ID)
	}
	if len(turns) != 4 || turns[2] != "s1/t1" || turns[3] != "s1/t2" {
		t.Errorf("calls %v, want s1/t1 retried, then s1/t2", turns)
	}
}

// TestParallelRunsAtOnce: a parallel definition's runs of one session are
// in flight together.
func TestParallelRunsAtOnce(t *testing.T) {
	ctx := context.Background()
	clock := newFakeClock()
	rec := newReceiver(t)
	rec.hold = make(chan struct{})
	e := testEngine(t, clock, webhookDef("w", rec.URL, `policy = { concurrency = "parallel" }`+"\n"))
	trust(t, e, "w")
	for _, turn := range []string{"t1", "t2", "t3"} {
		e.Observe(ctx, completed("s1", turn, clock.Now()))
	}
	if _, err := e.DispatchOnce(ctx); err != nil {
		t.Fatal(err)
	}
	if n, err := e.startDue(ctx); err != nil || n != 3 {
		t.Fatalf("startDue = %d, %v; want 3 started at once", n, err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for len(rec.got()) < 3 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if n := len(rec.got()); n != 3 {
		t.Errorf("%d webhooks in flight together, want 3", n)
	}
	close(rec.hold)
	e.inflight.Wait()
}

// TestConditionsBindingsAndPause: a condition that does not hold records
// a skipped run; the most specific binding wins and shadows the others;
// the master switch holds everything back and lets it go on resume;
// cancel and retry.
func TestConditionsBindingsAndPause(t *testing.T) {
	ctx := context.Background()
	clock := newFakeClock()
	rec := newReceiver(t)
	doc := webhookDef("w", rec.URL, `condition = { path = "session.title", op = "contains", value = "shop" }
bindings = [ { scope = "application" }, { scope = "workspace", id = "/src/shop" }, { scope = "agent", id = "claude-code" } ]
`)
	e := testEngine(t, clock, doc)
	trust(t, e, "w")
	other := completed("s2", "t1", clock.Now())
	other.Session.Title = "Something else"
	e.Observe(ctx, other)
	e.Observe(ctx, completed("s1", "t1", clock.Now()))
	drain(t, e)
	rs := runsOf(t, e)
	if len(rs) != 2 {
		t.Fatalf("%d runs, want 2", len(rs))
	}
	byS := map[string]Run{}
	for _, r := range rs {
		byS[r.SessionID] = r
	}
	if r := byS["s2"]; r.State != StateSkipped || r.ErrorCode != CodeConditionNotMatched {
		t.Errorf("run of the other session = %+v, want skipped/condition_not_matched", r)
	}
	if r := byS["s1"]; r.State != StateSucceeded || r.Binding != "agent:claude" || len(r.Shadowed) != 2 {
		t.Errorf("run = %+v, want succeeded through the agent binding, shadowing two", r)
	}

	// Pause: nothing is dispatched or run; resume: the backlog goes.
	if err := e.SetPaused(ctx, true); err != nil {
		t.Fatal(err)
	}
	e.Observe(ctx, completed("s1", "t2", clock.Now()))
	drain(t, e)
	if n := len(rec.got()); n != 1 {
		t.Fatalf("%d calls while paused, want 1 (from before)", n)
	}
	if err := e.SetPaused(ctx, false); err != nil {
		t.Fatal(err)
	}
	drain(t, e)
	if n := len(rec.got()); n != 2 {
		t.Errorf("%d calls after resume, want 2", n)
	}

	// Cancel a queued run; retry a finished one.
	e.SetPaused(ctx, true)
	e.Observe(ctx, completed("s1", "t3", clock.Now()))
	e.DispatchOnce(ctx) // paused: nothing
	e.SetPaused(ctx, false)
	if _, err := e.DispatchOnce(ctx); err != nil {
		t.Fatal(err)
	}
	queued := runsOf(t, e)[0]
	if queued.State != StateQueued {
		t.Fatalf("newest run %+v, want queued", queued)
	}
	if err := e.Cancel(ctx, queued.ID); err != nil {
		t.Fatal(err)
	}
	if err := e.Cancel(ctx, queued.ID); err == nil {
		t.Error("cancelled a cancelled run")
	}
	if err := e.Retry(ctx, queued.ID); err != nil {
		t.Fatal(err)
	}
	drain(t, e)
	if r := runsOf(t, e)[0]; r.State != StateSucceeded || len(rec.got()) != 3 {
		t.Errorf("retried run %+v, %d calls", r, len(rec.got()))
	}
}

// TestCrashRecovery: a run left running by a killed clawd is marked
// outcome_unknown at the next start and never sent again by itself; an
// event left pending is dispatched.
func TestCrashRecovery(t *testing.T) {
	ctx := context.Background()
	clock := newFakeClock()
	rec := newReceiver(t)
	e := testEngine(t, clock, webhookDef("w", rec.URL, ""))
	trust(t, e, "w")
	e.Observe(ctx, completed("s1", "t1", clock.Now()))
	e.DispatchOnce(ctx)
	c, err := e.claim(ctx, 1) // the action "is in flight" when clawd dies
	if err != nil || len(c) != 1 {
		t.Fatalf("claim = %v, %v", c, err)
	}
	e.Observe(ctx, completed("s1", "t2", clock.Now())) // not yet dispatched
	home := e.o.Home
	e.Close()

	e2, err := Open(ctx, Options{Home: home, Now: clock.Now, After: clock.After, RepoRoot: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	defer e2.Close()
	drain(t, e2)
	byTurn := map[string]Run{}
	for _, r := range runsOf(t, e2) {
		byTurn[r.EventID] = r
	}
	if r := byTurn[EventID(TurnCompleted, "s1:t1")]; r.State != StateOutcomeUnknown {
		t.Errorf("the in-flight run after a restart = %+v, want outcome_unknown", r)
	}
	if r := byTurn[EventID(TurnCompleted, "s1:t2")]; r.State != StateSucceeded {
		t.Errorf("the pending event's run = %+v, want dispatched and succeeded", r)
	}
	if n := len(rec.got()); n != 1 {
		t.Errorf("the receiver got %d calls, want 1 (the in-flight one never re-sent)", n)
	}
}

// TestNothingWrittenWithoutListeners: an event no enabled definition
// listens to leaves the store untouched.
func TestNothingWrittenWithoutListeners(t *testing.T) {
	ctx := context.Background()
	clock := newFakeClock()
	e := testEngine(t, clock, "[[automation]]\nid = \"off\"\nenabled = false\nevent = \"turn.completed\"\naction = { type = \"sound\" }\n")
	e.Observe(ctx, completed("s", "t", clock.Now()))
	var n int
	if err := e.db.QueryRow(`SELECT COUNT(*) FROM events`).Scan(&n); err != nil || n != 0 {
		t.Errorf("events written: %d, %v; want none", n, err)
	}
}
