package runtime

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"testing"
	"time"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/internal/spool"
	"github.com/clawdhq/clawd/runtime/client"
	"github.com/clawdhq/clawd/statemachine"
)

// readJournal reads home's journal of sessions, nil when there is none.
func readJournal(t *testing.T, home string) *journalFile {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(home, SessionsFile))
	if err != nil {
		return nil
	}
	var jf journalFile
	if err := json.Unmarshal(data, &jf); err != nil {
		t.Fatalf("journal of sessions: %v\n%s", err, data)
	}
	return &jf
}

// awaitJournal waits until home's journal holds the sessions ids.
func awaitJournal(t *testing.T, home string, ids ...string) *journalFile {
	t.Helper()
	var jf *journalFile
	eventually(t, "the journal holds "+strings.Join(ids, ", "), func() bool {
		jf = readJournal(t, home)
		if jf == nil {
			return false
		}
		have := map[string]bool{}
		for _, r := range jf.Sessions {
			have[r.ID] = true
		}
		for _, id := range ids {
			if !have[id] {
				return false
			}
		}
		return true
	})
	return jf
}

// writeJournal writes a journal of sessions into home as a runtime that
// died would have left it.
func writeJournal(t *testing.T, home string, recs ...savedSession) {
	t.Helper()
	data, err := json.Marshal(journalFile{Version: journalVersion, Written: time.Now(), Sessions: recs})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, SessionsFile), data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// historyEntry returns session id's entry in the history.
func historyEntry(t *testing.T, c *client.Client, id string) (client.HistoryEntry, bool) {
	t.Helper()
	for _, e := range historyIDs(t, c, client.HistoryQuery{}) {
		if e.SessionID == id {
			return e, true
		}
	}
	return client.HistoryEntry{}, false
}

// awaitEnded waits until session id is in the history, ended, and
// returns its entry.
func awaitEnded(t *testing.T, c *client.Client, id string) client.HistoryEntry {
	t.Helper()
	var e client.HistoryEntry
	eventually(t, id+" ended in the history", func() bool {
		var ok bool
		e, ok = historyEntry(t, c, id)
		return ok && e.Ended && !e.Live
	})
	return e
}

func realAlive(c *Config) { c.Alive = pidAlive }

