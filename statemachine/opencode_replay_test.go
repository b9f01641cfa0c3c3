package statemachine

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clawdhq/clawd/agents"
)

// TestReplayOpencode replays what clawd's opencode plugin sends for each
// recorded opencode run (../testdata/opencode/sequences, made by the
// plugin's own test from the captures). `opencode run` sessions are
// headless and never reach the display: they are replayed once more as
// if they were the TUI's, so the display column means something.
func TestReplayOpencode(t *testing.T) {
	files, err := filepath.Glob("../testdata/opencode/sequences/*.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no opencode sequences found")
	}
	noEnv := func(string) string { return "" }
	for _, path := range files {
		run := strings.TrimSuffix(filepath.Base(path), ".jsonl")
		seq := readSequence(t, path)
		t.Run(run, func(t *testing.T) {
			checkGolden(t, "opencode-"+run, path, replayAgent(t, seq, agents.Opencode, noEnv))
		})
		if !strings.HasPrefix(run, "run-") {
			continue
		}
		attended := make([]recorded, len(seq))
		for i, r := range seq {
			var payload map[string]any
			if err := json.Unmarshal(r.Stdin, &payload); err != nil {
				t.Fatal(err)
			}
			if ctx, ok := payload["clawd"].(map[string]any); ok {
				delete(ctx, "headless")
			}
			b, err := json.Marshal(payload)
			if err != nil {
				t.Fatal(err)
			}
			attended[i] = recorded{Event: r.Event, Stdin: b}
		}
		t.Run(run+".interactive", func(t *testing.T) {
			checkGolden(t, "opencode-"+run+".interactive", path, replayAgent(t, attended, agents.Opencode, noEnv))
		})
	}
}
