//go:build unix

package sqlitedb

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestPrivate proves the file and its journal are the owner's alone
// whatever the umask, and that the WAL index lives in memory: no -shm file
// beside the database, whose mode SQLite would not carry over.
func TestPrivate(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	dir := t.TempDir()
	path := filepath.Join(dir, "x.db")
	// A looser file left by someone else's tool is tightened.
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	db, err := Open(ctx, path, `CREATE TABLE t(x TEXT)`, true)
	if err != nil {
		t.Fatal(err)
	}
	if err := InTx(ctx, db, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO t VALUES ('secret folder')`)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	sawWAL := false
	for _, e := range ents {
		fi, err := e.Info()
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("%s mode = %v, want 0600", e.Name(), fi.Mode().Perm())
		}
		switch e.Name() {
		case "x.db-wal":
			sawWAL = true
		case "x.db-shm":
			t.Errorf("a -shm file beside the database: the WAL index should be in memory")
		}
	}
	if !sawWAL {
		t.Errorf("no -wal file after a write: files %v; the test proves nothing of the journal's mode", ents)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestRefusesNonFile proves a database path that is not a regular file
// (a FIFO someone put there) is refused rather than opened.
func TestRefusesNonFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.db")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
	if db, err := Open(context.Background(), path, `CREATE TABLE t(x)`, false); err == nil {
		db.Close()
		t.Fatal("Open of a FIFO succeeded, want an error")
	}
}
