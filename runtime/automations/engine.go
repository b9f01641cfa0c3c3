package automations

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/clawdhq/clawd/internal/repo"
)

// Run states.
const (
	StateQueued         = "queued"
	StateRunning        = "running"
	StateSucceeded      = "succeeded"
	StateFailed         = "failed"
	StateSkipped        = "skipped"
	StateBlocked        = "blocked"
	StateCancelled      = "cancelled"
	StateOutcomeUnknown = "outcome_unknown"
)

// RunStates lists the states a run can be in.
var RunStates = []string{StateQueued, StateRunning, StateSucceeded, StateFailed, StateSkipped,
	StateBlocked, StateCancelled, StateOutcomeUnknown}

// Error codes of runs.
const (
	CodeConditionNotMatched = "condition_not_matched"
	CodeTrustRequired       = "trust_required"
	CodeMappingFailed       = "mapping_failed"
	CodeTimeout             = "timeout"
	CodeTransient           = "transient_failure"
	CodeActionFailed        = "action_failed"
	CodeDefinitionRemoved   = "definition_removed"
	CodeDefinitionDisabled  = "definition_disabled"
	CodeLeaseExpired        = "lease_expired"
	CodeCancelled           = "cancelled"
	CodeShutdown            = "shutdown"
)

// Retention and pacing.
const (
	eventRetention = 7 * 24 * time.Hour
	runRetention   = 30 * 24 * time.Hour
	cleanupBatch   = 500
	cleanupEvery   = 10 * time.Minute
	// pollEvery is the loops' fallback pace: new events and runs wake
	// them at once; this catches what a lost wake-up would leave.
	pollEvery = 5 * time.Second
	// claimBatch bounds what one pass of the dispatcher takes.
	claimBatch = 64
)

// Run is one execution of a definition for one event.
type Run struct {
	ID            string    `json:"id"`
	AutomationID  string    `json:"automation_id"`
	Hash          string    `json:"hash"`
	Binding       string    `json:"binding"`
	Shadowed      []string  `json:"shadowed,omitempty"`
	EventID       string    `json:"event_id"`
	EventName     EventName `json:"event_name"`
	SessionID     string    `json:"session_id"`
	State         string    `json:"state"`
	ErrorCode     string    `json:"error_code"`
	ErrorMessage  string    `json:"error_message,omitempty"`
	Attempts      int       `json:"attempts"`
	CreatedAt     time.Time `json:"created_at"`
	NextAt        time.Time `json:"next_at,omitzero"`
	StartedAt     time.Time `json:"started_at,omitzero"`
	FinishedAt    time.Time `json:"finished_at,omitzero"`
	InputSummary  string    `json:"input_summary,omitempty"`
	OutputSummary string    `json:"output_summary,omitempty"`
	Test          bool      `json:"test,omitempty"`
}

// Desktop is what notification and sound actions reach.
type Desktop interface {
	Notify(ctx context.Context, title, body string) error
	Sound(ctx context.Context) error
}

// Options configure an Engine.
type Options struct {
	// Home is the clawd home: automations.toml and the store are there.
	Home string
	// Now and After are the clock; tests use a fake one.
	Now   func() time.Time
	After func(time.Duration) <-chan time.Time
	// Desktop shows notifications and plays sounds; nil where there is
	// no desktop (such runs succeed, saying so in their output).
	Desktop Desktop
	// HTTP sends webhooks (default: a client that never follows a proxy).
	// Whatever client it is, redirects are never followed (see webhook).
	HTTP *http.Client
	Log  *slog.Logger
	// Lease is how long a claimed event or run is someone's before
	// another may take it (default 30 s); a running action renews it.
	Lease time.Duration
	// Workers bounds the actions running at once (default 4).
	Workers int
	// RepoRoot finds the Git repository root above a folder ("" for
	// none); default: a .git entry found walking up.
	RepoRoot func(string) string
}

// Engine is the automations of one clawd home.
type Engine struct {
	o    Options
	db   *sql.DB
	file string

	defs     atomic.Pointer[defSet]
	reloadMu sync.Mutex // one Reload at a time: a bad file keeps what the last good one set

	// watching is closed once the watcher follows automations.toml (or
	// gave up): an edit before then is read by no one until the next.
	watching  chan struct{}
	watchOnce sync.Once
	paused    atomic.Bool

	wakeDispatch chan struct{}
	wakeWork     chan struct{}
	slots        chan struct{}
	inflight     sync.WaitGroup

	turns turnTracker

	lastMu sync.Mutex
	last   map[EventName]*Envelope

	stmts map[string]*sql.Stmt // hotStatements, prepared

	// queue holds the lifecycle events Record and Requested derived until
	// the store has them (see queue.go).
	queue *eventQueue
	// recovered is Recovered's note.
	recovered string
}

// defSet is the definitions of one load of automations.toml.
type defSet struct {
	list    []Definition
	byID    map[string]*Definition
	byEvent map[EventName][]*Definition
	// err is the last load's error, when the file could not be used.
	err error
	// kept: the file has problems (err), and the definitions are those
	// of its last version without any.
	kept bool
}

