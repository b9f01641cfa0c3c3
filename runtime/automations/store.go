package automations

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/ncruces/go-sqlite3"

	"github.com/clawdhq/clawd/internal/sqlitedb"
	"github.com/clawdhq/clawd/runtime/client"
)

// StoreFile is the store's name in the clawd home.
const StoreFile = "automations.db"

// The store is a SQLite file that only `clawd serve` opens (see
// internal/sqlitedb): the outbox of lifecycle events, the runs, the trust
// given to definitions' bindings, and the master switch.
const schema = `
CREATE TABLE IF NOT EXISTS events (
	id          TEXT PRIMARY KEY,
	name        TEXT NOT NULL,
	session_id  TEXT NOT NULL,
	envelope    TEXT NOT NULL,
	state       TEXT NOT NULL,
	lease_until INTEGER NOT NULL DEFAULT 0,
	created_at  INTEGER NOT NULL,
	resolved_at INTEGER
);
CREATE INDEX IF NOT EXISTS events_state ON events(state, created_at);
CREATE TABLE IF NOT EXISTS runs (
	seq            INTEGER PRIMARY KEY AUTOINCREMENT,
	id             TEXT NOT NULL UNIQUE,
	automation_id  TEXT NOT NULL,
	hash           TEXT NOT NULL,
	binding        TEXT NOT NULL,
	shadowed       TEXT NOT NULL DEFAULT '',
	event_id       TEXT NOT NULL,
	event_name     TEXT NOT NULL,
	session_id     TEXT NOT NULL,
	definition     TEXT NOT NULL,
	serial         INTEGER NOT NULL DEFAULT 1,
	state          TEXT NOT NULL,
	error_code     TEXT NOT NULL DEFAULT '',
	error_message  TEXT NOT NULL DEFAULT '',
	attempts       INTEGER NOT NULL DEFAULT 0,
	next_at        INTEGER NOT NULL,
	lease_until    INTEGER NOT NULL DEFAULT 0,
	created_at     INTEGER NOT NULL,
	started_at     INTEGER,
	finished_at    INTEGER,
	input_summary  TEXT NOT NULL DEFAULT '',
	output_summary TEXT NOT NULL DEFAULT '',
	test           INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS runs_state ON runs(state, next_at);
CREATE INDEX IF NOT EXISTS runs_queue ON runs(state, seq);
CREATE INDEX IF NOT EXISTS runs_gate ON runs(automation_id, session_id, state);
CREATE INDEX IF NOT EXISTS runs_created ON runs(created_at);
CREATE TABLE IF NOT EXISTS trust (
	automation_id TEXT NOT NULL,
	binding       TEXT NOT NULL,
	hash          TEXT NOT NULL,
	trusted_at    INTEGER NOT NULL,
	PRIMARY KEY (automation_id, binding)
);
CREATE TABLE IF NOT EXISTS settings (
	key   TEXT PRIMARY KEY,
	value TEXT NOT NULL
);
`

// openStore opens (creating) the store at path.
func openStore(ctx context.Context, path string) (*sql.DB, error) {
	return sqlitedb.Open(ctx, path, schema, false)
}

// unreadable reports whether err says the store's file is not a SQLite
// database, or a damaged one: the cases where nothing of it can be used
// and a fresh store is the way on. Other failures (permissions, a full
// disk, another process holding it) are not the file's fault and leave it
// where it is.
func unreadable(err error) bool {
	return errors.Is(err, sqlite3.NOTADB) || errors.Is(err, sqlite3.CORRUPT)
}

// errNotSQLite is a store file that does not start as a SQLite database.
var errNotSQLite = errors.New("not a SQLite database")

// sqliteHeader starts every SQLite database file.
const sqliteHeader = "SQLite format 3\x00"

// foreign reports whether path is a regular file with content that is not
// a SQLite database. It is looked at before SQLite opens the file: SQLite
// would take a -wal beside it for an empty journal and delete it on
// close, and that journal is part of what a person may want to recover.
func foreign(path string) bool {
	fi, err := os.Lstat(path)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() == 0 {
		return false // missing, empty (a new store), or sqlitedb's to refuse
	}
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, len(sqliteHeader))
	n, _ := io.ReadFull(f, head)
	return string(head[:n]) != sqliteHeader
}

