package statemachine

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/clawdhq/clawd/agents"
)

// geminiFixtures holds Gemini CLI 0.61.0's captured runs: one folder per
// scenario, NN-<Event>.json in firing order.
const geminiFixtures = "../testdata/gemini"

// readGeminiRun returns a captured run's hook calls in firing order: all
// of them, or only those of the events clawd registers (what the runtime
// gets from an installed clawd).
func readGeminiRun(t *testing.T, scenario string, registeredOnly bool) []recorded {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(geminiFixtures, scenario, "[0-9][0-9]-*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no payloads in %s (%v)", scenario, err)
	}
	slices.Sort(files)
	var out []recorded
	for _, f := range files {
		event := strings.TrimSuffix(filepath.Base(f)[3:], ".json")
		if _, ok := agents.Gemini.Hook(event); registeredOnly && !ok {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, recorded{Event: event, Stdin: b})
	}
	return out
}

func geminiRuns(t *testing.T) []string {
	t.Helper()
	entries, err := os.ReadDir(geminiFixtures)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if e.IsDir() {
			out = append(out, e.Name())
		}
	}
	if len(out) == 0 {
		t.Fatal("no recorded Gemini runs found")
	}
	return out
}

// TestReplayGemini replays the captured Gemini runs as an installed clawd
// sees them: the registered events only. Gemini's hooks carry no sign of a
// headless run, so every run shows on the display. In them: a failed
// model call (headless-api-error-400) leaves the turn thinking until the
// working-stale rule ends it; Gemini's dialog (Notification) shows
// waiting until the tool ran; /quit's second SessionEnd is ignored.
func TestReplayGemini(t *testing.T) {
	noEnv := func(string) string { return "" }
	for _, run := range geminiRuns(t) {
		seq := readGeminiRun(t, run, true)
		t.Run(run, func(t *testing.T) {
			checkGolden(t, "gemini-"+run, filepath.Join(geminiFixtures, run), replayAgent(t, seq, agents.Gemini, noEnv))
		})
	}
}

// TestGeminiUnregisteredEventsChangeNothing applies every captured event,
// the ones clawd does not register included (a person may register them
// by hand): the model events and PreCompress, which fires before every
// model call, change nothing a person sees. Above all PreCompress is no
// compaction: no sweeping, ever.
func TestGeminiUnregisteredEventsChangeNothing(t *testing.T) {
	noEnv := func(string) string { return "" }
	checked := 0
	for _, run := range geminiRuns(t) {
		m := New(Options{})
		at := replayStart
		for i, r := range readGeminiRun(t, run, false) {
			at = at.Add(time.Second)
			e, err := agents.Gemini.Decode(r.Stdin, r.Event, noEnv, at)
			if err != nil {
				t.Fatalf("%s event %d (%s): %v", run, i, r.Event, err)
			}
			before, known := m.Session(Key{e.Agent, e.SessionID})
			display := m.Display()
			res := m.Apply(e, at)
			// (The display's sweeping after /clear is the machine's
			// own flash, not a session's.)
			if res.Session.State == Sweeping {
				t.Errorf("%s event %d (%s): the session is sweeping, want no compaction shown", run, i, r.Event)
			}
			if _, ok := agents.Gemini.Hook(r.Event); ok {
				continue
			}
			checked++
			s := res.Session
			if !known || s.State != before.State || s.BaseState != before.BaseState || s.Pending != before.Pending ||
				s.Title != before.Title || s.Tool != before.Tool || res.Display != display {
				t.Errorf("%s event %d (%s) changed the session: %+v (display %s), before %+v (display %s)",
					run, i, r.Event, s, res.Display, before, display)
			}
		}
	}
	if checked < 40 {
		t.Errorf("only %d unregistered events checked; the fixtures changed?", checked)
	}
}

// TestGeminiDialogWaitsUntilTheToolRan: from Gemini's dialog (its
// Notification) the session waits for the person, and once the tool ran
// (AfterTool) it works on; the turn ends done.
func TestGeminiDialogWaitsUntilTheToolRan(t *testing.T) {
	m := New(Options{})
	at := replayStart
	var states []State
	for _, r := range readGeminiRun(t, "interactive-shell-confirm", true) {
		at = at.Add(time.Second)
		e, err := agents.Gemini.Decode(r.Stdin, r.Event, func(string) string { return "" }, at)
		if err != nil {
			t.Fatal(err)
		}
		res := m.Apply(e, at)
		if r.Event == "AfterAgent" {
			states = append(states, res.Session.State)
			break
		}
		states = append(states, res.Session.State)
	}
	want := []State{Idle, Thinking, Working, Waiting, Working, Attention}
	if !slices.Equal(states, want) {
		t.Errorf("states SessionStart..AfterAgent = %v, want %v", states, want)
	}
}
