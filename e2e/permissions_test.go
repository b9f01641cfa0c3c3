//go:build !windows

package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/clawdhq/clawd/internal/fakeanthropic"
	"github.com/clawdhq/clawd/runtime/client"
)

// The permission tests drive the real Claude Code TUI under tmux through a
// permission dialog while `clawd serve` holds the hook's request open, and
// answer it the way a person at another terminal would: with
// `clawd permissions`.

// permSession is one interactive claude session with the runtime up, the
// hooks installed and the permission change stream followed.
type permSession struct {
	w      *world
	id     string
	title  string
	serve  *server
	stream *permStream
	c      *interactiveClaude
}

// startPermSession starts the fake API with convs, the runtime, clawd's
// hooks and an interactive claude, and submits "Please <marker> now".
func startPermSession(ctx context.Context, t *testing.T, marker string, convs func(w *world) []fakeanthropic.Conversation) *permSession {
	t.Helper()
	s := newPermSession(ctx, t, marker, convs)
	s.c.submit(s.title)
	return s
}

// newPermSession is startPermSession up to claude's empty prompt.
func newPermSession(ctx context.Context, t *testing.T, marker string, convs func(w *world) []fakeanthropic.Conversation) *permSession {
	t.Helper()
	deadline, _ := ctx.Deadline()
	w := newWorld(t)
	w.startAPI(fakeanthropic.Script{Conversations: convs(w)})
	s := &permSession{w: w, id: newUUID(t), title: "Please " + marker + " now"}
	s.serve = w.startServe()
	s.stream = w.followPermissions(ctx, s.serve)
	w.install(ctx)
	s.c = w.startInteractiveClaude(s.id, deadline)
	return s
}

// awaitRequest waits until `clawd permissions --json` lists a pending
// request of the session for tool, checks what the list says about it, and
// waits for Claude Code's own dialog: the two are up at the same time.
func (s *permSession) awaitRequest(ctx context.Context, t *testing.T, tool, summary string) client.PermissionView {
	t.Helper()
	start := time.Now()
	list := s.w.waitPermissions(ctx, 45*time.Second, "pending "+tool+" request of the session", func(l []client.PermissionView) bool {
		for _, p := range ofSession(l, s.id) {
			if p.Tool == tool {
				return true
			}
		}
		return false
	})
	mine := ofSession(list, s.id)
	if len(mine) != 1 {
		t.Fatalf("clawd permissions --json lists %d requests of the session, want 1:\n%s", len(mine), dumpPermissions(list))
	}
	p := mine[0]
	t.Logf("listed after %v: %s", time.Since(start).Round(time.Millisecond), dumpPermissions(mine))
	if p.ID == "" || p.Kind != client.KindPermission || p.Agent != "claude" || p.State != "pending" || p.Headless {
		t.Errorf("listed request = %+v, want an id, kind permission, agent claude, state pending, not headless", p)
	}
	if !strings.Contains(p.Summary, summary) {
		t.Errorf("listed request summary = %q, want it to contain %q", p.Summary, summary)
	}
	if p.Title != s.title {
		t.Errorf("listed request title = %q, want the prompt's %q", p.Title, s.title)
	}
	if p.Cwd != s.w.project {
		t.Errorf("listed request cwd = %q, want the project %q", p.Cwd, s.w.project)
	}
	if p.CreatedAt.IsZero() || time.Since(p.CreatedAt) > time.Minute {
		t.Errorf("listed request created_at = %v, want just now", p.CreatedAt)
	}
	// The table a person reads lists it too.
	if r := s.w.mustPerm(ctx); !strings.Contains(r.stdout, p.ID) || !strings.Contains(r.stdout, tool) {
		t.Errorf("clawd permissions does not show %s (%s):\n%s", p.ID, tool, r.stdout)
	}
	if _, ok := s.stream.await(10*time.Second, func(chs []permChange) bool {
		for _, c := range chs {
			if c.Type == "added" && c.Permission.ID == p.ID {
				return true
			}
		}
		return false
	}); !ok {
		t.Errorf("the permission change stream shows no \"added\" for %s", p.ID)
	}
	s.c.WaitFor(permissionDialog, 30*time.Second)
	return p
}

// awaitClosed waits for the stream's "closed" line of request id and
// checks its reason and state.
func (s *permSession) awaitClosed(t *testing.T, id, reason, state string) permChange {
	t.Helper()
	chs, ok := s.stream.await(10*time.Second, func(chs []permChange) bool {
		_, ok := closedChange(chs, id)
		return ok
	})
	c, _ := closedChange(chs, id)
	switch {
	case !ok:
		t.Errorf("the permission change stream shows no \"closed\" for %s: %s", id, dumpChanges(chs))
	case c.Reason != reason || c.Permission.State != state:
		t.Errorf("closed %s: reason %q, state %q; want %q, %q", id, c.Reason, c.Permission.State, reason, state)
	}
	return c
}

