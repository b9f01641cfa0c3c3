package runtime

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/runtime/client"
	"github.com/clawdhq/clawd/statemachine"
)

// sessionStore is the runtime's sessions: the state machine, the numbers
// of the records (seq), the history's journal, the streams' backlog and
// the hubs the event stream and the in-process feeds fan out from. It is
// the one way an event gets in (apply: the state machine, the number, the
// journal, the publishing), and everything else of the runtime, the broker
// and the dashboard included, goes through its methods, never its fields
// (TestStoreFieldsOnlyInStore keeps it so). Its files are store.go and
// journal.go.
//
// Lock order, outermost first:
//
//	sources.ingest → broker.mu → sessionStore.mu → titleFiles.mu
//	                                            ↘ pubMu → hub.mu
//
// broker.mu is taken before mu (the broker registers, settles and answers
// requests through the store's methods while it holds its own lock),
// never after; the hooks (gone, stale) run under mu and take only the
// title files' lock. pubMu is taken before mu is released, so the records
// go out in seq order while the encoding and the fan-out run outside mu;
// the hubs' own locks are innermost (the broker publishes under broker.mu
// alone too).
type sessionStore struct {
	now   func() time.Time
	after func(time.Duration) <-chan time.Time
	log   *slog.Logger
	// recapEvery is how often the journal writes the recap.
	recapEvery time.Duration
	// gone and stale hear, under mu, of a session that left the state
	// machine or went stale.
	gone, stale func(statemachine.Key)
	// health hears whether the journal can write the history.
	health historyHealth

	mu  sync.Mutex
	m   *statemachine.Machine
	seq uint64
	// replayAt stands in for the clock while the runtime starts (see
	// nowLocked); guarded by mu.
	replayAt time.Time
	// j is the history's journal, nil without a history; guarded by mu.
	j *journal

	// pubMu orders publishing: taken before mu is released, it keeps the
	// stream in seq order while the encoding and the fan-out run outside
	// mu, so readers of the sessions never wait for subscribers.
	pubMu sync.Mutex
	// backlog is the streams' recent records; guarded by pubMu.
	backlog backlog

	// events is the event stream's hub, feeds the in-process feeds'.
	events *hub[streamLine]
	feeds  *hub[client.Change]
	// wake wakes the clock (runClock): the display may have changed.
	wake chan struct{}
}

// historyHealth is where the journal says whether it can write the
// history (the runtime's problems).
type historyHealth interface {
	// historyFailing: the history cannot be written now, waiting sessions
	// wait for it.
	historyFailing(err error, waiting int)
	// historyWritten: it can again.
	historyWritten()
	// journalFailing reports whether the last write failed.
	journalFailing() bool
}

// storeConfig configures a sessionStore.
type storeConfig struct {
	Machine    statemachine.Options
	Now        func() time.Time
	After      func(time.Duration) <-chan time.Time
	Log        *slog.Logger
	RecapEvery time.Duration
	// Gone and Stale are the store's hooks (see sessionStore); nil: none.
	Gone, Stale func(statemachine.Key)
	Health      historyHealth
}

func newSessionStore(cfg storeConfig) *sessionStore {
	nop := func(statemachine.Key) {}
	st := &sessionStore{
		now: cfg.Now, after: cfg.After, log: cfg.Log, recapEvery: cfg.RecapEvery,
		gone: cfg.Gone, stale: cfg.Stale, health: cfg.Health,
		m:      statemachine.New(cfg.Machine),
		events: newStreamHub(),
		feeds:  newFeedHub(),
		wake:   make(chan struct{}, 1),
	}
	if st.gone == nil {
		st.gone = nop
	}
	if st.stale == nil {
		st.stale = nop
	}
	if st.recapEvery <= 0 {
		st.recapEvery = DefaultRecapEvery
	}
	return st
}

// apply is the one way an event gets in: the state machine applies it, it
// is numbered and recorded, published in order outside mu, and the clock
// is woken. With stateOnly a session that waits for the person is left
// alone: ok is then false and nothing changed.
func (st *sessionStore) apply(e agents.Event, stateOnly bool) (res statemachine.Result, rec client.EventRecord, ok bool) {
	st.mu.Lock()
	if stateOnly {
		if ss, found := st.m.Session(statemachine.Key{Agent: e.Agent, ID: e.SessionID}); found && ss.Pending > 0 {
			st.mu.Unlock()
			return res, rec, false
		}
	}
	now := st.nowLocked()
	res = st.m.Apply(e, now)
	st.observeLocked(&e, &res, now)
	st.seq++
	rec = client.EventRecord{Seq: st.seq, Event: e, State: string(res.Session.State), DisplayState: string(res.Display)}
	if res.Removed || res.Ignored && e.Kind == agents.KindSessionEnd {
		rec.State = string(statemachine.Sleeping)
		if e.Reason == "clear" {
			rec.State = string(statemachine.Sweeping)
		}
	}
	st.pubMu.Lock()
	st.mu.Unlock()
	st.publishLocked(rec)
	st.pubMu.Unlock()
	st.nudge()
	return res, rec, true
}

