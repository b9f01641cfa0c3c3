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
	"strings"
	"testing"
	"time"

	"github.com/clawdhq/clawd/internal/fakeopenai"
	"github.com/clawdhq/clawd/runtime/client"
)

// The Qwen Code tests drive the real Qwen Code CLI (scripts/install-agents.sh
// installs it) against internal/fakeopenai's Chat Completions on loopback:
// an OpenAI-compatible model provider in ~/.qwen/settings.json with the
// fake's base URL, and `clawd install qwen`'s hooks running this run's
// clawd.

// qwenVersion is the Qwen Code release the tests run (agentVersion): the
// pinned one, or the one scripts/drift.sh tries; the hook payloads the
// tests rely on are this version's (../shared/fixtures/qwen).
var qwenVersion = agentVersion("qwen")

// qwenAPIKey is what Qwen sends the fake as its bearer token (through the
// provider's envKey).
const qwenAPIKey = "sk-clawd-e2e-fake-qwen"

// qwenModel is the model id the provider names and the fake lists.
const qwenModel = "fake-model"

// qwenHookTimeouts are the events `clawd install qwen` registers, with
// their timeouts in seconds.
var qwenHookTimeouts = map[string]int{
	"SessionStart": 10, "SessionEnd": 10, "UserPromptSubmit": 10, "PermissionRequest": 600, "PreToolUse": 10,
	"PermissionDenied": 10, "PostToolUse": 10, "PostToolUseFailure": 10, "PostToolBatch": 10, "Notification": 10,
	"SubagentStart": 10, "SubagentStop": 10, "Stop": 10, "StopFailure": 10, "PreCompact": 10, "PostCompact": 10,
}

// qwenPath returns Qwen Code (a node script): $CLAWD_E2E_QWEN, else where
// scripts/install-agents.sh puts it.
func qwenPath(t *testing.T) string {
	t.Helper()
	return cachedCLI(t, "Qwen Code", qwenVersion, "CLAWD_E2E_QWEN", "qwen", "node_modules", ".bin", "qwen")
}

// qwenWorld is a world with a Qwen home and a fake OpenAI-compatible API.
type qwenWorld struct {
	*world
	qwenHome string // ~/.qwen of the world's home
	bin      string
	api      *fakeopenai.Server
	runs     int
	// userSettings is the settings.json the user had before clawd:
	// uninstall must give it back byte for byte.
	userSettings []byte
}

func newQwenWorld(t *testing.T) *qwenWorld {
	t.Helper()
	w := &qwenWorld{world: newWorld(t), bin: qwenPath(t)}
	checkCLIVersion(t, w.bin, qwenVersion)
	w.qwenHome = filepath.Join(w.home, ".qwen")
	if err := os.MkdirAll(w.qwenHome, 0o700); err != nil {
		t.Fatal(err)
	}
	return w
}

func (w *qwenWorld) settingsFile() string { return filepath.Join(w.qwenHome, "settings.json") }

// startQwenAPI starts the fake API and writes the user's settings for it.
func (w *qwenWorld) startQwenAPI(script fakeopenai.Script) {
	w.t.Helper()
	script.Model = qwenModel
	w.api = fakeopenai.New(script)
	w.api.Start()
	w.t.Cleanup(w.api.Close)
	data, err := json.MarshalIndent(qwenUserSettings(w.api.URL()+"/v1"), "", "  ")
	if err != nil {
		w.t.Fatal(err)
	}
	w.userSettings = append(data, '\n')
	if err := os.WriteFile(w.settingsFile(), w.userSettings, 0o600); err != nil {
		w.t.Fatal(err)
	}
}

