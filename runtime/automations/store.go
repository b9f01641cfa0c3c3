package automations

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/ncruces/go-sqlite3"

	"github.com/clawdhq/clawd/internal/sqlitedb"
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