// record numbers and publishes rec, a record of session k that no event
// of its agent made (a permission's answer), in order with the agents'
// events: its State (Sleeping without the session), Host and
// DisplayState are the store's now.
func (st *sessionStore) record(k statemachine.Key, rec client.EventRecord) {
	st.mu.Lock()
	rec.State, rec.DisplayState = string(statemachine.Sleeping), string(st.m.Display())
	if ss, ok := st.m.Session(k); ok {
		rec.State, rec.Host = string(ss.State), ss.Host
	}
	st.seq++
	rec.Seq = st.seq
	st.pubMu.Lock()
	st.mu.Unlock()
	st.publishLocked(rec)
	st.pubMu.Unlock()
}

// publishLocked keeps rec in the backlog and hands it to the event
// stream's subscribers and the in-process feeds. The caller holds pubMu,
// not mu.
func (st *sessionStore) publishLocked(rec client.EventRecord) {
	st.backlog.add(rec)
	publishRecord(st.events, rec)
	if st.feeds.active() {
		st.feeds.publish(client.Change{Event: &rec})
	}
}

// announce tells the in-process feeds of a change that is no record.
func (st *sessionStore) announce(c client.Change) { st.feeds.publish(c) }

// subscribe follows the in-process feeds from now on (see Server.Subscribe).
func (st *sessionStore) subscribe(buf int) *subscription[client.Change] {
	return st.feeds.subscribe(buf)
}

// followEvents subscribes to the event stream's lines from now on, with
// room for buf, and returns the held records start asked for and, for a
// resumed reader that lost some, the gap: all under pubMu (see backlog).
func (st *sessionStore) followEvents(start streamStart, buf int) (*subscription[streamLine], []client.EventRecord, *gap) {
	var sub *subscription[streamLine]
	recs, lost := st.backlogAfter(start, func() { sub = st.events.subscribe(buf) })
	return sub, recs, lost
}

// followChanges is followEvents for the in-process feeds, which carry the
// records as the event stream does.
func (st *sessionStore) followChanges(start streamStart, buf int) (*subscription[client.Change], []client.EventRecord, *gap) {
	var sub *subscription[client.Change]
	recs, lost := st.backlogAfter(start, func() { sub = st.feeds.subscribe(buf) })
	return sub, recs, lost
}

// streaming reports whether the event stream has a subscriber.
func (st *sessionStore) streaming() bool { return st.events.active() }

// backlogAfter calls subscribe and takes the backlog start asked for,
// both under pubMu.
func (st *sessionStore) backlogAfter(start streamStart, subscribe func()) (recs []client.EventRecord, lost *gap) {
	st.pubMu.Lock()
	defer st.pubMu.Unlock()
	subscribe()
	if !start.backlog {
		return nil, nil
	}
	recs, n, reset := st.backlog.after(start.since)
	if start.resumed && (n > 0 || reset) {
		lost = &gap{Missed: n, Reset: reset}
	}
	return recs, lost
}

// nudge wakes the clock: the display may have changed.
func (st *sessionStore) nudge() {
	select {
	case st.wake <- struct{}{}:
	default:
	}
}

// runClock drives the time-based rules of the state machine until ctx
// ends: one-shot returns, minimum display times, stale sessions, and every
// liveEvery the agents' liveness by alive.
func (st *sessionStore) runClock(ctx context.Context, liveEvery time.Duration, alive func(int) bool) {
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	live := time.NewTicker(liveEvery)
	defer live.Stop()
	for {
		st.mu.Lock()
		next := st.m.NextWake()
		st.mu.Unlock()
		d := time.Hour
		if !next.IsZero() {
			d = max(next.Sub(st.now()), 0)
		}
		timer.Reset(d)
		select {
		case <-ctx.Done():
			return
		case <-st.wake:
		case <-timer.C:
			st.tick(nil)
		case <-live.C:
			st.tick(alive)
		}
	}
}

// tick runs the state machine's clock now, checking the agents by alive
// when it is not nil.
func (st *sessionStore) tick(alive func(int) bool) {
	st.mu.Lock()
	now := st.nowLocked()
	res := st.m.Tick(now, alive)
	st.observeTickLocked(res, now)
	for _, r := range res {
		if r.Removed {
			st.log.Info("session gone", "agent", r.Session.Agent, "session", r.Session.ID)
		}
	}
	st.mu.Unlock()
	if len(res) > 0 {
		st.feeds.publish(client.Change{Display: true})
	}
}

// clockAt runs f with the store's clock standing at t (see nowLocked).
// Only while the runtime starts: nothing else ingests then.
func (st *sessionStore) clockAt(t time.Time, f func()) {
	st.mu.Lock()
	st.replayAt = t
	st.mu.Unlock()
	f()
	st.mu.Lock()
	st.replayAt = time.Time{}
	st.mu.Unlock()
}