// qwenUserSettings is a user's ~/.qwen/settings.json with an
// OpenAI-compatible provider at baseURL (its key in the environment), and
// Qwen kept offline and quiet: no usage statistics, telemetry or update
// checks, no feedback dialog, and no follow-up suggestion (Qwen asks the
// model for one after a turn and puts it in the input line, where it hides
// the placeholder the tests wait for). "$version" is Qwen's current one, as Qwen writes it at its first
// start: else it rewrites the file as it starts.
func qwenUserSettings(baseURL string) map[string]any {
	return map[string]any{
		"modelProviders": map[string]any{"openai": []any{map[string]any{
			"id": qwenModel, "name": qwenModel, "baseUrl": baseURL, "envKey": "OPENAI_API_KEY"}}},
		"security":  map[string]any{"auth": map[string]any{"selectedType": "openai"}},
		"model":     map[string]any{"name": qwenModel},
		"privacy":   map[string]any{"usageStatisticsEnabled": false},
		"telemetry": map[string]any{"enabled": false},
		"general":   map[string]any{"enableAutoUpdate": false, "disableAutoUpdate": true, "disableUpdateNag": true},
		"ui":        map[string]any{"enableFollowupSuggestions": false, "enableUserFeedback": false},
		"$version":  4,
	}
}

// isQwenHookCommand reports whether cmd runs this run's clawd binary
// (maybe quoted) as "hook qwen <event>".
func isQwenHookCommand(cmd, event string) bool {
	path, ok := strings.CutSuffix(cmd, " hook qwen "+event)
	return ok && strings.Trim(path, `"'`) == clawdBin
}

// installQwen runs `clawd install qwen` and checks what Qwen needs to run
// clawd's hooks: one command handler per event, naming its event, with its
// timeout in seconds, and the user's settings kept.
func (w *qwenWorld) installQwen(ctx context.Context) {
	w.t.Helper()
	r := w.mustClawd(ctx, "install", "qwen")
	w.t.Logf("clawd install qwen: %s", strings.TrimSpace(r.stdout))
	data, err := os.ReadFile(w.settingsFile())
	if err != nil {
		w.t.Fatal(err)
	}
	var s map[string]json.RawMessage
	if err := json.Unmarshal(data, &s); err != nil {
		w.t.Fatalf("settings.json after install: %v\n%s", err, data)
	}
	var user map[string]json.RawMessage
	if err := json.Unmarshal(w.userSettings, &user); err != nil {
		w.t.Fatal(err)
	}
	for k, v := range user {
		if !jsonEqual(string(v), string(s[k])) {
			w.t.Errorf("settings.json after install: %s = %s, want the user's %s", k, s[k], v)
		}
	}
	var hooks map[string][]hookGroup
	if err := json.Unmarshal(s["hooks"], &hooks); err != nil {
		w.t.Fatalf("settings.json after install: hooks: %v\n%s", err, data)
	}
	for ev, timeout := range qwenHookTimeouts {
		var found []int
		for _, g := range hooks[ev] {
			for _, h := range g.Hooks {
				if h.Type == "command" && isQwenHookCommand(h.Command, ev) {
					found = append(found, h.Timeout)
				}
			}
		}
		if len(found) != 1 || found[0] != timeout {
			w.t.Errorf("settings.json after install: %s has clawd handlers with timeouts %v, want one of %d", ev, found, timeout)
		}
	}
	if len(hooks) != len(qwenHookTimeouts) {
		w.t.Errorf("settings.json after install hooks %d events, want %d:\n%s", len(hooks), len(qwenHookTimeouts), data)
	}
}

// uninstallQwen runs `clawd uninstall qwen` and checks that settings.json
// is byte for byte what the user had.
func (w *qwenWorld) uninstallQwen(ctx context.Context) {
	w.t.Helper()
	w.mustClawd(ctx, "uninstall", "qwen")
	data, err := os.ReadFile(w.settingsFile())
	if err != nil {
		w.t.Fatalf("settings.json after uninstall: %v", err)
	}
	if string(data) != string(w.userSettings) {
		w.t.Errorf("settings.json after uninstall =\n%s\nwant the user's original\n%s", data, w.userSettings)
	}
	if _, err := os.Stat(w.settingsFile() + ".clawd-backup"); !errors.Is(err, os.ErrNotExist) {
		w.t.Errorf("the backup is still there after an exact restore (stat: %v)", err)
	}
}

