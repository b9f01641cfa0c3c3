//go:build !windows

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/clawdhq/clawd/internal/fakeopenai"
	"github.com/clawdhq/clawd/runtime/client"
)

// The Codex TUI tests run the real interactive Codex under tmux with
// approval_policy = "on-request" and a model that asks to run a command
// outside the sandbox: Codex asks for approval, first through its
// PermissionRequest hook (clawd), then, when the hook gives no decision,
// with its own prompt. The TUI runs its hooks from an app-server daemon
// that outlives it; each test stops that daemon and checks that nothing
// of its Codex home is left running.

var (
	// codexApproval is Codex's own approval prompt.
	codexApproval = regexp.MustCompile(`Would you like to run the following command\?`)
	// codexHooksReview is the start-up screen Codex shows for untrusted
	// hooks: clawd install must have trusted them.
	codexHooksReview = regexp.MustCompile(`(?i)hooks need review`)
	// codexReady is the placeholder of the TUI's empty composer: it takes
	// a prompt (also while a turn runs).
	codexReady = regexp.MustCompile(`Ask Codex to do anything`)
)

// codexTUI is the Codex TUI running under tmux in a codex world.
type codexTUI struct {
	*tmux
	w *codexWorld
}

// startCodexTUI starts `codex prompt` (the TUI, submitting prompt at once)
// in the project folder. Waits end by deadline. The daemon the TUI starts
// is stopped in cleanup, after the TUI itself.
func (w *codexWorld) startCodexTUI(deadline time.Time, prompt string) *codexTUI {
	w.t.Helper()
	// Cleanups run last first: this one after tmux is killed.
	w.t.Cleanup(func() { w.stopCodexDaemon() })
	c := &codexTUI{tmux: startTmux(w.t, w.project, 160, 50, w.codexEnv(), []string{w.bin, prompt}), w: w}
	c.deadline = deadline
	return c
}

// waitScreen waits until re matches the screen, failing at once if Codex
// asks to review its hooks instead.
func (c *codexTUI) waitScreen(re *regexp.Regexp, timeout time.Duration) string {
	c.t.Helper()
	s := c.WaitFor(regexp.MustCompile(re.String()+`|`+codexHooksReview.String()), timeout)
	if codexHooksReview.MatchString(s) && !re.MatchString(s) {
		c.t.Fatalf("Codex asks to review its hooks: clawd install codex did not trust them:\n%s", s)
	}
	return s
}

// submit types a prompt, waits until it shows, then presses Enter as a
// separate key (else the TUI takes it as part of a paste).
func (c *codexTUI) submit(prompt string) {
	c.t.Helper()
	c.waitScreen(codexReady, 30*time.Second)
	c.Type(prompt)
	c.WaitFor(regexp.MustCompile(regexp.QuoteMeta(prompt)), 10*time.Second)
	time.Sleep(300 * time.Millisecond)
	c.SendKeys("Enter")
}

// quit types /quit and waits for the TUI to end; it returns the exit code.
func (c *codexTUI) quit() int {
	c.t.Helper()
	c.waitScreen(codexReady, 30*time.Second)
	c.Type("/quit")
	c.WaitFor(regexp.MustCompile(`/quit`), 10*time.Second)
	time.Sleep(300 * time.Millisecond)
	c.SendKeys("Enter")
	return c.WaitExit(30 * time.Second)
}