// TestJournalRestoresSessions: sessions live when the runtime stops are
// there when it starts again, before any hook: their titles from every
// source, folder, state, times, open request and last outcome; the
// history counts their turns once when they end later.
func TestJournalRestoresSessions(t *testing.T) {
	ctx := context.Background()
	home := t.TempDir()
	s, c, stop := runWithHistory(t, home, realAlive)
	start := time.Now()
	ev := func(kind agents.Kind, id string, mods ...func(*agents.Event)) {
		e := agents.Event{Agent: "claude", Kind: kind, SessionID: id, Time: time.Now(), Cwd: "/home/u/" + id}
		for _, m := range mods {
			m(&e)
		}
		s.Ingest(e)
	}
	me := func(e *agents.Event) { e.AgentPID = os.Getpid() } // alive, and this very process
	ev(agents.KindSessionStart, "live-pid", me)
	ev(agents.KindPromptSubmit, "live-pid", me, func(e *agents.Event) {
		e.TurnID, e.Title, e.TitleSource = "p1", "fix the lexer", agents.TitleFromPrompt
	})
	ev(agents.KindTurnFailure, "live-pid", me, func(e *agents.Event) { e.TurnID, e.ErrorText = "p1", "API Error: 429" })
	ev(agents.KindPromptSubmit, "live-pid", me, func(e *agents.Event) {
		e.TurnID, e.Title, e.TitleSource = "p2", "Lexer work", agents.TitleFromAgent
	})
	ev(agents.KindPermissionRequest, "live-pid", me, func(e *agents.Event) { e.TurnID, e.ToolName, e.ToolUseID = "p2", "Bash", "tu1" })
	ev(agents.KindPromptSubmit, "no-pid", func(e *agents.Event) { e.Title, e.TitleSource = "write the docs", agents.TitleFromPrompt })
	if _, err := c.Rename(ctx, "live-pid", "Shop refactor"); err != nil {
		t.Fatal(err)
	}
	before := map[string]client.SessionView{}
	for _, v := range s.Snapshot().Sessions {
		before[v.SessionID] = v
	}
	awaitJournal(t, home, "live-pid", "no-pid")
	if fi, err := os.Stat(filepath.Join(home, SessionsFile)); err != nil || goruntime.GOOS != "windows" && fi.Mode().Perm() != 0o600 {
		t.Errorf("journal of sessions: %v, %v; want mode 0600", fi, err)
	}
	stop()

	s, c, _ = runWithHistory(t, home, realAlive)
	snap := s.Snapshot()
	if len(snap.Sessions) != 2 {
		t.Fatalf("after the restart, before any hook: %+v, want both sessions", snap.Sessions)
	}
	for _, v := range snap.Sessions {
		b := before[v.SessionID]
		if v.State != b.State || v.Title != b.Title || v.TitleSource != b.TitleSource || v.Cwd != b.Cwd || v.Pending != b.Pending ||
			v.AgentPID != b.AgentPID || !v.StartedAt.Equal(b.StartedAt) || !v.UpdatedAt.Equal(b.UpdatedAt) ||
			v.Outcome != b.Outcome || v.FailReason != b.FailReason || v.LastEvent != b.LastEvent {
			t.Errorf("restored %s = %+v,\nwant %+v", v.SessionID, v, b)
		}
		if v.UpdatedAt.Before(start) || v.UpdatedAt.After(time.Now()) {
			t.Errorf("restored %s updated %v: not the time of its last event", v.SessionID, v.UpdatedAt)
		}
	}
	if v := before["live-pid"]; v.State != "waiting" || v.Title != "Shop refactor" {
		t.Fatalf("the session before the restart = %+v; the test wants it waiting, named by the person", v)
	}
	// The sources below the title shown came along too: without the
	// person's, the agent's shows.
	if _, err := c.Rename(ctx, "live-pid", ""); err != nil {
		t.Fatal(err)
	}
	if v, _ := sessionView(s, "claude", "live-pid"); v.Title != "Lexer work" || v.TitleSource != "agent" {
		t.Errorf("after the person's title went: %q (%s), want the agent's, restored", v.Title, v.TitleSource)
	}
	// Late hooks of the turn that failed before the restart stay late.
	s.Ingest(agents.Event{Agent: "claude", Kind: agents.KindToolBatch, SessionID: "live-pid", TurnID: "p1", Time: time.Now()})
	if v, _ := sessionView(s, "claude", "live-pid"); v.State != "waiting" {
		t.Errorf("a late hook of a turn before the restart made the session %s, want it still waiting", v.State)
	}
	s.Ingest(agents.Event{Agent: "claude", Kind: agents.KindSessionEnd, SessionID: "live-pid", Time: time.Now()})
	if e := awaitEnded(t, c, "live-pid"); e.Turns != 2 || e.Title != "Lexer work" || e.Cwd != "/home/u/live-pid" {
		t.Errorf("history of the restored session = %+v, want its 2 turns (counted once), its title and folder", e)
	}
}

