package sessions

import (
	"context"
	"errors"
	"time"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/internal/sqlitedb"
	"github.com/clawdhq/clawd/runtime/client"
	"github.com/clawdhq/clawd/runtime/history"
	"github.com/clawdhq/clawd/runtime/recap"
	"github.com/clawdhq/clawd/statemachine"
)

// The journal: what the runtime writes to the history (runtime/history)
// as it goes. Sessions land in the history when they end or go stale; the
// recap's counts are tallied in memory under the session lock and written
// every RecapEvery, with the runtime's coverage; the titles people give
// are written at once. Writes happen on the journal's own goroutine, never
// on the ingest path. What was still in memory when the runtime was killed
// (at most RecapEvery of counts) is lost, and its coverage ends at the
// last write: the recap says so.

// DefaultRecapEvery is Config.RecapEvery's default.
const DefaultRecapEvery = time.Minute

// ErrNoHistory answers what needs the history when the runtime runs
// without one.
var ErrNoHistory = errors.New("this clawd serve keeps no history (it could not open history.db: see its log)")

// journal is the runtime's side of the history, part of the session
// store. Its fields are guarded by Store.mu.
type journal struct {
	store *history.Store
	tally *recap.Tally
	// titles are the titles people gave sessions, by session.
	titles map[statemachine.Key]string
	// turns is how many of a live session's turns the history has.
	turns map[statemachine.Key]int
	// entries wait to be written to the history.
	entries []history.Entry
	wake    chan struct{}
	// since is when the coverage the journal notes now began (zero while
	// it does not run).
	since time.Time
	// recaps are tallies a write failed for (the disk full), kept for the
	// next try; only the journal's goroutine touches them.
	recaps []recap.Batch
}

// Bounds of what the journal keeps while it cannot write (the disk is
// full): the sessions that ended meanwhile, and an hour of recap tallies
// at the default pace. Past them the oldest go, counted in the log.
const (
	maxWaitingEntries = 5000
	maxWaitingRecaps  = 60
)

// RetryEvery is how soon a failed write of the history is tried again.
const RetryEvery = 10 * time.Second

// UseHistory makes the store keep its history in h: the titles people
// gave are loaded, and from now on the store tallies the recap.
func (st *Store) UseHistory(ctx context.Context, h *history.Store) error {
	titles, err := h.PersonTitles(ctx)
	if err != nil {
		return err
	}
	j := &journal{
		store:  h,
		tally:  recap.NewTally(h.Loc(), h.Hash),
		titles: map[statemachine.Key]string{},
		turns:  map[statemachine.Key]int{},
		wake:   make(chan struct{}, 1),
	}
	for k, t := range titles {
		j.titles[statemachine.Key{Agent: k.Agent, ID: k.SessionID}] = t
	}
	st.mu.Lock()
	st.j = j
	st.mu.Unlock()
	return nil
}

// History is the history's store, nil without one.
func (st *Store) History() *history.Store {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.j == nil {
		return nil
	}
	return st.j.store
}

// observeLocked follows what an applied event did; the caller holds mu.
func (st *Store) observeLocked(e *agents.Event, res *statemachine.Result, now time.Time) {
	if res.Evicted != nil {
		st.cfg.Gone(res.Evicted.Key())
	}
	k := res.Session.Key()
	if res.Removed {
		st.cfg.Gone(k)
	}
	j := st.j
	if j == nil {
		return
	}
	if res.Evicted != nil {
		j.tally.Session(*res.Evicted, true, now)
		st.landLocked(*res.Evicted, false)
	}
	if res.Ignored {
		return
	}
	if t, ok := j.titles[k]; ok && res.Session.Titles.Person != t {
		// A session a person named before clawd (re)started tracking it.
		st.m.Retitle(k, t, agents.TitleFromPerson)
		res.Session.Titles.Person = t
		res.Session.Title, res.Session.TitleSource = res.Session.Titles.Best()
	}
	j.tally.Apply(e, res.Session, res.Removed, now)
	if res.Removed {
		st.landLocked(res.Session, true)
	}
}

