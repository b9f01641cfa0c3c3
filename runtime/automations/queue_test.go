package automations

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/runtime/client"
)

// turnFacts are n facts of n/2 sessions: each a prompt and its turn's end
// (turn.started, turn.completed).
func turnFacts(n int, at time.Time) []Fact {
	var out []Fact
	for i := range n / 2 {
		sid := fmt.Sprint("s", i)
		out = append(out,
			Fact{Event: agents.Event{Agent: "claude", Kind: agents.KindPromptSubmit, SessionID: sid, TurnID: "t", Time: at}},
			Fact{Event: agents.Event{Agent: "claude", Kind: agents.KindTurnEnd, SessionID: sid, TurnID: "t", Time: at.Add(time.Second)}})
	}
	return out
}

// TestRecordDoesNotWaitForStore: while a transaction holds the store (the
// dispatcher's, with many definitions, held it long enough for hooks to
// time out), Record and Requested return; the events reach the store
// once it is free.
func TestRecordDoesNotWaitForStore(t *testing.T) {
	ctx := context.Background()
	clock := newFakeClock()
	e := testEngine(t, clock, allEvents())
	tx, err := e.db.BeginTx(ctx, nil) // the store's one connection
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.ExecContext(ctx, `UPDATE settings SET value = value`); err != nil {
		t.Fatal(err)
	}
	returned := make(chan struct{})
	go func() {
		defer close(returned)
		for _, f := range turnFacts(100, clock.Now()) {
			e.Record(ctx, f)
		}
		e.Requested(ctx, client.PermissionView{ID: "p1", Kind: client.KindPermission, Agent: "claude", SessionID: "s0", CreatedAt: clock.Now()})
	}()
	select {
	case <-returned:
	case <-time.After(20 * time.Second):
		tx.Rollback() // let them go, so the test ends
		t.Fatal("Record waited for the store while a transaction held it")
	}
	if b := e.Backlog(); b.Queued != 101 || b.Dropped != 0 {
		t.Errorf("Backlog() = %+v with the store held, want 101 queued", b)
	}
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	if got := outbox(t, e); len(got) != 101 || got[0].EventName != TurnStarted || got[100].EventName != PermissionRequest {
		t.Errorf("outbox after the transaction: %d events, want the 101 in order", len(got))
	}
	if b := e.Backlog(); b.Queued != 0 {
		t.Errorf("Backlog() = %+v after the flush, want empty", b)
	}
}

// TestRunWritesQueuedEvents: under Run, what Record queues reaches the
// store and is dispatched without anyone flushing by hand.
func TestRunWritesQueuedEvents(t *testing.T) {
	clock := newFakeClock()
	e := testEngine(t, clock, soundDef("ding"))
	trust(t, e, "ding")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { e.Run(ctx); close(done) }()
	defer func() { cancel(); <-done }()
	for _, f := range turnFacts(2, clock.Now()) {
		e.Record(ctx, f)
	}
	waitFor(t, "the turn's run to succeed", func() bool {
		rs := runsOf(t, e)
		return len(rs) == 1 && rs[0].State == StateSucceeded
	})
}

// waitFor polls cond until it holds; the test's own timeout bounds it.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("no %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

// TestQueueFullDropsNewest: a full queue drops the events that come, and
// counts them; the older ones, already queued, are written in order.
func TestQueueFullDropsNewest(t *testing.T) {
	clock := newFakeClock()
	e := testEngine(t, clock, allEvents())
	for _, f := range turnFacts(maxQueued+10, clock.Now()) {
		e.Record(context.Background(), f)
	}
	if b := e.Backlog(); b.Queued != maxQueued || b.Dropped != 10 {
		t.Fatalf("Backlog() = %+v, want %d queued and 10 dropped", b, maxQueued)
	}
	got := outbox(t, e)
	last := fmt.Sprint("s", maxQueued/2-1)
	if len(got) != maxQueued || got[0].Session.ID != "s0" || got[maxQueued-1].Session.ID != last {
		t.Errorf("outbox: %d events from %s to %s, want %d from s0 to %s", len(got), got[0].Session.ID, got[len(got)-1].Session.ID, maxQueued, last)
	}
	if b := e.Backlog(); b.Queued != 0 || b.Dropped != 10 {
		t.Errorf("Backlog() = %+v after the flush, want none queued and the 10 dropped still counted", b)
	}
}