// TestJournalAfterCrash: the journal is what a killed runtime leaves on
// disk; the sessions live then whose agent is gone at the next start end
// into the history with their last known state, and are never shown; one
// whose agent runs, or that has no pid and spoke lately, is shown.
func TestJournalAfterCrash(t *testing.T) {
	home := t.TempDir()
	s, _, _ := runWithHistory(t, home)
	for _, id := range []string{"dead-agent", "no-pid"} {
		e := agents.Event{Agent: "claude", Kind: agents.KindPromptSubmit, SessionID: id, Time: time.Now(), Cwd: "/home/u/shop",
			Title: "task " + id, TitleSource: agents.TitleFromPrompt}
		if id == "dead-agent" {
			e.AgentPID = 4242
		}
		s.Ingest(e)
	}
	awaitJournal(t, home, "dead-agent", "no-pid")
	// kill -9: the journal on disk is all there is, the history has
	// nothing of these sessions.
	crashed := t.TempDir()
	data, err := os.ReadFile(filepath.Join(home, SessionsFile))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(crashed, SessionsFile), data, 0o600)

	s, c, _ := runWithHistory(t, crashed, func(c *Config) { c.Alive = func(pid int) bool { return pid != 4242 } })
	if _, live := sessionView(s, "claude", "dead-agent"); live {
		t.Errorf("the session whose agent died during the crash is shown live")
	}
	if v, live := sessionView(s, "claude", "no-pid"); !live || v.State != "thinking" || v.Title != "task no-pid" {
		t.Errorf("the session without a pid = %+v (shown %v), want it as it was", v, live)
	}
	if e := awaitEnded(t, c, "dead-agent"); e.Title != "task dead-agent" || e.Turns != 1 || e.Cwd != "/home/u/shop" {
		t.Errorf("history of the session found dead = %+v, want its title, 1 turn, its folder", e)
	}
}

// TestJournalPIDReuse: a restored session's agent counts only when its
// pid runs the same process: one started since under that pid is
// another program, and the session ends into the history.
func TestJournalPIDReuse(t *testing.T) {
	mine, err := processStart(os.Getpid())
	if err != nil {
		t.Fatalf("processStart(self): %v", err)
	}
	for _, tt := range []struct {
		name  string
		start string
		live  bool
	}{
		{"the same process", mine, true},
		{"another process under the pid", mine + "1", false},
		{"a start time the last runtime could not read", "", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			home := t.TempDir()
			now := time.Now()
			writeJournal(t, home, savedSession{Agent: "claude", ID: "s1", State: "working", AgentPID: os.Getpid(),
				AgentStart: tt.start, StartedAt: now.Add(-time.Minute), UpdatedAt: now, Turns: 1, PromptTitle: "fix it"})
			s, c, _ := runWithHistory(t, home, realAlive)
			if _, live := sessionView(s, "claude", "s1"); live != tt.live {
				t.Fatalf("session shown live = %v, want %v", live, tt.live)
			}
			if !tt.live {
				awaitEnded(t, c, "s1")
			}
		})
	}
}

// TestJournalStaleWithoutPID: a session with no pid is restored with its
// last state; once it has been silent for SessionStale, with no process
// to ask, the session-stale rule ends it into the history.
func TestJournalStaleWithoutPID(t *testing.T) {
	home := t.TempDir()
	now := time.Now()
	writeJournal(t, home,
		savedSession{Agent: "claude", ID: "recent", State: "working", StartedAt: now.Add(-time.Hour), UpdatedAt: now.Add(-time.Minute)},
		savedSession{Agent: "claude", ID: "silent", State: "idle", PromptTitle: "old task", Turns: 3,
			StartedAt: now.Add(-3 * time.Hour), UpdatedAt: now.Add(-2 * time.Hour)})
	s, c, _ := runWithHistory(t, home)
	if v, live := sessionView(s, "claude", "recent"); !live || v.State != "working" {
		t.Errorf("recent session = %+v (live %v), want it working", v, live)
	}
	if _, live := sessionView(s, "claude", "silent"); live {
		t.Errorf("a session silent for two hours without a pid is shown live")
	}
	if e := awaitEnded(t, c, "silent"); e.Turns != 3 || e.Title != "old task" {
		t.Errorf("history of the silent session = %+v, want its 3 turns and title", e)
	}
}