// observeTickLocked follows what the clock did to sessions; the caller
// holds mu.
func (st *Store) observeTickLocked(res []statemachine.Result, now time.Time) {
	for _, r := range res {
		if r.Session.ID == "" {
			continue
		}
		if r.Removed {
			st.cfg.Gone(r.Session.Key())
		}
		if r.Stale {
			st.cfg.Stale(r.Session.Key())
		}
		if st.j == nil {
			continue
		}
		st.j.tally.Session(r.Session, r.Removed, now)
		if r.Removed || r.Stale {
			// Gone without a word (its agent died, or it was silent
			// for long without one to ask): over, as far as clawd can
			// tell. Stale with its agent alive: not over, but worth
			// finding again.
			st.landLocked(r.Session, r.Removed)
		}
	}
}

// observeSessionLocked follows a session changed by anything else (an
// answer given in clawd); the caller holds mu.
func (st *Store) observeSessionLocked(ss statemachine.Session, now time.Time) {
	if st.j != nil && ss.ID != "" {
		st.j.tally.Session(ss, false, now)
	}
}

// landLocked queues session ss for the history; the caller holds mu.
func (st *Store) landLocked(ss statemachine.Session, ended bool) {
	j := st.j
	k := ss.Key()
	e := history.Entry{
		Agent: ss.Agent, SessionID: ss.ID, Titles: ss.Titles, Cwd: recap.Folder(ss), Host: ss.Host,
		StartedAt: ss.StartedAt, LastActive: ss.UpdatedAt, Turns: ss.Turns - j.turns[k],
		Headless: ss.Headless, Ended: ended,
	}
	if ended {
		delete(j.turns, k)
	} else {
		j.turns[k] = ss.Turns
	}
	j.entries = append(j.entries, e)
	select {
	case j.wake <- struct{}{}:
	default:
	}
}

// RunJournal writes the history as it comes and the recap every
// Config.RecapEvery until ctx ends, then lands the sessions still running
// and writes what is left. Without a history it returns at once.
func (st *Store) RunJournal(ctx context.Context) {
	w := st.JournalWriter()
	if w == nil {
		return
	}
	ticker := time.NewTicker(w.every)
	defer ticker.Stop()
	w.Write(ctx, false)
	for {
		// While writes fail, the next try comes in RetryEvery.
		var retry <-chan time.Time
		if st.cfg.JournalFailing() {
			retry = st.cfg.After(RetryEvery)
		}
		select {
		case <-ctx.Done():
			// The last words: written whatever ended ctx.
			w.Write(context.WithoutCancel(ctx), true)
			return
		case <-w.j.wake:
			st.writeHistory(ctx, w.j)
		case <-retry:
			st.writeHistory(ctx, w.j)
			st.writeRecaps(ctx, w.j)
		case <-ticker.C:
			w.Write(ctx, false)
		}
	}
}

// JournalWriter writes the history a step at a time, as RunJournal does
// on its ticker: a test steps it with its own clock. One writer at a time.
type JournalWriter struct {
	st    *Store
	j     *journal
	cov   coverage
	every time.Duration
}

// JournalWriter returns a writer of the history whose coverage starts
// now, nil without a history.
func (st *Store) JournalWriter() *JournalWriter {
	st.mu.Lock()
	j := st.j
	st.mu.Unlock()
	if j == nil {
		return nil
	}
	return &JournalWriter{st: st, j: j, cov: coverage{from: st.cfg.Now()}, every: st.cfg.RecapEvery}
}

// Write writes the history entries waiting, the recap tallied and the
// coverage up to now; last, at the end, lands the sessions still running
// first.
func (w *JournalWriter) Write(ctx context.Context, last bool) {
	w.st.writeJournal(ctx, w.j, &w.cov, w.every, last)
}

// Noted is when the writer last noted the coverage.
func (w *JournalWriter) Noted() time.Time { return w.cov.lastNote }

// coverage is the span the running runtime has seen so far, and when
// the journal last applied the history's retention.
type coverage struct {
	id       int64
	from     time.Time
	lastNote time.Time
	pruned   time.Time
}

// pruneEvery is how often the journal applies the retention besides when
// it records sessions: days drop out of the recap also when no session
// ends.
const pruneEvery = time.Hour

