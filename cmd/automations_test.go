package cmd

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/clawdhq/clawd/runtime/automations"
	"github.com/clawdhq/clawd/runtime/client"
)

// hostile is what an automations.toml (or an older runtime) may carry to
// repaint the terminal or reverse the line it is printed on.
const hostile = "\x1b[31m\u202e"

// noHostile fails when out holds an ESC or a U+202E.
func noHostile(t *testing.T, what, out string) {
	t.Helper()
	if strings.ContainsAny(out, "\x1b\u202e") {
		t.Errorf("%s printed ESC or U+202E raw: %q", what, out)
	}
}

// TestAutomationsHostileText: an id and a key carrying ESC and U+202E
// reach neither clawd automations add's error nor edit's, and list, show
// and runs print what the runtime says of a file (its problems, the
// definitions' fields, a binding, the store's note) through the text
// policy.
func TestAutomationsHostileText(t *testing.T) {
	home := t.TempDir()
	snippet := "[[automation]]\nid = \"x\\u001b[31m\u202ey\"\nevent = \"turn.completed\"\naction = { type = \"sound\" }\n" +
		"\"k\\u001b[31m\u202e\" = 1\n"
	e, out, errb := testEnv(t, home, []byte(snippet), nil)
	if code := run(t.Context(), e, []string{"clawd", "automations", "add"}); code != 1 {
		t.Errorf("clawd automations add (a hostile id) = %d, want 1", code)
	}
	noHostile(t, "clawd automations add", out.String()+errb.String())
	if !strings.Contains(errb.String(), `automation "x\x1b[31m\u202ey": id:`) {
		t.Errorf("clawd automations add printed %q, want the id quoted", errb)
	}
	if err := os.WriteFile(filepath.Join(home, automations.File), []byte(snippet), 0o600); err != nil {
		t.Fatal(err)
	}
	e, out, errb = testEnv(t, home, []byte(snippet), nil)
	if code := run(t.Context(), e, []string{"clawd", "automations", "edit", "x", "--file", "-"}); code != 1 {
		t.Errorf("clawd automations edit (a hostile file) = %d, want 1", code)
	}
	noHostile(t, "clawd automations edit", out.String()+errb.String())

	f := newFakeAPI(t)
	fillTables(t, f)
	f.mu.Lock()
	f.automations.Error = "automations.toml:2: automation x" + hostile + ": id: bad\nautomations.toml:5: unknown key k" + hostile
	f.automations.Recovered = "automations.db was unreadable (" + hostile + ")"
	f.mu.Unlock()
	e, out, errb = testEnv(t, f.home, nil, nil)
	if code := run(t.Context(), e, []string{"clawd", "automations", "list"}); code != 1 {
		t.Errorf("clawd automations list (problems) = %d, want 1", code)
	}
	noHostile(t, "clawd automations list", out.String()+errb.String())
	wantText(t, "clawd automations list", out.String(), "warning: automations.db was unreadable ([31m)",
		"automations.toml:2: automation x[31m: id: bad\nautomations.toml:5: unknown key k[31m\n")

	f.mu.Lock()
	f.automations.Error = ""
	d := &f.automations.Definitions[0]
	d.Event, d.Action.Type, d.Hash = "turn.completed"+hostile, "webhook"+hostile, "h1"+hostile
	d.BindingStates[0].Key = "workspace:/src" + hostile
	f.runs[0].EventName = "turn.completed" + hostile
	f.runs[0].State = "odd" + hostile
	f.preview.Binding = "workspace:/src" + hostile
	f.preview.Event.EventName = "turn.completed" + hostile
	f.mu.Unlock()
	for _, args := range [][]string{{"list"}, {"show", "post-done"}, {"runs"}, {"preview", "post-done"}} {
		e, out, errb = testEnv(t, f.home, nil, nil)
		run(t.Context(), e, append([]string{"clawd", "automations"}, args...))
		noHostile(t, "clawd automations "+strings.Join(args, " "), out.String()+errb.String())
	}
}

