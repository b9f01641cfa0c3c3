//go:build !windows

package e2e

import (
	"context"
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "github.com/ncruces/go-sqlite3/driver" // WorkBuddy's database, written as WorkBuddy would

	"github.com/clawdhq/clawd/runtime/client"
)

// workBuddyHook runs `clawd hook workbuddy <event>` with its documented
// payload (testdata/workbuddy/documented-session) for session sid in the
// world's project, its transcript in transcript, and checks it answered
// as WorkBuddy's hooks must: {} and exit 0.
func (w *world) workBuddyHook(ctx context.Context, file, sid, transcript string) {
	w.t.Helper()
	var m map[string]any
	if err := json.Unmarshal(readTestdata(w.t, "workbuddy", "documented-session", file), &m); err != nil {
		w.t.Fatal(err)
	}
	m["session_id"], m["cwd"], m["transcript_path"] = sid, w.project, transcript
	payload, _ := json.Marshal(m)
	r := w.clawd(ctx, string(payload), "hook", "workbuddy", m["hook_event_name"].(string))
	if r.code != 0 || strings.TrimSpace(r.stdout) != "{}" {
		w.t.Fatalf("clawd hook workbuddy %s: %s", file, r)
	}
}

// TestWorkBuddyDatabase: `clawd serve` finds WorkBuddy's workbuddy.db in
// the HOME it runs with, titles a session the hooks report by its row
// there (the person's title over WorkBuddy's), and a session the person
// archives in WorkBuddy leaves `clawd status` for the history, ended; a
// late hook of it does not bring it back. WorkBuddy has no CLI to run:
// its hooks are real `clawd hook workbuddy` processes with its
// documented payloads, its database one written as its table is.
func TestWorkBuddyDatabase(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	w := newWorld(t)
	home := filepath.Join(w.home, ".workbuddy-ai")
	if err := os.MkdirAll(filepath.Join(home, "sessions"), 0o700); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite3", "file:"+filepath.Join(home, "workbuddy.db")+"?_pragma=journal_mode(wal)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	const sid = "50b0dd10-0000-4000-8000-0000000000e2"
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := db.ExecContext(ctx, q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	exec(`CREATE TABLE sessions (id TEXT PRIMARY KEY, title TEXT, custom_title TEXT, cwd TEXT, status TEXT, deleted_at INTEGER)`)
	exec(`INSERT INTO sessions (id, title, cwd, status) VALUES (?, 'Release notes draft', ?, 'active')`, sid, w.project)

	w.startServe()
	transcript := filepath.Join(home, "sessions", sid+".jsonl")
	w.workBuddyHook(ctx, "01-SessionStart.json", sid, transcript)
	w.awaitTitleFrom(ctx, sid, "Release notes draft", "agent")
	exec(`UPDATE sessions SET custom_title = 'Changelog for 2.0' WHERE id = ?`, sid)
	w.workBuddyHook(ctx, "02-UserPromptSubmit.json", sid, transcript)
	w.awaitTitleFrom(ctx, sid, "Changelog for 2.0", "agent")

	exec(`UPDATE sessions SET status = 'archived' WHERE id = ?`, sid)
	w.workBuddyHook(ctx, "07-Stop.json", sid, transcript)
	e := w.awaitHistory(ctx, sid, func(e client.HistoryEntry) bool { return e.Ended && !e.Live })
	if e.Title != "Changelog for 2.0" || e.Cwd != w.project {
		t.Errorf("history entry = %+v, want WorkBuddy's title and the project", e)
	}
	w.workBuddyHook(ctx, "03-PreToolUse.json", sid, transcript)
	if st, ok := w.status(ctx); !ok {
		t.Fatal("clawd status failed")
	} else if s, found := st.session(sid); found {
		t.Errorf("a late hook brought the archived session back: %+v", s)
	}
}
