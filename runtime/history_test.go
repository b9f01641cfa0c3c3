package runtime

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
	_ "time/tzdata" // Europe/Berlin whatever the machine has

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/internal/golden"
	"github.com/clawdhq/clawd/runtime/client"
	"github.com/clawdhq/clawd/runtime/history"
	"github.com/clawdhq/clawd/runtime/recap"
	"github.com/clawdhq/clawd/statemachine"
)

// runWithHistory runs a runtime with its history in home the way `clawd
// serve` does (Run: the store opened once the home is locked) and
// returns it with a client on its socket and the function that stops it
// (waiting for it to write the last of its journal).
func runWithHistory(t *testing.T, home string, mods ...func(*Config)) (*Server, *client.Client, func()) {
	t.Helper()
	cfg := Config{Home: home, Version: "test", Alive: func(int) bool { return true },
		OpenHistory: func(ctx context.Context) (*history.Store, error) {
			return history.Open(ctx, history.Options{Home: home})
		}}
	for _, mod := range mods {
		mod(&cfg)
	}
	s := New(cfg)
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan client.Info, 1)
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx, 0, func(in client.Info) { ready <- in }) }()
	var in client.Info
	select {
	case in = <-ready:
	case err := <-done:
		t.Fatalf("Run: %v", err)
	}
	var once sync.Once
	stop := func() {
		once.Do(func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("Run: %v", err)
			}
		})
	}
	t.Cleanup(stop)
	return s, client.NewSocket(in.Socket, client.Options{}), stop
}