// TestAutomationsShowDefaults: a definition that leaves its policy to
// clawd shows the policy its runs follow, not empty fields ("retry , at
// most 0 attempts, backoff 0s").
func TestAutomationsShowDefaults(t *testing.T) {
	f := newFakeAPI(t)
	fillTables(t, f)
	want := "ding\n  on turn.failed\n  does sound\n  sends:\n  policy: timeout 15s, retry unsafe, at most 3 attempts, backoff 1s, serial\n"
	if got := inLang(t, f.home, "C.UTF-8", nil, "automations", "show", "ding"); !strings.HasPrefix(got, want) {
		t.Errorf("clawd automations show ding printed\n%s\nwant it to start\n%s", got, want)
	}
	wantText(t, "clawd automations show ding (Chinese)", inLang(t, f.home, "zh_CN.UTF-8", nil, "automations", "show", "ding"),
		"  策略：超时 15s，重试 unsafe，最多尝试 3 次，退避 1s，serial\n")
}

// TestAutomationsListStoreTrouble: list warns of a store that was moved
// aside, of events waiting for a full disk and of events dropped, before
// the definitions.
func TestAutomationsListStoreTrouble(t *testing.T) {
	f := newFakeAPI(t)
	fillTables(t, f)
	f.mu.Lock()
	f.automations.Recovered = "automations.db was unreadable (not a SQLite database): moved to /h/automations.db.corrupt-20261201T090000Z"
	f.automations.Backlog = client.AutomationBacklog{Queued: 7, Dropped: 2, WriteError: "disk full"}
	f.mu.Unlock()
	out := inLang(t, f.home, "C.UTF-8", nil, "automations", "list")
	want := "warning: automations.db was unreadable (not a SQLite database): moved to /h/automations.db.corrupt-20261201T090000Z\n" +
		"warning: 7 automation events waiting: disk full\n" +
		"warning: 2 automation events were dropped: the queue for the store was full\n"
	if !strings.HasPrefix(out, want) {
		t.Errorf("clawd automations list printed\n%s\nwant it to start\n%s", out, want)
	}
	wantText(t, "clawd automations list (Chinese)", inLang(t, f.home, "zh_CN.UTF-8", nil, "automations", "list"),
		"警告：7 个自动化事件在等待：disk full\n")
}

// TestRunPrefixes: automations retry and cancel take a unique start of a
// run's id, as every command that takes an id does; an ambiguous start is
// an error naming the runs, and one that starts no run goes to the
// runtime as it is (which says it knows no such run).
func TestRunPrefixes(t *testing.T) {
	for _, c := range []struct {
		args   []string
		code   int
		posted string // the path posted, "" for none
		out    string // in stdout (code 0) or stderr
	}{
		{[]string{"automations", "retry", "run_ab1"}, 0, "/api/v1/automations/runs/run_ab12/retry", "run_ab12: queued again\n"},
		{[]string{"automations", "cancel", "run_c"}, 0, "/api/v1/automations/runs/run_cd56/cancel", "run_cd56: cancelled\n"},
		{[]string{"automations", "retry", "run_cd56"}, 0, "/api/v1/automations/runs/run_cd56/retry", "run_cd56: queued again\n"},
		{[]string{"automations", "cancel", "run_ab"}, 1, "", "clawd: more than one run matches \"run_ab\": run_ab12, run_ab34; give more of the id\n"},
		{[]string{"automations", "retry", "zz"}, 0, "/api/v1/automations/runs/zz/retry", "zz: queued again\n"},
	} {
		f := newFakeAPI(t)
		f.runs = []client.AutomationRun{{ID: "run_ab12"}, {ID: "run_ab34"}, {ID: "run_cd56"}}
		code, out, errb := runCLI(t, f.home, c.args...)
		got := out
		if c.code != 0 {
			got = errb
		}
		f.mu.Lock()
		posted := f.posted
		f.mu.Unlock()
		var want []string
		if c.posted != "" {
			want = []string{c.posted}
		}
		if code != c.code || got != c.out || !slices.Equal(posted, want) {
			t.Errorf("clawd %v: exit %d, %q, posted %v; want exit %d, %q, posted %v", c.args, code, got, posted, c.code, c.out, want)
		}
	}
}
