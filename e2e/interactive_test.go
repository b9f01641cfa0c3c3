//go:build !windows

package e2e

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/clawdhq/clawd/internal/fakeanthropic"
)

// interactiveDone is the model's answer once the Bash call has run.
const interactiveDone = "I wrote hello into out.txt."

// permissionScript: a Bash write that needs approval, then text.
func permissionScript(marker string) fakeanthropic.Conversation {
	return fakeanthropic.Conversation{Match: marker, Steps: []fakeanthropic.Step{
		fakeanthropic.Tool("Bash", map[string]any{"command": "echo hello > out.txt", "description": "Write hello to out.txt"}),
		fakeanthropic.Text(interactiveDone),
	}}
}

var (
	// permissionDialog is Claude Code's Bash permission dialog.
	permissionDialog = regexp.MustCompile(`Do you want to proceed\?(?s:.*)1\. Yes`)
	// hookAnswered means a hook closed the dialog: with no runtime, or a
	// runtime that does not decide for a person, that must not happen.
	hookAnswered = regexp.MustCompile(`by PermissionRequest hook`)
)

// answerDialogYes waits for the permission dialog, checks no hook answered
// it, and picks "1. Yes" in the terminal as a person would.
func (c *interactiveClaude) answerDialogYes() {
	c.t.Helper()
	start := time.Now()
	s := c.WaitFor(regexp.MustCompile(permissionDialog.String()+`|`+hookAnswered.String()), 45*time.Second)
	if hookAnswered.MatchString(s) {
		c.t.Fatalf("a PermissionRequest hook answered the dialog; want it left to the person:\n%s", s)
	}
	c.t.Logf("permission dialog on screen (waited %v for it)", time.Since(start).Round(time.Millisecond))
	// The dialog ignores keys pressed right after it appears.
	time.Sleep(500 * time.Millisecond)
	c.SendKeys("1")
	// On a loaded machine the first key can still be swallowed: press
	// again while the dialog stays.
	for i := 0; i < 3; i++ {
		if _, gone := c.awaitGone(permissionDialog, 3*time.Second); gone {
			return
		}
		c.t.Logf("the dialog is still up 3 s after pressing 1; pressing it again")
		c.SendKeys("1")
	}
}

