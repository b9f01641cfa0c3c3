package runtime

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

// errNoHistory answers what needs the history when the runtime runs
// without one.
var errNoHistory = errors.New("this clawd serve keeps no history (it could not open history.db: see its log)")

// journal is the runtime's side of the history. Its fields are guarded by
// Server.mu.
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
	// retryEvery is how soon a failed write is tried again.
	retryEvery = 10 * time.Second
)

// ProblemHistory is the id of the Problem the journal reports while it
// cannot write the history.
const ProblemHistory = "history"

// useHistory makes the runtime keep its history in st: the titles people
// gave are loaded, and from now on the runtime tallies the recap.
func (s *Server) useHistory(ctx context.Context, st *history.Store) error {
	titles, err := st.PersonTitles(ctx)
	if err != nil {
		return err
	}
	j := &journal{
		store:  st,
		tally:  recap.NewTally(st.Loc(), st.Hash),
		titles: map[statemachine.Key]string{},
		turns:  map[statemachine.Key]int{},
		wake:   make(chan struct{}, 1),
	}
	for k, t := range titles {
		j.titles[statemachine.Key{Agent: k.Agent, ID: k.SessionID}] = t
	}
	s.mu.Lock()
	s.j = j
	s.mu.Unlock()
	return nil
}

// observeLocked follows what an applied event did; the caller holds mu.
func (s *Server) observeLocked(e *agents.Event, res *statemachine.Result, now time.Time) {
	if res.Evicted != nil {
		s.titles.forget(res.Evicted.Key())
	}
	k := res.Session.Key()
	if res.Removed {
		s.titles.forget(k)
	}
	j := s.j
	if j == nil {
		return
	}
	if res.Evicted != nil {
		j.tally.Session(*res.Evicted, true, now)
		s.landLocked(*res.Evicted, false)
	}
	if res.Ignored {
		return
	}
	if t, ok := j.titles[k]; ok && res.Session.Titles.Person != t {
		// A session a person named before clawd (re)started tracking it.
		s.m.Retitle(k, t, agents.TitleFromPerson)
		res.Session.Titles.Person = t
		res.Session.Title, res.Session.TitleSource = res.Session.Titles.Best()
	}
	j.tally.Apply(e, res.Session, res.Removed, now)
	if res.Removed {
		s.landLocked(res.Session, true)
	}
}

// observeTickLocked follows what the clock did to sessions; the caller
// holds mu.
func (s *Server) observeTickLocked(res []statemachine.Result, now time.Time) {
	for _, r := range res {
		if r.Session.ID == "" {
			continue
		}
		if r.Removed {
			s.titles.forget(r.Session.Key())
		}
		if r.Stale {
			s.titles.again(r.Session.Key())
		}
		if s.j == nil {
			continue
		}
		s.j.tally.Session(r.Session, r.Removed, now)
		if r.Removed || r.Stale {
			// Gone without a word (its agent died, or it was silent
			// for long without one to ask): over, as far as clawd can
			// tell. Stale with its agent alive: not over, but worth
			// finding again.
			s.landLocked(r.Session, r.Removed)
		}
	}
}

// observeSessionLocked follows a session changed by anything else (an
// answer given in clawd); the caller holds mu.
func (s *Server) observeSessionLocked(ss statemachine.Session, now time.Time) {
	if s.j != nil && ss.ID != "" {
		s.j.tally.Session(ss, false, now)
	}
}

