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

// TestOpenReadOnly proves another program's database is only read: a
// missing file is an error and stays missing, a FIFO is refused, a write
// through the connection fails and the file keeps every byte, and no
// journal file appears beside it.
func TestOpenReadOnly(t *testing.T) {
	dir := t.TempDir()
	if _, err := OpenReadOnly(filepath.Join(dir, "missing.db"), 0); err == nil {
		t.Error("OpenReadOnly of a missing file succeeded")
	}
	if _, err := os.Stat(filepath.Join(dir, "missing.db")); !os.IsNotExist(err) {
		t.Errorf("missing file after OpenReadOnly: %v, want still missing", err)
	}
	fifo := filepath.Join(dir, "fifo.db")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenReadOnly(fifo, 0); err == nil {
		t.Error("OpenReadOnly of a FIFO succeeded")
	}

	path := filepath.Join(dir, "theirs.db")
	w, err := sql.Open("sqlite3", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Exec(`CREATE TABLE t(x); INSERT INTO t VALUES ('kept')`); err != nil {
		t.Fatal(err)
	}
	w.Close()
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	db, err := OpenReadOnly(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	var x string
	if err := db.QueryRow(`SELECT x FROM t`).Scan(&x); err != nil || x != "kept" {
		t.Errorf("read = %q, %v", x, err)
	}
	if _, err := db.Exec(`INSERT INTO t VALUES ('written')`); err == nil {
		t.Error("a write through the read-only connection succeeded")
	}
	if _, err := db.Exec(`SELECT nosuch FROM t`); !SchemaError(err) {
		t.Errorf("SchemaError(%v) = false, want true", err)
	}
	db.Close()
	after, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(before) != string(after) {
		t.Error("the database changed")
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if e.Name() != "theirs.db" && e.Name() != "fifo.db" {
			t.Errorf("%s appeared beside the database", e.Name())
		}
	}
}
