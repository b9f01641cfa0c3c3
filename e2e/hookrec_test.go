//go:build !windows

package e2e

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"
)

// A hookRecorder stands in for clawd as the hook command of an agent clawd
// does not know yet: every call leaves its stdin (the payload), its
// environment and its working directory in a folder, named so that they
// sort in firing order. It answers nothing and exits 0, like a hook that
// has no opinion.

// hookRecorderScript is the recorder: `hookrec.sh DIR EVENT`. The payload
// file appears last and whole (written aside, then renamed), so a call
// whose .json is there is complete.
const hookRecorderScript = `#!/bin/sh
# hookrec.sh DIR EVENT: records one hook call into DIR.
dir=$1 event=$2
base="$dir/$(date +%s%N)-$$-$event"
env > "$base.env"
pwd > "$base.cwd"
cat > "$base.part"
mv "$base.part" "$base.json"
`

// hookRecorder records the hook calls of one world.
type hookRecorder struct {
	t      *testing.T
	dir    string // where calls are recorded
	script string // the recorder
}

// newHookRecorder writes the recorder into the world and returns it.
func (w *world) newHookRecorder() *hookRecorder {
	w.t.Helper()
	r := &hookRecorder{t: w.t, dir: filepath.Join(w.dir, "hook-calls"), script: filepath.Join(w.dir, "hookrec.sh")}
	if err := os.MkdirAll(r.dir, 0o700); err != nil {
		w.t.Fatal(err)
	}
	if err := os.WriteFile(r.script, []byte(hookRecorderScript), 0o700); err != nil {
		w.t.Fatal(err)
	}
	return r
}

// command is the hook command that records a call of event.
func (r *hookRecorder) command(event string) string {
	return shellQuote(r.script) + " " + shellQuote(r.dir) + " " + shellQuote(event)
}

// hookCall is one recorded hook call.
type hookCall struct {
	Event   string // as the command line named it
	Payload []byte // stdin
	Env     map[string]string
	Cwd     string
	File    string
}

// get returns the payload's value at a gjson path.
func (c hookCall) get(path string) gjson.Result { return gjson.GetBytes(c.Payload, path) }

// str returns the payload's string at a gjson path ("" when absent).
func (c hookCall) str(path string) string { return c.get(path).String() }

func (c hookCall) String() string { return c.Event }

// hookCallName matches a recorded call's payload file.
var hookCallName = regexp.MustCompile(`^(\d+)-(\d+)-(.+)\.json$`)

// calls returns every complete call so far, in firing order.
func (r *hookRecorder) calls() []hookCall {
	r.t.Helper()
	return readHookCalls(r.t, r.dir)
}

// readHookCalls reads the calls recorded in dir: NNN-PID-LABEL.json files
// (and the .env and .cwd beside them, when there), sorted by name.
func readHookCalls(t *testing.T, dir string) []hookCall {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatalf("read hook calls: %v", err)
	}
	var out []hookCall
	for _, e := range entries {
		m := hookCallName.FindStringSubmatch(e.Name())
		if m == nil {
			continue
		}
		file := filepath.Join(dir, e.Name())
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatalf("read hook call: %v", err)
		}
		c := hookCall{Event: m[3], Payload: data, File: file, Env: map[string]string{}}
		base := strings.TrimSuffix(file, ".json")
		if env, err := os.ReadFile(base + ".env"); err == nil {
			sc := bufio.NewScanner(strings.NewReader(string(env)))
			sc.Buffer(make([]byte, 64<<10), 1<<20)
			for sc.Scan() {
				if k, v, ok := strings.Cut(sc.Text(), "="); ok {
					c.Env[k] = v
				}
			}
		}
		if cwd, err := os.ReadFile(base + ".cwd"); err == nil {
			c.Cwd = strings.TrimSpace(string(cwd))
		}
		out = append(out, c)
	}
	// Names start with the time in ns, all of the same width for the next
	// few centuries.
	slices.SortFunc(out, func(a, b hookCall) int { return strings.Compare(filepath.Base(a.File), filepath.Base(b.File)) })
	return out
}