// moveAside renames the store at path, with its journal files, to
// path.corrupt-<UTC time> (and -2, -3... if that is taken), private to
// its owner, and returns the new name. The journal keeps its suffix after
// the new name, where SQLite looks for it, so the old file can still be
// opened as it was.
func moveAside(path string, now time.Time) (string, error) {
	base := path + ".corrupt-" + now.UTC().Format("20060102T150405Z")
	to := base
	for i := 2; ; i++ {
		if _, err := os.Lstat(to); errors.Is(err, os.ErrNotExist) {
			break
		}
		if i > 100 {
			return "", fmt.Errorf("move %s aside: %s and 99 more names are taken", path, base)
		}
		to = fmt.Sprintf("%s-%d", base, i)
	}
	for _, suffix := range []string{"", "-wal", "-shm", "-journal"} {
		err := os.Rename(path+suffix, to+suffix)
		if errors.Is(err, os.ErrNotExist) && suffix != "" {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("move %s aside: %w", path+suffix, err)
		}
		if err := os.Chmod(to+suffix, 0o600); err != nil {
			return "", fmt.Errorf("move %s aside: %w", path+suffix, err)
		}
	}
	return to, nil
}

// ms is a time as the store keeps it: Unix milliseconds.
func ms(t time.Time) int64 { return t.UnixMilli() }

// fromMS turns a stored time back; zero for NULL.
func fromMS(v sql.NullInt64) time.Time {
	if !v.Valid {
		return time.Time{}
	}
	return time.UnixMilli(v.Int64).UTC()
}

// inTx runs f in one transaction, committed when f returns nil.
func inTx(ctx context.Context, db *sql.DB, f func(tx *sql.Tx) error) error {
	return sqlitedb.InTx(ctx, db, f)
}

// setting reads a setting ("" when unset).
func setting(ctx context.Context, db *sql.DB, key string) (string, error) {
	var v string
	err := db.QueryRowContext(ctx, `SELECT value FROM settings WHERE key = ?`, key).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return v, err
}

func setSetting(ctx context.Context, db *sql.DB, key, value string) error {
	_, err := db.ExecContext(ctx, `INSERT INTO settings(key, value) VALUES(?, ?)
		ON CONFLICT(key) DO UPDATE SET value = excluded.value`, key, value)
	return err
}

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

