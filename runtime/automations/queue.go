package automations

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"time"

	"github.com/ncruces/go-sqlite3"
)

// The lifecycle events that Record and Requested derive reach the store
// off the hook's path. Both run on the runtime's request path, once per
// hook, and a write there waited for the store's one connection behind
// the dispatcher's transaction: with many definitions, hooks timed out.
// They hand the event to this queue in memory instead, and Run's writer
// (writeLoop) puts it in the outbox. A write that fails (a full disk)
// keeps the events queued, to be tried again; the queue is bounded, and
// when it is full the newest events are dropped, counted: the queued ones
// are older, and their runs come in the order the events happened, so
// what is lost is one stretch at the end rather than holes all along.

// Bounds of the queue: a hook's event is at most 64 KiB, so the count
// alone would allow 64 MiB.
const (
	maxQueued      = 1024
	maxQueuedBytes = 8 << 20
	// flushBatch is how many events one transaction writes.
	flushBatch = 128
	// retryMin and retryMax pace the writes after a failed one.
	retryMin = time.Second
	retryMax = 30 * time.Second
	// closeFlush bounds the last write when automations stop.
	closeFlush = 5 * time.Second
)

// queued is an event waiting for the store, as it will be written.
type queued struct {
	id, session string
	name        EventName
	envelope    []byte
	at          int64 // Unix ms
}

// eventQueue is the events waiting for the store, oldest first.
type eventQueue struct {
	mu       sync.Mutex
	items    []queued
	bytes    int
	dropped  int64  // since the engine opened
	dropping bool   // dropped since the queue last had room (the WARN was said)
	writeErr string // why the last write failed; "" after one that worked
	wake     chan struct{}

	flushMu sync.Mutex // one flush at a time: a flush removes what it wrote
}

func newEventQueue() *eventQueue { return &eventQueue{wake: make(chan struct{}, 1)} }

// Backlog is the events waiting in memory for the store.
type Backlog struct {
	// Queued is how many wait.
	Queued int `json:"queued"`
	// Dropped counts the events lost to a full queue since clawd serve
	// started.
	Dropped int64 `json:"dropped,omitempty"`
	// WriteError is why they wait: the store's last write failed ("disk
	// full"); "" when it works.
	WriteError string `json:"write_error,omitempty"`
}

// Backlog reports the queue of events waiting for the store.
func (e *Engine) Backlog() Backlog {
	q := e.queue
	q.mu.Lock()
	defer q.mu.Unlock()
	return Backlog{Queued: len(q.items), Dropped: q.dropped, WriteError: q.writeErr}
}

// enqueue hands env to the writer; it never waits for the store.
func (e *Engine) enqueue(env *Envelope) {
	b, err := json.Marshal(env)
	if err != nil {
		e.o.Log.Warn("automations: event not queued", "event", env.EventName, "session", env.Session.ID, "err", err)
		return
	}
	q := e.queue
	q.mu.Lock()
	if len(q.items) >= maxQueued || q.bytes+len(b) > maxQueuedBytes {
		q.dropped++
		first := !q.dropping
		q.dropping = true
		n, why := q.dropped, q.writeErr
		q.mu.Unlock()
		if first {
			e.o.Log.Warn("automations: event queue full: new events are dropped until the store takes the queued ones",
				"event", env.EventName, "session", env.Session.ID, "queued", maxQueued, "dropped", n, "store", why)
		}
		return
	}
	q.items = append(q.items, queued{id: env.EventID, session: env.Session.ID, name: env.EventName, envelope: b, at: ms(e.o.Now())})
	q.bytes += len(b)
	q.mu.Unlock()
	e.wake(q.wake)
}

// flush writes the queued events to the store, oldest first, flushBatch
// to a transaction. It stops at the first failure, keeping the events
// that were not written for the next try.
func (e *Engine) flush(ctx context.Context) error {
	q := e.queue
	q.flushMu.Lock()
	defer q.flushMu.Unlock()
	for {
		q.mu.Lock()
		// The first n items stay as they are while the lock is let go:
		// enqueue only appends, and only flush removes.
		batch := q.items[:min(len(q.items), flushBatch)]
		q.mu.Unlock()
		if len(batch) == 0 {
			return nil
		}
		err := e.writeEvents(ctx, batch)
		q.mu.Lock()
		if err != nil {
			q.writeErr = writeProblem(err)
			q.mu.Unlock()
			return err
		}
		for _, it := range batch {
			q.bytes -= len(it.envelope)
		}
		clear(q.items[:len(batch)]) // the envelopes go with the GC
		q.items = q.items[len(batch):]
		if len(q.items) == 0 {
			q.items = nil
		}
		was, dropped := q.writeErr, q.dropped
		q.writeErr = ""
		ended := q.dropping && len(q.items) < maxQueued
		if ended {
			q.dropping = false
		}
		q.mu.Unlock()
		if was != "" {
			e.o.Log.Info("automations: the store takes events again", "was", was)
		}
		if ended {
			e.o.Log.Warn("automations: event queue has room again", "dropped", dropped)
		}
		e.wake(e.wakeDispatch)
	}
}

// writeProblem is why a write failed, for Backlog: "disk full", or the
// error.
func writeProblem(err error) string {
	if errors.Is(err, sqlite3.FULL) {
		return "disk full"
	}
	return err.Error()
}

// writeLoop is Run's writer: it flushes the queue when an event comes,
// after a failed write again with a backoff (retryMin doubling to
// retryMax, new events waiting for it), and once more when ctx ends.
// What is still queued then is Close's to write or report.
func (e *Engine) writeLoop(ctx context.Context) {
	var backoff time.Duration
	for {
		err := e.flush(ctx)
		wake := e.queue.wake
		var retry <-chan time.Time
		if err != nil && ctx.Err() == nil {
			backoff = min(max(2*backoff, retryMin), retryMax)
			e.o.Log.Warn("automations: events wait in memory: the store does not take them", "err", err,
				"queued", e.Backlog().Queued, "retry_in", backoff)
			wake, retry = nil, e.o.After(backoff)
		} else {
			backoff = 0
		}
		select {
		case <-ctx.Done():
			fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), closeFlush)
			e.flush(fctx)
			cancel()
			return
		case <-wake:
		case <-retry:
		}
	}
}

// closeQueue writes what the queue still holds (Run was not running, or
// its last write failed) and says what is lost when that fails.
func (e *Engine) closeQueue() {
	ctx, cancel := context.WithTimeout(context.Background(), closeFlush)
	defer cancel()
	if err := e.flush(ctx); err != nil {
		e.o.Log.Warn("automations: events lost: the store did not take them before clawd stopped",
			"lost", e.Backlog().Queued, "err", err)
	}
}