// TestJournalCorrupt: a journal that cannot be read is moved aside and
// ignored; the runtime starts, and writes a fresh one.
func TestJournalCorrupt(t *testing.T) {
	for name, plant := range map[string]func(path string) error{
		"not json":      func(p string) error { return os.WriteFile(p, []byte("{\"version\":1,\"sessions\":[{"), 0o600) },
		"other version": func(p string) error { return os.WriteFile(p, []byte(`{"version":99,"sessions":[]}`), 0o600) },
		"too large": func(p string) error {
			f, err := os.Create(p)
			if err != nil {
				return err
			}
			defer f.Close()
			return f.Truncate(maxJournalBytes + 1)
		},
		"wrong types": func(p string) error {
			return os.WriteFile(p, []byte(`{"version":1,"sessions":[{"agent":"claude","session_id":7}]}`), 0o600)
		},
	} {
		t.Run(name, func(t *testing.T) {
			home := t.TempDir()
			path := filepath.Join(home, SessionsFile)
			if err := plant(path); err != nil {
				t.Fatal(err)
			}
			s, _, _ := runWithHistory(t, home)
			if n := len(s.Snapshot().Sessions); n != 0 {
				t.Errorf("sessions from a corrupt journal: %d", n)
			}
			if _, err := os.Stat(path + ".corrupt"); err != nil {
				t.Errorf("the corrupt journal was not moved aside: %v", err)
			}
			s.Ingest(agents.Event{Agent: "claude", Kind: agents.KindSessionStart, SessionID: "fresh", Time: time.Now()})
			awaitJournal(t, home, "fresh")
		})
	}
}

// TestJournalBounds: the journal holds no more than the state machine
// tracks, each record within a few kilobytes even with every field at
// an event's limits; more records than there is room for are restored
// most recent first, the rest kept in the history.
func TestJournalBounds(t *testing.T) {
	home := t.TempDir()
	room := func(c *Config) { c.Machine.MaxSessions = 4 }
	s, _, stop := runWithHistory(t, home, room)
	long := strings.Repeat("x", agents.MaxIDLen)
	path := "/" + strings.Repeat("p", agents.MaxPathLen-1)
	for i := range 6 {
		id := strings.Repeat(string(rune('a'+i)), agents.MaxIDLen)
		for n := range 3 * statemachine.MaxSavedKeys {
			s.Ingest(agents.Event{Agent: "claude", Kind: agents.KindPermissionRequest, SessionID: id, Time: time.Now(),
				Cwd: path, ProjectDir: path, ToolName: long, ToolUseID: long[:200] + strings.Repeat("y", n+1), TurnID: long,
				Title: strings.Repeat("t", agents.MaxTitleLen), TitleSource: agents.TitleFromPrompt})
		}
	}
	jf := awaitJournal(t, home)
	eventually(t, "all four sessions in the journal", func() bool { jf = readJournal(t, home); return len(jf.Sessions) == 4 })
	for _, r := range jf.Sessions {
		b, _ := json.Marshal(r)
		if len(b) > 24<<10 {
			t.Errorf("a record of %d bytes, want a few kilobytes at most", len(b))
		}
		if len(r.Pending) != statemachine.MaxSavedKeys {
			t.Errorf("a record keeps %d requests, want the newest %d", len(r.Pending), statemachine.MaxSavedKeys)
		}
	}
	stop()

	// A journal of a runtime with more room: the newest come back.
	now := time.Now()
	var recs []savedSession
	for i := range 6 {
		recs = append(recs, savedSession{Agent: "claude", ID: "s" + string(rune('0'+i)), State: "idle",
			StartedAt: now.Add(-time.Hour), UpdatedAt: now.Add(time.Duration(i-10) * time.Second)})
	}
	home = t.TempDir()
	writeJournal(t, home, recs...)
	s, c, _ := runWithHistory(t, home, room)
	var ids []string
	for _, v := range s.Snapshot().Sessions {
		ids = append(ids, v.SessionID)
	}
	if strings.Join(ids, ",") != "s5,s4,s3,s2" {
		t.Errorf("restored with room for 4: %v, want the 4 most recent", ids)
	}
	eventually(t, "the 2 without room in the history", func() bool {
		e0, ok0 := historyEntry(t, c, "s0")
		e1, ok1 := historyEntry(t, c, "s1")
		return ok0 && ok1 && !e0.Live && !e1.Live
	})
}

// spoolEvents appends events to home's spool as hooks do with no runtime.
func spoolEvents(t *testing.T, home string, evs ...agents.Event) {
	t.Helper()
	for _, e := range evs {
		if _, err := spool.Append(home, e); err != nil {
			t.Fatal(err)
		}
	}
}

