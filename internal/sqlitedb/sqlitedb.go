// Package sqlitedb is the one way clawd opens a SQLite file: the
// automations store and the history are both opened here, with the same
// settings, and both stay private to their owner; an agent's own database
// is opened here too, only to read.
package sqlitedb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strconv"
	"time"

	"github.com/ncruces/go-sqlite3"
	_ "github.com/ncruces/go-sqlite3/driver" // registers "sqlite3": SQLite compiled to Go, no cgo
)

// Open opens (creating) the SQLite file at path and runs schema on it.
//
// The file is created 0600 (a looser one is tightened: it is clawd's own)
// and its journal takes the file's mode (SQLite's modeof), so neither the
// data nor the write-ahead log that holds the latest of it is readable by
// anyone else, whatever the umask. The database is WAL, survives a kill -9
// of the writer, and is held in exclusive locking mode: one process, the
// runtime, owns it, and SQLite then keeps the WAL index in memory instead
// of a -shm file beside it. Every transaction takes the write lock at once
// (immediate), so a read that turns into a write never fails with
// "database is locked". With secureDelete, deleted rows are overwritten,
// not left in free pages: for what retention must really remove.
func Open(ctx context.Context, path, schema string, secureDelete bool) (*sql.DB, error) {
	if err := private(path); err != nil {
		return nil, err
	}
	file := (&url.URL{Path: path}).EscapedPath()
	dsn := "file:" + file + "?modeof=" + url.QueryEscape(path) +
		"&_txlock=immediate&_pragma=busy_timeout(10000)&_pragma=locking_mode(exclusive)" +
		"&_pragma=journal_mode(wal)&_pragma=synchronous(normal)&_pragma=foreign_keys(on)"
	if secureDelete {
		dsn += "&_pragma=secure_delete(on)"
	}
	db, err := sql.Open("sqlite3", dsn)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	// One connection: the file has one writer, and SQLite serialises
	// writes anyway; reads are cheap enough to queue behind them. The
	// exclusive lock lives as long as this connection.
	db.SetMaxOpenConns(1)
	if _, err := db.ExecContext(ctx, schema); err != nil {
		db.Close()
		return nil, fmt.Errorf("prepare %s: %w", path, err)
	}
	return db, nil
}

// OpenReadOnly opens another program's SQLite file at path only to read
// it: a missing file is an error, never created; the connection is
// read-only (mode=ro) and query-only, so nothing of it is ever written,
// and waits at most busy for a writer's lock. The caller closes it.
func OpenReadOnly(path string, busy time.Duration) (*sql.DB, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("open %s: %w", path, errors.New("not a regular file"))
	}
	file := (&url.URL{Path: path}).EscapedPath()
	dsn := "file:" + file + "?mode=ro&_pragma=query_only(1)" +
		"&_pragma=busy_timeout(" + strconv.FormatInt(busy.Milliseconds(), 10) + ")"
	db, err := sql.Open("sqlite3", dsn)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	db.SetMaxOpenConns(1)
	return db, nil
}

// SchemaError reports whether err is SQLite refusing a statement itself
// (a table or column the database does not have), rather than failing to
// run it (a lock, I/O).
func SchemaError(err error) bool {
	return errors.Is(err, sqlite3.ERROR)
}

// private creates path 0600 when it is missing and tightens it when
// others may read it.
func private(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("open %s: %w", path, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("stat %s: %w", path, err)
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("open %s: %w", path, errors.New("not a regular file"))
	}
	if fi.Mode().Perm()&0o077 != 0 {
		if err := f.Chmod(0o600); err != nil {
			return fmt.Errorf("chmod %s: %w", path, err)
		}
	}
	return nil
}

// InTx runs f in one transaction, committed when f returns nil.
func InTx(ctx context.Context, db *sql.DB, f func(tx *sql.Tx) error) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := f(tx); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}

// Retryable reports whether a write failed for want of room or of the
// disk (SQLITE_FULL, SQLITE_IOERR, SQLITE_BUSY): the same write can
// succeed once space returns, so what it carried is worth keeping.
func Retryable(err error) bool {
	return errors.Is(err, sqlite3.FULL) || errors.Is(err, sqlite3.IOERR) || errors.Is(err, sqlite3.BUSY)
}
