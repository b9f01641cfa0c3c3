// Package sessions is the runtime's session store and its permission
// broker: the state machine fed with the agents' events, the numbers of
// the records, the history's journal, the backlog and hubs the streams
// and the in-process feeds fan out from (see Store), and the open
// permission requests with their answers (see Broker). The lock order of
// both is on Store.
package sessions

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/runtime/client"
	"github.com/clawdhq/clawd/statemachine"
)

// Store is the runtime's sessions: the state machine, the numbers of
// the records (Seq), the history's journal, the streams' backlog and the
// hubs the event stream and the in-process feeds fan out from. It is the
// one way an event gets in (Apply: the state machine, the number, the
// journal, the publishing); the rest of the runtime, the permission broker
// (Broker) and the dashboard included, uses its methods.
//
// Lock order of the store, the broker and the runtime's locks around
// them, outermost first (this is the one place it is written down):
//
//	runtime's sources.ingest → Broker.mu → Store.mu → the Gone/Stale hooks' locks (the runtime's titleFiles.mu)
//	                           Broker.mu → the Rules' locks (the runtime's sources.mu)
//	                                       Store.mu → pubMu → Hub.mu
//	                           Broker.mu → Hub.mu (the permission stream's; the feeds' through Announce)
//
// The broker takes its lock before the store's (it registers, settles and
// answers requests through the store's methods while it holds it), never
// after: no method of Store calls out while it holds mu but the hooks,
// which take only their own lock, and no method of Broker is called under
// Store.mu. The broker asks BrokerConfig.Rules under its lock, which may
// take only a lock of its own; it works out a request's Card before it
// takes it. pubMu is taken before mu is released, so the records go out
// in Seq order while the encoding and the fan-out run outside mu; the
// hubs' own locks are innermost (the broker publishes under its lock
// alone too).
type Store struct {
	// cfg is New's Config with its defaults filled in.
	cfg Config

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
	events *Hub[Line]
	feeds  *Hub[client.Change]
	// wake wakes the clock (RunClock): the display may have changed.
	wake chan struct{}
}

// Config configures a Store.
type Config struct {
	// Machine tunes the state machine.
	Machine statemachine.Options
	// Now and After are the clock and the timer (default time.Now and
	// time.After).
	Now   func() time.Time
	After func(time.Duration) <-chan time.Time
	Log   *slog.Logger
	// RecapEvery is how often the journal writes the recap (default
	// DefaultRecapEvery).
	RecapEvery time.Duration
	// Gone and Stale hear, under the store's lock, of a session that left
	// the state machine or went stale; they may take only a lock of their
	// own. nil: none.
	Gone, Stale func(statemachine.Key)
	// HistoryFailing hears that the history cannot be written now, with
	// the sessions waiting for it; HistoryWritten that it can again;
	// JournalFailing says whether the last write failed. nil: none.
	HistoryFailing func(err error, waiting int)
	HistoryWritten func()
	JournalFailing func() bool
}

