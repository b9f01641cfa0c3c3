package history

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/runtime/recap"
)

// fakeNow is a settable clock.
type fakeNow struct{ t time.Time }

func (f *fakeNow) now() time.Time { return f.t }

func open(t *testing.T, home string, clock *fakeNow, o Options) *Store {
	t.Helper()
	o.Home, o.Now = home, clock.now
	if o.Loc == nil {
		o.Loc = time.UTC
	}
	s, err := Open(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func entry(id string, active time.Time) Entry {
	return Entry{Agent: "claude", SessionID: id, Titles: agents.Titles{Prompt: "fix " + id}, Cwd: "/home/u/shop",
		StartedAt: active.Add(-time.Hour), LastActive: active, Turns: 2, Ended: true}
}

// TestHistorySurvivesReopen: what was recorded is there after the store
// is closed and opened again, as after a restart of clawd serve; turns add
// up across records of one session, its first start stays.
func TestHistorySurvivesReopen(t *testing.T) {
	ctx := context.Background()
	home := t.TempDir()
	clock := &fakeNow{time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)}
	s := open(t, home, clock, Options{})
	stale := entry("s1", clock.t)
	stale.Ended = false
	if err := s.Record(ctx, []Entry{stale}); err != nil {
		t.Fatal(err)
	}
	again := entry("s1", clock.t.Add(time.Minute))
	again.StartedAt = clock.t // a later view of the same session
	again.Titles.Agent = "Shop refactor"
	again.Host = "box" // the label of a remote's sessions
	if err := s.Record(ctx, []Entry{again}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = open(t, home, clock, Options{})
	got, err := s.List(ctx, Query{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 {
		t.Fatalf("after reopening: %d entries, want 1: %+v", len(got), got)
	}
	e := got[0]
	if title, src := e.Titles.Best(); title != "Shop refactor" || src != agents.TitleFromAgent || e.Turns != 4 ||
		!e.StartedAt.Equal(stale.StartedAt) || !e.LastActive.Equal(again.LastActive) || !e.Ended || e.Cwd != "/home/u/shop" || e.Host != "box" {
		t.Errorf("after reopening: %+v (title %q from %s), want the agent's title, 4 turns, the first start, the last activity, ended, on box", e, title, src)
	}
	// The recap names a remote's folder on its host.
	if f, err := s.Folders(ctx); err != nil || len(f) != 1 || f[0] != "box:/home/u/shop" {
		t.Errorf("Folders() = %q, %v; want box:/home/u/shop", f, err)
	}
}

// TestHistoryQuery: newest first, by agent, since, and a search in titles,
// folders and ids that takes LIKE's wildcards literally.
func TestHistoryQuery(t *testing.T) {
	ctx := context.Background()
	clock := &fakeNow{time.Date(2026, 6, 10, 12, 0, 0, 0, time.UTC)}
	s := open(t, t.TempDir(), clock, Options{})
	base := clock.t.Add(-5 * 24 * time.Hour)
	var all []Entry
	for i, spec := range []struct{ agent, id, title, cwd string }{
		{"claude", "aaa-1", "Shop refactor", "/home/u/shop"},
		{"codex", "bbb-2", "100% coverage", "/home/u/api"},
		{"claude", "ccc-3", "fix the login", "/home/u/web_app"},
		{"gemini", "ddd-4", "", "/srv/x"},
	} {
		e := Entry{Agent: spec.agent, SessionID: spec.id, Titles: agents.Titles{Prompt: spec.title}, Cwd: spec.cwd,
			StartedAt: base, LastActive: base.Add(time.Duration(i) * 24 * time.Hour)}
		all = append(all, e)
	}
	if err := s.Record(ctx, all); err != nil {
		t.Fatal(err)
	}
	ids := func(q Query) string {
		es, err := s.List(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		out := ""
		for _, e := range es {
			out += e.SessionID + " "
		}
		return out
	}
	for _, tt := range []struct {
		q    Query
		want string
	}{
		{Query{}, "ddd-4 ccc-3 bbb-2 aaa-1 "},
		{Query{Agent: "claude"}, "ccc-3 aaa-1 "},
		{Query{Since: base.Add(36 * time.Hour)}, "ddd-4 ccc-3 "},
		{Query{Search: "SHOP"}, "aaa-1 "},
		{Query{Search: "100%"}, "bbb-2 "},
		{Query{Search: "%"}, "bbb-2 "},
		{Query{Search: "web_"}, "ccc-3 "},
		{Query{Search: "o_"}, ""}, // "_" is not a wildcard: /home would match
		{Query{Search: "ddd"}, "ddd-4 "},
		{Query{Limit: 2}, "ddd-4 ccc-3 "},
	} {
		if got := ids(tt.q); got != tt.want {
			t.Errorf("List(%+v) = %q, want %q", tt.q, got, tt.want)
		}
	}
	found, err := s.Find(ctx, "", "cc")
	if err != nil || len(found) != 1 || found[0].SessionID != "ccc-3" {
		t.Errorf("Find(cc) = %+v, %v; want ccc-3", found, err)
	}
	if found, _ := s.Find(ctx, "codex", "aaa"); len(found) != 0 {
		t.Errorf("Find(codex, aaa) = %+v, want none: aaa-1 is claude's", found)
	}
}

// TestHistoryRetention: sessions last active more than 30 days ago go, and
// so do all but the 500 latest; titles people gave go with them.
func TestHistoryRetention(t *testing.T) {
	ctx := context.Background()
	clock := &fakeNow{time.Date(2026, 6, 30, 12, 0, 0, 0, time.UTC)}
	s := open(t, t.TempDir(), clock, Options{})
	var es []Entry
	for i := range DefaultMaxSessions + 20 {
		es = append(es, entry(fmt.Sprintf("s%03d", i), clock.t.Add(-time.Duration(i)*time.Minute)))
	}
	old := entry("old", clock.t.Add(-DefaultKeep-time.Minute))
	es = append(es, old)
	if err := s.SetTitle(ctx, Key{"claude", "old"}, "Named long ago"); err != nil {
		t.Fatal(err)
	}
	if err := s.SetTitle(ctx, Key{"claude", "live-one"}, "Named just now"); err != nil {
		t.Fatal(err)
	}
	clock.t = clock.t.Add(time.Second)
	if err := s.Record(ctx, es); err != nil {
		t.Fatal(err)
	}
	got, err := s.List(ctx, Query{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != DefaultMaxSessions || got[0].SessionID != "s000" || got[len(got)-1].SessionID != fmt.Sprintf("s%03d", DefaultMaxSessions-1) {
		t.Errorf("kept %d sessions from %s to %s, want the %d latest", len(got), got[0].SessionID, got[len(got)-1].SessionID, DefaultMaxSessions)
	}
	// 31 days on, the title given to a session not in the history goes.
	clock.t = clock.t.Add(DefaultKeep + time.Hour)
	if err := s.Prune(ctx); err != nil {
		t.Fatal(err)
	}
	titles, err := s.PersonTitles(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(titles) != 0 {
		t.Errorf("titles after 31 days: %v, want none", titles)
	}
	if got, _ := s.List(ctx, Query{}); len(got) != 0 {
		t.Errorf("sessions after 31 days: %d, want none", len(got))
	}
}

// TestPersonTitle: a title a person gives shows in the history, wins over
// the agent's, and taking it away shows the agent's again; given to a
// session before it ends, it is kept when it lands in the history.
func TestPersonTitle(t *testing.T) {
	ctx := context.Background()
	clock := &fakeNow{time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)}
	s := open(t, t.TempDir(), clock, Options{})
	k := Key{"claude", "s1"}
	if err := s.SetTitle(ctx, k, "Shop"); err != nil {
		t.Fatal(err)
	}
	e := entry("s1", clock.t)
	e.Titles.Agent = "Named in the agent"
	if err := s.Record(ctx, []Entry{e}); err != nil {
		t.Fatal(err)
	}
	best := func() string {
		got, err := s.List(ctx, Query{})
		if err != nil || len(got) != 1 {
			t.Fatalf("List = %+v, %v", got, err)
		}
		title, _ := got[0].Titles.Best()
		return title
	}
	if got := best(); got != "Shop" {
		t.Errorf("title = %q, want the person's \"Shop\"", got)
	}
	if err := s.SetTitle(ctx, k, ""); err != nil {
		t.Fatal(err)
	}
	if got := best(); got != "Named in the agent" {
		t.Errorf("after the person's title went: %q, want the agent's", got)
	}
}

// TestKey: the hash is stable across opens and differs by kind and by
// installation; a key file clawd did not write is refused, not replaced.
func TestKey(t *testing.T) {
	clock := &fakeNow{time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)}
	home := t.TempDir()
	a := open(t, home, clock, Options{})
	h := a.Hash(recap.HashFolder, "/home/u/shop")
	a.Close()
	if b := open(t, home, clock, Options{}); b.Hash(recap.HashFolder, "/home/u/shop") != h {
		t.Error("the hash changed across opens")
	} else if b.Hash(recap.HashSession, "/home/u/shop") == h {
		t.Error("a folder and a session of the same text hash alike")
	}
	if other := open(t, t.TempDir(), clock, Options{}); other.Hash(recap.HashFolder, "/home/u/shop") == h {
		t.Error("two installations hash a folder alike")
	}
	bad := t.TempDir()
	keyFile := filepath.Join(bad, KeyFile)
	if err := os.WriteFile(keyFile, []byte("not a key\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(context.Background(), Options{Home: bad}); !errors.Is(err, ErrBadKey) {
		t.Errorf("Open with a bad key = %v, want ErrBadKey", err)
	}
	if b, _ := os.ReadFile(keyFile); string(b) != "not a key\n" {
		t.Errorf("the bad key file was rewritten: %q", b)
	}
}

// TestRecapStore: batches add up per scope across flushes, sessions count
// once, and days older than 400 go.
func TestRecapStore(t *testing.T) {
	ctx := context.Background()
	clock := &fakeNow{time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)}
	s := open(t, t.TempDir(), clock, Options{})
	sc := recap.Scope{Day: "2026-06-01", Agent: "claude", Folder: "f1"}
	old := recap.Scope{Day: recap.Day("2026-06-01").Add(-DefaultRecapDays), Agent: "claude", Folder: "f1"}
	batch := func(turns int, tool string) recap.Batch {
		return recap.Batch{
			Rows: map[recap.Scope]*recap.Counts{
				sc:  {Turns: turns, ToolCalls: 1, Busy: time.Minute, Tools: map[string]int{tool: 1}},
				old: {Turns: 1},
			},
			Sessions: []recap.Seen{{Scope: sc, Session: "h1"}, {Scope: old, Session: "h1"}},
		}
	}
	for _, b := range []recap.Batch{batch(2, "Bash"), batch(3, "Read")} {
		if err := s.AddRecap(ctx, b); err != nil {
			t.Fatal(err)
		}
	}
	id, err := s.Cover(ctx, 0, clock.t.Add(-time.Hour), clock.t)
	if err != nil {
		t.Fatal(err)
	}
	if id2, err := s.Cover(ctx, id, clock.t.Add(-time.Hour), clock.t.Add(time.Minute)); err != nil || id2 != id {
		t.Fatalf("extending coverage %d gave %d, %v", id, id2, err)
	}
	rows, seen, cov, err := s.Recap(ctx, old.Day, sc.Day)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || len(seen) != 2 || len(cov) != 1 || !cov[0].To.Equal(clock.t.Add(time.Minute)) {
		t.Fatalf("before pruning: rows %+v, seen %+v, coverage %+v", rows, seen, cov)
	}
	r := rows[1]
	if r.Scope != sc || r.Turns != 5 || r.ToolCalls != 2 || r.Busy != 2*time.Minute || r.Tools["Bash"] != 1 || r.Tools["Read"] != 1 {
		t.Errorf("row = %+v, want the two batches added up", r)
	}
	if err := s.Prune(ctx); err != nil {
		t.Fatal(err)
	}
	rows, seen, _, err = s.Recap(ctx, old.Day, sc.Day)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 || rows[0].Scope != sc || len(seen) != 1 {
		t.Errorf("after pruning: rows %+v, seen %+v; want only %s (%s is the 401st day back)", rows, seen, sc.Day, old.Day)
	}
}