// TestSpoolReplay: the events hooks spooled while no runtime ran are
// there when it starts, before any hook: in order, each once, at the
// time their hook ran, through the same rules as live ones (a late hook
// stays late), after the journal's sessions; a session whose agent is
// gone ends into the history; the spool is removed.
func TestSpoolReplay(t *testing.T) {
	home := t.TempDir()
	base := time.Now().Add(-time.Minute)
	at := func(sec int) time.Time { return base.Add(time.Duration(sec) * time.Second) }
	ev := func(sec int, kind agents.Kind, id, turn string, mods ...func(*agents.Event)) agents.Event {
		e := agents.Event{Agent: "claude", Kind: kind, SessionID: id, TurnID: turn, Time: at(sec), Cwd: "/home/u/" + id}
		for _, m := range mods {
			m(&e)
		}
		return e
	}
	titled := func(t string) func(*agents.Event) {
		return func(e *agents.Event) { e.Title, e.TitleSource = t, agents.TitleFromPrompt }
	}
	dead := func(e *agents.Event) { e.AgentPID = 4242 }
	// The journal: a session thinking when the runtime died.
	writeJournal(t, home, savedSession{Agent: "claude", ID: "restored", State: "thinking", PromptTitle: "from the journal",
		Turns: 1, TurnIDs: []savedTurnID{{ID: "p1", Open: true}}, StartedAt: at(-60), UpdatedAt: at(0)})
	spoolEvents(t, home,
		ev(1, agents.KindTurnEnd, "restored", "p1"),
		ev(2, agents.KindSessionStart, "new", ""))
	// The same line twice (a replay interrupted, a hook's retry): once.
	line, _ := spool.Line(ev(3, agents.KindPromptSubmit, "new", "q1", titled("spooled task")))
	for range 2 {
		if _, err := spool.AppendLine(home, line, spool.MaxBytes); err != nil {
			t.Fatal(err)
		}
	}
	spoolEvents(t, home,
		ev(4, agents.KindTurnEnd, "new", "q1"),
		ev(5, agents.KindPromptSubmit, "late", "r1"),
		ev(6, agents.KindTurnEnd, "late", "r1"),
		ev(7, agents.KindPromptSubmit, "late", "r2"),
		ev(8, agents.KindToolBatch, "late", "r1"), // a late hook of the turn that ended
		ev(9, agents.KindPromptSubmit, "gone", "g1", dead, titled("its agent died")),
		// No hook spools a permission request: refused.
		ev(10, agents.KindPermissionRequest, "late", "r2", func(e *agents.Event) { e.ToolName, e.ToolUseID = "Bash", "tu9" }),
	)

	s, c, _ := runWithHistory(t, home, func(c *Config) { c.Alive = func(pid int) bool { return pid != 4242 } })
	want := map[string]struct {
		state, outcome, title string
		updated               time.Time
	}{
		"restored": {"idle", "done", "from the journal", at(1)},
		"new":      {"idle", "done", "spooled task", at(4)},
		"late":     {"thinking", "", "", at(7)},
	}
	snap := s.Snapshot()
	if len(snap.Sessions) != len(want) {
		t.Errorf("sessions after the replay: %+v, want %d", snap.Sessions, len(want))
	}
	for _, v := range snap.Sessions {
		w, ok := want[v.SessionID]
		if !ok {
			t.Errorf("session %s shown, want it gone", v.SessionID)
			continue
		}
		if v.State != w.state || v.Outcome != w.outcome || v.Title != w.title || !v.UpdatedAt.Equal(w.updated) {
			t.Errorf("%s = %s, outcome %q, %q, updated %v; want %s, %q, %q, %v",
				v.SessionID, v.State, v.Outcome, v.Title, v.UpdatedAt, w.state, w.outcome, w.title, w.updated)
		}
	}
	if e := awaitEnded(t, c, "gone"); e.Title != "its agent died" || e.Turns != 1 {
		t.Errorf("history of the spooled session whose agent is gone = %+v", e)
	}
	s.Ingest(agents.Event{Agent: "claude", Kind: agents.KindSessionEnd, SessionID: "new", Time: time.Now()})
	if e := awaitEnded(t, c, "new"); e.Turns != 1 {
		t.Errorf("the spooled session's turns in the history = %d, want 1: its events replayed once", e.Turns)
	}
	if left, _ := spool.Claimed(home); len(left) != 0 {
		t.Errorf("spool files left after the replay: %v", left)
	}
	if _, err := os.Stat(filepath.Join(home, spool.File)); err == nil {
		t.Errorf("the spool is still there after the replay")
	}
}