// checkNonePending checks that `clawd permissions --json` lists nothing.
func (s *permSession) checkNonePending(ctx context.Context, t *testing.T, when string) {
	t.Helper()
	if list := s.w.pendingPermissions(ctx); len(list) != 0 {
		t.Errorf("clawd permissions --json %s lists:\n%s", when, dumpPermissions(list))
	}
}

// finish exits claude, uninstalls the hooks and stops the runtime.
func (s *permSession) finish(ctx context.Context, t *testing.T) {
	t.Helper()
	if rc := s.c.exit(); rc != 0 {
		t.Errorf("claude exited %d after /exit, want 0", rc)
	}
	s.w.uninstall(ctx)
	s.stream.stop()
	s.serve.shutdown()
}

// toolResultOf returns the tool_result Claude Code sent the model for the
// only call of tool in the conversation.
func (w *world) toolResultOf(t *testing.T, marker, tool string) fakeanthropic.MessageBlock {
	t.Helper()
	ids := w.issuedToolIDs(marker)
	if len(ids[tool]) != 1 {
		t.Fatalf("the fake model issued %s calls %v, want one", tool, ids[tool])
	}
	b, ok := w.toolResult(ids[tool][0])
	if !ok {
		t.Fatalf("no request to the fake model carries a tool_result for the %s call %s", tool, ids[tool][0])
	}
	return b
}

// hookSaid matches the debug log line of the PermissionRequest hook's
// output for tool containing want.
func hookSaid(debug, tool, want string) bool {
	for _, l := range strings.Split(debug, "\n") {
		if strings.Contains(l, "Hook PermissionRequest:"+tool+" (PermissionRequest) success") && strings.Contains(l, want) {
			return true
		}
	}
	return false
}

// TestInteractivePermissionAllow: `clawd permissions allow` answers the
// request the hook holds open; Claude Code's dialog closes as answered by
// the hook and the tool runs.
func TestInteractivePermissionAllow(t *testing.T) {
	started := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	const marker = "E2E_PERM_ALLOW"
	s := newPermSession(ctx, t, marker, func(*world) []fakeanthropic.Conversation {
		return []fakeanthropic.Conversation{permissionScript(marker)}
	})
	w, c := s.w, s.c
	// A script waiting for something to answer: `clawd permissions --wait`
	// started with nothing pending returns once the request comes.
	waitCmd := exec.Command(clawdBin, "permissions", "--wait", "--json")
	waitCmd.Env, waitCmd.Dir = w.clawdEnv(), w.project
	waitOut := &syncBuffer{}
	// Had it returned with nothing pending, it would not list the request
	// below.
	waiter := startProc(t, "clawd permissions --wait", waitCmd, waitOut)
	c.submit(s.title)

	p := s.awaitRequest(ctx, t, "Bash", "echo hello > out.txt")
	select {
	case <-waiter.done:
		var got []client.PermissionView
		if waiter.err != nil || json.Unmarshal([]byte(waitOut.String()), &got) != nil || len(got) != 1 || got[0].ID != p.ID {
			t.Errorf("clawd permissions --wait --json: %v, printed %q; want exit 0 and a list of %s", waiter.err, waitOut, p.ID)
		}
	case <-time.After(10 * time.Second):
		t.Errorf("clawd permissions --wait --json has not returned 10 s after %s was listed", p.ID)
	}
	r := w.mustPerm(ctx, "allow", p.ID)
	if !strings.HasPrefix(r.stdout, "allowed "+p.ID) {
		t.Errorf("clawd permissions allow %s printed %q, want \"allowed %s ...\"", p.ID, r.stdout, p.ID)
	}
	// The tool line says who allowed it until the turn's summary folds
	// it away; the dialog is gone either way.
	screen := c.WaitFor(regexp.MustCompile(`Allowed by PermissionRequest hook|`+regexp.QuoteMeta(interactiveDone)), 30*time.Second)
	if !strings.Contains(screen, "Allowed by PermissionRequest hook") {
		t.Logf("the turn ended before the screen showed \"Allowed by PermissionRequest hook\":\n%s", screen)
	}
	c.WaitFor(regexp.MustCompile(regexp.QuoteMeta(interactiveDone)), 45*time.Second)
	if screen, gone := c.awaitGone(permissionDialog, 5*time.Second); !gone {
		t.Errorf("the permission dialog is still up after the allow:\n%s", screen)
	}
	w.checkOutTxt(t)
	s.awaitClosed(t, p.ID, "answered", "answered")
	s.checkNonePending(ctx, t, "after the allow")
	if b := w.toolResultOf(t, marker, "Bash"); b.IsError {
		t.Errorf("the allowed Bash call's tool_result is an error: %+v", b)
	}
	// Allowing an answered request again is refused plainly.
	if r := w.permClawd(ctx, "allow", p.ID); r.code != 1 || !strings.Contains(r.stderr, "already answered") {
		t.Errorf("clawd permissions allow %s a second time: %s\nwant exit 1 saying it was already answered", p.ID, r)
	}
	s.finish(ctx, t)

	debug := c.debug()
	checkHooksExitedZero(t, w, debug, interactiveHooks...)
	if !hookSaid(debug, "Bash", `\"behavior\":\"allow\"`) {
		t.Errorf("Claude Code's debug log does not show the PermissionRequest hook answering allow:\n%s",
			grepLines(debug, "PermissionRequest"))
	}
	t.Logf("TestInteractivePermissionAllow took %v", time.Since(started).Round(time.Millisecond))
}