// landLocked queues session ss for the history; the caller holds mu.
func (s *Server) landLocked(ss statemachine.Session, ended bool) {
	j := s.j
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

// runJournal writes the history as it comes and the recap every
// s.cfg.RecapEvery until ctx ends, then lands the sessions still running
// and writes what is left.
func (s *Server) runJournal(ctx context.Context) {
	s.mu.Lock()
	j := s.j
	s.mu.Unlock()
	if j == nil {
		return
	}
	every := s.cfg.RecapEvery
	if every <= 0 {
		every = DefaultRecapEvery
	}
	ticker := time.NewTicker(every)
	defer ticker.Stop()
	cov := coverage{from: s.cfg.Now()}
	s.writeJournal(ctx, j, &cov, every, false)
	for {
		// While writes fail, the next try comes in retryEvery.
		var retry <-chan time.Time
		if s.journalFailing() {
			retry = s.cfg.After(retryEvery)
		}
		select {
		case <-ctx.Done():
			// The last words: written whatever ended ctx.
			s.writeJournal(context.WithoutCancel(ctx), j, &cov, every, true)
			return
		case <-j.wake:
			s.writeHistory(ctx, j)
		case <-retry:
			s.writeHistory(ctx, j)
			s.writeRecaps(ctx, j)
		case <-ticker.C:
			s.writeJournal(ctx, j, &cov, every, false)
		}
	}
}

// journalFailing reports whether the journal's last write failed.
func (s *Server) journalFailing() bool {
	s.problems.mu.Lock()
	defer s.problems.mu.Unlock()
	_, failing := s.problems.m[ProblemHistory]
	return failing
}

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
func (s *Server) writeJournal(ctx context.Context, j *journal, cov *coverage, every time.Duration, last bool) {
	now := s.cfg.Now()
	s.mu.Lock()
	if last {
		for _, ss := range s.m.Sessions() {
			s.landLocked(ss, false)
		}
	}
	batch := j.tally.Take(now)
	s.mu.Unlock()
	s.writeHistory(ctx, j)
	st := j.store
	j.recaps = append(j.recaps, batch)
	s.writeRecaps(ctx, j)
	if now.Sub(cov.pruned) >= pruneEvery {
		if err := st.Prune(ctx); err != nil {
			s.log.Warn("history retention", "err", err)
		}
		cov.pruned = now
	}
	if !cov.lastNote.IsZero() && now.Sub(cov.lastNote) > 3*every {
		cov.id, cov.from = 0, now
	}
	s.mu.Lock()
	j.since = cov.from
	if last {
		j.since = time.Time{} // no longer seeing
	}
	s.mu.Unlock()
	id, err := st.Cover(ctx, cov.id, cov.from, now)
	if err != nil {
		s.log.Warn("recap coverage", "err", err)
		return
	}
	cov.id, cov.lastNote = id, now
}

// writeHistory writes the history entries waiting. When the disk is full
// they wait for the next try (the newest maxWaitingEntries of them), and
// the snapshot's problems say so; other errors drop them, logged.
func (s *Server) writeHistory(ctx context.Context, j *journal) {
	s.mu.Lock()
	entries := j.entries
	j.entries = nil
	s.mu.Unlock()
	err := j.store.Record(ctx, entries)
	switch {
	case err == nil:
		s.clearProblem(ProblemHistory)
		return
	case !sqlitedb.Retryable(err):
		s.log.Warn("history", "err", err)
		return
	}
	s.mu.Lock()
	j.entries = append(entries, j.entries...)
	if n := len(j.entries) - maxWaitingEntries; n > 0 {
		s.log.Warn("history: sessions lost while it cannot be written", "lost", n)
		j.entries = append([]history.Entry(nil), j.entries[n:]...)
	}
	waiting := len(j.entries)
	s.mu.Unlock()
	s.historyFailing(err, waiting)
}

// writeRecaps writes the recap tallies waiting; while the disk is full
// they wait (the newest maxWaitingRecaps of them).
func (s *Server) writeRecaps(ctx context.Context, j *journal) {
	for len(j.recaps) > 0 {
		err := j.store.AddRecap(ctx, j.recaps[0])
		if err != nil && sqlitedb.Retryable(err) {
			if n := len(j.recaps) - maxWaitingRecaps; n > 0 {
				s.log.Warn("recap: counts lost while it cannot be written", "minutes", n)
				j.recaps = j.recaps[n:]
			}
			s.mu.Lock()
			waiting := len(j.entries)
			s.mu.Unlock()
			s.historyFailing(err, waiting)
			return
		}
		if err != nil {
			s.log.Warn("recap", "err", err)
		}
		j.recaps = j.recaps[1:]
	}
}

// historyFailing reports that the history cannot be written now, with
// the sessions waiting for it.
func (s *Server) historyFailing(err error, waiting int) {
	if !s.journalFailing() {
		s.log.Warn("history cannot be written now: keeping what comes until it can", "err", err, "sessions_waiting", waiting)
	}
	p := s.cfg.Printer
	s.setProblem(client.Problem{
		ID:     ProblemHistory,
		Text:   p.N("problem.history", waiting, err.Error()),
		Remedy: p.T("problem.history_fix"),
	})
}

// Rename gives the session k the title a person chose ("" takes it away):
// kept in the history (for a session clawd tracks later too), shown at
// once where the session is live.
func (s *Server) Rename(ctx context.Context, k statemachine.Key, title string) error {
	s.mu.Lock()
	j := s.j
	s.mu.Unlock()
	if j == nil {
		return errNoHistory
	}
	if err := j.store.SetTitle(ctx, history.Key{Agent: k.Agent, SessionID: k.ID}, title); err != nil {
		return err
	}
	s.mu.Lock()
	if title == "" {
		delete(j.titles, k)
	} else {
		j.titles[k] = title
	}
	changed := s.m.Retitle(k, title, agents.TitleFromPerson)
	s.mu.Unlock()
	if changed {
		s.feeds.publish(client.Change{Display: true})
	}
	return nil
}