// awaitGone waits until re no longer matches the screen.
func (tm *tmux) awaitGone(re *regexp.Regexp, timeout time.Duration) (string, bool) {
	tm.t.Helper()
	end := time.Now().Add(timeout)
	for {
		s := tm.Capture()
		if !re.MatchString(s) {
			return s, true
		}
		if time.Now().After(end) {
			return s, false
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// checkOutTxt checks the approved Bash call ran.
func (w *world) checkOutTxt(t *testing.T) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(w.project, "out.txt"))
	if err != nil || string(data) != "hello\n" {
		t.Errorf("out.txt = %q (%v), want %q: the approved Bash call did not run", data, err, "hello\n")
	}
}

// interactiveHooks are the clawd hook runs one permission round trip in the
// TUI must show in Claude Code's debug log, each with exit 0.
var interactiveHooks = []string{"SessionStart:startup", "UserPromptSubmit", "PreToolUse:Bash",
	"PermissionRequest:Bash", "PostToolUse:Bash", "PostToolBatch", "Stop", "SessionEnd:prompt_input_exit"}

// TestInteractiveRuntimeDownDialogStillWorks: with clawd's hooks installed
// and no runtime, the interactive TUI behaves as if clawd were absent: the
// PermissionRequest hook answers "no decision" at once, the normal dialog
// stays, the person approves in the terminal, the tool runs.
func TestInteractiveRuntimeDownDialogStillWorks(t *testing.T) {
	started := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	deadline, _ := ctx.Deadline()
	const marker = "E2E_TUI_DOWN"
	w := newWorld(t)
	w.startAPI(fakeanthropic.Script{Conversations: []fakeanthropic.Conversation{permissionScript(marker)}})
	w.staleRuntimeJSON(t)
	w.install(ctx)

	c := w.startInteractiveClaude(newUUID(t), deadline)
	c.submit("Please " + marker + " now")
	c.answerDialogYes()
	c.WaitFor(regexp.MustCompile(regexp.QuoteMeta(interactiveDone)), 45*time.Second)
	w.checkOutTxt(t)
	if rc := c.exit(); rc != 0 {
		t.Errorf("claude exited %d after /exit, want 0", rc)
	}

	debug := c.debug()
	runs := checkHooksExitedZero(t, w, debug, interactiveHooks...)
	if !regexp.MustCompile(`Hook PermissionRequest:Bash \(PermissionRequest\) success:\\n\{\}"`).MatchString(debug) {
		t.Errorf("Claude Code's debug log does not show the PermissionRequest hook answering {}:\n%s",
			grepLines(debug, "PermissionRequest"))
	}
	t.Logf("runtime down, interactive: %s", hookStats(runs))

	// The events wait in the spool for the next runtime; the permission
	// request, never spooled, is logged.
	w.checkSpooled(t, runs, interactiveDone)
	logData, err := os.ReadFile(filepath.Join(w.clawdHome, "logs", "hook.log"))
	if err != nil {
		t.Errorf("hook.log: %v", err)
	} else {
		lines := strings.Split(strings.TrimSpace(string(logData)), "\n")
		if len(lines) != 1 {
			t.Errorf("hook.log has %d lines, want the permission request's alone:\n%s", len(lines), logData)
		}
		for _, l := range lines {
			if !strings.Contains(l, "runtime not reachable") {
				t.Errorf("hook.log line does not say the runtime was unreachable: %s", l)
			}
		}
	}
	w.uninstall(ctx)
	t.Logf("TestInteractiveRuntimeDownDialogStillWorks took %v", time.Since(started).Round(time.Millisecond))
}

// checkPermissionHookEnded checks the hook runs of an interactive session
// whose permission request a runtime held while the person answered in the
// terminal. Claude Code then kills the PermissionRequest hook and logs it
// as "status 1" whatever the hook's own exit (TestHookQuietOnSIGTERM
// proves that one is 0); a runtime that answered "no decision" at once
// leaves a status 0 run instead. Every other hook run must exit 0.
func checkPermissionHookEnded(t *testing.T, w *world, debug string) {
	t.Helper()
	runs, trouble := parseHookRuns(debug, w.hookCmd)
	seen := map[string]bool{}
	for _, r := range runs {
		seen[r.Event] = true
		switch {
		case r.Event == "PermissionRequest:Bash" && r.Status != 0:
			t.Logf("PermissionRequest hook ended by Claude Code after %d ms (status %d): the person answered first", r.MS, r.Status)
		case r.Status != 0:
			t.Errorf("hook %s exited %d, want 0", r.Event, r.Status)
		}
	}
	for _, ev := range interactiveHooks {
		if !seen[ev] {
			t.Errorf("Claude Code's debug log shows no run of the clawd hook for %s; hook runs seen: %v", ev, runs)
		}
	}
	killed := regexp.MustCompile(`\[ERROR\] Hook PermissionRequest:Bash \(PermissionRequest\) error: status code 1$`)
	for _, l := range trouble {
		if !killed.MatchString(l) {
			t.Errorf("Claude Code's debug log reports hook trouble: %s", l)
		}
	}
	// The hook itself saw no failure: being stopped is not one.
	if data, err := os.ReadFile(filepath.Join(w.clawdHome, "logs", "hook.log")); err == nil && len(data) > 0 {
		t.Errorf("hook.log with the runtime up = %q, want nothing", data)
	}
}

// TestInteractiveSessionStates: an interactive session's permission round
// trip as `clawd events` shows it: thinking → working → waiting on the
// permission request → working once the person answered in the terminal →
// attention at the end of the turn; and interactive sessions count for
// the display state.
func TestInteractiveSessionStates(t *testing.T) {
	started := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	deadline, _ := ctx.Deadline()
	const marker = "E2E_TUI_STATES"
	w := newWorld(t)
	id := newUUID(t)
	w.startAPI(fakeanthropic.Script{Conversations: []fakeanthropic.Conversation{permissionScript(marker)}})

	serve := w.startServe()
	events := w.startEvents()
	events.sync(ctx)
	w.install(ctx)

	c := w.startInteractiveClaude(id, deadline)
	c.submit("Please " + marker + " now")
	events.waitFor(45*time.Second, "permission.request of the interactive session", func(evs []event) bool {
		return anyEvent(forSession(evs, id), hasKind("permission.request"))
	})
	// Leave the dialog up until Claude Code's permission_prompt
	// notification (~6 s): the display only moves on at an event once
	// thinking/working had their minimum display time, and records are
	// published at events, so this is the record that shows the display
	// waiting.
	evs := events.waitFor(30*time.Second, "Notification permission_prompt of the interactive session", func(evs []event) bool {
		return anyEvent(forSession(evs, id), func(e event) bool {
			return e.HookEvent == "Notification" && strings.Contains(e.raw, `"permission_prompt"`)
		})
	})
	if st, ok := w.status(ctx); ok {
		if s, found := st.session(id); !found || s.State != "waiting" || s.Headless {
			t.Errorf("clawd status with the dialog up: session %+v (found %v), want waiting, not headless", s, found)
		}
		if st.DisplayState != "waiting" {
			t.Errorf("clawd status with the dialog up: display_state %q, want waiting", st.DisplayState)
		}
	}
	if s := c.Capture(); !permissionDialog.MatchString(s) {
		t.Fatalf("the dialog closed by itself while clawd held the request; events %v; screen:\n%s", forSession(evs, id), s)
	}
	c.answerDialogYes()
	c.WaitFor(regexp.MustCompile(regexp.QuoteMeta(interactiveDone)), 45*time.Second)
	w.checkOutTxt(t)
	events.waitFor(15*time.Second, "turn.end of the interactive session", func(evs []event) bool {
		return anyEvent(forSession(evs, id), hasKind("turn.end"))
	})
	if rc := c.exit(); rc != 0 {
		t.Errorf("claude exited %d after /exit, want 0", rc)
	}
	all := events.waitFor(15*time.Second, "session.end of the interactive session", func(evs []event) bool {
		return anyEvent(forSession(evs, id), hasKind("session.end"))
	})
	debug := c.debug()
	checkPermissionHookEnded(t, w, debug)
	if t.Failed() {
		logData, _ := os.ReadFile(filepath.Join(w.clawdHome, "logs", "hook.log"))
		t.Logf("debug log, PermissionRequest lines:\n%s\nhook.log:\n%s\nserve stderr:\n%s",
			grepLines(debug, "PermissionRequest"), logData, serve.stderr.String())
	}

	sess := forSession(all, id)
	t.Logf("events: %v", sess)
	for _, e := range sess {
		if e.Headless {
			t.Errorf("event of the interactive session says headless: %s", e.raw)
		}
		if e.Agent != "claude" || e.HookEvent == "" || e.State == "" {
			t.Errorf("event lacks agent claude, hook_event or state: %s", e.raw)
		}
	}
	states := field(sess, func(e event) string { return e.State })
	if want := []string{"thinking", "working", "waiting", "working", "attention"}; !subsequence(states, want) {
		t.Errorf("states %v, want %v in this order", states, want)
	}
	waitAt := slices.IndexFunc(sess, func(e event) bool { return e.State == "waiting" })
	if waitAt < 0 {
		t.Fatalf("the interactive session never reached waiting: %v", sess)
	}
	if e := sess[waitAt]; e.Kind != "permission.request" || e.ToolName != "Bash" {
		t.Errorf("waiting entered on %s, want permission.request for Bash", e.raw)
	}
	// Answering in the terminal leaves waiting: the Bash call ends and
	// the session works on.
	endAt := slices.IndexFunc(sess, func(e event) bool { return e.Kind == "tool.end" && e.ToolName == "Bash" })
	if endAt < waitAt {
		t.Errorf("no tool.end for Bash after the permission request (at %d, waiting at %d): %v", endAt, waitAt, sess)
	} else if e := sess[endAt]; e.State != "working" {
		t.Errorf("tool.end after the terminal answer = %s, want state working", e.raw)
	}
	var last event
	for _, e := range sess {
		if e.Kind == "turn.end" {
			last = e
		}
	}
	if last.State != "attention" {
		t.Errorf("turn.end = %s, want state attention", last.raw)
	}
	// Only this session is active, so while it waits the display waits.
	if !anyEvent(sess, func(e event) bool { return e.State == "waiting" && e.DisplayState == "waiting" }) {
		t.Errorf("no record of the interactive session has display_state waiting: %v",
			field(sess, func(e event) string { return e.Kind + ":" + e.DisplayState }))
	}
	checkPrivate(t, all, "hello", interactiveDone, "echo ")
	w.checkEndedSession(ctx, t, id)

	w.uninstall(ctx)
	events.close()
	serve.shutdown()
	t.Logf("TestInteractiveSessionStates took %v", time.Since(started).Round(time.Millisecond))
}
