package automations

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clawdhq/clawd/agents"
)

// TestOpenMovesUnreadableStoreAside: an automations.db that is not a
// database left automations off with no word; now it is moved aside with
// its -wal, untouched and private, a fresh store opens, Recovered says
// what happened and where the old one is, and new events are queued and
// dispatched.
func TestOpenMovesUnreadableStoreAside(t *testing.T) {
	for _, c := range []struct {
		name    string
		content []byte
		// why is what the note says of it; keepsWAL, whether the -wal
		// is moved untouched (SQLite, once it opened the file, may
		// have taken the journal for an empty one and deleted it).
		why      string
		keepsWAL bool
	}{
		{"garbage", bytes.Repeat([]byte("this is no SQLite file\n"), 200), "not a SQLite database", true},
		{"damaged", append([]byte(sqliteHeader), bytes.Repeat([]byte{0xff}, 8192)...), "not a database", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			home := t.TempDir()
			wal := []byte("nor is this its journal")
			store := filepath.Join(home, StoreFile)
			if err := os.WriteFile(store, c.content, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(store+"-wal", wal, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(home, File), []byte(soundDef("ding")), 0o600); err != nil {
				t.Fatal(err)
			}
			clock := newFakeClock()
			e, err := Open(context.Background(), Options{Home: home, Now: clock.Now, After: clock.After, RepoRoot: func(string) string { return "" }})
			if err != nil {
				t.Fatalf("Open with a %s store = %v, want a fresh store", c.name, err)
			}
			t.Cleanup(func() { e.Close() })

			moved := store + ".corrupt-20261201T090000Z"
			files := map[string][]byte{moved: c.content}
			if c.keepsWAL {
				files[moved+"-wal"] = wal
			}
			for path, want := range files {
				got, err := os.ReadFile(path)
				if err != nil || !bytes.Equal(got, want) {
					t.Errorf("%s = %d bytes, %v; want the old file's %d bytes", filepath.Base(path), len(got), err, len(want))
					continue
				}
				if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
					t.Errorf("%s mode %v, want 0600", filepath.Base(path), fi.Mode().Perm())
				}
			}
			note := e.Recovered()
			for _, want := range []string{"automations.db was unreadable", c.why, "moved to " + moved, "trust your automations again"} {
				if !strings.Contains(note, want) {
					t.Errorf("Recovered() = %q, want it to say %q", note, want)
				}
			}

			trust(t, e, "ding")
			e.Record(context.Background(), Fact{Event: agents.Event{Agent: "claude", Kind: agents.KindTurnEnd, SessionID: "s1",
				TurnID: "t1", Time: clock.Now()}})
			if got := outbox(t, e); len(got) != 1 || got[0].EventName != TurnCompleted {
				t.Fatalf("outbox of the fresh store = %+v, want the turn.completed", got)
			}
			drain(t, e)
			if rs := runsOf(t, e); len(rs) != 1 || rs[0].State != StateSucceeded {
				t.Errorf("runs in the fresh store = %+v, want one that succeeded", rs)
			}
		})
	}
}

// TestOpenFailsForOtherReasons: a store that cannot be opened for another
// reason than its content (here a folder in its place) is left alone, and
// the error says that automations are off and what to check.
func TestOpenFailsForOtherReasons(t *testing.T) {
	home := t.TempDir()
	if err := os.Mkdir(filepath.Join(home, StoreFile), 0o700); err != nil {
		t.Fatal(err)
	}
	e, err := Open(context.Background(), Options{Home: home})
	if err == nil {
		e.Close()
		t.Fatal("Open with a folder for the store succeeded")
	}
	if !strings.Contains(err.Error(), "automations are off until it opens") {
		t.Errorf("Open = %v, want it to say automations are off and what to check", err)
	}
	if fi, serr := os.Stat(filepath.Join(home, StoreFile)); serr != nil || !fi.IsDir() {
		t.Errorf("the store's folder was moved: %v", serr)
	}
	if m, _ := filepath.Glob(filepath.Join(home, "*.corrupt-*")); len(m) > 0 {
		t.Errorf("moved aside: %v", m)
	}
}