// writeJournal writes the history entries waiting, the recap tallied and
// the coverage up to now; at the end (last), with the sessions still
// running landed first. A gap between two notes much longer than every
// (the machine slept) is no coverage: a new span starts after it.
func (st *Store) writeJournal(ctx context.Context, j *journal, cov *coverage, every time.Duration, last bool) {
	now := st.cfg.Now()
	st.mu.Lock()
	if last {
		for _, ss := range st.m.Sessions() {
			st.landLocked(ss, false)
		}
	}
	batch := j.tally.Take(now)
	st.mu.Unlock()
	st.writeHistory(ctx, j)
	h := j.store
	j.recaps = append(j.recaps, batch)
	st.writeRecaps(ctx, j)
	if now.Sub(cov.pruned) >= pruneEvery {
		if err := h.Prune(ctx); err != nil {
			st.cfg.Log.Warn("history retention", "err", err)
		}
		cov.pruned = now
	}
	if !cov.lastNote.IsZero() && now.Sub(cov.lastNote) > 3*every {
		cov.id, cov.from = 0, now
	}
	st.mu.Lock()
	j.since = cov.from
	if last {
		j.since = time.Time{} // no longer seeing
	}
	st.mu.Unlock()
	id, err := h.Cover(ctx, cov.id, cov.from, now)
	if err != nil {
		st.cfg.Log.Warn("recap coverage", "err", err)
		return
	}
	cov.id, cov.lastNote = id, now
}

// writeHistory writes the history entries waiting. When the disk is full
// they wait for the next try (the newest maxWaitingEntries of them), and
// the snapshot's problems say so; other errors drop them, logged.
func (st *Store) writeHistory(ctx context.Context, j *journal) {
	st.mu.Lock()
	entries := j.entries
	j.entries = nil
	st.mu.Unlock()
	err := j.store.Record(ctx, entries)
	switch {
	case err == nil:
		st.cfg.HistoryWritten()
		return
	case !sqlitedb.Retryable(err):
		st.cfg.Log.Warn("history", "err", err)
		return
	}
	st.mu.Lock()
	j.entries = append(entries, j.entries...)
	if n := len(j.entries) - maxWaitingEntries; n > 0 {
		st.cfg.Log.Warn("history: sessions lost while it cannot be written", "lost", n)
		j.entries = append([]history.Entry(nil), j.entries[n:]...)
	}
	waiting := len(j.entries)
	st.mu.Unlock()
	st.cfg.HistoryFailing(err, waiting)
}

// writeRecaps writes the recap tallies waiting; while the disk is full
// they wait (the newest maxWaitingRecaps of them).
func (st *Store) writeRecaps(ctx context.Context, j *journal) {
	for len(j.recaps) > 0 {
		err := j.store.AddRecap(ctx, j.recaps[0])
		if err != nil && sqlitedb.Retryable(err) {
			if n := len(j.recaps) - maxWaitingRecaps; n > 0 {
				st.cfg.Log.Warn("recap: counts lost while it cannot be written", "minutes", n)
				j.recaps = j.recaps[n:]
			}
			st.mu.Lock()
			waiting := len(j.entries)
			st.mu.Unlock()
			st.cfg.HistoryFailing(err, waiting)
			return
		}
		if err != nil {
			st.cfg.Log.Warn("recap", "err", err)
		}
		j.recaps = j.recaps[1:]
	}
}

// TakeRecap is what the tally holds now, to be written before the
// History is summed up, and since when the running runtime has seen (zero
// when it no longer does); ErrNoHistory without a history.
func (st *Store) TakeRecap(now time.Time) (h *history.Store, batch recap.Batch, running time.Time, err error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	j := st.j
	if j == nil {
		return nil, batch, running, ErrNoHistory
	}
	return j.store, j.tally.Take(now), j.since, nil
}

// Rename gives the session k the title a person chose ("" takes it away):
// kept in the history (for a session clawd tracks later too), shown at
// once where the session is live.
func (st *Store) Rename(ctx context.Context, k statemachine.Key, title string) error {
	st.mu.Lock()
	j := st.j
	st.mu.Unlock()
	if j == nil {
		return ErrNoHistory
	}
	if err := j.store.SetTitle(ctx, history.Key{Agent: k.Agent, SessionID: k.ID}, title); err != nil {
		return err
	}
	st.mu.Lock()
	if title == "" {
		delete(j.titles, k)
	} else {
		j.titles[k] = title
	}
	changed := st.m.Retitle(k, title, agents.TitleFromPerson)
	st.mu.Unlock()
	if changed {
		st.feeds.Publish(client.Change{Display: true})
	}
	return nil
}