// stopCodexDaemon runs `codex app-server daemon stop` with the world's
// CODEX_HOME, ends the daemon's updater (`daemon pid-update-loop`, which
// the stop leaves running, as Codex 0.169.0 does), then checks that no
// process of that Codex home is left and kills any that is. It may run
// more than once.
func (w *codexWorld) stopCodexDaemon() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, w.bin, "app-server", "daemon", "stop")
	cmd.Env = w.codexEnv()
	cmd.Dir = w.project
	cmd.WaitDelay = 5 * time.Second
	start := time.Now()
	out, err := cmd.Output()
	if err != nil {
		w.t.Errorf("codex app-server daemon stop: %v\n%s", err, out)
	}
	w.t.Logf("codex app-server daemon stop took %v: %s", time.Since(start).Round(time.Millisecond), bytes.TrimSpace(out))

	// The daemon's processes write their pid files here; the updater's
	// outlives the stop. End it, but only if it is still one of ours (a
	// pid may have been reused).
	pidFiles, _ := filepath.Glob(filepath.Join(w.codexHome, "app-server-daemon", "*.pid"))
	for _, f := range pidFiles {
		var pf struct {
			PID int `json:"pid"`
		}
		data, err := os.ReadFile(f)
		if err != nil || json.Unmarshal(data, &pf) != nil || pf.PID == 0 {
			continue
		}
		for _, p := range codexProcesses(w.codexHome) {
			if p.pid == pf.PID {
				w.t.Logf("ending %s's process %d after the daemon stop: %s", filepath.Base(f), p.pid, p.cmdline)
				if proc, err := os.FindProcess(p.pid); err == nil {
					_ = proc.Signal(syscall.SIGTERM)
				}
			}
		}
	}
	var left []codexProc
	for end := time.Now().Add(10 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		left = codexProcesses(w.codexHome)
		if len(left) == 0 || time.Now().After(end) {
			break
		}
	}
	for _, p := range left {
		w.t.Errorf("process %d of the test's Codex home still runs 10 s after the daemon stopped (killed now): %s", p.pid, p.cmdline)
		if proc, err := os.FindProcess(p.pid); err == nil {
			_ = proc.Kill()
		}
	}
}

// awaitCodexRequest waits until `clawd permissions --json` lists a pending
// Bash request of a codex session whose summary holds command, checks what
// the list says about it, and that the change stream announced it. The
// title is one of titles: the TUI names the thread itself (the fake's
// title request), and a prompt names it too.
func (w *codexWorld) awaitCodexRequest(ctx context.Context, t *testing.T, stream *permStream, command string, titles ...string) client.PermissionView {
	t.Helper()
	start := time.Now()
	mine := func(l []client.PermissionView) []client.PermissionView {
		var out []client.PermissionView
		for _, p := range l {
			if p.Agent == "codex" && strings.Contains(p.Summary, command) {
				out = append(out, p)
			}
		}
		return out
	}
	list := w.waitPermissions(ctx, 60*time.Second, "pending codex request for "+command, func(l []client.PermissionView) bool {
		return len(mine(l)) > 0
	})
	if len(mine(list)) != 1 || len(list) != 1 {
		t.Fatalf("clawd permissions --json lists, want one request of the codex session:\n%s", dumpPermissions(list))
	}
	p := mine(list)[0]
	t.Logf("listed after %v: %s", time.Since(start).Round(time.Millisecond), dumpPermissions(list))
	if p.ID == "" || p.Kind != client.KindPermission || p.Tool != "Bash" || p.State != "pending" || p.Headless || p.SessionID == "" {
		t.Errorf("listed request = %+v, want an id, kind permission, tool Bash, state pending, a session, not headless", p)
	}
	if !slices.Contains(titles, p.Title) {
		t.Errorf("listed request title = %q, want one of %q", p.Title, titles)
	}
	if p.Cwd != w.project {
		t.Errorf("listed request cwd = %q, want the project %q", p.Cwd, w.project)
	}
	if _, ok := stream.await(10*time.Second, func(chs []permChange) bool {
		for _, c := range chs {
			if c.Type == "added" && c.Permission.ID == p.ID {
				return true
			}
		}
		return false
	}); !ok {
		t.Errorf("the permission change stream shows no \"added\" for %s", p.ID)
	}
	return p
}

// awaitAnswered waits for the stream's "closed" line of request id, which
// must say it was answered.
func awaitAnswered(t *testing.T, stream *permStream, id string) {
	t.Helper()
	chs, ok := stream.await(10*time.Second, func(chs []permChange) bool {
		_, ok := closedChange(chs, id)
		return ok
	})
	c, _ := closedChange(chs, id)
	switch {
	case !ok:
		t.Errorf("the permission change stream shows no \"closed\" for %s: %s", id, dumpChanges(chs))
	case c.Reason != "answered" || c.Permission.State != "answered":
		t.Errorf("closed %s: reason %q, state %q; want answered, answered", id, c.Reason, c.Permission.State)
	}
}