// nowLocked is the time of an event applied or a tick run now: the
// clock's, or while the runtime starts the time of the journal or of the
// spooled event replayed. The caller holds mu.
func (st *sessionStore) nowLocked() time.Time {
	if !st.replayAt.IsZero() {
		return st.replayAt
	}
	return st.now()
}

// session returns session k.
func (st *sessionStore) session(k statemachine.Key) (statemachine.Session, bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.m.Session(k)
}

// sessions returns the tracked sessions by key.
func (st *sessionStore) sessions() map[statemachine.Key]statemachine.Session {
	st.mu.Lock()
	defer st.mu.Unlock()
	out := map[statemachine.Key]statemachine.Session{}
	for _, ss := range st.m.Sessions() {
		out[ss.Key()] = ss
	}
	return out
}

// retitle gives session k the title from src, and tells the feeds when
// that changed what it shows; it reports whether it did.
func (st *sessionStore) retitle(k statemachine.Key, title string, src agents.TitleSource) bool {
	st.mu.Lock()
	changed := st.m.Retitle(k, title, src)
	st.mu.Unlock()
	if changed {
		st.feeds.publish(client.Change{Display: true})
	}
	return changed
}

// hasPending reports whether session k still has the pending entry
// pendingKey.
func (st *sessionStore) hasPending(k statemachine.Key, pendingKey string) bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.m.HasPending(k, pendingKey)
}

// resolve closes session k's pending entry pendingKey.
func (st *sessionStore) resolve(k statemachine.Key, pendingKey string) {
	st.mu.Lock()
	now := st.now()
	res := st.m.Resolve(k, pendingKey, now)
	if !res.Ignored {
		st.observeSessionLocked(res.Session, now)
	}
	st.mu.Unlock()
	st.nudge()
}

// snapshot returns the display state and every session; with agree set,
// it is called at the same moment with the state machine's check of
// pending entries, so that what it picks agrees with the snapshot.
func (st *sessionStore) snapshot(agree func(hasPending func(k statemachine.Key, pendingKey string) bool)) client.Snapshot {
	st.mu.Lock()
	defer st.mu.Unlock()
	snap := client.Snapshot{DisplayState: string(st.m.Display()), Sessions: []client.SessionView{}}
	for _, ss := range st.m.Sessions() {
		snap.Sessions = append(snap.Sessions, clientSession(ss))
	}
	if agree != nil {
		agree(st.m.HasPending)
	}
	return snap
}

// clientSession is ss as clients see it.
func clientSession(ss statemachine.Session) client.SessionView {
	return client.SessionView{
		Agent:       ss.Agent,
		SessionID:   ss.ID,
		State:       string(ss.State),
		BaseState:   string(ss.BaseState),
		Title:       ss.Title,
		TitleSource: string(ss.TitleSource),
		Cwd:         ss.Cwd,
		ProjectDir:  ss.ProjectDir,
		Headless:    ss.Headless,
		AgentPID:    ss.AgentPID,
		Host:        ss.Host,
		Tool:        ss.Tool,
		Subagents:   ss.Subagents,
		Pending:     ss.Pending,
		Questions:   ss.Questions,
		LastEvent:   string(ss.LastKind),
		Outcome:     string(ss.Outcome),
		OutcomeAt:   ss.OutcomeAt,
		FailReason:  ss.FailReason,
		StartedAt:   ss.StartedAt,
		UpdatedAt:   ss.UpdatedAt,
	}
}

// restore gives the state machine the saved sessions back, at the time
// at; hist is how many turns of each the history already has. Those there
// is no room for land in the history as an eviction's do.
func (st *sessionStore) restore(saved []statemachine.Saved, at time.Time, hist map[statemachine.Key]int) statemachine.Restored {
	st.mu.Lock()
	defer st.mu.Unlock()
	res := st.m.Restore(saved, at)
	if j := st.j; j != nil {
		for _, ss := range res.Sessions {
			key := ss.Key()
			j.turns[key] = hist[key]
			if t, ok := j.titles[key]; ok && ss.Titles.Person != t {
				st.m.Retitle(key, t, agents.TitleFromPerson)
			}
		}
		for _, ss := range res.Dropped {
			j.turns[ss.Key()] = hist[ss.Key()]
			st.landLocked(ss, false)
		}
	}
	return res
}

// save returns the sessions as the state machine saves them, with how
// many turns of each the history has, and the state machine's count of
// changes they are as of; when that is unchanged from changes (and not
// force), nothing else: ok is false.
func (st *sessionStore) save(changes uint64, force bool) (saved []statemachine.Saved, hist []int, now uint64, ok bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	now = st.m.Changes()
	if !force && now == changes {
		return nil, nil, now, false
	}
	saved = st.m.Save()
	hist = make([]int, len(saved))
	if j := st.j; j != nil {
		for i, sv := range saved {
			hist[i] = j.turns[sv.Session.Key()]
		}
	}
	return saved, hist, now, true
}
