//go:build !windows

package installers

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/clawdhq/clawd/agents"
)

// The plugin's own tests run it under node (which the tests need anyway,
// see the README), handing it the recorded opencode calls of
// ../testdata/opencode, with a fake clawd that answers as told: see
// testdata/opencode/harness.mjs.

// fakeClawd is the clawd the plugin under test runs: it reads the payload
// and, for a permission request, prints $FAKE_CLAWD_ANSWER or, with
// FAKE_CLAWD_BLOCK=1, waits until it is killed. FAKE_CLAWD_HANG=1 makes
// every hook wait so.
const fakeClawd = `#!/bin/sh
cat >/dev/null
if [ "$FAKE_CLAWD_HANG" = 1 ]; then exec sleep 300; fi
if [ "$3" = permission.asked ]; then
  if [ "$FAKE_CLAWD_BLOCK" = 1 ]; then exec sleep 300; fi
  printf '%s\n' "$FAKE_CLAWD_ANSWER"
fi
`

// pluginHook is one hook process the plugin started.
type pluginHook struct {
	Argv   []string        `json:"argv"`
	Event  string          `json:"event"`
	Stdin  json.RawMessage `json:"stdin"`
	Signal *string         `json:"signal"`
	Code   *int            `json:"code"`
}

// pluginReply is one call the plugin made on opencode's client.
type pluginReply struct {
	Via  string         `json:"via"`
	URL  string         `json:"url"`
	Path map[string]any `json:"path"`
	Body map[string]any `json:"body"`
}

type pluginRun struct {
	Hooks   []pluginHook  `json:"hooks"`
	Replies []pluginReply `json:"replies"`
	Timings struct {
		Init    float64 `json:"init"`
		Event   float64 `json:"event"`
		Dispose float64 `json:"dispose"`
	} `json:"timings"`
}

// nodePath finds node, which the test needs.
func nodePath(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("node is needed to test the opencode plugin (see the README): %v", err)
	}
	return p
}

// writePlugin renders the plugin for a fake clawd in dir and returns the
// plugin's path and the fake's. edit, when set, changes the plugin's text
// first (shorter timeouts).
func writePlugin(t *testing.T, dir string, edit func(string) string) (plugin, clawd string) {
	t.Helper()
	clawd = filepath.Join(dir, "bin", "clawd")
	if err := os.MkdirAll(filepath.Dir(clawd), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(clawd, []byte(fakeClawd), 0o755); err != nil {
		t.Fatal(err)
	}
	data, _ := OpencodePlugin(clawd)
	src := string(data)
	if edit != nil {
		src = edit(src)
	}
	plugin = filepath.Join(dir, "clawd.js")
	if err := os.WriteFile(plugin, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return plugin, clawd
}

// runPlugin hands the plugin the recorded calls of fixtures under node,
// as `opencode <mode>` would, with env for the fake clawd.
func runPlugin(t *testing.T, plugin, mode, fixtures string, env ...string) pluginRun {
	t.Helper()
	cmd := exec.Command(nodePath(t), filepath.Join("testdata", "opencode", "harness.mjs"), mode, plugin, fixtures)
	cmd.Env = append(os.Environ(), "HARNESS_TMP="+t.TempDir())
	cmd.Env = append(cmd.Env, env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("node harness.mjs %s %s: %v\n%s", mode, fixtures, err, stderr.String())
	}
	var r pluginRun
	if err := json.Unmarshal(stdout.Bytes(), &r); err != nil {
		t.Fatalf("harness printed %q: %v\n%s", stdout.String(), err, stderr.String())
	}
	return r
}

// opencodeScenarios are the recorded opencode runs.
func opencodeScenarios(t *testing.T) []string {
	t.Helper()
	dirs, err := filepath.Glob(filepath.Join("..", "testdata", "opencode", "*-*"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, d := range dirs {
		if fi, err := os.Stat(d); err == nil && fi.IsDir() && filepath.Base(d) != "sequences" {
			out = append(out, d)
		}
	}
	if len(out) == 0 {
		t.Fatal("no recorded opencode runs in ../testdata/opencode")
	}
	return out
}

func scenarioMode(dir string) string {
	if strings.HasPrefix(filepath.Base(dir), "run-") {
		return "run"
	}
	return "tui"
}

// TestOpencodePluginSequences hands clawd's plugin every recorded opencode
// run and checks what it sends clawd against
// ../testdata/opencode/sequences/<run>.jsonl (rewritten with -update):
// the hook command as written, every event one clawd registers and
// decodes into a valid event, each hook run to its end, no answer given
// when clawd has none. The sequences are what the state machine's replay
// test plays.
func TestOpencodePluginSequences(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	plugin, clawd := writePlugin(t, dir, nil)
	for _, sc := range opencodeScenarios(t) {
		name := filepath.Base(sc)
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r := runPlugin(t, plugin, scenarioMode(sc), sc, "FAKE_CLAWD_ANSWER={}")
			if len(r.Replies) != 0 {
				t.Errorf("the plugin answered opencode %+v with no decision from clawd", r.Replies)
			}
			var seq bytes.Buffer
			for i, h := range r.Hooks {
				if want := []string{clawd, "hook", "opencode", h.Event}; !slices.Equal(h.Argv, want) {
					t.Errorf("hook %d ran %q, want %q", i, h.Argv, want)
				}
				if h.Code == nil || *h.Code != 0 || h.Signal != nil {
					t.Errorf("hook %d (%s) ended with code %v signal %v, want exit 0", i, h.Event, h.Code, h.Signal)
				}
				if _, ok := agents.Opencode.Hook(h.Event); !ok {
					t.Errorf("hook %d: the plugin sent %q, which agents.Opencode.Hooks does not list", i, h.Event)
				}
				e, err := agents.Opencode.Decode(h.Stdin, h.Event, func(string) string { return "" }, time.Now())
				if err != nil {
					t.Errorf("hook %d: Decode(%s, %s) = %v", i, h.Stdin, h.Event, err)
				} else if err := e.Validate(); err != nil {
					t.Errorf("hook %d: %s decodes to an invalid event: %v", i, h.Event, err)
				} else if e.Headless != (scenarioMode(sc) == "run") {
					t.Errorf("hook %d: %s headless = %v in an `opencode %s`", i, h.Event, e.Headless, scenarioMode(sc))
				}
				line, err := json.Marshal(map[string]any{"event": h.Event, "stdin": h.Stdin})
				if err != nil {
					t.Fatal(err)
				}
				seq.Write(append(line, '\n'))
			}
			golden := filepath.Join("..", "testdata", "opencode", "sequences", name+".jsonl")
			if *update {
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, seq.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if got := seq.String(); got != string(want) {
				t.Errorf("the plugin sent, for %s:\n%s\nwant (%s):\n%s", name, got, golden, want)
			}
		})
	}
}
