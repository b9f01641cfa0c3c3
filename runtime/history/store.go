// Package history keeps what outlives a session in the runtime: the
// sessions that ended or went stale (to find and resume them), the titles
// people gave sessions, and the recap's daily counts with the runtime's
// coverage. It is one SQLite file in the clawd home that only `clawd
// serve` opens; the CLI and the dashboard read it through the runtime's
// API.
package history

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/clawdhq/clawd/internal/atomicfile"
	"github.com/clawdhq/clawd/internal/sqlitedb"
)

// File is the store's name in the clawd home, KeyFile the recap's hash
// key's.
const (
	File    = "history.db"
	KeyFile = "recap.key"
)

// Retention defaults.
const (
	// DefaultKeep is how long an ended session stays in the history.
	DefaultKeep = 30 * 24 * time.Hour
	// DefaultMaxSessions is how many sessions the history keeps at most.
	DefaultMaxSessions = 500
	// DefaultRecapDays is how many local days of recap are kept.
	DefaultRecapDays = 400
)

// The schema. The history keeps ids, folders and titles in the clear (it
// exists to find a session again and resume it in its folder) and nothing
// else of a session; the recap keeps folders and sessions as HMACs (see
// Store.Hash). Deleted rows are overwritten (secure_delete), so what
// retention removes is gone from the file too.
const schema = `
CREATE TABLE IF NOT EXISTS sessions (
	agent         TEXT NOT NULL,
	session_id    TEXT NOT NULL,
	person_title  TEXT NOT NULL DEFAULT '',
	agent_title   TEXT NOT NULL DEFAULT '',
	prompt_title  TEXT NOT NULL DEFAULT '',
	cwd           TEXT NOT NULL DEFAULT '',
	host          TEXT NOT NULL DEFAULT '',
	started_at    INTEGER NOT NULL,
	last_active   INTEGER NOT NULL,
	turns         INTEGER NOT NULL DEFAULT 0,
	headless      INTEGER NOT NULL DEFAULT 0,
	ended         INTEGER NOT NULL DEFAULT 0,
	PRIMARY KEY (agent, session_id)
);
CREATE INDEX IF NOT EXISTS sessions_active ON sessions(last_active);
CREATE TABLE IF NOT EXISTS person_titles (
	agent      TEXT NOT NULL,
	session_id TEXT NOT NULL,
	title      TEXT NOT NULL,
	set_at     INTEGER NOT NULL,
	PRIMARY KEY (agent, session_id)
);
CREATE TABLE IF NOT EXISTS recap (
	day          TEXT NOT NULL,
	agent        TEXT NOT NULL,
	folder       TEXT NOT NULL,
	turns        INTEGER NOT NULL DEFAULT 0,
	tool_calls   INTEGER NOT NULL DEFAULT 0,
	permissions  INTEGER NOT NULL DEFAULT 0,
	questions    INTEGER NOT NULL DEFAULT 0,
	failed_turns INTEGER NOT NULL DEFAULT 0,
	waiting_ms   INTEGER NOT NULL DEFAULT 0,
	busy_ms      INTEGER NOT NULL DEFAULT 0,
	PRIMARY KEY (day, agent, folder)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS recap_tools (
	day    TEXT NOT NULL,
	agent  TEXT NOT NULL,
	folder TEXT NOT NULL,
	tool   TEXT NOT NULL,
	calls  INTEGER NOT NULL DEFAULT 0,
	PRIMARY KEY (day, agent, folder, tool)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS recap_sessions (
	day     TEXT NOT NULL,
	agent   TEXT NOT NULL,
	folder  TEXT NOT NULL,
	session TEXT NOT NULL,
	PRIMARY KEY (day, agent, folder, session)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS coverage (
	id      INTEGER PRIMARY KEY AUTOINCREMENT,
	from_ms INTEGER NOT NULL,
	to_ms   INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS coverage_to ON coverage(to_ms);
`

// Options configures a Store.
type Options struct {
	// Home is the clawd home the store and its key live in.
	Home string
	// Now is the clock; Loc the zone whose days the recap counts (the
	// machine's, time.Local, by default).
	Now func() time.Time
	Loc *time.Location
	// Keep, MaxSessions and RecapDays are the retention (defaults:
	// DefaultKeep, DefaultMaxSessions, DefaultRecapDays).
	Keep        time.Duration
	MaxSessions int
	RecapDays   int
}

// Store is the history. Its methods are safe for concurrent use.
type Store struct {
	o   Options
	db  *sql.DB
	key []byte
}

// ErrBadKey means recap.key holds something clawd did not write there.
var ErrBadKey = errors.New("is not a key clawd wrote: move it away and clawd makes a new one (the recap's folders and sessions before then will not match the ones after)")

