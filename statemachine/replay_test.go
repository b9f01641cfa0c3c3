package statemachine

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/internal/golden"
)

// replayStart is the fixed time of a replay's first event; events follow
// one second apart, unless a call says to wait longer (recorded.Wait).
var replayStart = time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)

// replayEnv is the environment Claude Code gives its hooks: headless for
// claude -p runs, attended for the TUI runs. CLAUDE_PID stays unset, so
// sessions carry no pid and liveness plays no part.
func replayEnv(interactive bool) agents.Env {
	vars := map[string]string{"CLAUDE_CODE_ENTRYPOINT": "sdk-cli", "CLAUDE_CODE_SESSION_ATTENDED": "0"}
	if interactive {
		vars = map[string]string{"CLAUDE_CODE_ENTRYPOINT": "cli", "CLAUDE_CODE_SESSION_ATTENDED": "1"}
	}
	return func(k string) string { return vars[k] }
}

// recorded is one hook call: the event its command line named, the
// payload and, where recorded, the environment the agent gave the hook.
type recorded struct {
	Event string            `json:"event"`
	Stdin json.RawMessage   `json:"stdin"`
	Env   map[string]string `json:"env"`
	// Wait is how many seconds the call comes after the one before, when
	// not one: the runs of testdata/late space their late calls out so the
	// one-shots before them have run out.
	Wait float64 `json:"wait"`
}

func readSequence(t *testing.T, path string) []recorded {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []recorded
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var r recorded
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, r)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// replay runs a recorded sequence through a fresh machine the way the
// runtime would (Tick at every NextWake that falls before the next event)
// and returns the timeline: one line per event and per Tick that changed
// something.
func replay(t *testing.T, seq []recorded, interactive bool) string {
	t.Helper()
	return replayAgent(t, seq, agents.Claude, replayEnv(interactive))
}

// replayAgent is replay for any agent's recorded hook calls, each decoded
// with its command line's event and with its recorded environment, else
// env.
func replayAgent(t *testing.T, seq []recorded, a *agents.Agent, env agents.Env) string {
	t.Helper()
	m := New(Options{})
	var b strings.Builder
	at := replayStart
	line := func(now time.Time, hook string, kind agents.Kind, s Session, removed, stale bool, display State) {
		state := string(s.State)
		if removed {
			state += " (removed)"
		}
		if stale {
			state += " (stale)"
		}
		id := s.ID
		if len(id) > 3 {
			id = id[len(id)-3:]
		}
		if id == "" {
			id = "-"
		}
		fmt.Fprintf(&b, "%+7.1fs  %-20s %-19s %-3s  %-20s pending=%d  display=%s",
			now.Sub(replayStart).Seconds(), hook, kind, id, state, s.Pending, display)
		// The last turn's outcome, while the session keeps it.
		switch {
		case s.Outcome == OutcomeFailed:
			fmt.Fprintf(&b, "  failed %q", s.FailReason)
		case s.Outcome != "":
			fmt.Fprintf(&b, "  %s", s.Outcome)
		}
		b.WriteByte('\n')
	}
	// tickBefore runs the Ticks due before end. A wake at the very time of
	// the next event is left to that event's Apply, which moves the
	// display on by itself.
	tickBefore := func(end time.Time) {
		for range 100 {
			w := m.NextWake()
			if w.IsZero() || !w.Before(end) {
				return
			}
			if w.Before(at) {
				w = at // due already: the runtime ticks at once
			}
			at = w
			for _, r := range m.Tick(w, nil) {
				line(w, "tick", "", r.Session, r.Removed, r.Stale, r.Display)
			}
		}
		t.Fatalf("NextWake did not settle before %v", end)
	}
	now := replayStart
	for i, r := range seq {
		switch {
		case r.Wait > 0:
			now = now.Add(time.Duration(r.Wait * float64(time.Second)))
		case i > 0:
			now = now.Add(time.Second)
		}
		tickBefore(now)
		at = now
		callEnv := env
		if r.Env != nil || env == nil {
			callEnv = func(k string) string { return r.Env[k] }
		}
		e, err := a.Decode(r.Stdin, r.Event, callEnv, now)
		if err != nil {
			t.Fatalf("event %d (%s): %v", i, r.Event, err)
		}
		if e.HookEvent != r.Event {
			t.Fatalf("event %d decoded as %s, recorded as %s", i, e.HookEvent, r.Event)
		}
		res := m.Apply(e, now)
		if res.Late {
			line(now, r.Event+" (late)", e.Kind, res.Session, false, false, res.Display)
			continue
		}
		if res.Ignored {
			line(now, r.Event+" (ignored)", e.Kind, res.Session, false, false, res.Display)
			continue
		}
		line(now, r.Event, e.Kind, res.Session, res.Removed, false, res.Display)
	}
	// Let the last one-shots, flashes and minimum display times run out.
	tickBefore(at.Add(time.Hour))
	fmt.Fprintf(&b, "end  display=%s sessions=%d\n", m.Display(), m.Len())
	return b.String()
}

