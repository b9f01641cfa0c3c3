package automations

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/clawdhq/clawd/agents"
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

	defs   atomic.Pointer[defSet]
	paused atomic.Bool

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
	err     error // the load error, when the file could not be used
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

// recover is the start-up after a crash: a run left running may have
// done its action already, so it is marked outcome_unknown and never sent
// again by itself; a pending event is free to dispatch again.
func (e *Engine) recover(ctx context.Context) error {
	now := ms(e.o.Now())
	return inTx(ctx, e.db, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `UPDATE runs SET state = ?, error_code = ?,
			error_message = 'clawd stopped while the action ran: it may or may not have happened; retry it by hand if it did not',
			finished_at = ?, lease_until = 0 WHERE state = ?`,
			StateOutcomeUnknown, CodeLeaseExpired, now, StateRunning); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `UPDATE events SET lease_until = 0 WHERE state = 'pending'`)
		return err
	})
}

// Close writes the events still queued (saying what is lost when it
// cannot) and stops using the store; Run must have returned.
func (e *Engine) Close() error {
	e.closeQueue()
	return e.db.Close()
}

// Reload reads automations.toml again. A file with problems leaves no
// definition in force: the error says what to fix, and Definitions shows
// it.
func (e *Engine) Reload() error {
	data, err := ReadFile(e.file)
	var list []Definition
	switch {
	case errors.Is(err, os.ErrNotExist):
		err = nil
	case err == nil:
		list, err = Parse(data, e.file)
	}
	set := &defSet{byID: map[string]*Definition{}, byEvent: map[EventName][]*Definition{}, err: err}
	if err == nil {
		set.list = list
		for i := range set.list {
			d := &set.list[i]
			set.byID[d.ID] = d
			if d.IsEnabled() {
				set.byEvent[d.Event] = append(set.byEvent[d.Event], d)
			}
		}
	}
	e.defs.Store(set)
	if err != nil {
		e.o.Log.Warn("automations.toml not used", "err", err)
	} else {
		e.o.Log.Info("automations loaded", "definitions", len(list))
	}
	e.wake(e.wakeWork)
	return err
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

// Run runs the writer of queued events, the dispatcher, the worker and
// the clean-up until ctx ends, then waits for the actions under way.
func (e *Engine) Run(ctx context.Context) {
	var wg sync.WaitGroup
	wg.Go(func() { e.writeLoop(ctx) })
	wg.Go(func() { e.loop(ctx, e.wakeDispatch, e.DispatchOnce) })
	wg.Go(func() { e.workLoop(ctx) })
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

// workLoop claims runs and starts them, and sleeps until the next one is
// due, a new one is queued, or pollEvery.
func (e *Engine) workLoop(ctx context.Context) {
	for {
		for {
			n, err := e.startDue(ctx)
			if err != nil && ctx.Err() == nil {
				e.o.Log.Warn("automations worker", "err", err)
			}
			if n == 0 || err != nil {
				break
			}
		}
		wait := pollEvery
		// With every worker busy, a finishing one wakes the loop; else
		// the earliest backoff does.
		if len(e.slots) < cap(e.slots) {
			if next, ok := e.nextDue(ctx); ok {
				wait = min(wait, max(0, next.Sub(e.o.Now())))
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-e.wakeWork:
		case <-e.o.After(wait):
		}
	}
}

// nextDue returns when the earliest queued run is due.
func (e *Engine) nextDue(ctx context.Context) (time.Time, bool) {
	var next sql.NullInt64
	if err := e.stmt(ctx, nil, qNextDue).QueryRowContext(ctx, StateQueued).Scan(&next); err != nil || !next.Valid {
		return time.Time{}, false
	}
	return fromMS(next), true
}

// DispatchOnce resolves up to claimBatch pending events into runs: for
// each enabled definition listening, the most specific binding that
// matches the event decides; a run is created (skipped when the
// condition does not hold), and the event is marked resolved, all in one
// transaction. It returns how many events it resolved.
func (e *Engine) DispatchOnce(ctx context.Context) (int, error) {
	if e.paused.Load() {
		return 0, nil
	}
	now := e.o.Now()
	var claimed []struct{ id, envelope string }
	err := inTx(ctx, e.db, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, `SELECT id, envelope FROM events WHERE state = 'pending' AND lease_until <= ?
			ORDER BY created_at, rowid LIMIT ?`, ms(now), claimBatch)
		if err != nil {
			return err
		}
		for rows.Next() {
			var c struct{ id, envelope string }
			if err := rows.Scan(&c.id, &c.envelope); err != nil {
				rows.Close()
				return err
			}
			claimed = append(claimed, c)
		}
		rows.Close()
		for _, c := range claimed {
			if _, err := tx.ExecContext(ctx, `UPDATE events SET lease_until = ? WHERE id = ?`, ms(now.Add(e.o.Lease)), c.id); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil || len(claimed) == 0 {
		return 0, err
	}
	set := e.defs.Load()
	created := 0
	for _, c := range claimed {
		var env Envelope
		if err := json.Unmarshal([]byte(c.envelope), &env); err != nil {
			e.o.Log.Warn("automations: unreadable event, dropped", "event", c.id, "err", err)
			e.db.ExecContext(ctx, `UPDATE events SET state = 'resolved', resolved_at = ? WHERE id = ?`, ms(now), c.id)
			continue
		}
		doc, err := document(&env)
		if err != nil {
			return 0, err
		}
		err = inTx(ctx, e.db, func(tx *sql.Tx) error {
			for _, d := range set.byEvent[env.EventName] {
				win, shadowed, ok := winningBinding(d, &env)
				if !ok {
					continue
				}
				r := newRun(d, &env, win, shadowed, now)
				if d.Condition != nil && !d.Condition.eval(doc) {
					r.State, r.ErrorCode = StateSkipped, CodeConditionNotMatched
					r.FinishedAt = now
				}
				if err := insertRun(ctx, tx, r, d); err != nil {
					return err
				}
				created++
			}
			_, err := tx.ExecContext(ctx, `UPDATE events SET state = 'resolved', resolved_at = ?, lease_until = 0 WHERE id = ?`, ms(now), c.id)
			return err
		})
		if err != nil {
			return 0, err
		}
	}
	if created > 0 {
		e.wake(e.wakeWork)
	}
	return len(claimed), nil
}

// winningBinding picks d's most specific enabled binding that matches env,
// and the keys of the others that match, which it shadows.
func winningBinding(d *Definition, env *Envelope) (win Binding, shadowed []string, ok bool) {
	best := -1
	var matches []Binding
	for _, b := range d.bindings() {
		if !b.IsEnabled() || !b.matches(env) {
			continue
		}
		matches = append(matches, b)
		if r := scopeRank[b.Scope]; r > best {
			best, win = r, b
		}
	}
	if best < 0 {
		return win, nil, false
	}
	for _, b := range matches {
		if b.Key() != win.Key() {
			shadowed = append(shadowed, b.Key())
		}
	}
	return win, shadowed, true
}

// runID is a run's deterministic id: one run per event and definition.
func runID(eventID, automationID string) string {
	sum := sha256.Sum256([]byte(eventID + "\x00" + automationID))
	return "run_" + hex.EncodeToString(sum[:12])
}

func newRun(d *Definition, env *Envelope, win Binding, shadowed []string, now time.Time) *Run {
	return &Run{
		ID: runID(env.EventID, d.ID), AutomationID: d.ID, Hash: d.Hash(), Binding: win.Key(), Shadowed: shadowed,
		EventID: env.EventID, EventName: env.EventName, SessionID: env.Session.ID,
		State: StateQueued, CreatedAt: now, NextAt: now,
	}
}

// insertRun stores r with a snapshot of d, once per id.
func insertRun(ctx context.Context, tx *sql.Tx, r *Run, d *Definition) error {
	snap, err := json.Marshal(d)
	if err != nil {
		return err
	}
	var finished any
	if !r.FinishedAt.IsZero() {
		finished = ms(r.FinishedAt)
	}
	test := 0
	if r.Test {
		test = 1
	}
	_, err = tx.ExecContext(ctx, `INSERT OR IGNORE INTO runs(id, automation_id, hash, binding, shadowed, event_id, event_name,
		session_id, definition, serial, state, error_code, next_at, created_at, finished_at, test)
		VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		r.ID, r.AutomationID, r.Hash, r.Binding, strings.Join(r.Shadowed, ","), r.EventID, r.EventName,
		r.SessionID, string(snap), d.Policy.withDefaults().Concurrency == ConcurrencySerial, r.State, r.ErrorCode,
		ms(r.NextAt), ms(r.CreatedAt), finished, test)
	return err
}

// startDue claims the due runs a worker slot is free for and starts them.
// A serial definition's run waits while an earlier run of the same
// definition in the same session is queued or running.
func (e *Engine) startDue(ctx context.Context) (int, error) {
	if e.paused.Load() {
		return 0, nil
	}
	started := 0
	for {
		free := 0
	reserve:
		for free < cap(e.slots) {
			select {
			case e.slots <- struct{}{}:
				free++
			default:
				break reserve
			}
		}
		if free == 0 {
			return started, nil // all workers busy; a finishing one wakes us
		}
		cs, err := e.claim(ctx, free)
		for range free - len(cs) {
			<-e.slots
		}
		for _, c := range cs {
			started++
			e.inflight.Add(1)
			go func() {
				defer e.inflight.Done()
				defer func() { <-e.slots; e.wake(e.wakeWork) }()
				e.execute(ctx, c)
			}()
		}
		if err != nil || len(cs) < free {
			return started, err
		}
	}
}

// claimed is a run taken by a worker, with what it needs to run.
type claimed struct {
	run      Run
	def      Definition
	envelope string
}

// claim takes up to n due runs, in order: state running, attempts + 1, a
// lease, the start time on the first attempt; one transaction for all.
func (e *Engine) claim(ctx context.Context, n int) ([]*claimed, error) {
	now := e.o.Now()
	var out []*claimed
	err := inTx(ctx, e.db, func(tx *sql.Tx) error {
		rows, err := e.stmt(ctx, tx, qCandidates).QueryContext(ctx, StateQueued, ms(now))
		if err != nil {
			return err
		}
		type cand struct {
			seq                     int64
			id, automation, session string
			serial, test            bool
		}
		var cands []cand
		for rows.Next() {
			var c cand
			if err := rows.Scan(&c.seq, &c.id, &c.automation, &c.session, &c.serial, &c.test); err != nil {
				rows.Close()
				return err
			}
			cands = append(cands, c)
		}
		rows.Close()
		taken := map[string]bool{} // serial gates taken in this claim
		for _, c := range cands {
			if len(out) == n {
				break
			}
			if c.serial && !c.test {
				gate := c.automation + "\x00" + c.session
				if taken[gate] {
					continue
				}
				var earlier int
				if err := e.stmt(ctx, tx, qGate).QueryRowContext(ctx, c.automation, c.session, c.seq,
					StateQueued, StateRunning).Scan(&earlier); err != nil {
					return err
				}
				if earlier > 0 {
					continue
				}
				taken[gate] = true
			}
			cl := &claimed{}
			var raw string
			var created int64
			if err := e.stmt(ctx, tx, qClaim).QueryRowContext(ctx,
				StateRunning, ms(now.Add(e.o.Lease)), ms(now), c.id).Scan(&cl.run.ID, &cl.run.AutomationID, &cl.run.Hash,
				&cl.run.Binding, &cl.run.EventID, &cl.run.EventName, &cl.run.SessionID, &raw, &cl.run.Attempts, &created); err != nil {
				return err
			}
			if err := json.Unmarshal([]byte(raw), &cl.def); err != nil {
				return fmt.Errorf("run %s: definition snapshot: %w", c.id, err)
			}
			if err := e.stmt(ctx, tx, qEnvelope).QueryRowContext(ctx,
				cl.run.EventID).Scan(&cl.envelope); err != nil {
				return err
			}
			cl.run.State, cl.run.Test, cl.run.CreatedAt = StateRunning, c.test, time.UnixMilli(created).UTC()
			out = append(out, cl)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// outcome is what an attempt came to.
type outcome struct {
	state, code, message string
	input, output        string
	retryable            bool
	// retryAfter is the least wait before the next attempt, when the
	// receiver asked for one (Retry-After).
	retryAfter time.Duration
}

// execute runs one claimed attempt and writes where it ended: a terminal
// state, or queued again with a backoff. When ctx ends (the runtime
// stops) the action is cancelled at once, a command's whole process group
// killed, and the run ends outcome_unknown, as after a crash: it may or
// may not have done its work. The store is written regardless.
func (e *Engine) execute(actx context.Context, c *claimed) {
	ctx := context.WithoutCancel(actx)
	stop := e.renewLease(ctx, c.run.ID)
	out := e.attempt(actx, c)
	stop()
	now := e.o.Now()
	p := c.def.Policy.withDefaults()
	if out.state == StateQueued {
		_, err := e.db.ExecContext(ctx, `UPDATE runs SET state = ?, attempts = attempts - 1, lease_until = 0, next_at = ?
			WHERE id = ? AND state = ?`, StateQueued, ms(now), c.run.ID, StateRunning)
		if err != nil {
			e.o.Log.Warn("automations: requeue", "run", c.run.ID, "err", err)
		}
		return
	}
	if out.retryable && c.run.Attempts < p.MaxAttempts && (p.Retry == RetrySafe || p.Retry == RetryKeyed) {
		backoff := time.Duration(p.Backoff) << (c.run.Attempts - 1)
		if out.retryAfter > backoff {
			// Sooner would only be refused again (Slack's and Discord's 429s).
			backoff = out.retryAfter
		}
		_, err := e.db.ExecContext(ctx, `UPDATE runs SET state = ?, error_code = ?, error_message = ?, next_at = ?,
			lease_until = 0, input_summary = ?, output_summary = ? WHERE id = ? AND state = ?`,
			StateQueued, out.code, out.message, ms(now.Add(backoff)), out.input, out.output, c.run.ID, StateRunning)
		if err != nil {
			e.o.Log.Warn("automations: requeue", "run", c.run.ID, "err", err)
		}
		e.o.Log.Info("automation retried later", "run", c.run.ID, "automation", c.run.AutomationID, "code", out.code, "backoff", backoff)
		return
	}
	_, err := e.db.ExecContext(ctx, `UPDATE runs SET state = ?, error_code = ?, error_message = ?, finished_at = ?,
		lease_until = 0, input_summary = ?, output_summary = ? WHERE id = ? AND state = ?`,
		out.state, out.code, out.message, ms(now), out.input, out.output, c.run.ID, StateRunning)
	if err != nil {
		e.o.Log.Warn("automations: finish", "run", c.run.ID, "err", err)
	}
	e.o.Log.Info("automation run", "run", c.run.ID, "automation", c.run.AutomationID, "event", c.run.EventName,
		"state", out.state, "code", out.code)
}

// renewLease keeps a running run's lease ahead of its expiry until the
// returned func is called.
func (e *Engine) renewLease(ctx context.Context, id string) func() {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case <-done:
				return
			case <-e.o.After(e.o.Lease / 3):
				e.db.ExecContext(ctx, `UPDATE runs SET lease_until = ? WHERE id = ? AND state = ?`,
					ms(e.o.Now().Add(e.o.Lease)), id, StateRunning)
			}
		}
	})
	return func() { close(done); wg.Wait() }
}

// attempt checks that the run may still act (definition there, enabled
// and unchanged, its binding trusted for its hash, the switch on), maps
// its input and runs its action under the policy's timeout.
func (e *Engine) attempt(ctx context.Context, c *claimed) outcome {
	set := e.defs.Load()
	cur := set.byID[c.run.AutomationID]
	switch {
	case c.run.Test:
	case cur == nil:
		return outcome{state: StateSkipped, code: CodeDefinitionRemoved, message: "the definition was removed"}
	case !cur.IsEnabled():
		return outcome{state: StateSkipped, code: CodeDefinitionDisabled, message: "the definition is disabled"}
	case cur.Hash() != c.run.Hash:
		return outcome{state: StateBlocked, code: CodeTrustRequired, message: "the definition changed since this run was queued: review and trust it (clawd automations trust " + c.run.AutomationID + ")"}
	default:
		trusted, err := e.trustedHash(context.WithoutCancel(ctx), c.run.AutomationID, c.run.Binding)
		if err != nil {
			return outcome{state: StateFailed, code: CodeActionFailed, message: "read trust: " + err.Error()}
		}
		if trusted != c.run.Hash {
			return outcome{state: StateBlocked, code: CodeTrustRequired, message: "binding " + c.run.Binding + " is not trusted for this definition: clawd automations trust " + c.run.AutomationID}
		}
	}
	if c.envelope == "" {
		return outcome{state: StateFailed, code: CodeActionFailed, message: "the event is gone from the store"}
	}
	var env Envelope
	if err := json.Unmarshal([]byte(c.envelope), &env); err != nil {
		return outcome{state: StateFailed, code: CodeActionFailed, message: "unreadable event: " + err.Error()}
	}
	doc, err := document(&env)
	if err != nil {
		return outcome{state: StateFailed, code: CodeActionFailed, message: err.Error()}
	}
	input, err := c.def.Input.eval(doc)
	if err != nil {
		return outcome{state: StateFailed, code: CodeMappingFailed, message: err.Error()}
	}
	if ctx.Err() != nil {
		// Stopping before the action began: nothing happened, so the run
		// waits for the next start.
		return outcome{state: StateQueued, code: CodeShutdown, message: "clawd stopped before the action ran"}
	}
	p := c.def.Policy.withDefaults()
	actx, cancel := context.WithTimeout(ctx, time.Duration(p.Timeout))
	defer cancel()
	key := ""
	if p.Retry == RetryKeyed {
		key = idempotencyKey(env.EventID, c.def.ID, c.def.Action)
	}
	res := e.act(actx, &c.def, &env, doc, input, key)
	out := outcome{input: summarize(input), output: res.output}
	switch {
	case res.err == nil:
		out.state = StateSucceeded
	case actx.Err() == context.DeadlineExceeded && ctx.Err() == nil:
		out.state, out.code, out.message, out.retryable = StateFailed, CodeTimeout, fmt.Sprintf("no answer within %v", time.Duration(p.Timeout)), true
	case ctx.Err() != nil:
		out.state, out.code, out.message = StateOutcomeUnknown, CodeShutdown, "clawd stopped while the action ran"
	case res.transient:
		out.state, out.code, out.message, out.retryable = StateFailed, CodeTransient, res.err.Error(), true
		out.retryAfter = res.retryAfter
	default:
		out.state, out.code, out.message = StateFailed, CodeActionFailed, res.err.Error()
	}
	return out
}

// idempotencyKey is the same for every attempt of one event's run of one
// action: what a receiver deduplicates keyed retries by.
func idempotencyKey(eventID, automationID string, a Action) string {
	sum := sha256.Sum256(canonicalJSON(struct {
		EventID      string `json:"eventId"`
		AutomationID string `json:"automationId"`
		Action       Action `json:"action"`
	}{eventID, automationID, a}))
	return hex.EncodeToString(sum[:])
}

// trustedHash returns the hash binding of automation id is trusted for
// ("" for none).
func (e *Engine) trustedHash(ctx context.Context, id, binding string) (string, error) {
	var h string
	err := e.db.QueryRowContext(ctx, `SELECT hash FROM trust WHERE automation_id = ? AND binding = ?`, id, binding).Scan(&h)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return h, err
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
	now := ms(e.o.Now())
	err := inTx(ctx, e.db, func(tx *sql.Tx) error {
		for _, b := range d.bindings() {
			if _, err := tx.ExecContext(ctx, `INSERT INTO trust(automation_id, binding, hash, trusted_at) VALUES(?, ?, ?, ?)
				ON CONFLICT(automation_id, binding) DO UPDATE SET hash = excluded.hash, trusted_at = excluded.trusted_at`,
				id, b.Key(), hash, now); err != nil {
				return err
			}
		}
		return nil
	})
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
	}, `UPDATE runs SET state = ?, error_code = '', error_message = '', finished_at = NULL, next_at = ? WHERE id = ?`,
		StateQueued, ms(e.o.Now()), id)
}

// Cancel cancels a queued run; one already running cannot be stopped.
func (e *Engine) Cancel(ctx context.Context, id string) error {
	return e.changeRun(ctx, id, func(state string) error {
		if state != StateQueued {
			return fmt.Errorf("%w: only a queued run can be cancelled (this one is %s)", ErrRunState, state)
		}
		return nil
	}, `UPDATE runs SET state = ?, error_code = ?, finished_at = ? WHERE id = ?`,
		StateCancelled, CodeCancelled, ms(e.o.Now()), id)
}

func (e *Engine) changeRun(ctx context.Context, id string, allowed func(state string) error, update string, args ...any) error {
	err := inTx(ctx, e.db, func(tx *sql.Tx) error {
		var state string
		err := tx.QueryRowContext(ctx, `SELECT state FROM runs WHERE id = ?`, id).Scan(&state)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("%w: %s", ErrNoRun, id)
		}
		if err != nil {
			return err
		}
		if err := allowed(state); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, update, args...)
		return err
	})
	if err == nil {
		e.wake(e.wakeWork)
	}
	return err
}

// RunFilter selects runs.
type RunFilter struct {
	State      string
	Event      EventName
	Automation string
	Since      time.Time
	Limit      int
}

// Runs lists runs, newest first.
func (e *Engine) Runs(ctx context.Context, f RunFilter) ([]Run, error) {
	q := `SELECT id, automation_id, hash, binding, shadowed, event_id, event_name, session_id, state, error_code,
		error_message, attempts, created_at, next_at, started_at, finished_at, input_summary, output_summary, test
		FROM runs WHERE 1 = 1`
	var args []any
	if f.State != "" {
		q += ` AND state = ?`
		args = append(args, f.State)
	}
	if f.Event != "" {
		q += ` AND event_name = ?`
		args = append(args, f.Event)
	}
	if f.Automation != "" {
		q += ` AND automation_id = ?`
		args = append(args, f.Automation)
	}
	if !f.Since.IsZero() {
		q += ` AND created_at >= ?`
		args = append(args, ms(f.Since))
	}
	limit := f.Limit
	if limit <= 0 || limit > 1000 {
		limit = 100
	}
	q += ` ORDER BY seq DESC LIMIT ?`
	args = append(args, limit)
	rows, err := e.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []Run{}
	for rows.Next() {
		var r Run
		var shadowed string
		var created, next int64
		var started, finished sql.NullInt64
		var test int
		if err := rows.Scan(&r.ID, &r.AutomationID, &r.Hash, &r.Binding, &shadowed, &r.EventID, &r.EventName, &r.SessionID,
			&r.State, &r.ErrorCode, &r.ErrorMessage, &r.Attempts, &created, &next, &started, &finished,
			&r.InputSummary, &r.OutputSummary, &test); err != nil {
			return nil, err
		}
		if shadowed != "" {
			r.Shadowed = strings.Split(shadowed, ",")
		}
		r.CreatedAt, r.StartedAt, r.FinishedAt = time.UnixMilli(created).UTC(), fromMS(started), fromMS(finished)
		if r.State == StateQueued {
			r.NextAt = time.UnixMilli(next).UTC()
		}
		r.Test = test == 1
		out = append(out, r)
	}
	return out, rows.Err()
}

// Cleanup deletes resolved events past eventRetention whose runs are all
// done, and finished runs past runRetention, at most cleanupBatch of each.
func (e *Engine) Cleanup(ctx context.Context) (int64, error) {
	now := e.o.Now()
	res, err := e.db.ExecContext(ctx, `DELETE FROM events WHERE id IN (
		SELECT id FROM events WHERE state = 'resolved' AND resolved_at < ?
		AND id NOT IN (SELECT event_id FROM runs WHERE state IN (?, ?)) LIMIT ?)`,
		ms(now.Add(-eventRetention)), StateQueued, StateRunning, cleanupBatch)
	if err != nil {
		return 0, err
	}
	n1, _ := res.RowsAffected()
	res, err = e.db.ExecContext(ctx, `DELETE FROM runs WHERE seq IN (
		SELECT seq FROM runs WHERE finished_at IS NOT NULL AND finished_at < ? AND state NOT IN (?, ?) LIMIT ?)`,
		ms(now.Add(-runRetention)), StateQueued, StateRunning, cleanupBatch)
	if err != nil {
		return n1, err
	}
	n2, _ := res.RowsAffected()
	return n1 + n2, nil
}

// The hot statements, prepared once by Open (see Engine.stmt).
const (
	qNextDue    = `SELECT MIN(next_at) FROM runs WHERE state = ?`
	qCandidates = `SELECT seq, id, automation_id, session_id, serial, test FROM runs
		WHERE state = ? AND next_at <= ? ORDER BY seq LIMIT 256`
	qGate = `SELECT COUNT(*) FROM runs WHERE automation_id = ? AND session_id = ?
		AND seq < ? AND state IN (?, ?) AND test = 0`
	qClaim = `UPDATE runs SET state = ?, attempts = attempts + 1, lease_until = ?,
		started_at = COALESCE(started_at, ?) WHERE id = ?
		RETURNING id, automation_id, hash, binding, event_id, event_name, session_id, definition, attempts, created_at`
	qEnvelope = `SELECT COALESCE((SELECT envelope FROM events WHERE id = ?), '')`
)

// hotStatements are prepared by Open.
var hotStatements = []string{qNextDue, qCandidates, qGate, qClaim, qEnvelope}

// stmt returns query (one of hotStatements) as prepared by Open; within
// tx when tx is set. Parsing SQL costs more than running these small
// statements. (Preparing later could deadlock: a transaction holds the
// store's only connection.)
func (e *Engine) stmt(ctx context.Context, tx *sql.Tx, query string) *sql.Stmt {
	st := e.stmts[query]
	if tx != nil {
		return tx.StmtContext(ctx, st)
	}
	return st
}

// prepare prepares hotStatements.
func (e *Engine) prepare(ctx context.Context) error {
	e.stmts = map[string]*sql.Stmt{}
	for _, q := range hotStatements {
		st, err := e.db.PrepareContext(ctx, q)
		if err != nil {
			return fmt.Errorf("prepare %q: %w", q, err)
		}
		e.stmts[q] = st
	}
	return nil
}

// DefinitionView is a definition as the CLI and the dashboard show it.
type DefinitionView struct {
	Definition
	Hash     string        `json:"hash"`
	Leaves   []string      `json:"leaves"`
	Bindings []BindingView `json:"binding_states"`
}

// BindingView is one binding of a definition and where its trust stands.
type BindingView struct {
	Key   string `json:"key"`
	State string `json:"state"` // active, needs_review, disabled
	// TrustedHash is the hash the binding is trusted for ("" never).
	TrustedHash string    `json:"trusted_hash,omitempty"`
	TrustedAt   time.Time `json:"trusted_at,omitzero"`
}

// Binding states.
const (
	BindingActive      = "active"
	BindingNeedsReview = "needs_review"
	BindingDisabled    = "disabled"
)

// LoadError is why automations.toml is not used (nil when it is, or when
// there is none): its definitions stay off until the file is fixed.
func (e *Engine) LoadError() error { return e.defs.Load().err }

// Definitions lists the definitions in force with their hashes and
// bindings, and the file's problems when it could not be used.
func (e *Engine) Definitions(ctx context.Context) ([]DefinitionView, error) {
	set := e.defs.Load()
	if set.err != nil {
		return nil, set.err
	}
	out := []DefinitionView{}
	for i := range set.list {
		d := &set.list[i]
		v := DefinitionView{Definition: *d, Hash: d.Hash(), Leaves: d.Leaves()}
		for _, b := range d.bindings() {
			bv := BindingView{Key: b.Key()}
			var hash string
			var at int64
			err := e.db.QueryRowContext(ctx, `SELECT hash, trusted_at FROM trust WHERE automation_id = ? AND binding = ?`,
				d.ID, b.Key()).Scan(&hash, &at)
			if err != nil && !errors.Is(err, sql.ErrNoRows) {
				return nil, err
			}
			if err == nil {
				bv.TrustedHash, bv.TrustedAt = hash, time.UnixMilli(at).UTC()
			}
			switch {
			case !d.IsEnabled() || !b.IsEnabled():
				bv.State = BindingDisabled
			case hash == v.Hash:
				bv.State = BindingActive
			default:
				bv.State = BindingNeedsReview
			}
			v.Bindings = append(v.Bindings, bv)
		}
		out = append(out, v)
	}
	return out, nil
}

// Definition returns the definition id in force.
func (e *Engine) Definition(id string) (*Definition, bool) {
	d := e.defs.Load().byID[id]
	return d, d != nil
}

// Last returns the latest envelope of an event seen (for a preview).
func (e *Engine) Last(name EventName) (*Envelope, bool) {
	e.lastMu.Lock()
	defer e.lastMu.Unlock()
	env := e.last[name]
	return env, env != nil
}

// PreviewResult is what a definition would do with an event, without
// doing it.
type PreviewResult struct {
	Event    *Envelope      `json:"event"`
	Matched  bool           `json:"matched"`
	Binding  string         `json:"binding,omitempty"`
	Shadowed []string       `json:"shadowed,omitempty"`
	Input    map[string]any `json:"input,omitempty"`
	Error    string         `json:"error,omitempty"`
	Leaves   []string       `json:"leaves"`
	Trusted  bool           `json:"trusted"`
}

// Preview evaluates definition id against env (the last real one of its
// event when env is nil; a sample when there was none): binding,
// condition and input, no action.
func (e *Engine) Preview(ctx context.Context, id string, env *Envelope) (PreviewResult, error) {
	d, ok := e.Definition(id)
	if !ok {
		return PreviewResult{}, fmt.Errorf("%w: %s", ErrNoDefinition, id)
	}
	if env == nil {
		var found bool
		if env, found = e.Last(d.Event); !found {
			env = Sample(d.Event, e.o.Now())
		}
	}
	res := PreviewResult{Event: env, Leaves: d.Leaves()}
	doc, err := document(env)
	if err != nil {
		return res, err
	}
	win, shadowed, ok := winningBinding(d, env)
	if !ok {
		res.Error = "no binding of this definition applies to this event"
		return res, nil
	}
	res.Binding, res.Shadowed = win.Key(), shadowed
	if h, err := e.trustedHash(ctx, d.ID, win.Key()); err == nil {
		res.Trusted = h == d.Hash()
	}
	res.Matched = d.Condition == nil || d.Condition.eval(doc)
	if in, err := d.Input.eval(doc); err != nil {
		res.Error = err.Error()
	} else {
		res.Input = in
	}
	return res, nil
}

// TestRun queues a real run of definition id for env (as in Preview),
// marked as a test, without asking for trust: the person confirmed it.
// It returns the run's id.
func (e *Engine) TestRun(ctx context.Context, id string, env *Envelope) (string, error) {
	d, ok := e.Definition(id)
	if !ok {
		return "", fmt.Errorf("%w: %s", ErrNoDefinition, id)
	}
	if env == nil {
		var found bool
		if env, found = e.Last(d.Event); !found {
			env = Sample(d.Event, e.o.Now())
		}
	}
	now := e.o.Now()
	test := *env
	test.EventID = EventID(env.EventName, fmt.Sprintf("test:%s:%d", id, now.UnixNano()))
	b, err := json.Marshal(&test)
	if err != nil {
		return "", err
	}
	r := newRun(d, &test, Binding{Scope: ScopeApplication}, nil, now)
	r.Test = true
	err = inTx(ctx, e.db, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO events(id, name, session_id, envelope, state, created_at, resolved_at)
			VALUES(?, ?, ?, ?, 'resolved', ?, ?)`, test.EventID, test.EventName, test.Session.ID, string(b), ms(now), ms(now)); err != nil {
			return err
		}
		return insertRun(ctx, tx, r, d)
	})
	if err != nil {
		return "", err
	}
	e.wake(e.wakeWork)
	return r.ID, nil
}

// Sample is an envelope of event name with made-up values, for a preview
// when no real event was seen yet. Its agent is the first one clawd knows.
func Sample(name EventName, now time.Time) *Envelope {
	a := agents.All()[0]
	env := &Envelope{
		SchemaVersion: envelopeSchema, EventName: name, OccurredAt: now.UTC(), Source: envelopeSource,
		Session:            SessionRef{ID: "sample-session", Title: "Sample session"},
		Turn:               &TurnRef{ID: "sample-turn"},
		Agent:              &AgentRef{ID: a.ID, Name: a.Name},
		Workspaces:         []Workspace{{ID: "/home/you/project", Name: "project"}},
		PrimaryWorkspaceID: "/home/you/project",
		Payload:            map[string]any{},
	}
	switch name {
	case TurnCompleted:
		env.Payload["durationMs"] = 42000
	case TurnFailed:
		env.Payload["message"], env.Payload["durationMs"] = "rate_limit", 1000
	case TurnCancelled:
		env.Payload["reason"], env.Payload["durationMs"] = "interrupt", 1000
	case ResponseCommitted:
		env.Payload["text"], env.Payload["messageId"] = "Done: the tests pass.", "sample-turn:response"
	case PermissionRequest:
		env.Payload = map[string]any{"requestId": "sample", "tool": "Bash", "summary": "npm test", "kind": "permission"}
	case QuestionRequested:
		env.Payload = map[string]any{"requestId": "sample", "tool": "question", "summary": "Which database?", "options": []any{"Postgres", "SQLite"}}
	}
	env.EventID = EventID(name, "sample")
	return env
}