// Open opens (creating) the store in o.Home, and its key.
func Open(ctx context.Context, o Options) (*Store, error) {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Loc == nil {
		o.Loc = time.Local
	}
	if o.Keep <= 0 {
		o.Keep = DefaultKeep
	}
	if o.MaxSessions <= 0 {
		o.MaxSessions = DefaultMaxSessions
	}
	if o.RecapDays <= 0 {
		o.RecapDays = DefaultRecapDays
	}
	if err := os.MkdirAll(o.Home, 0o700); err != nil {
		return nil, err
	}
	key, err := loadKey(filepath.Join(o.Home, KeyFile))
	if err != nil {
		return nil, err
	}
	db, err := sqlitedb.Open(ctx, filepath.Join(o.Home, File), schema, true)
	if err != nil {
		return nil, err
	}
	return &Store{o: o, db: db, key: key}, nil
}

// Close closes the store.
func (s *Store) Close() error { return s.db.Close() }

// loadKey reads the install-local hash key, making one the first time.
func loadKey(path string) ([]byte, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		k := make([]byte, 32)
		if _, err := rand.Read(k); err != nil {
			return nil, err
		}
		err = atomicfile.WriteIf(path, []byte(hex.EncodeToString(k)+"\n"), 0o600, false, func(_ []byte, exists bool) error {
			if exists {
				return os.ErrExist // made meanwhile: read that one
			}
			return nil
		})
		if err != nil && !errors.Is(err, os.ErrExist) {
			return nil, fmt.Errorf("write %s: %w", path, err)
		}
		data, err = os.ReadFile(path)
	}
	if err != nil {
		return nil, err
	}
	key, err := hex.DecodeString(strings.TrimSpace(string(data)))
	if err != nil || len(key) != 32 {
		return nil, fmt.Errorf("%s %w", path, ErrBadKey)
	}
	return key, nil
}

// Hash is the recap's hash of a folder or a session: an HMAC-SHA256 with
// the install-local key, cut to 96 bits, in hex. Without the key nobody
// can tell which folder a hash stands for, not even by trying names.
func (s *Store) Hash(kind, value string) string {
	m := hmac.New(sha256.New, s.key)
	m.Write([]byte(kind))
	m.Write([]byte{0})
	m.Write([]byte(value))
	return hex.EncodeToString(m.Sum(nil)[:12])
}

// ms is a time as the store keeps it: Unix milliseconds.
func ms(t time.Time) int64 { return t.UnixMilli() }

func fromMS(v int64) time.Time { return time.UnixMilli(v).UTC() }

// escapeLike escapes s for a LIKE pattern with ESCAPE '\'.
func escapeLike(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

// Prune applies the retention: sessions last active before Keep ago and
// all but the MaxSessions latest, titles people gave to sessions that are
// neither in the history nor set within Keep, and recap days and
// coverage older than RecapDays.
func (s *Store) Prune(ctx context.Context) error {
	now := s.o.Now()
	cut := ms(now.Add(-s.o.Keep))
	oldest := ms(now.AddDate(0, 0, -s.o.RecapDays-1))
	firstDay := string(dayOf(now, s.o.Loc).Add(-s.o.RecapDays + 1))
	return sqlitedb.InTx(ctx, s.db, func(tx *sql.Tx) error {
		for _, q := range []struct {
			sql  string
			args []any
		}{
			{`DELETE FROM sessions WHERE last_active < ?`, []any{cut}},
			{`DELETE FROM sessions WHERE rowid NOT IN
				(SELECT rowid FROM sessions ORDER BY last_active DESC LIMIT ?)`, []any{s.o.MaxSessions}},
			{`DELETE FROM person_titles WHERE set_at < ? AND NOT EXISTS
				(SELECT 1 FROM sessions h WHERE h.agent = person_titles.agent AND h.session_id = person_titles.session_id)`, []any{cut}},
			{`DELETE FROM person_titles WHERE rowid NOT IN
				(SELECT rowid FROM person_titles ORDER BY set_at DESC LIMIT ?)`, []any{s.o.MaxSessions}},
			{`DELETE FROM recap WHERE day < ?`, []any{firstDay}},
			{`DELETE FROM recap_tools WHERE day < ?`, []any{firstDay}},
			{`DELETE FROM recap_sessions WHERE day < ?`, []any{firstDay}},
			{`DELETE FROM coverage WHERE to_ms < ?`, []any{oldest}},
		} {
			if _, err := tx.ExecContext(ctx, q.sql, q.args...); err != nil {
				return fmt.Errorf("prune: %w", err)
			}
		}
		return nil
	})
}