// Open opens the store in o.Home, recovers from a crash (runs that were
// running are marked outcome_unknown, never re-sent; unresolved events
// are dispatched again), and loads automations.toml. A store that is not
// a database, or a damaged one, is moved aside for a fresh store, which
// Recovered tells.
func Open(ctx context.Context, o Options) (*Engine, error) {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.After == nil {
		o.After = time.After
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.Lease <= 0 {
		o.Lease = 30 * time.Second
	}
	if o.Workers <= 0 {
		o.Workers = 4
	}
	if o.HTTP == nil {
		o.HTTP = &http.Client{Transport: &http.Transport{Proxy: nil}}
	}
	if o.RepoRoot == nil {
		o.RepoRoot = repo.Root
	}
	if err := os.MkdirAll(o.Home, 0o700); err != nil {
		return nil, err
	}
	path := filepath.Join(o.Home, StoreFile)
	var e *Engine
	var err error
	if foreign(path) {
		err = fmt.Errorf("%s: %w", path, errNotSQLite)
	} else {
		e, err = openEngine(ctx, o, path)
	}
	if err != nil && (errors.Is(err, errNotSQLite) || unreadable(err)) {
		// Nothing of the file can be used: keep it for whoever wants to
		// look, and go on with a fresh one rather than with no
		// automations at all.
		cause := err
		to, merr := moveAside(path, o.Now())
		if merr != nil {
			return nil, fmt.Errorf("the automations store %s is unreadable (%v), and %w: move it away by hand", path, cause, merr)
		}
		if e, err = openEngine(ctx, o, path); err == nil {
			e.recovered = fmt.Sprintf("%s was unreadable (%v): moved to %s; the runs and trust before then are there: trust your automations again (clawd automations list)",
				StoreFile, cause, to)
			o.Log.Warn("automations store unreadable: started a fresh one", "err", cause, "moved_to", to)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("open the automations store: %w (automations are off until it opens: check the file's owner, its permissions and the disk's free space)", err)
	}
	e.Reload()
	return e, nil
}

// openEngine opens the store at path and the engine on it, recovered from
// a crash.
func openEngine(ctx context.Context, o Options, path string) (*Engine, error) {
	db, err := openStore(ctx, path)
	if err != nil {
		return nil, err
	}
	e := &Engine{
		o: o, db: db, file: filepath.Join(o.Home, File),
		wakeDispatch: make(chan struct{}, 1),
		wakeWork:     make(chan struct{}, 1),
		slots:        make(chan struct{}, o.Workers),
		last:         map[EventName]*Envelope{},
		queue:        newEventQueue(),
		watching:     make(chan struct{}),
	}
	e.turns.sessions = map[string]*turnState{}
	if err := e.prepare(ctx); err != nil {
		db.Close()
		return nil, err
	}
	if err := e.recover(ctx); err != nil {
		db.Close()
		return nil, err
	}
	p, err := setting(ctx, db, "paused")
	if err != nil {
		db.Close()
		return nil, err
	}
	e.paused.Store(p == "true")
	return e, nil
}

// Recovered is the note of a store found unreadable when the engine
// opened, and moved aside for a fresh one ("" when it was fine): the
// runtime shows it, since the runs and the trust given before are gone
// from the new one.
func (e *Engine) Recovered() string { return e.recovered }

// Close writes the events still queued (saying what is lost when it
// cannot) and stops using the store; Run must have returned.
func (e *Engine) Close() error {
	e.closeQueue()
	return e.db.Close()
}

// Reload reads automations.toml again. A file with problems changes
// nothing in force: the definitions of the last version without problems
// stay (none when there was none since serve started), the error says what
// to fix, and LoadError and Kept tell it until a good version is read.
func (e *Engine) Reload() error {
	e.reloadMu.Lock()
	defer e.reloadMu.Unlock()
	data, err := ReadFile(e.file)
	var list []Definition
	switch {
	case errors.Is(err, os.ErrNotExist):
		err = nil
	case err == nil:
		list, err = Parse(data, e.file)
	}
	if err != nil {
		set := &defSet{byID: map[string]*Definition{}, byEvent: map[EventName][]*Definition{}}
		if prev := e.defs.Load(); prev != nil && (prev.err == nil || prev.kept) {
			*set = *prev
			set.kept = true
		}
		set.err = err
		e.defs.Store(set)
		if set.kept {
			e.o.Log.Warn("automations.toml has problems: the definitions read before stay in force", "definitions", len(set.list), "err", err)
		} else {
			e.o.Log.Warn("automations.toml not used", "err", err)
		}
		return err
	}
	set := &defSet{list: list, byID: map[string]*Definition{}, byEvent: map[EventName][]*Definition{}}
	for i := range set.list {
		d := &set.list[i]
		set.byID[d.ID] = d
		if d.IsEnabled() {
			set.byEvent[d.Event] = append(set.byEvent[d.Event], d)
		}
	}
	e.defs.Store(set)
	e.o.Log.Info("automations loaded", "definitions", len(list))
	e.wake(e.wakeWork)
	return nil
}

// Listens reports whether an enabled definition listens to name: when
// none does, nothing is written for that event.
func (e *Engine) Listens(name EventName) bool { return len(e.defs.Load().byEvent[name]) > 0 }

func (e *Engine) wake(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}

// Observe writes a lifecycle event to the outbox (once per event id) when
// a definition listens to it, and wakes the dispatcher; it waits for the
// store, where Record and Requested hand their events to the queue.
func (e *Engine) Observe(ctx context.Context, env *Envelope) error {
	e.remember(env)
	if !e.Listens(env.EventName) {
		return nil
	}
	b, err := json.Marshal(env)
	if err != nil {
		return err
	}
	if err := e.writeEvents(ctx, []queued{{id: env.EventID, name: env.EventName, session: env.Session.ID,
		envelope: b, at: ms(e.o.Now())}}); err != nil {
		return err
	}
	e.wake(e.wakeDispatch)
	return nil
}

// remember keeps env as the latest of its event, for a preview: only in
// memory.
func (e *Engine) remember(env *Envelope) {
	e.lastMu.Lock()
	e.last[env.EventName] = env
	e.lastMu.Unlock()
}

// Run runs the writer of queued events, the dispatcher, the worker, the
// watcher of automations.toml and the clean-up until ctx ends, then waits
// for the actions under way.
func (e *Engine) Run(ctx context.Context) {
	var wg sync.WaitGroup
	wg.Go(func() { e.writeLoop(ctx) })
	wg.Go(func() { e.loop(ctx, e.wakeDispatch, e.DispatchOnce) })
	wg.Go(func() { e.workLoop(ctx) })
	wg.Go(func() { e.watch(ctx) })
	wg.Go(func() {
		for {
			if _, err := e.Cleanup(ctx); err != nil && ctx.Err() == nil {
				e.o.Log.Warn("automations clean-up", "err", err)
			}
			select {
			case <-ctx.Done():
				return
			case <-e.o.After(cleanupEvery):
			}
		}
	})
	wg.Wait()
	e.inflight.Wait()
}

// loop calls step when woken or every pollEvery, until ctx ends.
func (e *Engine) loop(ctx context.Context, wake chan struct{}, step func(context.Context) (int, error)) {
	for {
		for {
			n, err := step(ctx)
			if err != nil && ctx.Err() == nil {
				e.o.Log.Warn("automations", "err", err)
			}
			if n == 0 || err != nil {
				break
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-wake:
		case <-e.o.After(pollEvery):
		}
	}
}

// Errors of the operations on definitions and runs.
var (
	ErrNoDefinition = errors.New("no such automation")
	ErrNoRun        = errors.New("no such run")
	ErrHashChanged  = errors.New("the definition changed since it was shown")
	ErrRunState     = errors.New("not possible in the run's state")
)

// Trust trusts every binding of definition id for hash, which must be its
// current execution hash (what the person reviewed).
func (e *Engine) Trust(ctx context.Context, id, hash string) error {
	d := e.defs.Load().byID[id]
	if d == nil {
		return fmt.Errorf("%w: %s", ErrNoDefinition, id)
	}
	if cur := d.Hash(); hash != cur {
		return fmt.Errorf("%w: reviewed %s, now %s: show it again", ErrHashChanged, hash, cur)
	}
	var keys []string
	for _, b := range d.bindings() {
		keys = append(keys, b.Key())
	}
	err := e.storeTrust(ctx, id, keys, hash, e.o.Now())
	if err == nil {
		e.o.Log.Info("automation trusted", "automation", id, "hash", hash)
	}
	return err
}

// SetPaused turns the master switch: paused, no event is dispatched and
// no run is started (nothing already sent is undone); resumed, the backlog
// goes on.
func (e *Engine) SetPaused(ctx context.Context, paused bool) error {
	if err := setSetting(ctx, e.db, "paused", fmt.Sprint(paused)); err != nil {
		return err
	}
	e.paused.Store(paused)
	if !paused {
		e.wake(e.wakeDispatch)
		e.wake(e.wakeWork)
	}
	return nil
}

// Paused reports the master switch.
func (e *Engine) Paused() bool { return e.paused.Load() }

// Retry queues a finished run again now (its attempts go on counting).
func (e *Engine) Retry(ctx context.Context, id string) error {
	return e.changeRun(ctx, id, func(state string) error {
		switch state {
		case StateQueued, StateRunning, StateSucceeded:
			return fmt.Errorf("%w: a %s run is not retried", ErrRunState, state)
		}
		return nil
	}, qRetryRun, StateQueued, ms(e.o.Now()), id)
}

// Cancel cancels a queued run; one already running cannot be stopped.
func (e *Engine) Cancel(ctx context.Context, id string) error {
	return e.changeRun(ctx, id, func(state string) error {
		if state != StateQueued {
			return fmt.Errorf("%w: only a queued run can be cancelled (this one is %s)", ErrRunState, state)
		}
		return nil
	}, qCancelRun, StateCancelled, CodeCancelled, ms(e.o.Now()), id)
}
