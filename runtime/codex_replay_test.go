package runtime

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/runtime/monitors/codex"
)

// The same recorded Codex runs, told by the hooks, by the rollout monitor,
// and by both at once, must give the session the same life.

// codexHookEvents decodes a recorded hook sequence ({"event","stdin"} per
// line).
func codexHookEvents(t *testing.T, name string) []agents.Event {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "testdata", "codex", "hooks", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []agents.Event
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 4<<20)
	now := time.Date(2026, 11, 30, 3, 0, 0, 0, time.UTC)
	for sc.Scan() {
		var line struct {
			Event string          `json:"event"`
			Stdin json.RawMessage `json:"stdin"`
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatal(err)
		}
		now = now.Add(time.Second)
		e, err := agents.Codex.Decode(line.Stdin, line.Event, func(string) string { return "" }, now)
		if err != nil {
			t.Fatalf("decode %s: %v", line.Event, err)
		}
		out = append(out, e)
	}
	return out
}

// codexMonitorEvents runs the monitor over a recorded rollout placed in a
// Codex home as Codex writes it.
func codexMonitorEvents(t *testing.T, rollouts ...string) []agents.Event {
	t.Helper()
	home := t.TempDir()
	now := time.Now()
	day := filepath.Join(home, "sessions", now.Format("2006"), now.Format("01"), now.Format("02"))
	if err := os.MkdirAll(day, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, rollout := range rollouts {
		data, err := os.ReadFile(filepath.Join("..", "testdata", "codex", "rollout", rollout))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(day, "rollout-2026-11-30T03-13-30-"+rollout), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	var out []agents.Event
	m := codex.New(codex.Options{Home: home, Emit: func(e agents.Event) { out = append(out, e) },
		StartAt: time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC)}) // before the records: replay them all
	for range 3 {
		if err := m.Poll(); err != nil {
			t.Fatal(err)
		}
	}
	if len(out) == 0 {
		t.Fatalf("the monitor derived nothing from %s", rollouts)
	}
	return out
}

// timeline is the session's state after each applied event, repeats
// collapsed, up to the end of its last turn: what the tray and the
// notifications see.
type timeline struct {
	states  []string
	applied int
}

func follow(s *Server) func() timeline {
	changes, cancel := s.Subscribe(4096)
	return func() timeline {
		defer cancel()
		var tl timeline
		for {
			select {
			case c := <-changes:
				if c.Event == nil {
					continue
				}
				tl.applied++
				if c.Event.Kind == agents.KindSessionEnd {
					continue // hooks only: the monitor cannot see a thread unload
				}
				if n := len(tl.states); n == 0 || tl.states[n-1] != c.Event.State {
					tl.states = append(tl.states, c.Event.State)
				}
			default:
				return tl
			}
		}
	}
}

func (s *Server) hookEvent(e agents.Event) {
	s.accept(&e)
	s.Ingest(e)
}

// comparable leaves out what only one side can see: hosted web search
// (no hook fires for it), session end and permission requests (no
// rollout record).
func comparable(evs []agents.Event, dropPermissions bool) []agents.Event {
	var out []agents.Event
	for _, e := range evs {
		if e.ToolName == "web_search" || e.Kind == agents.KindSessionEnd ||
			dropPermissions && e.Kind == agents.KindPermissionRequest {
			continue
		}
		out = append(out, e)
	}
	return out
}

func TestCodexHooksMonitorAndBoth(t *testing.T) {
	for _, tc := range []struct {
		hooks    string
		rollouts []string
	}{
		{"sequence.exec.jsonl", []string{"rollout-exec.jsonl"}},
		{"sequence.tui-session.jsonl", []string{"rollout-tui-session.jsonl", "rollout-subagent.jsonl"}},
	} {
		t.Run(tc.hooks, func(t *testing.T) { testHooksMonitorAndBoth(t, tc.hooks, tc.rollouts) })
	}
}

func testHooksMonitorAndBoth(t *testing.T, hookFile string, rollouts []string) {
	recorded := codexHookEvents(t, hookFile)
	mon := comparable(codexMonitorEvents(t, rollouts...), false)
	newServer := func() *Server {
		return New(Config{Home: t.TempDir(), Sources: []Source{&testSource{}}, SourceGrace: -1})
	}

	// What the hooks tell without the approvals, which the rollout does
	// not record: the monitor alone must tell the same.
	s := newServer()
	done := follow(s)
	for _, e := range comparable(recorded, true) {
		s.hookEvent(e)
	}
	hooksNoApprovals := done()
	hooks := comparable(recorded, false)

	s = newServer()
	done = follow(s)
	for _, e := range hooks {
		s.hookEvent(e)
	}
	hooksOnly := done()

	s = newServer()
	done = follow(s)
	for _, e := range mon {
		s.IngestSource(e)
	}
	monOnly := done()

	// Both: the monitor reads the file after the hooks fired, so each
	// rollout record arrives after the hook events up to its turn.
	s = newServer()
	done = follow(s)
	for _, e := range hooks {
		s.hookEvent(e)
	}
	for _, e := range mon {
		s.IngestSource(e)
	}
	both := done()

	t.Logf("hooks only:   %s", strings.Join(hooksOnly.states, " → "))
	t.Logf("monitor only: %s", strings.Join(monOnly.states, " → "))
	if strings.Join(monOnly.states, " ") != strings.Join(hooksNoApprovals.states, " ") {
		t.Errorf("monitor-only timeline\n  %v\nwant the hooks' timeline without approvals\n  %v", monOnly.states, hooksNoApprovals.states)
	}
	if strings.Join(both.states, " ") != strings.Join(hooksOnly.states, " ") {
		t.Errorf("hooks+monitor timeline\n  %v\nwant the hooks' timeline\n  %v", both.states, hooksOnly.states)
	}
	if both.applied != hooksOnly.applied {
		t.Errorf("hooks+monitor applied %d events, want the hooks' %d: the monitor's copies must all be dropped", both.applied, hooksOnly.applied)
	}
	if len(hooksOnly.states) < 4 || hooksOnly.states[len(hooksOnly.states)-1] != "attention" {
		t.Errorf("hooks timeline %v: want a whole turn ending in attention", hooksOnly.states)
	}
}