// checkSessionState checks `clawd status --json` lists session id in one
// of the states want.
func (w *codexWorld) checkSessionState(ctx context.Context, t *testing.T, id string, want ...string) {
	t.Helper()
	st, ok := w.status(ctx)
	if !ok {
		return
	}
	if s, found := st.session(id); !found || !slices.Contains(want, s.State) || s.Agent != "codex" || s.Headless {
		t.Errorf("clawd status lists session %s as %+v (listed %v), want codex, %v, not headless", id, s, found, want)
	}
}

// callOf returns the call id of the only call the fake model issued in the
// conversation.
func (w *codexWorld) callOf(t *testing.T, marker string) string {
	t.Helper()
	calls := w.api.IssuedCalls(marker)
	if len(calls) != 1 {
		t.Fatalf("the fake model issued calls %+v in %s, want one", calls, marker)
	}
	return calls[0].CallID
}

// TestCodexTUIPermissions: in the interactive TUI, `clawd permissions
// allow` lets an escalated command run without Codex's own prompt ever
// showing, and `clawd permissions deny` blocks the next one, Codex telling
// the model why. Then the daemon that ran the hooks is stopped, which ends
// the session.
func TestCodexTUIPermissions(t *testing.T) {
	started := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 240*time.Second)
	defer cancel()
	deadline, _ := ctx.Deadline()
	const (
		allowMarker = "E2E_CODEX_ALLOW"
		denyMarker  = "E2E_CODEX_DENY"
		allowTitle  = "Please " + allowMarker + " now"
		denyTitle   = "Please " + denyMarker + " now"
		allowDone   = "Wrote allowed.txt as approved."
		denyDone    = "Understood, I did not write denied.txt."
		message     = "not this one"
		threadTitle = "Write the allowed file"
	)
	w := newCodexWorld(t)
	w.startOpenAI(fakeopenai.Script{Title: threadTitle, Conversations: []fakeopenai.Conversation{
		{Match: allowMarker, Steps: []fakeopenai.Step{
			fakeopenai.ExecEscalated("echo allowed > allowed.txt", "Need to write allowed.txt"),
			fakeopenai.Text(allowDone)}},
		{Match: denyMarker, Steps: []fakeopenai.Step{
			fakeopenai.ExecEscalated("echo denied > denied.txt", "Need to write denied.txt"),
			fakeopenai.Text(denyDone)}},
	}})
	serve := w.startServe()
	stream := w.followPermissions(ctx, serve)
	events := w.startEvents()
	events.sync(ctx)
	w.installCodex(ctx)

	// Allow.
	c := w.startCodexTUI(deadline, allowTitle)
	p := w.awaitCodexRequest(ctx, t, stream, "echo allowed > allowed.txt", allowTitle, threadTitle)
	id := p.SessionID
	if s := c.Capture(); codexApproval.MatchString(s) || codexHooksReview.MatchString(s) {
		t.Errorf("Codex shows a prompt of its own while clawd holds the request:\n%s", s)
	}
	w.checkSessionState(ctx, t, id, "waiting")
	if r := w.mustPerm(ctx, "allow", p.ID); !strings.HasPrefix(r.stdout, "allowed "+p.ID) {
		t.Errorf("clawd permissions allow %s printed %q, want \"allowed %s ...\"", p.ID, r.stdout, p.ID)
	}
	screen := c.waitScreen(regexp.MustCompile(regexp.QuoteMeta(allowDone)), 45*time.Second)
	if codexApproval.MatchString(screen) {
		t.Errorf("Codex's own approval prompt is up after clawd allowed:\n%s", screen)
	}
	if data, err := os.ReadFile(filepath.Join(w.project, "allowed.txt")); err != nil || string(data) != "allowed\n" {
		t.Errorf("allowed.txt = %q (%v), want %q: the allowed command did not run", data, err, "allowed\n")
	}
	awaitAnswered(t, stream, p.ID)
	if out, ok := w.api.CallOutput(w.callOf(t, allowMarker)); !ok || !strings.Contains(out.Text, "exited with code 0") {
		t.Errorf("the allowed call's output = %+v (found %v), want the command's exit 0", out, ok)
	}
	// The answer shows before the Stop hook reports the turn's end.
	events.waitFor(15*time.Second, "turn.end of the first turn", func(evs []event) bool {
		return anyEvent(forSession(evs, id), hasKind("turn.end"))
	})
	// attention flashes for a few seconds, then the session is idle.
	w.checkSessionState(ctx, t, id, "attention", "idle")

	// Deny.
	c.submit(denyTitle)
	p2 := w.awaitCodexRequest(ctx, t, stream, "echo denied > denied.txt", allowTitle, denyTitle, threadTitle)
	if p2.SessionID != id {
		t.Errorf("the second request is of session %s, want the TUI's %s", p2.SessionID, id)
	}
	if r := w.mustPerm(ctx, "deny", p2.ID, "--message", message); !strings.HasPrefix(r.stdout, "denied "+p2.ID) {
		t.Errorf("clawd permissions deny %s printed %q, want \"denied %s ...\"", p2.ID, r.stdout, p2.ID)
	}
	screen = c.waitScreen(regexp.MustCompile(regexp.QuoteMeta(denyDone)), 45*time.Second)
	if codexApproval.MatchString(screen) {
		t.Errorf("Codex's own approval prompt is up after clawd denied:\n%s", screen)
	}
	if !strings.Contains(screen, "Blocked by hook") {
		t.Logf("the screen does not show \"Blocked by hook\" (folded away?):\n%s", screen)
	}
	if _, err := os.Stat(filepath.Join(w.project, "denied.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("denied.txt exists (stat: %v): the denied command ran", err)
	}
	awaitAnswered(t, stream, p2.ID)
	if out, ok := w.api.CallOutput(w.callOf(t, denyMarker)); !ok || !strings.Contains(out.Text, message) {
		t.Errorf("the denied call's output = %+v (found %v), want the model told %q", out, ok, message)
	}
	if list := w.pendingPermissions(ctx); len(list) != 0 {
		t.Errorf("clawd permissions --json after both answers lists:\n%s", dumpPermissions(list))
	}

	evs := events.waitFor(15*time.Second, "the second turn.end", func(evs []event) bool {
		n := 0
		for _, e := range forSession(evs, id) {
			if e.Kind == "turn.end" {
				n++
			}
		}
		return n == 2
	})
	sess := forSession(evs, id)
	t.Logf("events: %v", sess)
	kinds := field(sess, func(e event) string { return e.Kind + ":" + e.State })
	want := []string{"prompt.submit:thinking", "tool.start:working", "permission.request:waiting", "tool.end:working",
		"turn.end:attention", "prompt.submit:thinking", "tool.start:working", "permission.request:waiting", "turn.end:attention"}
	if !subsequence(kinds, want) {
		t.Errorf("events %v, want %v in this order", kinds, want)
	}
	if n := len(filterEvents(sess, func(e event) bool { return e.Kind == "tool.end" })); n != 1 {
		t.Errorf("%d tool.end events, want 1 (none for the denied command)", n)
	}
	for _, e := range sess {
		if e.Agent != "codex" || e.Headless {
			t.Errorf("event of the TUI session not agent codex, or headless: %s", e.raw)
		}
	}
	checkPrivate(t, evs, allowDone, denyDone, "echo ")

	// The TUI quits; its daemon keeps the thread until it stops, and
	// then SessionEnd ends the session.
	if rc := c.quit(); rc != 0 {
		t.Errorf("codex exited %d after /quit, want 0", rc)
	}
	w.stopCodexDaemon()
	events.waitFor(15*time.Second, "session.end once the daemon stopped", func(evs []event) bool {
		return anyEvent(forSession(evs, id), hasKind("session.end"))
	})
	w.checkOffline(t, codexAnnouncementHost)
	w.uninstallCodex(ctx)
	events.close()
	serve.shutdown()
	t.Logf("TestCodexTUIPermissions took %v", time.Since(started).Round(time.Millisecond))
}

