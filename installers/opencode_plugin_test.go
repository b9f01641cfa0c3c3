//go:build !windows

package installers

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/internal/golden"
)

// The plugin's own tests run it under node (which the tests need anyway,
// see the README), handing it the recorded opencode calls of
// ../testdata/opencode, with a fake clawd that answers as told: see
// testdata/opencode/harness.mjs.

// fakeClawd is the clawd the plugin under test runs: it reads the payload
// and, for a permission request or a question, prints $FAKE_CLAWD_ANSWER or, with
// FAKE_CLAWD_BLOCK=1, waits until it is killed. FAKE_CLAWD_HANG=1 makes
// every hook wait so.
const fakeClawd = `#!/bin/sh
cat >/dev/null
if [ "$FAKE_CLAWD_HANG" = 1 ]; then exec sleep 300; fi
if [ "$3" = permission.asked ] || [ "$3" = question.asked ]; then
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
	Error  string          `json:"error"`
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
// as `opencode <mode>` would (mode: its arguments), with env for the fake
// clawd.
func runPlugin(t *testing.T, plugin, mode, fixtures string, env ...string) pluginRun {
	t.Helper()
	args := append([]string{filepath.Join("testdata", "opencode", "harness.mjs")}, strings.Fields(mode)...)
	cmd := exec.Command(nodePath(t), append(args, plugin, fixtures)...)
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
		// documented-v2-*: what the v2 plugin sends, not v1's input.
		if fi, err := os.Stat(d); err == nil && fi.IsDir() && filepath.Base(d) != "sequences" && !strings.HasPrefix(filepath.Base(d), "documented-v2-") {
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
			golden.Check(t, filepath.Join("..", "testdata", "opencode", "sequences", name+".jsonl"), seq.Bytes())
		})
	}
}

// ofEvent returns the hooks the plugin ran for event.
func ofEvent(hooks []pluginHook, event string) []pluginHook {
	var out []pluginHook
	for _, h := range hooks {
		if h.Event == event {
			out = append(out, h)
		}
	}
	return out
}

// killed reports whether h ended by a signal.
func killed(h pluginHook) bool { return h.Signal != nil && *h.Signal != "" }

// TestOpencodePluginAnswers: the answer clawd prints for a permission
// request goes to opencode through the client: once, always and reject
// through the session route, a reject with the person's message through
// the newer one, which hands the message to the model. An answer the
// plugin does not know is none.
func TestOpencodePluginAnswers(t *testing.T) {
	t.Parallel()
	plugin, _ := writePlugin(t, t.TempDir(), nil)
	fixtures := filepath.Join("..", "testdata", "opencode", "tui-bash-ask-user-approves")
	const sid, per = "ses_dd577bf1affeTeIgaVbRciS9EB", "per_22a88c1bd001PXkjJ0nAJgF7uC"
	v1 := func(response string) []pluginReply {
		return []pluginReply{{Via: "v1", Path: map[string]any{"id": sid, "permissionID": per}, Body: map[string]any{"response": response}}}
	}
	for _, c := range []struct {
		answer string
		want   []pluginReply
	}{
		{`{"reply":"once"}`, v1("once")},
		{`{"reply":"always"}`, v1("always")},
		{`{"reply":"reject"}`, v1("reject")},
		{`{"reply":"reject","message":"use make test instead"}`, []pluginReply{{Via: "v2", URL: "/permission/{requestID}/reply",
			Path: map[string]any{"requestID": per}, Body: map[string]any{"reply": "reject", "message": "use make test instead"}}}},
		{`{}`, nil},
		{`{"reply":"maybe"}`, nil},
		{`not json`, nil},
		{``, nil},
	} {
		t.Run(c.answer, func(t *testing.T) {
			t.Parallel()
			r := runPlugin(t, plugin, "tui", fixtures, "FAKE_CLAWD_ANSWER="+c.answer)
			if asks := ofEvent(r.Hooks, "permission.asked"); len(asks) != 1 || killed(asks[0]) {
				t.Fatalf("permission hooks %+v, want one that ran to its end", asks)
			}
			if len(r.Replies)+len(c.want) > 0 && !reflect.DeepEqual(r.Replies, c.want) {
				t.Errorf("with clawd answering %q the plugin told opencode %+v, want %+v", c.answer, r.Replies, c.want)
			}
		})
	}
}

// TestOpencodePluginAnsweredInOpencode: when the person answers in
// opencode's own prompt first (permission.replied while clawd's hook
// still waits), the plugin kills the hook, which withdraws the request
// from clawd, and sends opencode nothing; the reply still reaches clawd,
// tied to the call.
func TestOpencodePluginAnsweredInOpencode(t *testing.T) {
	t.Parallel()
	plugin, _ := writePlugin(t, t.TempDir(), nil)
	r := runPlugin(t, plugin, "tui", filepath.Join("..", "testdata", "opencode", "tui-bash-ask-user-approves"), "FAKE_CLAWD_BLOCK=1")
	asks := ofEvent(r.Hooks, "permission.asked")
	if len(asks) != 1 || !killed(asks[0]) || *asks[0].Signal != "SIGTERM" {
		t.Fatalf("permission hooks %+v, want one killed with SIGTERM", asks)
	}
	if len(r.Replies) != 0 {
		t.Errorf("the plugin answered opencode %+v after the person did", r.Replies)
	}
	replied := ofEvent(r.Hooks, "permission.replied")
	if len(replied) != 1 || !strings.Contains(string(replied[0].Stdin), `"callID":"call_fake_1"`) {
		t.Errorf("permission.replied hooks %+v, want one naming the call", replied)
	}
}

// TestOpencodePluginDisposeEndsSessions: when opencode exits, a request
// still waiting in clawd is withdrawn (its hook killed) and every
// session the plugin told clawd of ends.
func TestOpencodePluginDisposeEndsSessions(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	plugin, _ := writePlugin(t, dir, nil)
	src := filepath.Join("..", "testdata", "opencode", "tui-bash-ask-user-approves")
	fixtures := filepath.Join(dir, "fixtures")
	if err := os.MkdirAll(fixtures, 0o755); err != nil {
		t.Fatal(err)
	}
	// The run up to the permission request, and no answer.
	for _, f := range []string{"05-event.session.created.json", "06-hook.chat.message.json", "22-event.session.status.json",
		"26-event.message.part.updated.json", "27-event.permission.asked.json"} {
		data, err := os.ReadFile(filepath.Join(src, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(fixtures, f), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r := runPlugin(t, plugin, "tui", fixtures, "FAKE_CLAWD_BLOCK=1", "HARNESS_DISPOSE=1")
	if asks := ofEvent(r.Hooks, "permission.asked"); len(asks) != 1 || !killed(asks[0]) {
		t.Errorf("permission hooks %+v, want one killed at dispose", asks)
	}
	ends := ofEvent(r.Hooks, "dispose")
	if len(ends) != 1 || !strings.Contains(string(ends[0].Stdin), `"sessionID":"ses_dd577bf1affeTeIgaVbRciS9EB"`) {
		t.Errorf("dispose hooks %+v, want one for the session", ends)
	}
	if len(r.Replies) != 0 {
		t.Errorf("the plugin answered opencode %+v", r.Replies)
	}
}

// TestOpencodePluginNeverHoldsOpencode: with a clawd that never returns
// (a wedged runtime), every call of opencode's into the plugin returns at
// once, and each hook is killed at its timeout (shortened here).
func TestOpencodePluginNeverHoldsOpencode(t *testing.T) {
	t.Parallel()
	plugin, _ := writePlugin(t, t.TempDir(), func(s string) string {
		return strings.Replace(s, "const STATE_TIMEOUT_MS = 10000", "const STATE_TIMEOUT_MS = 200", 1)
	})
	r := runPlugin(t, plugin, "run", filepath.Join("..", "testdata", "opencode", "run-task-subagent"), "FAKE_CLAWD_HANG=1")
	if len(r.Hooks) < 8 {
		t.Fatalf("the plugin ran %d hooks, want the run's", len(r.Hooks))
	}
	for i, h := range r.Hooks[:len(r.Hooks)-1] {
		if !killed(h) {
			t.Errorf("hook %d (%s) ended %v/%v, want killed at its timeout", i, h.Event, h.Code, h.Signal)
		}
	}
	// A generous bound: the plugin's calls do no I/O of their own.
	if r.Timings.Event > 500 {
		t.Errorf("the slowest event call took %.0f ms, want it to return at once", r.Timings.Event)
	}
}

// TestOpencodePluginExitBounded: when opencode exits while clawd takes
// the events of a whole turn without returning, the plugin's dispose
// waits DISPOSE_WAIT_MS (1.5 s) for them and returns.
func TestOpencodePluginExitBounded(t *testing.T) {
	t.Parallel()
	plugin, _ := writePlugin(t, t.TempDir(), nil)
	r := runPlugin(t, plugin, "run", filepath.Join("..", "testdata", "opencode", "run-task-subagent"),
		"FAKE_CLAWD_HANG=1", "HARNESS_NOWAIT=1")
	if n := len(r.Hooks); n != 1 {
		t.Errorf("the plugin ran %d hooks at once, want one at a time", n)
	}
	if r.Timings.Event > 500 {
		t.Errorf("the slowest event call took %.0f ms, want it to return at once", r.Timings.Event)
	}
	if r.Timings.Dispose < 1400 || r.Timings.Dispose > 4000 {
		t.Errorf("dispose took %.0f ms, want about DISPOSE_WAIT_MS (1.5 s)", r.Timings.Dispose)
	}
}

// TestOpencodePluginWithoutClawd: a plugin whose clawd is gone (moved,
// uninstalled without the plugin) fails quietly.
func TestOpencodePluginWithoutClawd(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	plugin, clawd := writePlugin(t, dir, nil)
	if err := os.Remove(clawd); err != nil {
		t.Fatal(err)
	}
	r := runPlugin(t, plugin, "tui", filepath.Join("..", "testdata", "opencode", "tui-bash-ask-user-approves"))
	if len(r.Hooks) == 0 {
		t.Fatal("the plugin tried no hook")
	}
	for _, h := range r.Hooks {
		if !strings.Contains(h.Error, "ENOENT") {
			t.Errorf("hook %s: error %q, want ENOENT", h.Event, h.Error)
		}
	}
	if len(r.Replies) != 0 {
		t.Errorf("the plugin answered opencode %+v", r.Replies)
	}
}

// TestOpencodePluginQueueBound: events opencode fires faster than clawd
// takes them wait in one queue of at most 256; the rest are dropped
// rather than held in memory without end.
func TestOpencodePluginQueueBound(t *testing.T) {
	t.Parallel()
	plugin, _ := writePlugin(t, t.TempDir(), nil)
	r := runPlugin(t, plugin, "tui", "-", "HARNESS_FLOOD=300")
	if n := len(ofEvent(r.Hooks, "chat.message")); n != 256 {
		t.Errorf("300 events at once ran %d hooks, want the queue's 256", n)
	}
}

// TestOpencodePluginHeadless: the plugin tells `opencode run` (whatever
// options come before the subcommand) from the TUI and `opencode serve`.
func TestOpencodePluginHeadless(t *testing.T) {
	t.Parallel()
	plugin, _ := writePlugin(t, t.TempDir(), nil)
	fixtures := filepath.Join("..", "testdata", "opencode", "run-api-error-400")
	for _, c := range []struct {
		args     string
		headless bool
	}{
		{"run", true},
		{"--print-logs --log-level INFO run", true},
		{"--log-level run", false}, // "run" is the level here
		{"tui", false},
		{"serve --port 4096", false},
		{"/home/user/project", false},
	} {
		t.Run(c.args, func(t *testing.T) {
			t.Parallel()
			r := runPlugin(t, plugin, c.args, fixtures, "FAKE_CLAWD_ANSWER={}")
			if len(r.Hooks) == 0 {
				t.Fatal("the plugin ran no hook")
			}
			for _, h := range r.Hooks {
				var p struct {
					Clawd struct {
						Headless bool `json:"headless"`
					} `json:"clawd"`
				}
				if err := json.Unmarshal(h.Stdin, &p); err != nil || p.Clawd.Headless != c.headless {
					t.Errorf("opencode %s: %s says headless %v (%v), want %v", c.args, h.Event, p.Clawd.Headless, err, c.headless)
				}
			}
		})
	}
}

// TestOpencodePluginQuestions: a question of opencode's question tool
// goes to clawd as a blocking question.asked that decodes to its
// questions; the answers clawd prints go to opencode's
// /question/{id}/reply (as captured in
// ../testdata/opencode/questions/answered), a rejection to
// /question/{id}/reject, and anything else nowhere. How the person
// answered (question.replied carries it) is not passed on.
func TestOpencodePluginQuestions(t *testing.T) {
	t.Parallel()
	plugin, _ := writePlugin(t, t.TempDir(), nil)
	fixtures := filepath.Join("..", "testdata", "opencode", "questions", "answered")
	const que = "que_234908418001ifD0C4XiYaktvb"
	answers := []any{[]any{"SQLite"}, []any{"Auth", "Export"}, []any{"Zig, maybe"}}
	for _, c := range []struct {
		answer string
		want   []pluginReply
	}{
		{`{"answers":[["SQLite"],["Auth","Export"],["Zig, maybe"]]}`, []pluginReply{{Via: "v2", URL: "/question/{requestID}/reply",
			Path: map[string]any{"requestID": que}, Body: map[string]any{"answers": answers}}}},
		{`{"reply":"reject"}`, []pluginReply{{Via: "v2", URL: "/question/{requestID}/reject", Path: map[string]any{"requestID": que}}}},
		{`{}`, nil},
		{`{"answers":[["SQLite"],[1]]}`, nil},
		{`{"answers":"SQLite"}`, nil},
		{`not json`, nil},
	} {
		t.Run(c.answer, func(t *testing.T) {
			t.Parallel()
			r := runPlugin(t, plugin, "tui", fixtures, "FAKE_CLAWD_ANSWER="+c.answer)
			asks := ofEvent(r.Hooks, "question.asked")
			if len(asks) != 1 || killed(asks[0]) {
				t.Fatalf("question hooks %+v, want one that ran to its end", asks)
			}
			if spec, ok := agents.Opencode.Hook("question.asked"); !ok || !spec.Blocking {
				t.Errorf("agents.Opencode.Hooks: question.asked = %+v (%v), want a blocking hook", spec, ok)
			}
			e, err := agents.Opencode.Decode(asks[0].Stdin, "question.asked", func(string) string { return "" }, time.Now())
			if err != nil || e.Kind != agents.KindQuestion {
				t.Fatalf("Decode(question.asked) = %+v, %v; want a question", e, err)
			}
			if req := agents.Opencode.Describe(e, asks[0].Stdin, false); len(req.Questions) != 3 || !req.Questions[1].MultiSelect {
				t.Errorf("the question as clawd reads it: %+v, want its 3 questions", req.Questions)
			}
			for _, h := range r.Hooks {
				if strings.Contains(string(h.Stdin), "Zig") {
					t.Errorf("the plugin passed on what the person answered: %s %s", h.Event, h.Stdin)
				}
			}
			if len(r.Replies)+len(c.want) > 0 && !reflect.DeepEqual(r.Replies, c.want) {
				t.Errorf("with clawd answering %q the plugin told opencode %+v, want %+v", c.answer, r.Replies, c.want)
			}
		})
	}
}

// TestOpencodePluginQuestionAnsweredInOpencode: a question answered (or
// rejected) in opencode while clawd's hook waits kills the hook, which
// withdraws it from clawd, and sends opencode nothing.
func TestOpencodePluginQuestionAnsweredInOpencode(t *testing.T) {
	t.Parallel()
	plugin, _ := writePlugin(t, t.TempDir(), nil)
	for _, sc := range []string{"answered", "rejected"} {
		r := runPlugin(t, plugin, "tui", filepath.Join("..", "testdata", "opencode", "questions", sc), "FAKE_CLAWD_BLOCK=1")
		asks := ofEvent(r.Hooks, "question.asked")
		if len(asks) != 1 || !killed(asks[0]) || *asks[0].Signal != "SIGTERM" {
			t.Errorf("%s: question hooks %+v, want one killed with SIGTERM", sc, asks)
		}
		if len(r.Replies) != 0 {
			t.Errorf("%s: the plugin answered opencode %+v after the person did", sc, r.Replies)
		}
	}
}
