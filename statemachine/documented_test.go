package statemachine

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/clawdhq/clawd/agents"
)

// TestReplayDocumented replays, for every agent verified from its
// documented format, each run built from that format
// (../testdata/<agent>/documented-<scenario>/NN-<Event>.json) through a
// fresh machine, against testdata/replay/<agent>-documented-<scenario>.golden:
// the timeline a person would see. Payloads the agent's decoder drops on
// purpose (a Grok subagent's event, a Stop that is no end) never reach
// the machine, as they never reach the runtime.
func TestReplayDocumented(t *testing.T) {
	noEnv := func(string) string { return "" }
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	for _, a := range agents.All() {
		if a.Verified != agents.VerifiedDocumented {
			continue
		}
		dirs, err := filepath.Glob(filepath.Join("..", "testdata", a.ID, "documented-*"))
		if err != nil || len(dirs) == 0 {
			t.Fatalf("no runs built from %s's documented format (%v)", a.Name, err)
		}
		for _, dir := range dirs {
			files, _ := filepath.Glob(filepath.Join(dir, "[0-9][0-9]-*.json"))
			slices.Sort(files)
			var seq []recorded
			for _, f := range files {
				b, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				event := strings.TrimSuffix(filepath.Base(f)[3:], ".json")
				if _, err := a.Decode(b, event, noEnv, now); errors.Is(err, agents.ErrNothingToShow) {
					continue
				}
				seq = append(seq, recorded{Event: event, Stdin: b})
			}
			name := a.ID + "-" + filepath.Base(dir)
			t.Run(name, func(t *testing.T) {
				checkGolden(t, name, dir, replayAgent(t, seq, a, noEnv))
			})
		}
	}
}

// TestDocumentedTitles: a session of an agent tested from its documented
// format is named by its first prompt's first line, and a later prompt
// does not rename it (TraeCode and MiniMax have no title of their own);
// only a name the agent gives replaces it.
func TestDocumentedTitles(t *testing.T) {
	noEnv := func(string) string { return "" }
	start := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	prompts := map[string]int{}
	for _, a := range agents.All() {
		if a.Verified != agents.VerifiedDocumented {
			continue
		}
		dirs, _ := filepath.Glob(filepath.Join("..", "testdata", a.ID, "documented-*"))
		for _, dir := range dirs {
			files, _ := filepath.Glob(filepath.Join(dir, "[0-9][0-9]-*.json"))
			slices.Sort(files)
			m := New(Options{})
			first := map[string]string{}
			for i, f := range files {
				b, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				now := start.Add(time.Duration(i) * time.Second)
				e, err := a.Decode(b, strings.TrimSuffix(filepath.Base(f)[3:], ".json"), noEnv, now)
				if err != nil {
					continue
				}
				res := m.Apply(e, now)
				switch e.TitleSource {
				case agents.TitleFromPrompt:
					prompts[a.ID]++
					if first[e.SessionID] == "" {
						first[e.SessionID] = e.Title
					}
				case agents.TitleFromAgent:
					first[e.SessionID] = e.Title
				}
				if want := first[e.SessionID]; !res.Removed && !res.Ignored && want != "" && res.Session.Title != want {
					t.Errorf("%s: after %s the session is titled %q, want the first prompt's %q", dir, filepath.Base(f), res.Session.Title, want)
				}
			}
		}
	}
	for _, id := range []string{agents.TraeCode.ID, agents.MiniMax.ID} {
		if prompts[id] == 0 {
			t.Errorf("no prompt of %s titles a session in its documented runs", id)
		}
	}
	if prompts[agents.MiniMax.ID] < 2 {
		t.Errorf("MiniMax's documented runs have %d titled prompts, want a second one that must not rename the session", prompts[agents.MiniMax.ID])
	}
}