// New returns an empty store.
func New(cfg Config) *Store {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.After == nil {
		cfg.After = time.After
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if cfg.Gone == nil {
		cfg.Gone = func(statemachine.Key) {}
	}
	if cfg.Stale == nil {
		cfg.Stale = func(statemachine.Key) {}
	}
	if cfg.HistoryFailing == nil {
		cfg.HistoryFailing = func(error, int) {}
	}
	if cfg.HistoryWritten == nil {
		cfg.HistoryWritten = func() {}
	}
	if cfg.JournalFailing == nil {
		cfg.JournalFailing = func() bool { return false }
	}
	if cfg.RecapEvery <= 0 {
		cfg.RecapEvery = DefaultRecapEvery
	}
	return &Store{
		cfg:    cfg,
		m:      statemachine.New(cfg.Machine),
		events: NewLineHub(),
		feeds:  newFeedHub(),
		wake:   make(chan struct{}, 1),
	}
}

// Seq is the number of the latest record.
func (st *Store) Seq() uint64 {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.seq
}

// Apply is the one way an event gets in: the state machine applies it, it
// is numbered and recorded, published in order outside mu, and the clock
// is woken. With stateOnly a session that waits for the person is left
// alone: ok is then false and nothing changed.
func (st *Store) Apply(e agents.Event, stateOnly bool) (res statemachine.Result, rec client.EventRecord, ok bool) {
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

// Record numbers and publishes rec, a record of session k that no event
// of its agent made (a permission's answer), in order with the agents'
// events: its State (Sleeping without the session), Host and
// DisplayState are the store's now.
func (st *Store) Record(k statemachine.Key, rec client.EventRecord) {
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
func (st *Store) publishLocked(rec client.EventRecord) {
	st.backlog.add(rec)
	publishRecord(st.events, rec)
	if st.feeds.Active() {
		st.feeds.Publish(client.Change{Event: &rec})
	}
}

// Announce tells the in-process feeds of a change that is no record.
func (st *Store) Announce(c client.Change) { st.feeds.Publish(c) }

// Subscribe follows the in-process feeds from now on (the tray follows
// them through the runtime's Server.Subscribe).
func (st *Store) Subscribe(buf int) *Subscription[client.Change] {
	return st.feeds.Subscribe(buf)
}

// FollowEvents subscribes to the event stream's lines from now on, with
// room for buf, and returns the held records start asked for and, for a
// resumed reader that lost some, the gap: all under pubMu (see backlog).
func (st *Store) FollowEvents(start Start, buf int) (*Subscription[Line], []client.EventRecord, *Gap) {
	var sub *Subscription[Line]
	recs, lost := st.backlogAfter(start, func() { sub = st.events.Subscribe(buf) })
	return sub, recs, lost
}

// FollowChanges is FollowEvents for the in-process feeds, which carry the
// records as the event stream does.
func (st *Store) FollowChanges(start Start, buf int) (*Subscription[client.Change], []client.EventRecord, *Gap) {
	var sub *Subscription[client.Change]
	recs, lost := st.backlogAfter(start, func() { sub = st.feeds.Subscribe(buf) })
	return sub, recs, lost
}

// Streaming reports whether the event stream has a subscriber.
func (st *Store) Streaming() bool { return st.events.Active() }

// backlogAfter calls subscribe and takes the backlog start asked for,
// both under pubMu.
func (st *Store) backlogAfter(start Start, subscribe func()) (recs []client.EventRecord, lost *Gap) {
	st.pubMu.Lock()
	defer st.pubMu.Unlock()
	subscribe()
	if !start.Backlog {
		return nil, nil
	}
	recs, n, reset := st.backlog.after(start.Since)
	if start.Resumed && (n > 0 || reset) {
		lost = &Gap{Missed: n, Reset: reset}
	}
	return recs, lost
}

// nudge wakes the clock: the display may have changed.
func (st *Store) nudge() {
	select {
	case st.wake <- struct{}{}:
	default:
	}
}

// RunClock drives the time-based rules of the state machine until ctx
// ends: one-shot returns, minimum display times, stale sessions, and every
// liveEvery the agents' liveness by alive.
func (st *Store) RunClock(ctx context.Context, liveEvery time.Duration, alive func(int) bool) {
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
			d = max(next.Sub(st.cfg.Now()), 0)
		}
		timer.Reset(d)
		select {
		case <-ctx.Done():
			return
		case <-st.wake:
		case <-timer.C:
			st.Tick(nil)
		case <-live.C:
			st.Tick(alive)
		}
	}
}

// Tick runs the state machine's clock now, checking the agents by alive
// when it is not nil.
func (st *Store) Tick(alive func(int) bool) {
	st.mu.Lock()
	now := st.nowLocked()
	res := st.m.Tick(now, alive)
	st.observeTickLocked(res, now)
	for _, r := range res {
		if r.Removed {
			st.cfg.Log.Info("session gone", "agent", r.Session.Agent, "session", r.Session.ID)
		}
	}
	st.mu.Unlock()
	if len(res) > 0 {
		st.feeds.Publish(client.Change{Display: true})
	}
}

// ClockAt runs f with the store's clock standing at t (see nowLocked).
// Only while the runtime starts: nothing else ingests then.
func (st *Store) ClockAt(t time.Time, f func()) {
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
func (st *Store) nowLocked() time.Time {
	if !st.replayAt.IsZero() {
		return st.replayAt
	}
	return st.cfg.Now()
}

// Session returns session k.
func (st *Store) Session(k statemachine.Key) (statemachine.Session, bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.m.Session(k)
}

// Sessions returns the tracked sessions by key.
func (st *Store) Sessions() map[statemachine.Key]statemachine.Session {
	st.mu.Lock()
	defer st.mu.Unlock()
	out := map[statemachine.Key]statemachine.Session{}
	for _, ss := range st.m.Sessions() {
		out[ss.Key()] = ss
	}
	return out
}

// Retitle gives session k the title from src, and tells the feeds when
// that changed what it shows; it reports whether it did.
func (st *Store) Retitle(k statemachine.Key, title string, src agents.TitleSource) bool {
	st.mu.Lock()
	changed := st.m.Retitle(k, title, src)
	st.mu.Unlock()
	if changed {
		st.feeds.Publish(client.Change{Display: true})
	}
	return changed
}

// HasPending reports whether session k still has the pending entry
// pendingKey.
func (st *Store) HasPending(k statemachine.Key, pendingKey string) bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.m.HasPending(k, pendingKey)
}

// Resolve closes session k's pending entry pendingKey.
func (st *Store) Resolve(k statemachine.Key, pendingKey string) {
	st.mu.Lock()
	now := st.cfg.Now()
	res := st.m.Resolve(k, pendingKey, now)
	if !res.Ignored {
		st.observeSessionLocked(res.Session, now)
	}
	st.mu.Unlock()
	st.nudge()
}

// Snapshot returns the display state and every session; with agree set,
// it is called at the same moment with the state machine's check of
// pending entries, so that what it picks agrees with the snapshot.
func (st *Store) Snapshot(agree func(hasPending func(k statemachine.Key, pendingKey string) bool)) client.Snapshot {
	st.mu.Lock()
	defer st.mu.Unlock()
	snap := client.Snapshot{DisplayState: string(st.m.Display()), Sessions: []client.SessionView{}}
	for _, ss := range st.m.Sessions() {
		snap.Sessions = append(snap.Sessions, ClientSession(ss))
	}
	if agree != nil {
		agree(st.m.HasPending)
	}
	return snap
}

// ClientSession is ss as clients see it.
func ClientSession(ss statemachine.Session) client.SessionView {
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

// Restore gives the state machine the saved sessions back, at the time
// at; hist is how many turns of each the history already has. Those there
// is no room for land in the history as an eviction's do.
func (st *Store) Restore(saved []statemachine.Saved, at time.Time, hist map[statemachine.Key]int) statemachine.Restored {
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

// Save returns the sessions as the state machine saves them, with how
// many turns of each the history has, and the state machine's count of
// changes they are as of; when that is unchanged from changes (and not
// force), nothing else: ok is false.
func (st *Store) Save(changes uint64, force bool) (saved []statemachine.Saved, hist []int, now uint64, ok bool) {
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