// TestInteractivePermissionDeny: `clawd permissions deny --message` keeps
// the tool from running, and the model is told why.
func TestInteractivePermissionDeny(t *testing.T) {
	started := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	const marker = "E2E_PERM_DENY"
	const message = "not now"
	const after = "Understood, I did not write out.txt."
	s := startPermSession(ctx, t, marker, func(*world) []fakeanthropic.Conversation {
		return []fakeanthropic.Conversation{{Match: marker, Steps: []fakeanthropic.Step{
			fakeanthropic.Tool("Bash", map[string]any{"command": "echo hello > out.txt", "description": "Write hello to out.txt"}),
			fakeanthropic.Text(after),
		}}}
	})
	w, c := s.w, s.c

	p := s.awaitRequest(ctx, t, "Bash", "echo hello > out.txt")
	r := w.mustPerm(ctx, "deny", p.ID, "--message", message)
	if !strings.HasPrefix(r.stdout, "denied "+p.ID) {
		t.Errorf("clawd permissions deny %s printed %q, want \"denied %s ...\"", p.ID, r.stdout, p.ID)
	}
	screen := c.WaitFor(regexp.MustCompile(regexp.QuoteMeta(after)), 45*time.Second)
	if !strings.Contains(screen, "Denied by PermissionRequest hook") || !strings.Contains(screen, "Reason: "+message) {
		t.Errorf("the screen does not show the denial by the hook with the reason %q:\n%s", message, screen)
	}
	if permissionDialog.MatchString(screen) {
		t.Errorf("the permission dialog is still up after the deny:\n%s", screen)
	}
	if _, err := os.Stat(filepath.Join(w.project, "out.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("out.txt exists (stat: %v): the denied Bash call ran", err)
	}
	s.awaitClosed(t, p.ID, "answered", "answered")
	s.checkNonePending(ctx, t, "after the deny")
	if b := w.toolResultOf(t, marker, "Bash"); !b.IsError || !strings.Contains(b.Text, message) {
		t.Errorf("the denied Bash call's tool_result = %+v, want is_error with %q", b, message)
	}
	s.finish(ctx, t)

	debug := c.debug()
	checkHooksExitedZero(t, w, debug, "SessionStart:startup", "UserPromptSubmit", "PreToolUse:Bash",
		"PermissionRequest:Bash", "Stop", "SessionEnd:prompt_input_exit")
	if !hookSaid(debug, "Bash", `\"behavior\":\"deny\"`) {
		t.Errorf("Claude Code's debug log does not show the PermissionRequest hook answering deny:\n%s",
			grepLines(debug, "PermissionRequest"))
	}
	if runs, _ := parseHookRuns(debug, w.hookCmd); anyRun(runs, "PostToolUse:Bash") {
		t.Errorf("PostToolUse:Bash ran for the denied call: %v", runs)
	}
	t.Logf("TestInteractivePermissionDeny took %v", time.Since(started).Round(time.Millisecond))
}

func anyRun(runs []hookRun, event string) bool {
	for _, r := range runs {
		if r.Event == event {
			return true
		}
	}
	return false
}

// hookEndRe is the debug log line of a PermissionRequest hook run ending
// (killed, or cancelled), with its timestamp.
var hookEndRe = regexp.MustCompile(`(?m)^(\S+) \[DEBUG\] Hooks: PermissionRequest:Bash \[.*\] (finished with status -?\d+|cancelled)`)

// hookProcesses lists the running `clawd hook claude` processes of this
// test binary's clawd, for failure messages.
func hookProcesses() string {
	out, _ := exec.Command("ps", "-eo", "pid,ppid,etime,args").Output()
	return grepLines(string(out), clawdBin+" hook claude")
}

// answerInTerminal answers the dialog of the listed request p with key, as
// the person at Claude Code's terminal would, and checks that the request
// then leaves `clawd permissions` within 3 s, closed as withdrawn: Claude
// Code ends the hook, whose connection closing withdraws it.
func (s *permSession) answerInTerminal(ctx context.Context, t *testing.T, p client.PermissionView, key string) {
	t.Helper()
	c := s.c
	// The dialog ignores keys pressed right after it appears.
	time.Sleep(500 * time.Millisecond)
	pressed := time.Now()
	c.SendKeys(key)
	// On a loaded machine the first key can still be swallowed.
	for i := 0; i < 3; i++ {
		if _, gone := c.awaitGone(permissionDialog, 3*time.Second); gone {
			break
		}
		t.Logf("the dialog is still up 3 s after pressing %s; pressing it again", key)
		pressed = time.Now()
		c.SendKeys(key)
	}
	// From the key press, which comes before the hook's end, to the
	// request leaving the list: an upper bound on the time from the
	// hook's connection closing.
	list, ok := s.w.awaitPermissions(ctx, 10*time.Second, func(l []client.PermissionView) bool { return len(ofSession(l, s.id)) == 0 })
	gone := time.Since(pressed)
	if !ok {
		t.Fatalf("clawd permissions --json still lists the request %v after the person answered %s in the terminal:\n%s"+
			"clawd hook processes still running:\n%s\nClaude Code's debug log, PermissionRequest lines:\n%s",
			gone.Round(time.Millisecond), key, dumpPermissions(list), hookProcesses(), grepLines(c.debug(), "PermissionRequest"))
	}
	t.Logf("request gone from clawd permissions %v after the key press", gone.Round(time.Millisecond))
	if gone > 3*time.Second {
		t.Errorf("the request left clawd permissions %v after the person answered, want ≤ 3 s", gone.Round(time.Millisecond))
	}
	closed := s.awaitClosed(t, p.ID, "withdrawn", "withdrawn")
	if !closed.at.IsZero() {
		t.Logf("\"closed\" (withdrawn) on the stream %v after the key press", closed.at.Sub(pressed).Round(time.Millisecond))
		// Claude Code logs the hook's end once it has reaped it.
		if m := hookEndRe.FindStringSubmatch(c.debug()); m != nil {
			if end, err := time.Parse(time.RFC3339Nano, m[1]); err == nil {
				t.Logf("Claude Code logged the hook's end (%s) %v after the key press", m[2], end.Sub(pressed).Round(time.Millisecond))
			}
		}
	}
	// A late answer from another client loses the race plainly.
	if r := s.w.permClawd(ctx, "allow", p.ID); r.code != 1 || !strings.Contains(r.stderr, "withdrawn") {
		t.Errorf("clawd permissions allow %s after the terminal answer: %s\nwant exit 1 saying it was withdrawn", p.ID, r)
	}
}

// TestInteractivePermissionTerminalYes: the person answers "Yes" in the
// terminal while clawd holds the request; the request must leave
// `clawd permissions` at once, closed as withdrawn, and the tool runs.
// Claude Code 2.1.328 does not end the PermissionRequest hook on a "Yes"
// (it does on Esc/"No", see TestInteractivePermissionTerminalNo): the
// runtime learns of the answer from the tool's PostToolUse, which closes
// the state machine's pending entry, and then closes the request and lets
// the hook go with no decision.
func TestInteractivePermissionTerminalYes(t *testing.T) {
	started := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	const marker = "E2E_PERM_TERMINAL_YES"
	s := startPermSession(ctx, t, marker, func(*world) []fakeanthropic.Conversation {
		return []fakeanthropic.Conversation{permissionScript(marker)}
	})
	w, c := s.w, s.c

	p := s.awaitRequest(ctx, t, "Bash", "echo hello > out.txt")
	s.answerInTerminal(ctx, t, p, "1")
	c.WaitFor(regexp.MustCompile(regexp.QuoteMeta(interactiveDone)), 45*time.Second)
	if screen := c.Capture(); hookAnswered.MatchString(screen) {
		t.Errorf("the screen says a hook answered; the person did:\n%s", screen)
	}
	w.checkOutTxt(t)
	s.finish(ctx, t)
	checkPermissionHookEnded(t, w, c.debug())
	t.Logf("TestInteractivePermissionTerminalYes took %v", time.Since(started).Round(time.Millisecond))
}

// TestInteractivePermissionTerminalNo: the person rejects the call in the
// terminal (Esc) while clawd holds the request; Claude Code cancels the
// hook, the request leaves `clawd permissions` at once, closed as
// withdrawn, and the tool does not run.
func TestInteractivePermissionTerminalNo(t *testing.T) {
	started := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	const marker = "E2E_PERM_TERMINAL_NO"
	s := startPermSession(ctx, t, marker, func(*world) []fakeanthropic.Conversation {
		return []fakeanthropic.Conversation{permissionScript(marker)}
	})
	w, c := s.w, s.c

	p := s.awaitRequest(ctx, t, "Bash", "echo hello > out.txt")
	s.answerInTerminal(ctx, t, p, "Escape")
	// A rejection interrupts the turn: no Stop, no further model call.
	c.WaitFor(regexp.MustCompile(`Interrupted`), 30*time.Second)
	if screen := c.Capture(); hookAnswered.MatchString(screen) {
		t.Errorf("the screen says a hook answered; the person did:\n%s", screen)
	}
	if _, err := os.Stat(filepath.Join(w.project, "out.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("out.txt exists (stat: %v): the rejected Bash call ran", err)
	}
	s.checkNonePending(ctx, t, "after the terminal rejection")
	s.finish(ctx, t)

	debug := c.debug()
	runs, trouble := parseHookRuns(debug, w.hookCmd)
	for _, r := range runs {
		if r.Status != 0 {
			t.Errorf("hook %s exited %d, want 0", r.Event, r.Status)
		}
	}
	for _, ev := range []string{"SessionStart:startup", "UserPromptSubmit", "PreToolUse:Bash", "SessionEnd:prompt_input_exit"} {
		if !anyRun(runs, ev) {
			t.Errorf("Claude Code's debug log shows no run of the clawd hook for %s; hook runs seen: %v", ev, runs)
		}
	}
	for _, ev := range []string{"PostToolUse:Bash", "Stop"} {
		if anyRun(runs, ev) {
			t.Errorf("hook %s ran after the person rejected the call: %v", ev, runs)
		}
	}
	cancelled := regexp.MustCompile(`Hooks?:? PermissionRequest:Bash .*cancelled`)
	sawCancel := false
	for _, l := range trouble {
		if cancelled.MatchString(l) {
			sawCancel = true
			continue
		}
		t.Errorf("Claude Code's debug log reports hook trouble: %s", l)
	}
	if !sawCancel {
		t.Errorf("Claude Code's debug log does not show the PermissionRequest hook cancelled:\n%s", grepLines(debug, "PermissionRequest"))
	}
	if data, err := os.ReadFile(filepath.Join(w.clawdHome, "logs", "hook.log")); err == nil && len(data) > 0 {
		t.Errorf("hook.log = %q, want nothing: being cancelled is not a failure", data)
	}
	t.Logf("TestInteractivePermissionTerminalNo took %v", time.Since(started).Round(time.Millisecond))
}

// alwaysCommand is a compound Bash call for which Claude Code 2.1.328
// offers the suggestion setMode acceptEdits (a cd with a write needs
// manual approval).
const alwaysCommand = "mkdir -p sub && cd sub && pwd"

// alwaysScript: the compound Bash call, a Write of note.txt, then done.
func alwaysScript(w *world, marker, note, done string) fakeanthropic.Conversation {
	return fakeanthropic.Conversation{Match: marker, Steps: []fakeanthropic.Step{
		fakeanthropic.Tool("Bash", map[string]any{"command": alwaysCommand, "description": "Enter sub directory"}),
		fakeanthropic.Tool("Write", map[string]any{"file_path": filepath.Join(w.project, "note.txt"), "content": note}),
		fakeanthropic.Text(done),
	}}
}

// TestInteractivePermissionAllowOnceAsksAgain is the control of
// TestInteractivePermissionAlways: after a plain allow of the same Bash
// call, the Write is a permission request of its own.
func TestInteractivePermissionAllowOnceAsksAgain(t *testing.T) {
	started := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	const marker = "E2E_PERM_ONCE"
	const note = "written after asking"
	const done = "Made sub and wrote note.txt after asking."
	s := startPermSession(ctx, t, marker, func(w *world) []fakeanthropic.Conversation {
		return []fakeanthropic.Conversation{alwaysScript(w, marker, note, done)}
	})
	w, c := s.w, s.c

	p := s.awaitRequest(ctx, t, "Bash", alwaysCommand)
	w.mustPerm(ctx, "allow", p.ID)
	list := w.waitPermissions(ctx, 45*time.Second, "pending Write request after a plain allow", func(l []client.PermissionView) bool {
		for _, q := range ofSession(l, s.id) {
			if q.Tool == "Write" {
				return true
			}
		}
		return false
	})
	q := ofSession(list, s.id)[0]
	if q.ID == p.ID || q.Summary != filepath.Join(w.project, "note.txt") {
		t.Errorf("Write request = %+v, want a new request for %s", q, filepath.Join(w.project, "note.txt"))
	}
	w.mustPerm(ctx, "allow", q.ID)
	c.WaitFor(regexp.MustCompile(regexp.QuoteMeta(done)), 45*time.Second)
	if data, err := os.ReadFile(filepath.Join(w.project, "note.txt")); err != nil || string(data) != note {
		t.Errorf("note.txt = %q (%v), want %q", data, err, note)
	}
	s.finish(ctx, t)
	t.Logf("TestInteractivePermissionAllowOnceAsksAgain took %v", time.Since(started).Round(time.Millisecond))
}

// TestInteractivePermissionAlways: `clawd permissions always ID N` with
// the setMode acceptEdits suggestion Claude Code offers for a compound
// Bash call runs the call and switches the session to accept edits: the
// script's next step, a Write, runs without a new permission request.
func TestInteractivePermissionAlways(t *testing.T) {
	started := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	const marker = "E2E_PERM_ALWAYS"
	const note = "written without asking"
	const done = "Made sub and wrote note.txt."
	s := startPermSession(ctx, t, marker, func(w *world) []fakeanthropic.Conversation {
		return []fakeanthropic.Conversation{alwaysScript(w, marker, note, done)}
	})
	w, c := s.w, s.c

	p := s.awaitRequest(ctx, t, "Bash", alwaysCommand)
	n := 0
	for i, l := range p.Suggestions {
		if strings.HasPrefix(l, "Auto-accept edits") {
			n = i + 1
		}
	}
	if n == 0 {
		t.Fatalf("the request offers no \"Auto-accept edits\" (setMode acceptEdits) suggestion: %q", p.Suggestions)
	}
	r := w.mustPerm(ctx, "always", p.ID, strconv.Itoa(n))
	if !strings.HasPrefix(r.stdout, "allowed "+p.ID) || !strings.Contains(r.stdout, "Auto-accept edits") {
		t.Errorf("clawd permissions always %s %d printed %q, want \"allowed %s ... and applied suggestion %d \"Auto-accept edits ...\"\"",
			p.ID, n, r.stdout, p.ID, n)
	}
	if screen, gone := c.awaitGone(permissionDialog, 15*time.Second); !gone {
		t.Fatalf("the Bash dialog is still up 15 s after \"always\":\n%s", screen)
	}
	screen := c.WaitFor(regexp.MustCompile(regexp.QuoteMeta(done)+`|`+permissionDialog.String()), 45*time.Second)
	if permissionDialog.MatchString(screen) {
		t.Fatalf("a permission dialog is up after \"always\" with acceptEdits; want the Write to run unasked:\n%s\nclawd permissions --json:\n%s",
			screen, dumpPermissions(w.pendingPermissions(ctx)))
	}
	if !strings.Contains(screen, "accept edits on") {
		t.Errorf("the footer does not say accept edits is on:\n%s", screen)
	}
	if fi, err := os.Stat(filepath.Join(w.project, "sub")); err != nil || !fi.IsDir() {
		t.Errorf("sub is not a folder (stat: %v): the allowed Bash call did not run", err)
	}
	if data, err := os.ReadFile(filepath.Join(w.project, "note.txt")); err != nil || string(data) != note {
		t.Errorf("note.txt = %q (%v), want %q: the Write did not run", data, err, note)
	}
	s.awaitClosed(t, p.ID, "answered", "answered")
	s.checkNonePending(ctx, t, "after the Write")
	// The stream saw every request of the test: only the Bash one.
	chs := s.stream.snapshot()
	for _, ch := range chs {
		if ch.Type == "added" && ch.Permission.ID != p.ID {
			t.Errorf("a second permission request after \"always\": %s", ch)
		}
	}
	for _, tool := range []string{"Bash", "Write"} {
		if b := w.toolResultOf(t, marker, tool); b.IsError {
			t.Errorf("the %s call's tool_result is an error: %+v", tool, b)
		}
	}
	s.finish(ctx, t)

	debug := c.debug()
	checkHooksExitedZero(t, w, debug, "SessionStart:startup", "UserPromptSubmit", "PreToolUse:Bash",
		"PermissionRequest:Bash", "PostToolUse:Bash", "PreToolUse:Write", "PostToolUse:Write", "Stop",
		"SessionEnd:prompt_input_exit")
	if !hookSaid(debug, "Bash", `\"setMode\"`) || !hookSaid(debug, "Bash", `\"acceptEdits\"`) {
		t.Errorf("Claude Code's debug log does not show the hook answering allow with setMode acceptEdits:\n%s",
			grepLines(debug, "PermissionRequest"))
	}
	if strings.Contains(debug, "PermissionRequest:Write") || strings.Contains(debug, "executePermissionRequestHooks called for tool: Write") {
		t.Errorf("the Write went through a permission request after acceptEdits:\n%s", grepLines(debug, "PermissionRequest"))
	}
	t.Logf("TestInteractivePermissionAlways took %v", time.Since(started).Round(time.Millisecond))
}

// TestInteractivePermissionParallel: two tool calls in one assistant
// message that both need approval are two requests at once; allowing one
// leaves the other listed. Claude Code asks for concurrency-safe calls in
// parallel only: two Bash calls are asked one after the other, two Reads
// outside the project together.
func TestInteractivePermissionParallel(t *testing.T) {
	started := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	const marker = "E2E_PERM_PARALLEL"
	const done = "Read a.txt and b.txt."
	var a, b string
	s := startPermSession(ctx, t, marker, func(w *world) []fakeanthropic.Conversation {
		outside := filepath.Join(w.dir, "outside")
		a, b = filepath.Join(outside, "a.txt"), filepath.Join(outside, "b.txt")
		if err := os.MkdirAll(outside, 0o700); err != nil {
			t.Fatal(err)
		}
		for path, text := range map[string]string{a: "alpha contents\n", b: "beta contents\n"} {
			if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		return []fakeanthropic.Conversation{{Match: marker, Steps: []fakeanthropic.Step{
			fakeanthropic.Tools(
				fakeanthropic.ToolUse{Name: "Read", Input: map[string]any{"file_path": a}},
				fakeanthropic.ToolUse{Name: "Read", Input: map[string]any{"file_path": b}},
			),
			fakeanthropic.Text(done),
		}}}
	})
	w, c := s.w, s.c

	list := w.waitPermissions(ctx, 45*time.Second, "two pending Read requests of the session", func(l []client.PermissionView) bool {
		return len(ofSession(l, s.id)) >= 2
	})
	var pa, pb client.PermissionView
	for _, p := range ofSession(list, s.id) {
		switch {
		case p.Tool == "Read" && p.Summary == a:
			pa = p
		case p.Tool == "Read" && p.Summary == b:
			pb = p
		default:
			t.Errorf("unexpected request: %+v", p)
		}
	}
	if pa.ID == "" || pb.ID == "" || pa.ID == pb.ID {
		t.Fatalf("want one request per Read (summaries %q and %q):\n%s", a, b, dumpPermissions(list))
	}
	for _, p := range []client.PermissionView{pa, pb} {
		if p.Kind != client.KindPermission || p.State != "pending" || p.Title != s.title {
			t.Errorf("listed request = %+v, want kind permission, state pending, title %q", p, s.title)
		}
	}
	c.WaitFor(permissionDialog, 30*time.Second)

	w.mustPerm(ctx, "allow", pa.ID)
	s.awaitClosed(t, pa.ID, "answered", "answered")
	// The other request stays, also once the agent reported that the
	// first one's tool ran: its PostToolUse hook exits only after the
	// runtime took the event in, and settled what it closes.
	for end := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		runs, _ := parseHookRuns(c.debug(), w.hookCmd)
		if slices.ContainsFunc(runs, func(r hookRun) bool { return r.Event == "PostToolUse:Read" }) {
			break
		}
		if time.Now().After(end) {
			t.Fatalf("no PostToolUse hook ran for the allowed Read within 30 s; hook runs: %v", runs)
		}
	}
	rest := ofSession(w.pendingPermissions(ctx), s.id)
	if len(rest) != 1 || rest[0].ID != pb.ID || rest[0].State != "pending" {
		t.Fatalf("after allowing %s, clawd permissions --json lists:\n%s\nwant only %s, pending", pa.ID, dumpPermissions(rest), pb.ID)
	}
	if ch, ok := closedChange(s.stream.snapshot(), pb.ID); ok {
		t.Errorf("the stream closed %s when only %s was allowed: %s", pb.ID, pa.ID, ch)
	}

	w.mustPerm(ctx, "allow", pb.ID)
	s.awaitClosed(t, pb.ID, "answered", "answered")
	c.WaitFor(regexp.MustCompile(regexp.QuoteMeta(done)), 45*time.Second)
	s.checkNonePending(ctx, t, "after both allows")
	ids := w.issuedToolIDs(marker)["Read"]
	if len(ids) != 2 {
		t.Fatalf("the fake model issued Read calls %v, want two", ids)
	}
	for i, want := range []string{"alpha contents", "beta contents"} {
		if r, ok := w.toolResult(ids[i]); !ok || r.IsError || !strings.Contains(r.Text, want) {
			t.Errorf("Read %d tool_result = %+v (found %v), want the file's %q", i+1, r, ok, want)
		}
	}
	s.finish(ctx, t)
	checkHooksExitedZero(t, w, c.debug(), "PreToolUse:Read", "PermissionRequest:Read", "PostToolUse:Read", "Stop")
	t.Logf("TestInteractivePermissionParallel took %v", time.Since(started).Round(time.Millisecond))
}

// checkDialogStays checks that Claude Code's dialog stays up, unanswered
// by a hook, for a while: the request was handed back to the terminal.
func (s *permSession) checkDialogStays(t *testing.T, d time.Duration) {
	t.Helper()
	end := time.Now().Add(d)
	for time.Now().Before(end) {
		screen := s.c.Capture()
		if hookAnswered.MatchString(screen) || !permissionDialog.MatchString(screen) {
			t.Fatalf("the dialog closed after the request was handed back to the terminal:\n%s", screen)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// dialogFor matches Claude Code's permission dialog for one Bash command:
// the dialog shows the command between dashed rules, the transcript above
// it does not.
func dialogFor(command string) *regexp.Regexp {
	return regexp.MustCompile(`╌\s*\n\s*` + regexp.QuoteMeta(command) + `\s*\n\s*╌(?s:.*)Do you want to proceed\?`)
}

// answerYes picks "1. Yes" in the dialog for command, as a person would.
// Unlike answerDialogYes it never presses again once that dialog is gone,
// so a second dialog right behind it is left alone.
func (s *permSession) answerYes(t *testing.T, command string) {
	t.Helper()
	re := dialogFor(command)
	s.c.WaitFor(re, 30*time.Second)
	// The dialog ignores keys pressed right after it appears.
	time.Sleep(500 * time.Millisecond)
	for i := 0; ; i++ {
		s.c.SendKeys("1")
		screen, gone := s.c.awaitGone(re, 3*time.Second)
		if gone {
			return
		}
		if i == 3 {
			t.Fatalf("the dialog for %q is still up after pressing 1 four times:\n%s", command, screen)
		}
		t.Logf("the dialog for %q is still up 3 s after pressing 1; pressing it again", command)
	}
}

// TestInteractivePermissionHandBack: `clawd permissions terminal` closes
// the request in clawd with no decision; Claude Code's dialog stays for
// the person, who answers it there.
func TestInteractivePermissionHandBack(t *testing.T) {
	started := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	const marker = "E2E_PERM_HANDBACK"
	s := startPermSession(ctx, t, marker, func(*world) []fakeanthropic.Conversation {
		return []fakeanthropic.Conversation{permissionScript(marker)}
	})
	w, c := s.w, s.c

	p := s.awaitRequest(ctx, t, "Bash", "echo hello > out.txt")
	r := w.mustPerm(ctx, "terminal", p.ID)
	if !strings.HasPrefix(r.stdout, "closed "+p.ID) {
		t.Errorf("clawd permissions terminal %s printed %q, want \"closed %s ...\"", p.ID, r.stdout, p.ID)
	}
	s.awaitClosed(t, p.ID, "terminal", "answered")
	s.checkNonePending(ctx, t, "after handing the request back")
	s.checkDialogStays(t, 2*time.Second)
	if _, err := os.Stat(filepath.Join(w.project, "out.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("out.txt exists (stat: %v) before the person answered", err)
	}
	c.answerDialogYes()
	c.WaitFor(regexp.MustCompile(regexp.QuoteMeta(interactiveDone)), 45*time.Second)
	w.checkOutTxt(t)
	s.finish(ctx, t)

	debug := c.debug()
	// The hook answered "no decision" and ended by itself.
	checkHooksExitedZero(t, w, debug, interactiveHooks...)
	if !regexp.MustCompile(`Hook PermissionRequest:Bash \(PermissionRequest\) success:\\n\{\}"`).MatchString(debug) {
		t.Errorf("Claude Code's debug log does not show the PermissionRequest hook answering {}:\n%s",
			grepLines(debug, "PermissionRequest"))
	}
	t.Logf("TestInteractivePermissionHandBack took %v", time.Since(started).Round(time.Millisecond))
}

// TestInteractivePermissionDND: `clawd dnd on` hands the pending request
// back to Claude Code's dialog, and while it is on the next request is
// never listed; `clawd dnd off` restores the normal flow.
func TestInteractivePermissionDND(t *testing.T) {
	started := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	const marker = "E2E_PERM_DND"
	const done = "Wrote out.txt and out2.txt."
	s := startPermSession(ctx, t, marker, func(*world) []fakeanthropic.Conversation {
		return []fakeanthropic.Conversation{{Match: marker, Steps: []fakeanthropic.Step{
			fakeanthropic.Tool("Bash", map[string]any{"command": "echo hello > out.txt", "description": "Write hello to out.txt"}),
			fakeanthropic.Tool("Bash", map[string]any{"command": "echo again > out2.txt", "description": "Write again to out2.txt"}),
			fakeanthropic.Text(done),
		}}}
	})
	w, c := s.w, s.c

	p := s.awaitRequest(ctx, t, "Bash", "echo hello > out.txt")
	if r := w.mustClawd(ctx, "dnd", "on"); strings.TrimSpace(r.stdout) != "do not disturb: on" {
		t.Errorf("clawd dnd on printed %q, want \"do not disturb: on\"", r.stdout)
	}
	s.awaitClosed(t, p.ID, "dnd", "withdrawn")
	s.checkNonePending(ctx, t, "after clawd dnd on")
	s.checkDialogStays(t, 2*time.Second)
	s.answerYes(t, "echo hello > out.txt")

	// The second call's dialog: answered "no decision" at once, never
	// listed.
	c.WaitFor(dialogFor("echo again > out2.txt"), 30*time.Second)
	s.checkDialogStays(t, time.Second)
	if list := w.pendingPermissions(ctx); len(list) != 0 {
		t.Errorf("clawd permissions --json with do-not-disturb on lists:\n%s", dumpPermissions(list))
	}
	s.answerYes(t, "echo again > out2.txt")
	c.WaitFor(regexp.MustCompile(regexp.QuoteMeta(done)), 45*time.Second)
	w.checkOutTxt(t)
	if data, err := os.ReadFile(filepath.Join(w.project, "out2.txt")); err != nil || string(data) != "again\n" {
		t.Errorf("out2.txt = %q (%v), want %q", data, err, "again\n")
	}
	for _, ch := range s.stream.snapshot() {
		if ch.Type == "added" && ch.Permission.ID != p.ID {
			t.Errorf("a request was announced while do-not-disturb was on: %s", ch)
		}
	}
	if r := w.mustClawd(ctx, "dnd", "off", "--json"); strings.TrimSpace(r.stdout) != `{"on":false}` {
		t.Errorf("clawd dnd off --json printed %q, want {\"on\":false}", r.stdout)
	}
	s.finish(ctx, t)

	debug := c.debug()
	checkHooksExitedZero(t, w, debug, interactiveHooks...)
	if n := len(regexp.MustCompile(`Hook PermissionRequest:Bash \(PermissionRequest\) success:\\n\{\}"`).FindAllString(debug, -1)); n != 2 {
		t.Errorf("Claude Code's debug log shows the PermissionRequest hook answering {} %d times, want 2:\n%s",
			n, grepLines(debug, "PermissionRequest"))
	}
	t.Logf("TestInteractivePermissionDND took %v", time.Since(started).Round(time.Millisecond))
}
