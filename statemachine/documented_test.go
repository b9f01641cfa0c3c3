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