func filterEvents(evs []event, f func(event) bool) []event {
	var out []event
	for _, e := range evs {
		if f(e) {
			out = append(out, e)
		}
	}
	return out
}

// TestCodexTUINativeMode: with permission_mode = "native" for Codex, the
// hook leaves the decision to Codex: its own approval prompt comes up,
// clawd shows the session waiting without holding a request, and the
// person approves in the terminal.
func TestCodexTUINativeMode(t *testing.T) {
	started := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 180*time.Second)
	defer cancel()
	deadline, _ := ctx.Deadline()
	const (
		marker = "E2E_CODEX_NATIVE"
		title  = "Please " + marker + " now"
		done   = "Wrote native.txt after your approval."
	)
	w := newCodexWorld(t)
	w.startOpenAI(fakeopenai.Script{Conversations: []fakeopenai.Conversation{
		{Match: marker, Steps: []fakeopenai.Step{
			fakeopenai.ExecEscalated("echo native > native.txt", "Need to write native.txt"),
			fakeopenai.Text(done)}},
	}})
	if err := os.WriteFile(filepath.Join(w.clawdHome, "config.toml"), []byte("[agents.codex]\npermission_mode = \"native\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	serve := w.startServe()
	events := w.startEvents()
	events.sync(ctx)
	w.installCodex(ctx)

	c := w.startCodexTUI(deadline, title)
	start := time.Now()
	screen := c.waitScreen(codexApproval, 60*time.Second)
	t.Logf("Codex's approval prompt after %v:\n%s", time.Since(start).Round(time.Millisecond), screen)
	evs := events.waitFor(15*time.Second, "a codex session waiting", func(evs []event) bool {
		return anyEvent(evs, func(e event) bool { return e.Agent == "codex" && e.State == "waiting" })
	})
	var id string
	for _, e := range evs {
		if e.Agent == "codex" && e.State == "waiting" {
			id = e.SessionID
			if e.Kind != "permission.request" || e.ToolName != "Bash" {
				t.Errorf("waiting entered on %s, want permission.request for Bash", e.raw)
			}
			break
		}
	}
	// While Codex's prompt is up: clawd shows the session waiting and
	// holds nothing to answer.
	w.checkSessionState(ctx, t, id, "waiting")
	if list := w.pendingPermissions(ctx); len(list) != 0 {
		t.Errorf("clawd permissions --json in native mode lists:\n%s", dumpPermissions(list))
	}
	if s := c.Capture(); !codexApproval.MatchString(s) {
		t.Errorf("Codex's approval prompt went away by itself:\n%s", s)
	}

	// The person approves in the terminal.
	time.Sleep(500 * time.Millisecond)
	c.SendKeys("y")
	c.waitScreen(regexp.MustCompile(regexp.QuoteMeta(done)), 45*time.Second)
	if data, err := os.ReadFile(filepath.Join(w.project, "native.txt")); err != nil || string(data) != "native\n" {
		t.Errorf("native.txt = %q (%v), want %q: the command approved in Codex did not run", data, err, "native\n")
	}
	evs = events.waitFor(15*time.Second, "turn.end of the codex session", func(evs []event) bool {
		return anyEvent(forSession(evs, id), hasKind("turn.end"))
	})
	sess := forSession(evs, id)
	t.Logf("events: %v", sess)
	kinds := field(sess, func(e event) string { return e.Kind + ":" + e.State })
	if want := []string{"prompt.submit:thinking", "tool.start:working", "permission.request:waiting", "tool.end:working",
		"turn.end:attention"}; !subsequence(kinds, want) {
		t.Errorf("events %v, want %v in this order", kinds, want)
	}
	// attention flashes for a few seconds, then the session is idle.
	w.checkSessionState(ctx, t, id, "attention", "idle")

	if rc := c.quit(); rc != 0 {
		t.Errorf("codex exited %d after /quit, want 0", rc)
	}
	w.stopCodexDaemon()
	w.checkOffline(t, codexAnnouncementHost)
	w.uninstallCodex(ctx)
	events.close()
	serve.shutdown()
	t.Logf("TestCodexTUINativeMode took %v", time.Since(started).Round(time.Millisecond))
}