// waitFor polls the recorded calls until cond holds for them, and fails
// the test with what was recorded when it does not within timeout.
func (r *hookRecorder) waitFor(timeout time.Duration, what string, cond func([]hookCall) bool) []hookCall {
	r.t.Helper()
	return waitHookCalls(r.t, r.dir, timeout, what, cond)
}

// waitHookCalls polls the calls recorded in dir until cond holds.
func waitHookCalls(t *testing.T, dir string, timeout time.Duration, what string, cond func([]hookCall) bool) []hookCall {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		calls := readHookCalls(t, dir)
		if cond(calls) {
			return calls
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %s within %v; hook calls so far: %v", what, timeout, callEvents(calls))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// callEvents returns the calls' event names.
func callEvents(calls []hookCall) []string {
	out := make([]string, len(calls))
	for i, c := range calls {
		out[i] = c.Event
	}
	return out
}

// hasEvent returns a condition: some call is of event.
func hasEvent(event string) func([]hookCall) bool {
	return func(calls []hookCall) bool { return slices.Contains(callEvents(calls), event) }
}

// ofEvent returns the calls of one event.
func ofEvent(calls []hookCall, event string) []hookCall {
	var out []hookCall
	for _, c := range calls {
		if c.Event == event {
			out = append(out, c)
		}
	}
	return out
}

// checkPayloads checks what every call of a session must carry: valid
// JSON, the session id at idPath, the project as cwd (in the payload at
// cwdPath when given, and as the hook's working directory).
func checkPayloads(t *testing.T, calls []hookCall, idPath, id, cwdPath, project string) {
	t.Helper()
	for _, c := range calls {
		if !json.Valid(c.Payload) {
			t.Errorf("%s: payload is not JSON: %q", c.Event, c.Payload)
			continue
		}
		if got := c.str(idPath); got != id {
			t.Errorf("%s: %s = %q, want the session's %q", c.Event, idPath, got, id)
		}
		if cwdPath != "" {
			if got := c.str(cwdPath); got != project {
				t.Errorf("%s: %s = %q, want the project %q", c.Event, cwdPath, got, project)
			}
		}
		if c.Cwd != project {
			t.Errorf("%s: the hook ran in %q, want the project %q", c.Event, c.Cwd, project)
		}
	}
}

// TestHookRecorder runs the recorder as an agent would, twice, and reads
// the calls back in order; a call still being written is not read.
func TestHookRecorder(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	r := w.newHookRecorder()
	for i, ev := range []string{"First", "Second"} {
		cmd := exec.Command("/bin/sh", "-c", r.command(ev))
		cmd.Dir = w.project
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "AGENT_SESSION=s1"}
		cmd.Stdin = strings.NewReader(`{"n":` + strconv.Itoa(i) + `}`)
		if out, err := cmd.CombinedOutput(); err != nil || len(out) != 0 {
			t.Fatalf("recorder for %s: %v, output %q; want silent success", ev, err, out)
		}
	}
	if err := os.WriteFile(filepath.Join(r.dir, "9999999999999999999-1-Third.part"), []byte(`{"n":`), 0o600); err != nil {
		t.Fatal(err)
	}
	calls := r.calls()
	if got := callEvents(calls); !slices.Equal(got, []string{"First", "Second"}) {
		t.Fatalf("recorded %v, want [First Second]", got)
	}
	for i, c := range calls {
		if c.get("n").Int() != int64(i) || c.Cwd != w.project || c.Env["AGENT_SESSION"] != "s1" {
			t.Errorf("call %d = %s in %q with env %v, want n %d in the project with AGENT_SESSION", i, c.Payload, c.Cwd, c.Env, i)
		}
	}
}