// TestSpoolReplayedOnce: a spool file the journal says it already holds
// (the last runtime died after writing the journal, before removing it)
// is removed unread.
func TestSpoolReplayedOnce(t *testing.T) {
	home := t.TempDir()
	spoolEvents(t, home,
		agents.Event{Agent: "claude", Kind: agents.KindPromptSubmit, SessionID: "twice", Time: time.Now()})
	claimed, err := spool.Claim(home, time.Now().Add(-time.Minute))
	if err != nil || len(claimed) != 1 {
		t.Fatalf("Claim = %v, %v", claimed, err)
	}
	data, _ := json.Marshal(journalFile{Version: journalVersion, Replayed: []string{filepath.Base(claimed[0])}})
	os.WriteFile(filepath.Join(home, SessionsFile), data, 0o600)
	s, _, _ := runWithHistory(t, home)
	if _, live := sessionView(s, "claude", "twice"); live {
		t.Errorf("a spool file the journal already held was replayed again")
	}
	if _, err := os.Stat(claimed[0]); err == nil {
		t.Errorf("the replayed spool file is still there")
	}
}

// TestSpoolNewProcessOnReusedPID: a spooled session of a process that got
// the pid a restored session's dead agent had is the new process's: it
// is shown, the restored one ends.
func TestSpoolNewProcessOnReusedPID(t *testing.T) {
	mine, err := processStart(os.Getpid())
	if err != nil {
		t.Fatalf("processStart(self): %v", err)
	}
	home := t.TempDir()
	now := time.Now()
	writeJournal(t, home, savedSession{Agent: "claude", ID: "old", State: "idle", AgentPID: os.Getpid(),
		AgentStart: mine + "0", StartedAt: now.Add(-time.Hour), UpdatedAt: now.Add(-time.Minute)})
	spoolEvents(t, home, agents.Event{Agent: "claude", Kind: agents.KindSessionStart, SessionID: "new",
		AgentPID: os.Getpid(), Time: now.Add(-time.Second)})
	s, c, _ := runWithHistory(t, home, realAlive)
	if _, live := sessionView(s, "claude", "new"); !live {
		t.Errorf("the new process's spooled session is not shown")
	}
	if _, live := sessionView(s, "claude", "old"); live {
		t.Errorf("the session whose agent's pid went to another process is shown")
	}
	awaitEnded(t, c, "old")
}

// TestJournalSkipsDisabledAgent: an agent turned off in config.toml since
// the last start does not come back from the journal; the others do.
func TestJournalSkipsDisabledAgent(t *testing.T) {
	home := t.TempDir()
	s, _, stop := runWithHistory(t, home, realAlive)
	for _, a := range []string{"claude", "codex"} {
		s.Ingest(agents.Event{Agent: a, Kind: agents.KindPromptSubmit, SessionID: a + "-1", Time: time.Now(), Cwd: "/home/u/p"})
	}
	awaitJournal(t, home, "claude-1", "codex-1")
	stop()
	s, _, _ = runWithHistory(t, home, realAlive, func(cfg *Config) {
		cfg.AgentsDisabled = map[string]bool{"codex": true}
	})
	snap := s.Snapshot()
	if len(snap.Sessions) != 1 || snap.Sessions[0].Agent != "claude" {
		t.Errorf("restored with codex disabled: %+v, want claude's session only", snap.Sessions)
	}
}