func historyIDs(t *testing.T, c *client.Client, q client.HistoryQuery) []client.HistoryEntry {
	t.Helper()
	h, err := c.History(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	return h.Sessions
}

// TestHistorySurvivesRestart: a session that ended lands in the history,
// one still running when clawd stops too (not ended), and both are there
// after a restart; a title the person gave a running session is kept and
// shows when the session speaks again after the restart.
func TestHistorySurvivesRestart(t *testing.T) {
	ctx := context.Background()
	home := t.TempDir()
	s, c, stop := runWithHistory(t, home)
	ev := func(kind agents.Kind, id string) agents.Event {
		e := agents.Event{Agent: "claude", Kind: kind, SessionID: id, Time: time.Now(), Cwd: "/home/u/shop"}
		if kind == agents.KindPromptSubmit {
			e.Title, e.TitleSource = "fix the login", agents.TitleFromPrompt
		}
		return e
	}
	for _, e := range []agents.Event{
		ev(agents.KindSessionStart, "ended-1"), ev(agents.KindPromptSubmit, "ended-1"),
		ev(agents.KindPromptSubmit, "ended-1"), ev(agents.KindSessionEnd, "ended-1"),
		ev(agents.KindSessionStart, "running-2"), ev(agents.KindPromptSubmit, "running-2"),
	} {
		s.Ingest(e)
	}
	eventually(t, "the ended session in the history", func() bool {
		h, err := c.History(ctx, client.HistoryQuery{})
		return err == nil && len(h.Sessions) == 1
	})
	if _, err := c.Rename(ctx, "running", "Shop refactor"); err != nil {
		t.Fatal(err)
	}
	if v, _ := sessionView(s, "claude", "running-2"); v.Title != "Shop refactor" || v.TitleSource != "person" {
		t.Errorf("after rename: %q (%s), want the person's title", v.Title, v.TitleSource)
	}
	stop()

	s, c, _ = runWithHistory(t, home)
	got := historyIDs(t, c, client.HistoryQuery{})
	if len(got) != 2 {
		t.Fatalf("after the restart: %+v, want both sessions", got)
	}
	byID := map[string]client.HistoryEntry{}
	for _, e := range got {
		byID[e.SessionID] = e
	}
	if e := byID["ended-1"]; !e.Ended || e.Turns != 2 || e.Title != "fix the login" || e.Cwd != "/home/u/shop" ||
		strings.Join(e.Resume, " ") != "claude --resume ended-1" || e.Live {
		t.Errorf("ended session = %+v, want ended, 2 turns, its prompt's title, its folder, the resume command", e)
	}
	if e := byID["running-2"]; e.Ended || e.Title != "Shop refactor" || e.TitleSource != "person" || e.Turns != 1 {
		t.Errorf("running session = %+v, want not ended, the person's title, 1 turn", e)
	}
	// It speaks again: the person's title is back on it at once.
	s.Ingest(ev(agents.KindPromptSubmit, "running-2"))
	if v, _ := sessionView(s, "claude", "running-2"); v.Title != "Shop refactor" || v.TitleSource != "person" {
		t.Errorf("after the restart: %q (%s), want the person's title", v.Title, v.TitleSource)
	}
	s.Ingest(ev(agents.KindSessionEnd, "running-2"))
	eventually(t, "running-2 ended in the history", func() bool {
		for _, e := range historyIDs(t, c, client.HistoryQuery{}) {
			if e.SessionID == "running-2" {
				return e.Ended && e.Turns == 2
			}
		}
		return false
	})
}

// TestRemoteHistory: a remote machine's session lands in the history with
// its host, and its resume command names the id its agent knows, not the
// runtime's namespaced one.
func TestRemoteHistory(t *testing.T) {
	s, c, _ := runWithHistory(t, t.TempDir())
	for _, k := range []agents.Kind{agents.KindSessionStart, agents.KindPromptSubmit, agents.KindSessionEnd} {
		s.Ingest(agents.Event{Agent: "claude", Kind: k, SessionID: "box:abc-9", Host: "box", Cwd: "/home/me/shop", Time: time.Now()})
	}
	var got []client.HistoryEntry
	eventually(t, "box:abc-9 in the history", func() bool {
		got = historyIDs(t, c, client.HistoryQuery{})
		return len(got) == 1
	})
	if e := got[0]; e.SessionID != "box:abc-9" || e.Host != "box" || e.Cwd != "/home/me/shop" || strings.Join(e.Resume, " ") != "claude --resume abc-9" {
		t.Errorf("remote session in the history = %+v, want box:abc-9 on box, resumed there as claude --resume abc-9", e)
	}
}

// TestResolve: a session is named by its id, a start of it only it has,
// or agent:id, among the live ones and the history; an exact id wins over
// the ids it starts; more than one is an error that lists them.
func TestResolve(t *testing.T) {
	ctx := context.Background()
	s, c, _ := runWithHistory(t, t.TempDir())
	for _, k := range [][2]string{{"claude", "abc-111"}, {"codex", "abc-222"}, {"claude", "zzz"}, {"codex", "zzz"}, {"claude", "abc"}} {
		s.Ingest(agents.Event{Agent: k[0], Kind: agents.KindSessionStart, SessionID: k[1], Time: time.Now()})
	}
	s.Ingest(agents.Event{Agent: "claude", Kind: agents.KindSessionEnd, SessionID: "abc-111", Time: time.Now()})
	eventually(t, "abc-111 in the history", func() bool { return len(historyIDs(t, c, client.HistoryQuery{})) == 1 })
	for _, tt := range []struct {
		q      string
		want   string // agent:id, or the status of the error
		status int
	}{
		{"abc-1", "claude:abc-111", 0},    // only in the history
		{"abc-2", "codex:abc-222", 0},     // live
		{"abc", "claude:abc", 0},          // exact wins over abc-111 and abc-222
		{"codex:abc", "codex:abc-222", 0}, // a start within one agent
		{"claude-code:zz", "claude:zzz", 0},
		{"zzz", "", http.StatusConflict},
		{"ab", "", http.StatusConflict},
		{"nope", "", http.StatusNotFound},
		{"", "", http.StatusNotFound},
	} {
		e, err := c.Resolve(ctx, tt.q)
		var api *client.APIError
		switch {
		case tt.status != 0:
			if !errors.As(err, &api) || api.Status != tt.status {
				t.Errorf("Resolve(%q) = %+v, %v; want status %d", tt.q, e, err, tt.status)
			}
		case err != nil || e.Agent+":"+e.SessionID != tt.want:
			t.Errorf("Resolve(%q) = %s:%s, %v; want %s", tt.q, e.Agent, e.SessionID, err, tt.want)
		}
	}
	if _, err := c.Resolve(ctx, "zzz"); err == nil || !strings.Contains(err.Error(), "claude:zzz") || !strings.Contains(err.Error(), "codex:zzz") {
		t.Errorf("ambiguous error = %v, want both candidates named", err)
	}
}

// TestRenameOverTranscript: the person's title wins over the name in the
// agent's transcript, later renames there included; a title that looks
// like a secret is refused; taking the person's away shows the agent's.
func TestRenameOverTranscript(t *testing.T) {
	ctx := context.Background()
	s, c, _ := runWithHistory(t, t.TempDir())
	file := filepath.Join(t.TempDir(), "s1.jsonl")
	appendLines(t, file, customTitle("Named in Claude", "s1"))
	ev := func(kind agents.Kind) agents.Event {
		return agents.Event{Agent: "claude", Kind: kind, SessionID: "s1", Time: time.Now(), Transcript: file}
	}
	s.Ingest(ev(agents.KindSessionStart))
	titleOf(t, s, "s1", "Named in Claude")
	if _, err := c.Rename(ctx, "claude:s1", "Mine"); err != nil {
		t.Fatal(err)
	}
	titleOf(t, s, "s1", "Mine")
	appendLines(t, file, customTitle("Renamed in Claude", "s1"))
	s.Ingest(ev(agents.KindPromptSubmit))
	// The look at the transcript happened once the file's title is the
	// agent's: the person's still shows.
	agentTitleIs(t, s, statemachine.Key{Agent: "claude", ID: "s1"}, "Renamed in Claude")
	if v, _ := sessionView(s, "claude", "s1"); v.Title != "Mine" || v.TitleSource != "person" {
		t.Errorf("after a rename in Claude: %q (%s), want the person's", v.Title, v.TitleSource)
	}
	var api *client.APIError
	if _, err := c.Rename(ctx, "s1", "rotate the api_key"); !errors.As(err, &api) || api.Status != http.StatusBadRequest {
		t.Errorf("Rename(secret-looking title) = %v, want 400", err)
	}
	if _, err := c.Rename(ctx, "s1", ""); err != nil {
		t.Fatal(err)
	}
	titleOf(t, s, "s1", "Renamed in Claude")
}

// TestRecapGolden replays recorded Claude Code sessions through the
// runtime on a fake clock, across midnight of the night daylight saving
// time starts in Berlin, and compares the recap with
// testdata/recap/replay.golden.json (-update rewrites it).
func TestRecapGolden(t *testing.T) {
	ctx := context.Background()
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	// A fixed key, so the folders' hashes are the golden file's.
	if err := os.WriteFile(filepath.Join(home, history.KeyFile), []byte(strings.Repeat("ab", 32)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 3, 28, 23, 56, 0, 0, berlin)
	clock := func() time.Time { return now }
	st, err := history.Open(ctx, history.Options{Home: home, Now: clock, Loc: berlin})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	s := New(Config{Home: home, Now: clock, History: st})
	jw := s.sessions.JournalWriter()
	jw.Write(ctx, false)

	env := func(vars map[string]string) agents.Env { return func(k string) string { return vars[k] } }
	interactive := env(map[string]string{"CLAUDE_CODE_ENTRYPOINT": "cli", "CLAUDE_CODE_SESSION_ATTENDED": "1"})
	headless := env(map[string]string{"CLAUDE_CODE_ENTRYPOINT": "sdk-cli", "CLAUDE_CODE_SESSION_ATTENDED": "0"})
	replay := func(file string, e agents.Env, step time.Duration) {
		f, err := os.Open(filepath.Join("..", "testdata", "claude", "sequences", file))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var rec struct {
				Stdin json.RawMessage `json:"stdin"`
			}
			if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
				t.Fatal(err)
			}
			ev, err := agents.Claude.Decode(rec.Stdin, "", e, now)
			if err != nil {
				t.Fatalf("%s: %v", file, err)
			}
			s.Ingest(ev)
			now = now.Add(step)
			s.tick(nil)
			if now.Sub(jw.Noted()) >= time.Minute {
				// The journal's ticker.
				jw.Write(ctx, false)
			}
		}
	}
	// The tour runs 45 events 20 s apart: from 23:56 to past midnight.
	replay("tmux-tour.jsonl", interactive, 20*time.Second)
	jw.Write(ctx, false)
	for range 120 { // clawd keeps running for two hours
		now = now.Add(time.Minute)
		jw.Write(ctx, false)
	}
	replay("print-capture_all.jsonl", headless, 3*time.Second)
	replay("tmux-permission.jsonl", interactive, 30*time.Second)
	jw.Write(ctx, true)
	now = now.Add(3 * time.Hour) // clawd stopped: not covered

	sum, err := s.Recap(ctx, 3, true)
	if err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	enc := json.NewEncoder(&got)
	enc.SetIndent("", "  ")
	if err := enc.Encode(sum); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "recap", "replay.golden.json"), got.Bytes())
}

// TestJournalPrunes: the journal applies the retention as it writes, also
// when no session ends: a recap day past the 400 kept goes.
func TestJournalPrunes(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	st, err := history.Open(ctx, history.Options{Home: t.TempDir(), Now: clock, Loc: time.UTC})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	old := recap.Scope{Day: recap.DayOf(now, time.UTC).Add(-history.DefaultRecapDays), Agent: "claude", Folder: "f"}
	if err := st.AddRecap(ctx, recap.Batch{Rows: map[recap.Scope]*recap.Counts{old: {Turns: 1}}}); err != nil {
		t.Fatal(err)
	}
	s := New(Config{Home: t.TempDir(), Now: clock, History: st})
	s.sessions.JournalWriter().Write(ctx, false)
	rows, _, _, err := st.Recap(ctx, old.Day, old.Day)
	if err != nil || len(rows) != 0 {
		t.Errorf("recap of %s after the journal wrote: %+v, %v; want none", old.Day, rows, err)
	}
}