// qwenEnv is the whole environment of qwen: offline against the fake API,
// HOME the world's, every proxy the fake (see proxyEnv).
func (w *qwenWorld) qwenEnv() []string {
	env := []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + w.home,
		"CLAWD_HOME=" + w.clawdHome,
		"OPENAI_API_KEY=" + qwenAPIKey,
		"TERM=xterm-256color",
		"LANG=C.UTF-8",
		"SHELL=/bin/bash",
		"XDG_RUNTIME_DIR=" + w.dir,
	}
	env = append(env, proxyEnv(w.api.URL())...)
	return append(env, raceEnv()...)
}

// qwenResult is a finished `qwen -p` run.
type qwenResult struct {
	result
	sessionID string // from --output-format json
	response  string
}

// runQwen runs `qwen -p prompt --output-format json` in the project
// folder, plus args (e.g. --approval-mode yolo).
func (w *qwenWorld) runQwen(ctx context.Context, prompt string, args ...string) qwenResult {
	w.t.Helper()
	w.runs++
	cmd := exec.CommandContext(ctx, w.bin, append([]string{"-p", prompt, "--output-format", "json"}, args...)...)
	cmd.Env = w.qwenEnv()
	cmd.Dir = w.project
	cmd.Stdin = strings.NewReader("")
	r := qwenResult{result: run(w.t, cmd)}
	var out []struct {
		Type      string `json:"type"`
		Subtype   string `json:"subtype"`
		SessionID string `json:"session_id"`
		Result    string `json:"result"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err == nil {
		for _, m := range out {
			if m.Type == "system" && m.Subtype == "init" {
				r.sessionID = m.SessionID
			}
			if m.Type == "result" {
				r.response = m.Result
			}
		}
	}
	w.t.Logf("qwen -p run %d: exit %d in %v, session %s", w.runs, r.code, r.dur.Round(time.Millisecond), r.sessionID)
	return r
}

// statusAtStep returns a BeforeReply that records `clawd status` for the
// qwen session once it shows want, before the conversation's step-th
// reply (or after 5 s), and the channel it arrives on.
func (w *world) statusAtStep(ctx context.Context, agent, marker string, step int, want string) (func(fakeopenai.Request), <-chan midTurn) {
	ch := make(chan midTurn, 1)
	return func(r fakeopenai.Request) {
		if r.Conversation != marker || r.Step != step || r.Kind != fakeopenai.KindTurn {
			return
		}
		deadline := time.Now().Add(5 * time.Second)
		for {
			st, ok := w.status(ctx)
			var s statusSession
			found := false
			for _, x := range st.Sessions {
				if x.Agent == agent {
					s, found = x, true
				}
			}
			if ok && found && s.State == want || time.Now().After(deadline) {
				select {
				case ch <- midTurn{found, s, st}:
				default:
				}
				return
			}
			time.Sleep(50 * time.Millisecond)
		}
	}, ch
}

// TestQwenHeadlessLifecycle: with `clawd install qwen`'s hooks, `qwen -p`
// in yolo mode runs one shell command and answers; the runtime shows the
// session thinking (titled by the prompt, in the project), then working,
// then done; the tool result going back to the model is no new turn. qwen
// -p sends no SessionEnd: the session goes once Qwen's launcher exited.
// Uninstall gives settings.json back byte for byte, and nothing tried to
// leave the machine.
func TestQwenHeadlessLifecycle(t *testing.T) {
	t.Parallel()
	started := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	const marker = "E2E_QWEN_HEADLESS"
	const title = "Please " + marker + " now"
	const command, final = "echo hello > out.txt", "Wrote hello to out.txt."
	w := newQwenWorld(t)
	before, mid := w.statusAtStep(ctx, "qwen", marker, 0, "thinking")
	w.startQwenAPI(fakeopenai.Script{BeforeReply: before, Conversations: []fakeopenai.Conversation{{Match: marker, Steps: []fakeopenai.Step{
		fakeopenai.Tool("run_shell_command", map[string]any{"command": command, "description": "write a file"}),
		fakeopenai.Text(final),
	}}}})
	serve := w.startServe()
	events := w.startEvents()
	events.sync(ctx)
	w.installQwen(ctx)

	res := w.runQwen(ctx, title+"\n"+secondLine, "--approval-mode", "yolo")
	if res.code != 0 || res.sessionID == "" || res.response != final {
		t.Fatalf("qwen -p: session %q, response %q; %s", res.sessionID, res.response, res.result)
	}
	if data, err := os.ReadFile(filepath.Join(w.project, "out.txt")); err != nil || string(data) != "hello\n" {
		t.Errorf("out.txt = %q (%v), want the tool's hello", data, err)
	}
	id := res.sessionID
	all := events.waitFor(15*time.Second, "turn.end of the qwen session", func(evs []event) bool {
		return anyEvent(forSession(evs, id), hasKind("turn.end"))
	})
	sess := forSession(all, id)
	t.Logf("events: %v", sess)
	kinds := field(sess, func(e event) string { return e.Kind })
	want := []string{"session.start", "session.setup", "prompt.submit", "tool.start", "tool.end", "tool.batch",
		"prompt.continue", "turn.end"}
	if !slices.Equal(kinds, want) {
		t.Errorf("event kinds %v, want exactly %v", kinds, want)
	}
	wantState := map[string]string{"session.start": "idle", "prompt.submit": "thinking", "tool.start": "working",
		"tool.end": "working", "tool.batch": "thinking", "prompt.continue": "thinking", "turn.end": "attention"}
	for _, e := range sess {
		if w, ok := wantState[e.Kind]; ok && e.State != w {
			t.Errorf("%s: state %q, want %q", e.Kind, e.State, w)
		}
		if e.Agent != "qwen" || e.Headless || e.HookEvent == "" || e.Time.IsZero() || e.Cwd != w.project {
			t.Errorf("event lacks agent qwen, hook_event, time or the project as cwd, or is headless: %s", e.raw)
		}
		// Only the prompt the person sent names the session.
		if e.Kind == "prompt.submit" && e.Title != title || e.Kind != "prompt.submit" && e.Title != "" {
			t.Errorf("%s: title %q", e.Kind, e.Title)
		}
		if (e.Kind == "tool.start" || e.Kind == "tool.end") && (e.ToolName != "run_shell_command" || !strings.HasPrefix(e.ToolUseID, "toolu_")) {
			t.Errorf("%s: tool %q id %q, want run_shell_command and Qwen's toolu_ id", e.Kind, e.ToolName, e.ToolUseID)
		}
	}
	checkPrivate(t, all, secondLine, command, final, "hello")
	select {
	case m := <-mid:
		if !m.found || m.sess.SessionID != id || m.sess.State != "thinking" || m.sess.Title != title || m.sess.Cwd != w.project {
			t.Errorf("clawd status as the model was asked = %+v (listed %v), want session %s thinking, title %q, cwd %q",
				m.sess, m.found, id, title, w.project)
		}
	default:
		t.Errorf("the fake model never got the first request: no mid-turn status")
	}

	// No SessionEnd in qwen -p: the runtime finds Qwen's launcher gone
	// (it checks every 10 s).
	deadline := time.Now().Add(25 * time.Second)
	for {
		st, ok := w.status(ctx)
		if _, found := st.session(id); ok && !found {
			break
		}
		if time.Now().After(deadline) {
			t.Errorf("clawd status still lists the qwen -p session 25 s after qwen exited: %+v", st)
			break
		}
		time.Sleep(200 * time.Millisecond)
	}

	calls := w.api.IssuedCalls(marker)
	if turns := w.api.OfKind(fakeopenai.KindTurn); len(turns) != 2 || len(calls) != 1 {
		t.Errorf("the fake saw %d turn requests and issued %v, want 2 and one call", len(turns), calls)
	} else if out, ok := w.api.CallOutput(calls[0].CallID); !ok || !strings.Contains(out.Text, "Exit Code: 0") {
		t.Errorf("the tool's output sent back = %+v (%v), want the command's exit code 0", out, ok)
	}
	checkOpenAIOffline(t, "qwen", w.api, qwenAPIKey)
	w.uninstallQwen(ctx)
	events.close()
	serve.shutdown()
	t.Logf("TestQwenHeadlessLifecycle took %v (qwen -p %v)", time.Since(started).Round(time.Millisecond), res.dur.Round(time.Millisecond))
}

var (
	// qwenReady is the placeholder of the TUI's input line.
	qwenReady = regexp.MustCompile(`Type your message or @path/to/file`)
	// qwenBusy is the hint under the input line while a turn runs.
	qwenBusy = regexp.MustCompile(`Enter to steer`)
	// qwenDialog is Qwen's own approval dialog.
	qwenDialog = regexp.MustCompile(`Allow execution of|Waiting for user confirmation`)
)

// qwenTUI is Qwen Code's TUI under tmux in a qwen world.
type qwenTUI struct {
	*tmux
	w *qwenWorld
}

// startQwenTUI starts `qwen --approval-mode default` (the TUI's own
// default, auto, asks the fake model to classify calls) in the project
// folder and waits for its input line. Waits end by deadline.
func (w *qwenWorld) startQwenTUI(deadline time.Time) *qwenTUI {
	w.t.Helper()
	c := &qwenTUI{tmux: startTmux(w.t, w.project, 160, 50, w.qwenEnv(), []string{w.bin, "--approval-mode", "default"}), w: w}
	c.deadline = deadline
	c.WaitFor(qwenReady, 60*time.Second)
	return c
}

// submit types a prompt once no turn runs, waits until it shows, then
// presses Enter as a key of its own (else it is taken as pasted).
func (c *qwenTUI) submit(prompt string) {
	c.t.Helper()
	c.waitIdle()
	c.Type(prompt)
	c.WaitFor(regexp.MustCompile(regexp.QuoteMeta(prompt)), 10*time.Second)
	time.Sleep(300 * time.Millisecond)
	c.SendKeys("Enter")
}

// waitIdle waits until the input line is there and no turn runs.
func (c *qwenTUI) waitIdle() {
	c.t.Helper()
	end := time.Now().Add(30 * time.Second)
	for {
		s := c.Capture()
		if qwenReady.MatchString(s) && !qwenBusy.MatchString(s) {
			return
		}
		if time.Now().After(end) {
			c.t.Fatalf("Qwen's input line is not free within 30 s:\n%s", s)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// quit types /quit and waits for the TUI to end; it returns the exit code.
func (c *qwenTUI) quit() int {
	c.t.Helper()
	c.waitIdle()
	c.Type("/quit")
	c.WaitFor(regexp.MustCompile(`/quit`), 10*time.Second)
	time.Sleep(300 * time.Millisecond)
	c.SendKeys("Enter")
	return c.WaitExit(30 * time.Second)
}

// awaitRequest waits until `clawd permissions --json` lists one pending
// run_shell_command request of a qwen session whose summary holds command,
// checks what the list and the change stream say about it, and that Qwen
// shows no dialog of its own meanwhile: it waits for the hook.
func (c *qwenTUI) awaitRequest(ctx context.Context, t *testing.T, stream *permStream, command, title string) client.PermissionView {
	t.Helper()
	w := c.w
	start := time.Now()
	list := w.waitPermissions(ctx, 60*time.Second, "pending qwen request for "+command, func(l []client.PermissionView) bool {
		return slices.ContainsFunc(l, func(p client.PermissionView) bool {
			return p.Agent == "qwen" && strings.Contains(p.Summary, command)
		})
	})
	if len(list) != 1 {
		t.Fatalf("clawd permissions --json lists, want one request of the qwen session:\n%s", dumpPermissions(list))
	}
	p := list[0]
	t.Logf("listed after %v: %s", time.Since(start).Round(time.Millisecond), dumpPermissions(list))
	if p.ID == "" || p.Kind != client.KindPermission || p.Tool != "run_shell_command" || p.Summary != command ||
		p.State != "pending" || p.Headless || p.SessionID == "" || p.Title != title || p.Cwd != w.project {
		t.Errorf("listed request = %+v, want kind permission, run_shell_command %q, pending, not headless, title %q, cwd %q",
			p, command, title, w.project)
	}
	if _, ok := stream.await(10*time.Second, func(chs []permChange) bool {
		return slices.ContainsFunc(chs, func(c permChange) bool { return c.Type == "added" && c.Permission.ID == p.ID })
	}); !ok {
		t.Errorf("the permission change stream shows no \"added\" for %s", p.ID)
	}
	if s := c.Capture(); qwenDialog.MatchString(s) {
		t.Errorf("Qwen shows its own dialog while clawd holds the request:\n%s", s)
	}
	return p
}

// sessionState checks `clawd status --json` lists qwen session id in one
// of the states want.
func (w *qwenWorld) checkSessionState(ctx context.Context, t *testing.T, id string, want ...string) {
	t.Helper()
	st, ok := w.status(ctx)
	if !ok {
		return
	}
	if s, found := st.session(id); !found || !slices.Contains(want, s.State) || s.Agent != "qwen" || s.Headless {
		t.Errorf("clawd status lists session %s as %+v (listed %v), want qwen, %v, not headless", id, s, found, want)
	}
}

// TestQwenTUIPermissions: in the interactive TUI, Qwen asks clawd first
// (PermissionRequest) and shows no dialog while it waits; `clawd
// permissions allow` runs the command, `clawd permissions deny --message`
// blocks the next one and Qwen gives the model the message. /quit ends the
// session; uninstall gives settings.json back byte for byte.
func TestQwenTUIPermissions(t *testing.T) {
	t.Parallel()
	started := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 240*time.Second)
	defer cancel()
	deadline, _ := ctx.Deadline()
	const (
		allowMarker = "E2E_QWEN_ALLOW"
		denyMarker  = "E2E_QWEN_DENY"
		allowTitle  = "Please " + allowMarker + " now"
		denyTitle   = "Please " + denyMarker + " now"
		allowCmd    = "touch allowed.txt"
		denyCmd     = "touch denied.txt"
		allowDone   = "Created allowed.txt as approved."
		denyDone    = "Understood, I did not create denied.txt."
		message     = "not this one, thanks"
	)
	w := newQwenWorld(t)
	w.startQwenAPI(fakeopenai.Script{Conversations: []fakeopenai.Conversation{
		shellTurn("run_shell_command", allowMarker, allowCmd, allowDone),
		shellTurn("run_shell_command", denyMarker, denyCmd, denyDone),
	}})
	serve := w.startServe()
	stream := w.followPermissions(ctx, serve)
	events := w.startEvents()
	events.sync(ctx)
	w.installQwen(ctx)

	// Allow.
	c := w.startQwenTUI(deadline)
	c.submit(allowTitle)
	p := c.awaitRequest(ctx, t, stream, allowCmd, allowTitle)
	id := p.SessionID
	w.checkSessionState(ctx, t, id, "waiting")
	if r := w.mustPerm(ctx, "allow", p.ID); !strings.HasPrefix(r.stdout, "allowed "+p.ID) {
		t.Errorf("clawd permissions allow %s printed %q, want \"allowed %s ...\"", p.ID, r.stdout, p.ID)
	}
	screen := c.WaitFor(regexp.MustCompile(regexp.QuoteMeta(allowDone)), 60*time.Second)
	if qwenDialog.MatchString(screen) {
		t.Errorf("Qwen's own dialog is up after clawd allowed:\n%s", screen)
	}
	if _, err := os.Stat(filepath.Join(w.project, "allowed.txt")); err != nil {
		t.Errorf("allowed.txt: %v: the allowed command did not run", err)
	}
	awaitAnswered(t, stream, p.ID)
	allowCall := w.api.IssuedCalls(allowMarker)
	if len(allowCall) != 1 {
		t.Fatalf("the fake model issued %v in %s, want one call", allowCall, allowMarker)
	}
	if out, ok := w.api.CallOutput(allowCall[0].CallID); !ok || !strings.Contains(out.Text, "Exit Code: 0") {
		t.Errorf("the allowed call's output = %+v (found %v), want the command's exit code 0", out, ok)
	}
	events.waitFor(15*time.Second, "turn.end of the first turn", func(evs []event) bool {
		return anyEvent(forSession(evs, id), hasKind("turn.end"))
	})
	w.checkSessionState(ctx, t, id, "attention", "idle")

	// Deny.
	c.submit(denyTitle)
	p2 := c.awaitRequest(ctx, t, stream, denyCmd, allowTitle)
	if p2.SessionID != id {
		t.Errorf("the second request is of session %s, want the TUI's %s", p2.SessionID, id)
	}
	if r := w.mustPerm(ctx, "deny", p2.ID, "--message", message); !strings.HasPrefix(r.stdout, "denied "+p2.ID) {
		t.Errorf("clawd permissions deny %s printed %q, want \"denied %s ...\"", p2.ID, r.stdout, p2.ID)
	}
	screen = c.WaitFor(regexp.MustCompile(regexp.QuoteMeta(denyDone)), 60*time.Second)
	if qwenDialog.MatchString(screen) {
		t.Errorf("Qwen's own dialog is up after clawd denied:\n%s", screen)
	}
	if _, err := os.Stat(filepath.Join(w.project, "denied.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("denied.txt exists (stat: %v): the denied command ran", err)
	}
	awaitAnswered(t, stream, p2.ID)
	denyCall := w.api.IssuedCalls(denyMarker)
	if len(denyCall) != 1 {
		t.Fatalf("the fake model issued %v in %s, want one call", denyCall, denyMarker)
	}
	if out, ok := w.api.CallOutput(denyCall[0].CallID); !ok || !strings.Contains(out.Text, message) {
		t.Errorf("the denied call's output = %+v (found %v), want the model told %q", out, ok, message)
	}
	if list := w.pendingPermissions(ctx); len(list) != 0 {
		t.Errorf("clawd permissions --json after both answers lists:\n%s", dumpPermissions(list))
	}

	if rc := c.quit(); rc != 0 {
		t.Errorf("qwen exited %d after /quit, want 0", rc)
	}
	evs := events.waitFor(15*time.Second, "session.end after /quit", func(evs []event) bool {
		return anyEvent(forSession(evs, id), hasKind("session.end"))
	})
	sess := forSession(evs, id)
	t.Logf("events: %v", sess)
	kinds := field(sess, func(e event) string { return e.Kind + ":" + e.State })
	want := []string{"session.start:idle", "prompt.submit:thinking", "permission.request:waiting", "tool.start:working",
		"tool.end:working", "prompt.continue:thinking", "turn.end:attention", "prompt.submit:thinking",
		"permission.request:waiting", "prompt.continue:thinking", "turn.end:attention"}
	if !subsequence(kinds, want) {
		t.Errorf("events %v, want %v in this order", kinds, want)
	}
	if n := len(filterEvents(sess, func(e event) bool { return e.Kind == "tool.start" })); n != 1 {
		t.Errorf("%d tool.start events, want 1 (none for the denied command)", n)
	}
	for _, e := range sess {
		if e.Agent != "qwen" || e.Headless || e.Cwd != w.project {
			t.Errorf("event of the TUI session not agent qwen in the project, or headless: %s", e.raw)
		}
	}
	checkPrivate(t, evs, allowDone, denyDone, message)
	w.checkEndedSession(ctx, t, id)
	checkOpenAIOffline(t, "qwen", w.api, qwenAPIKey)
	w.uninstallQwen(ctx)
	stream.stop()
	events.close()
	serve.shutdown()
	t.Logf("TestQwenTUIPermissions took %v", time.Since(started).Round(time.Millisecond))
}