// checkGolden compares the replay of the recording at source with
// testdata/replay/name.golden (see internal/golden).
func checkGolden(t *testing.T, name, source, got string) {
	t.Helper()
	if !golden.Check(t, filepath.Join("testdata", "replay", name+".golden"), []byte(got)) {
		t.Logf("replayed from %s", source)
	}
}

// TestReplayCodex replays the recorded Codex runs. Codex's hooks carry no
// sign of a headless run (the runtime learns it from the rollout), so
// every run shows on the display.
func TestReplayCodex(t *testing.T) {
	files, err := filepath.Glob("../testdata/codex/hooks/sequence.*.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no recorded Codex sequences found")
	}
	noEnv := func(string) string { return "" }
	for _, path := range files {
		run := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(path), "sequence."), ".jsonl")
		seq := readSequence(t, path)
		t.Run(run, func(t *testing.T) {
			checkGolden(t, "codex-"+run, path, replayAgent(t, seq, agents.Codex, noEnv))
		})
	}
}

func TestReplay(t *testing.T) {
	files, err := filepath.Glob("../testdata/claude/sequences/*.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no recorded sequences found")
	}
	for _, path := range files {
		run := strings.TrimSuffix(filepath.Base(path), ".jsonl")
		seq := readSequence(t, path)
		variants := []struct {
			name        string
			interactive bool
		}{{run, strings.HasPrefix(run, "tmux-")}}
		if strings.HasPrefix(run, "print-") {
			// Headless runs never reach the display: replay them as if
			// attended too, so the display column means something.
			variants = append(variants, struct {
				name        string
				interactive bool
			}{run + ".interactive", true})
		}
		for _, v := range variants {
			t.Run(v.name, func(t *testing.T) {
				checkGolden(t, v.name, path, replay(t, seq, v.interactive))
			})
		}
	}
}

// TestReplayQwen replays the recorded Qwen Code runs. Qwen's hooks do not
// tell qwen -p from the TUI: every run shows on the display.
func TestReplayQwen(t *testing.T) {
	replayRuns(t, "qwen", agents.Qwen, func(string) bool { return true })
}

// TestReplayCopilot replays the recorded Copilot CLI runs of its native
// hook format (clawd does not install the PascalCase one). copilot -p runs
// are headless: they are replayed as recorded, and once more as if
// attended, so the display column means something.
func TestReplayCopilot(t *testing.T) {
	replayRuns(t, "copilot", agents.Copilot, func(run string) bool { return !strings.Contains(run, "pascal") })
}

// replayRuns replays testdata/<agent>/sequences/*.jsonl (the runs take
// selects) against golden timelines <agent>-<run>.golden; a headless run
// is also replayed attended, as <agent>-<run>.interactive.golden.
func replayRuns(t *testing.T, agent string, a *agents.Agent, take func(run string) bool) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", "testdata", agent, "sequences", "*.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	replayed := 0
	for _, path := range files {
		run := strings.TrimSuffix(filepath.Base(path), ".jsonl")
		if !take(run) {
			continue
		}
		replayed++
		seq := readSequence(t, path)
		t.Run(run, func(t *testing.T) {
			checkGolden(t, agent+"-"+run, path, replayAgent(t, seq, a, nil))
		})
		if headlessRun(t, a, seq) {
			attended := make([]recorded, len(seq))
			for i, r := range seq {
				r.Env = attendedEnv(r.Env)
				attended[i] = r
			}
			t.Run(run+".interactive", func(t *testing.T) {
				checkGolden(t, agent+"-"+run+".interactive", path, replayAgent(t, attended, a, nil))
			})
		}
	}
	if replayed == 0 {
		t.Fatalf("no recorded %s runs found", agent)
	}
}

// headlessRun reports whether the first call of seq decodes as headless.
func headlessRun(t *testing.T, a *agents.Agent, seq []recorded) bool {
	t.Helper()
	e, err := a.Decode(seq[0].Stdin, seq[0].Event, func(k string) string { return seq[0].Env[k] }, replayStart)
	if err != nil {
		t.Fatal(err)
	}
	return e.Headless
}

// attendedEnv is env as an interactive Copilot sets it: with the loader's
// pid (a made-up one: replays check no liveness).
func attendedEnv(env map[string]string) map[string]string {
	out := map[string]string{"COPILOT_LOADER_PID": "4242"}
	for k, v := range env {
		out[k] = v
	}
	return out
}

// TestReplayLate replays the runs of testdata/late: recorded Claude Code
// hook calls, in the order of a recorded run, with some of a turn's calls
// played again after the turn ended, as a slow hook process delivers
// them (each line's note says what was moved or changed). They replay as
// attended sessions, so the display column means something.
func TestReplayLate(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "late", "*.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no late-event runs found")
	}
	for _, path := range files {
		run := strings.TrimSuffix(filepath.Base(path), ".jsonl")
		seq := readSequence(t, path)
		t.Run(run, func(t *testing.T) {
			checkGolden(t, run, path, replay(t, seq, true))
		})
	}
}