// nextDue returns when the earliest queued run is due.
func (e *Engine) nextDue(ctx context.Context) (time.Time, bool) {
	var next sql.NullInt64
	if err := e.stmt(ctx, nil, qNextDue).QueryRowContext(ctx, StateQueued).Scan(&next); err != nil || !next.Valid {
		return time.Time{}, false
	}
	return fromMS(next), true
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
		if err := rows.Err(); err != nil {
			return err
		}
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
	// Prefix keeps the runs whose id starts so (a person types the
	// start of an id).
	Prefix string
	Limit  int
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
	if f.Prefix != "" {
		// substr, not LIKE: an id's start is matched as it is, with no
		// wildcard in it.
		q += ` AND substr(id, 1, ?) = ?`
		args = append(args, len([]rune(f.Prefix)), f.Prefix)
	}
	limit := f.Limit
	if limit <= 0 || limit > client.MaxRunsListed {
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

// writeEvents writes events to the outbox in one transaction, once per
// event id.
func (e *Engine) writeEvents(ctx context.Context, events []queued) error {
	return inTx(ctx, e.db, func(tx *sql.Tx) error {
		for _, ev := range events {
			if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO events(id, name, session_id, envelope, state, created_at)
				VALUES(?, ?, ?, ?, 'pending', ?)`, ev.id, ev.name, ev.session, string(ev.envelope), ev.at); err != nil {
				return fmt.Errorf("write event %s: %w", ev.id, err)
			}
		}
		return nil
	})
}

// claimEvents leases up to claimBatch pending events, oldest first, to
// the dispatcher.
func (e *Engine) claimEvents(ctx context.Context, now time.Time) ([]pendingEvent, error) {
	var claimed []pendingEvent
	err := inTx(ctx, e.db, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, `SELECT id, envelope FROM events WHERE state = 'pending' AND lease_until <= ?
			ORDER BY created_at, rowid LIMIT ?`, ms(now), claimBatch)
		if err != nil {
			return err
		}
		for rows.Next() {
			var c pendingEvent
			if err := rows.Scan(&c.id, &c.envelope); err != nil {
				rows.Close()
				return err
			}
			claimed = append(claimed, c)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		for _, c := range claimed {
			if _, err := tx.ExecContext(ctx, `UPDATE events SET lease_until = ? WHERE id = ?`, ms(now.Add(e.o.Lease)), c.id); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return claimed, nil
}

// pendingEvent is an event claimed by the dispatcher.
type pendingEvent struct{ id, envelope string }

// resolveEvent marks event id resolved, within the transaction that
// created its runs.
func resolveEvent(ctx context.Context, tx *sql.Tx, id string, now time.Time) error {
	_, err := tx.ExecContext(ctx, `UPDATE events SET state = 'resolved', resolved_at = ?, lease_until = 0 WHERE id = ?`, ms(now), id)
	return err
}

// dropEvent marks an event that cannot be read resolved, with no run.
func (e *Engine) dropEvent(ctx context.Context, id string, now time.Time) error {
	_, err := e.db.ExecContext(ctx, `UPDATE events SET state = 'resolved', resolved_at = ? WHERE id = ?`, ms(now), id)
	return err
}

// requeueRun puts a running run back in the queue as if its attempt had
// not begun.
func (e *Engine) requeueRun(ctx context.Context, id string, now time.Time) error {
	_, err := e.db.ExecContext(ctx, `UPDATE runs SET state = ?, attempts = attempts - 1, lease_until = 0, next_at = ?
		WHERE id = ? AND state = ?`, StateQueued, ms(now), id, StateRunning)
	return err
}

// retryRunLater queues a running run again for next, with what its
// attempt came to.
func (e *Engine) retryRunLater(ctx context.Context, id string, out outcome, next time.Time) error {
	_, err := e.db.ExecContext(ctx, `UPDATE runs SET state = ?, error_code = ?, error_message = ?, next_at = ?,
		lease_until = 0, input_summary = ?, output_summary = ? WHERE id = ? AND state = ?`,
		StateQueued, out.code, out.message, ms(next), out.input, out.output, id, StateRunning)
	return err
}

// finishRun writes where a running run ended.
func (e *Engine) finishRun(ctx context.Context, id string, out outcome, now time.Time) error {
	_, err := e.db.ExecContext(ctx, `UPDATE runs SET state = ?, error_code = ?, error_message = ?, finished_at = ?,
		lease_until = 0, input_summary = ?, output_summary = ? WHERE id = ? AND state = ?`,
		out.state, out.code, out.message, ms(now), out.input, out.output, id, StateRunning)
	return err
}

// renewRunLease moves a running run's lease to until.
func (e *Engine) renewRunLease(ctx context.Context, id string, until time.Time) error {
	_, err := e.db.ExecContext(ctx, `UPDATE runs SET lease_until = ? WHERE id = ? AND state = ?`, ms(until), id, StateRunning)
	return err
}

// storeTrust trusts bindings of automation id for hash, all or none.
func (e *Engine) storeTrust(ctx context.Context, id string, bindings []string, hash string, now time.Time) error {
	return inTx(ctx, e.db, func(tx *sql.Tx) error {
		for _, b := range bindings {
			if _, err := tx.ExecContext(ctx, `INSERT INTO trust(automation_id, binding, hash, trusted_at) VALUES(?, ?, ?, ?)
				ON CONFLICT(automation_id, binding) DO UPDATE SET hash = excluded.hash, trusted_at = excluded.trusted_at`,
				id, b, hash, ms(now)); err != nil {
				return err
			}
		}
		return nil
	})
}

// trustOf returns the hash binding of automation id is trusted for and
// since when ("" and the zero time for never).
func (e *Engine) trustOf(ctx context.Context, id, binding string) (string, time.Time, error) {
	var hash string
	var at int64
	err := e.db.QueryRowContext(ctx, `SELECT hash, trusted_at FROM trust WHERE automation_id = ? AND binding = ?`,
		id, binding).Scan(&hash, &at)
	if errors.Is(err, sql.ErrNoRows) {
		return "", time.Time{}, nil
	}
	if err != nil {
		return "", time.Time{}, err
	}
	return hash, time.UnixMilli(at).UTC(), nil
}

// insertTestRun stores a test run's event (envelope is env as JSON),
// resolved at once, and the run r of d for it.
func (e *Engine) insertTestRun(ctx context.Context, env *Envelope, envelope []byte, r *Run, d *Definition) error {
	now := ms(r.CreatedAt)
	return inTx(ctx, e.db, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO events(id, name, session_id, envelope, state, created_at, resolved_at)
			VALUES(?, ?, ?, ?, 'resolved', ?, ?)`, env.EventID, env.EventName, env.Session.ID, string(envelope), now, now); err != nil {
			return err
		}
		return insertRun(ctx, tx, r, d)
	})
}

// The updates of Retry and Cancel (see changeRun).
const (
	qRetryRun  = `UPDATE runs SET state = ?, error_code = '', error_message = '', finished_at = NULL, next_at = ? WHERE id = ?`
	qCancelRun = `UPDATE runs SET state = ?, error_code = ?, finished_at = ? WHERE id = ?`
)