// fillStore makes e's store refuse to grow, as on a full disk: SQLite's
// max_page_count caps the file at the pages it has, and undo lifts it.
func fillStore(t *testing.T, e *Engine) (undo func()) {
	t.Helper()
	var pages int
	if err := e.db.QueryRow(`PRAGMA page_count`).Scan(&pages); err != nil {
		t.Fatal(err)
	}
	if _, err := e.db.Exec(fmt.Sprintf(`PRAGMA max_page_count = %d`, pages)); err != nil {
		t.Fatal(err)
	}
	return func() {
		if _, err := e.db.Exec(`PRAGMA max_page_count = 1073741823`); err != nil {
			t.Fatal(err)
		}
	}
}

// bigTurn is a turn of session sid whose answer takes pages of its own.
func bigTurn(sid string, at time.Time) Fact {
	return Fact{Event: agents.Event{Agent: "claude", Kind: agents.KindTurnEnd, SessionID: sid, TurnID: "t", Time: at},
		Response: strings.Repeat("the answer ", 6000)}
}

// TestDiskFullKeepsEvents: when the store cannot take an event (a full
// disk), the event stays queued, Backlog says why, and it is written
// once the store takes writes again.
func TestDiskFullKeepsEvents(t *testing.T) {
	ctx := context.Background()
	clock := newFakeClock()
	e := testEngine(t, clock, allEvents())
	undo := fillStore(t, e)
	e.Record(ctx, bigTurn("s1", clock.Now()))
	if err := e.flush(ctx); err == nil {
		t.Fatal("flush into a full store succeeded: the test's full disk is not full")
	}
	if b := e.Backlog(); b.Queued != 2 || b.WriteError != "disk full" {
		t.Errorf("Backlog() = %+v on a full disk, want 2 queued, disk full", b)
	}
	undo()
	if got := outbox(t, e); len(got) != 2 || got[0].EventName != ResponseCommitted || got[1].EventName != TurnCompleted {
		t.Errorf("outbox once the disk has room: %+v, want response.committed and turn.completed", got)
	}
	if b := e.Backlog(); b != (Backlog{}) {
		t.Errorf("Backlog() = %+v once written, want empty", b)
	}
}

// TestRunRetriesAfterDiskFull: Run's writer tries a failed write again
// after its backoff, on the engine's clock.
func TestRunRetriesAfterDiskFull(t *testing.T) {
	clock := newFakeClock()
	e := testEngine(t, clock, allEvents())
	undo := fillStore(t, e)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { e.Run(ctx); close(done) }()
	defer func() { cancel(); <-done }()
	e.Record(ctx, bigTurn("s1", clock.Now()))
	waitFor(t, "disk full in the backlog", func() bool { return e.Backlog().WriteError == "disk full" })
	undo()
	waitFor(t, "retry that writes the events", func() bool {
		clock.Advance(retryMin)
		return e.Backlog().Queued == 0
	})
	var n int
	if err := e.db.QueryRow(`SELECT COUNT(*) FROM events`).Scan(&n); err != nil || n != 2 {
		t.Errorf("events in the store = %d, %v; want 2", n, err)
	}
}

// TestCloseWritesQueued: events queued when no Run writes them are
// written by Close, and found by the next engine.
func TestCloseWritesQueued(t *testing.T) {
	clock := newFakeClock()
	e := testEngine(t, clock, allEvents())
	for _, f := range turnFacts(4, clock.Now()) {
		e.Record(context.Background(), f)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	again, err := Open(context.Background(), Options{Home: e.o.Home, Now: clock.Now, After: clock.After})
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	if got := outbox(t, again); len(got) != 4 {
		t.Errorf("outbox after Close = %d events, want 4", len(got))
	}
}
