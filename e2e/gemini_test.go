//go:build !windows

package e2e

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/internal/fakegemini"
)

// The Gemini tests drive the real Gemini CLI (scripts/install-agents.sh
// installs it) against internal/fakegemini on loopback, with API-key auth
// and GOOGLE_GEMINI_BASE_URL pointing at the fake. Gemini's home is
// ~/.gemini of the world's home, where `clawd install gemini` puts its
// hooks; the runtime is the world's `clawd serve --headless`.

// geminiVersion is the Gemini CLI release the tests run (agentVersion):
// the pinned one, or the one scripts/drift.sh tries; the hook payloads and
// screens the tests rely on are this version's
// (../shared/fixtures/gemini).
var geminiVersion = agentVersion("gemini")

// geminiAPIKey is what Gemini sends the fake as x-goog-api-key.
const geminiAPIKey = "clawd-e2e-fake-gemini-key"

// geminiPath returns the Gemini CLI (a node script): $CLAWD_E2E_GEMINI,
// else where scripts/install-agents.sh puts it.
func geminiPath(t *testing.T) string {
	t.Helper()
	return cachedCLI(t, "Gemini CLI", geminiVersion, "CLAWD_E2E_GEMINI", "gemini", "node_modules", ".bin", "gemini")
}

// geminiWorld is a world with a Gemini home and a fake Gemini API.
type geminiWorld struct {
	*world
	geminiHome string // ~/.gemini of the world's home
	bin        string
	api        *fakegemini.Server
	runs       int
}

func newGeminiWorld(t *testing.T) *geminiWorld {
	t.Helper()
	w := &geminiWorld{world: newWorld(t), bin: geminiPath(t)}
	checkCLIVersion(t, w.bin, geminiVersion)
	w.geminiHome = filepath.Join(w.home, ".gemini")
	if err := os.MkdirAll(w.geminiHome, 0o700); err != nil {
		t.Fatal(err)
	}
	return w
}

// geminiUserSettings is a person's ~/.gemini/settings.json, JSON with
// comments as Gemini allows, that keeps Gemini offline and quiet: API-key
// auth (the base URL comes from the environment), no telemetry, usage
// statistics or update checks, no tips or banner on the screen. clawd
// install must keep every byte of it, and uninstall give it back.
const geminiUserSettings = `// My Gemini CLI settings: JSON with comments.
{
  "security": { "auth": { "selectedType": "gemini-api-key" } }, // the key is in the environment
  /* nothing leaves this machine */
  "privacy": { "usageStatisticsEnabled": false },
  "telemetry": { "enabled": false },
  "general": {
    "enableAutoUpdate": false,
    "enableAutoUpdateNotification": false // no nagging
  },
  "ui": { "hideTips": true, "hideBanner": true }
  // the end
}
`

// startGeminiAPI starts the fake API, writes the person's settings and
// trusts the project: Gemini runs no hooks at all in an untrusted folder.
func (w *geminiWorld) startGeminiAPI(script fakegemini.Script) {
	w.t.Helper()
	w.api = fakegemini.New(script)
	w.api.Start()
	w.t.Cleanup(w.api.Close)
	if err := os.WriteFile(w.settingsFile(), []byte(geminiUserSettings), 0o600); err != nil {
		w.t.Fatal(err)
	}
	w.trustProject("TRUST_FOLDER")
}

func (w *geminiWorld) settingsFile() string { return filepath.Join(w.geminiHome, "settings.json") }

// trustProject records the person's answer to Gemini's trust dialog for
// the project folder: TRUST_FOLDER, or DO_NOT_TRUST.
func (w *geminiWorld) trustProject(level string) {
	w.t.Helper()
	data, _ := json.Marshal(map[string]string{w.project: level})
	if err := os.WriteFile(filepath.Join(w.geminiHome, "trustedFolders.json"), data, 0o600); err != nil {
		w.t.Fatal(err)
	}
}

// installGemini runs `clawd install gemini` and checks the settings: the
// person's bytes all there, and one handler per event clawd registers,
// named clawd, running this run's clawd with the event, its timeout in
// milliseconds; `clawd agents` agrees that the hooks are in place.
func (w *geminiWorld) installGemini(ctx context.Context) {
	w.t.Helper()
	r := w.mustClawd(ctx, "install", "gemini")
	w.t.Logf("clawd install gemini: %s", strings.TrimSpace(r.stdout))
	data, err := os.ReadFile(w.settingsFile())
	if err != nil {
		w.t.Fatal(err)
	}
	// Every line of the person's, comments included, in order; the last
	// member before clawd's "hooks" gains a comma.
	noComma := func(s string) []string {
		lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
		for i, l := range lines {
			lines[i] = strings.TrimSuffix(l, ",")
		}
		return lines
	}
	if !subsequence(noComma(string(data)), noComma(geminiUserSettings)) {
		w.t.Errorf("settings.json after install lost lines of the person's settings:\n%s", data)
	}
	for _, h := range agents.Gemini.Hooks {
		handler := `"name": "clawd",
            "type": "command",
            "command": "` + clawdBin + ` hook gemini ` + h.Event + `",
            "timeout": 10000`
		if n := strings.Count(string(data), handler); n != 1 {
			w.t.Errorf("settings.json has %d clawd handlers for %s, want 1 like\n%s\nin:\n%s", n, h.Event, handler, data)
		}
	}
	type agentInfo struct {
		ID        string `json:"id"`
		Installed bool   `json:"installed"`
	}
	var list []agentInfo
	out := w.mustClawd(ctx, "agents", "--json")
	if err := json.Unmarshal([]byte(out.stdout), &list); err != nil {
		w.t.Fatalf("clawd agents --json: %v\n%s", err, out.stdout)
	}
	if i := slices.IndexFunc(list, func(a agentInfo) bool { return a.ID == "gemini" }); i < 0 || !list[i].Installed {
		w.t.Errorf("clawd agents --json after install: %s, want gemini installed", out.stdout)
	}
}

// uninstallGemini runs `clawd uninstall gemini` and checks that the
// person's settings are back byte for byte, comments and all, and the
// backup is gone.
func (w *geminiWorld) uninstallGemini(ctx context.Context) {
	w.t.Helper()
	w.mustClawd(ctx, "uninstall", "gemini")
	data, err := os.ReadFile(w.settingsFile())
	if err != nil || string(data) != geminiUserSettings {
		w.t.Errorf("settings.json after uninstall = %q (%v), want the person's original byte for byte", data, err)
	}
	if _, err := os.Stat(w.settingsFile() + ".clawd-backup"); !os.IsNotExist(err) {
		w.t.Errorf("the backup is still there after a clean uninstall (stat: %v)", err)
	}
}

// geminiEnv is the whole environment of gemini: offline against the fake
// API, HOME the world's, every proxy the fake (see proxyEnv), and the
// world's clawd home, where the hooks find the runtime.
func (w *geminiWorld) geminiEnv() []string {
	env := []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + w.home,
		"CLAWD_HOME=" + w.clawdHome,
		"GEMINI_API_KEY=" + geminiAPIKey,
		"GOOGLE_GEMINI_BASE_URL=" + w.api.URL(),
		"TERM=xterm-256color",
		"COLORTERM=truecolor",
		"LANG=C.UTF-8",
		"SHELL=/bin/bash",
		"XDG_RUNTIME_DIR=" + w.dir,
	}
	env = append(env, proxyEnv(w.api.URL())...)
	return append(env, raceEnv()...)
}

// geminiResult is a finished `gemini -p` run.
type geminiResult struct {
	result
	sessionID string // from --output-format json
	response  string
}

// runGemini runs `gemini -p prompt --output-format json` in the project
// folder, plus args (e.g. --approval-mode yolo).
func (w *geminiWorld) runGemini(ctx context.Context, prompt string, args ...string) geminiResult {
	w.t.Helper()
	w.runs++
	cmd := exec.CommandContext(ctx, w.bin, append([]string{"-p", prompt, "--output-format", "json"}, args...)...)
	cmd.Env = w.geminiEnv()
	cmd.Dir = w.project
	cmd.Stdin = strings.NewReader("")
	r := geminiResult{result: run(w.t, cmd)}
	var out struct {
		SessionID string `json:"session_id"`
		Response  string `json:"response"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err == nil {
		r.sessionID, r.response = out.SessionID, out.Response
	}
	w.t.Logf("gemini -p run %d: exit %d in %v, session %s", w.runs, r.code, r.dur.Round(time.Millisecond), r.sessionID)
	return r
}

// checkGeminiOffline checks that Gemini asked the fake for nothing but
// model replies (and token counts), with its API key, and tried no other
// host, which the fake, its proxy, would have refused.
func (w *geminiWorld) checkGeminiOffline(t *testing.T) {
	t.Helper()
	for _, r := range w.api.Requests() {
		switch {
		case r.Kind == fakegemini.KindOutbound:
			t.Errorf("something under gemini tried to reach %s %s (refused by the fake proxy)", r.Method, r.Path)
		case r.Kind == fakegemini.KindOther:
			t.Errorf("gemini asked the fake API for %s %s", r.Method, r.Path)
		case r.APIKey != geminiAPIKey:
			t.Errorf("gemini sent %s %s with key %q, want %q", r.Method, r.Path, r.APIKey, geminiAPIKey)
		}
	}
}

// geminiShellTurn: run_shell_command runs command, then the answer.
func geminiShellTurn(marker, command, final string) fakegemini.Conversation {
	return fakegemini.Conversation{Match: marker, Steps: []fakegemini.Step{
		fakegemini.Shell(command, "write a file"),
		fakegemini.Text(final),
	}}
}

// geminiShellHash is the fingerprint clawd gives a run_shell_command call
// of command (the tool input geminiShellTurn has the model send).
func geminiShellHash(t *testing.T, command string) string {
	t.Helper()
	// As Gemini's JSON.stringify writes it: no HTML escaping.
	var in strings.Builder
	enc := json.NewEncoder(&in)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(map[string]string{"command": command, "description": "write a file"}); err != nil {
		t.Fatal(err)
	}
	return agents.Fingerprint("gemini", "run_shell_command", []byte(in.String()))
}

// collapse returns evs with runs of the same event cut to one: Gemini
// fires AfterModel per streamed chunk, Qwen MessageDisplay per chunk that
// arrives apart.
func collapse(evs []string) []string { return slices.Compact(slices.Clone(evs)) }

// eventField is a string field of an event of `clawd events --json` that
// the event type does not name (input_hash, source, ...).
func eventField(t *testing.T, e event, key string) string {
	t.Helper()
	var v map[string]any
	if err := json.Unmarshal([]byte(e.raw), &v); err != nil {
		t.Fatalf("event %s: %v", e.raw, err)
	}
	s, _ := v[key].(string)
	return s
}

// geminiSession returns the one Gemini session `clawd status` lists.
func geminiSession(st status) (statusSession, bool) {
	for _, s := range st.Sessions {
		if s.Agent == "gemini" {
			return s, true
		}
	}
	return statusSession{}, false
}

// statusAtTurn returns a BeforeReply that records the Gemini session of
// `clawd status` when the fake is asked for the conversation's step-th
// reply, once it shows want (or after 5 s), and the channel it arrives on.
// Gemini waits for its hooks before it calls the model, so by then the
// runtime has every event before the call.
func (w *geminiWorld) statusAtTurn(ctx context.Context, marker string, step int, want string) (func(fakegemini.Request), <-chan midTurn) {
	ch := make(chan midTurn, 1)
	return func(r fakegemini.Request) {
		if r.Conversation != marker || r.Step != step || r.Kind != fakegemini.KindTurn {
			return
		}
		deadline := time.Now().Add(5 * time.Second)
		for {
			st, ok := w.status(ctx)
			s, found := geminiSession(st)
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

// TestGeminiHeadlessLifecycle: with `clawd install gemini`, `gemini -p`
// in yolo mode runs one shell command offline against the fake, and the
// runtime shows the session thinking (at the first model call), working
// (at the call after the tool ran), then done, with the project as its
// folder and the prompt as its title; the tool's start and end carry the
// same fingerprint, and no event carries the prompt's body, the command or
// the answer. `clawd uninstall gemini` gives the settings back byte for
// byte.
func TestGeminiHeadlessLifecycle(t *testing.T) {
	t.Parallel()
	started := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	const marker = "E2E_GEMINI_HEADLESS"
	const title = "Please " + marker + " now"
	const command, final = "echo hello > out.txt", "Wrote hello to out.txt."
	w := newGeminiWorld(t)
	var script fakegemini.Script
	script.Conversations = []fakegemini.Conversation{geminiShellTurn(marker, command, final)}
	atFirst, first := w.statusAtTurn(ctx, marker, 0, "thinking")
	atSecond, second := w.statusAtTurn(ctx, marker, 1, "working")
	script.BeforeReply = func(r fakegemini.Request) { atFirst(r); atSecond(r) }
	w.startGeminiAPI(script)

	serve := w.startServe()
	events := w.startEvents()
	events.sync(ctx)
	w.installGemini(ctx)

	res := w.runGemini(ctx, title+"\n"+secondLine, "--approval-mode", "yolo")
	if res.code != 0 || res.sessionID == "" || res.response != final {
		t.Fatalf("gemini -p: session %q, response %q; %s", res.sessionID, res.response, res.result)
	}
	if data, err := os.ReadFile(filepath.Join(w.project, "out.txt")); err != nil || string(data) != "hello\n" {
		t.Errorf("out.txt = %q (%v), want the tool's hello", data, err)
	}
	id := res.sessionID

	// Gemini does not wait for its SessionEnd hook.
	all := events.waitFor(15*time.Second, "session.end of the gemini session", func(evs []event) bool {
		return anyEvent(forSession(evs, id), hasKind("session.end"))
	})
	sess := forSession(all, id)
	t.Logf("events: %v", sess)
	wantHooks := []string{"SessionStart", "BeforeAgent", "BeforeTool", "AfterTool", "AfterAgent", "SessionEnd"}
	if got := field(sess, func(e event) string { return e.HookEvent }); !slices.Equal(got, wantHooks) {
		t.Errorf("hook events %v, want exactly %v (the events clawd registers, in Gemini's order)", got, wantHooks)
	}
	wantKinds := []string{"session.start", "prompt.submit", "tool.start", "tool.end", "turn.end", "session.end"}
	wantStates := []string{"idle", "thinking", "working", "working", "attention", "sleeping"}
	if got := field(sess, func(e event) string { return e.Kind }); !slices.Equal(got, wantKinds) {
		t.Errorf("event kinds %v, want %v", got, wantKinds)
	}
	if got := field(sess, func(e event) string { return e.State }); !slices.Equal(got, wantStates) {
		t.Errorf("states %v, want %v: thinking, working, done", got, wantStates)
	}
	for _, e := range sess {
		if e.Agent != "gemini" || e.Cwd != w.project || e.Time.IsZero() {
			t.Errorf("event lacks agent gemini, the project as cwd, or a time: %s", e.raw)
		}
		if e.Kind == "prompt.submit" && e.Title != title || e.Kind != "prompt.submit" && e.Title != "" {
			t.Errorf("%s: title %q, want %q on the prompt only", e.Kind, e.Title, title)
		}
		if strings.HasPrefix(e.Kind, "tool.") {
			if h := eventField(t, e, "input_hash"); e.ToolName != "run_shell_command" || h != geminiShellHash(t, command) {
				t.Errorf("%s: tool %q input_hash %q, want run_shell_command with the call's fingerprint %s",
					e.Kind, e.ToolName, h, geminiShellHash(t, command))
			}
		}
	}
	checkPrivate(t, all, secondLine, "hello", command, final)

	for name, m := range map[string]<-chan midTurn{"the first model call": first, "the call after the tool ran": second} {
		select {
		case m := <-m:
			want := map[string]string{"the first model call": "thinking", "the call after the tool ran": "working"}[name]
			if !m.found || m.sess.SessionID != id || m.sess.State != want || m.sess.Title != title || m.sess.Cwd != w.project {
				t.Errorf("clawd status at %s = %+v (listed %v), want session %s %s, title %q, cwd %q",
					name, m.sess, m.found, id, want, title, w.project)
			}
		default:
			t.Errorf("the fake never got %s: no mid-turn status", name)
		}
	}
	w.checkEndedSession(ctx, t, id)
	if turns := w.api.OfKind(fakegemini.KindTurn); len(turns) != 2 || turns[0].Conversation != marker || turns[1].Step != 1 {
		t.Errorf("the fake saw %d turn requests (%+v), want 2 of %s", len(turns), turns, marker)
	}
	if rs := w.api.FunctionResponses("run_shell_command"); len(rs) != 1 {
		t.Errorf("function responses of run_shell_command = %+v, want one", rs)
	}
	w.checkGeminiOffline(t)

	w.uninstallGemini(ctx)
	events.close()
	serve.shutdown()
	t.Logf("TestGeminiHeadlessLifecycle took %v (gemini -p %v)", time.Since(started).Round(time.Millisecond), res.dur.Round(time.Millisecond))
}

var (
	// geminiReady is the TUI's empty input line.
	geminiReady = regexp.MustCompile(`Type your message`)
	// geminiToolDialog is Gemini's own confirmation of a shell command.
	geminiToolDialog = regexp.MustCompile(`Allow execution of`)
)

// geminiTUI is the interactive Gemini CLI under tmux in a Gemini world.
type geminiTUI struct {
	*tmux
	w *geminiWorld
}

// startGeminiTUI starts the interactive `gemini` in the project folder,
// plus args, and waits for its input line. Waits end by deadline.
func (w *geminiWorld) startGeminiTUI(deadline time.Time, args ...string) *geminiTUI {
	w.t.Helper()
	c := &geminiTUI{tmux: startTmux(w.t, w.project, 160, 50, w.geminiEnv(), append([]string{w.bin}, args...)), w: w}
	c.deadline = deadline
	start := time.Now()
	c.WaitFor(geminiReady, 60*time.Second)
	w.t.Logf("interactive gemini ready after %v", time.Since(start).Round(time.Millisecond))
	return c
}

// submit types a prompt, waits until it shows, then presses Enter as a
// separate key (else the TUI takes it as part of a paste).
func (c *geminiTUI) submit(prompt string) {
	c.t.Helper()
	c.Type(prompt)
	c.WaitFor(regexp.MustCompile(regexp.QuoteMeta(prompt)), 10*time.Second)
	time.Sleep(300 * time.Millisecond)
	c.SendKeys("Enter")
}

// quit types /quit and waits for the TUI to end; it returns the exit code.
func (c *geminiTUI) quit() int {
	c.t.Helper()
	// Generous: with the whole suite running, Gemini's node process can
	// take tens of seconds to settle and to shut down.
	c.WaitFor(geminiReady, 60*time.Second)
	c.Type("/quit")
	c.WaitFor(regexp.MustCompile(`/quit`), 10*time.Second)
	time.Sleep(300 * time.Millisecond)
	c.SendKeys("Enter")
	return c.WaitExit(90 * time.Second)
}

// TestGeminiTUIToolPermission: the interactive Gemini in its default
// approval mode asks before a shell command that changes files. While its
// own dialog is on the screen, clawd shows the session waiting (from
// Gemini's Notification hook) and answers nothing; the person allows in
// the terminal, the command runs, the session works on and the turn ends
// done. A refused call fires no hook: waiting until the next prompt. /quit
// ends the session (Gemini fires SessionEnd twice: the second changes
// nothing).
func TestGeminiTUIToolPermission(t *testing.T) {
	t.Parallel()
	started := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Second)
	defer cancel()
	deadline, _ := ctx.Deadline()
	const marker = "E2E_GEMINI_TUI"
	const title = "Please " + marker + " now"
	const command, final = "touch hooked.txt", "Created hooked.txt."
	w := newGeminiWorld(t)
	const refuse, refused = "E2E_GEMINI_REFUSE", "refused.txt"
	const after, afterAnswer = "E2E_GEMINI_AFTER", "Fine, nothing then."
	w.startGeminiAPI(fakegemini.Script{Conversations: []fakegemini.Conversation{
		geminiShellTurn(marker, command, final),
		geminiShellTurn(refuse, "touch "+refused, "unreachable"),
		{Match: after, Steps: []fakegemini.Step{fakegemini.Text(afterAnswer)}},
	}})
	serve := w.startServe()
	events := w.startEvents()
	events.sync(ctx)
	w.installGemini(ctx)

	tui := w.startGeminiTUI(deadline)
	all := events.waitFor(30*time.Second, "session.start of the gemini session", func(evs []event) bool {
		return anyEvent(evs, func(e event) bool { return e.Agent == "gemini" && e.Kind == "session.start" })
	})
	var id string
	for _, e := range all {
		if e.Agent == "gemini" {
			id = e.SessionID
			if eventField(t, e, "source") != "startup" || e.State != "idle" {
				t.Errorf("first gemini event %s, want session.start from startup, idle", e.raw)
			}
			break
		}
	}
	tui.submit(title)

	all = events.waitFor(60*time.Second, "the dialog's notification", func(evs []event) bool {
		return anyEvent(forSession(evs, id), hasKind("notification"))
	})
	screen := tui.WaitFor(geminiToolDialog, 30*time.Second)
	if !strings.Contains(screen, command) {
		t.Errorf("the dialog does not show the command %q:\n%s", command, screen)
	}
	st, _ := w.status(ctx)
	if s, found := st.session(id); !found || s.State != "waiting" || s.Title != title || s.Cwd != w.project {
		t.Errorf("clawd status with Gemini's dialog up = %+v (listed %v), want waiting, title %q, cwd %q",
			s, found, title, w.project)
	}
	// The display follows once thinking and working had their second.
	for end := time.Now().Add(5 * time.Second); st.DisplayState != "waiting" && time.Now().Before(end); {
		time.Sleep(50 * time.Millisecond)
		st, _ = w.status(ctx)
	}
	if st.DisplayState != "waiting" {
		t.Errorf("clawd status display with Gemini's dialog up = %q, want waiting", st.DisplayState)
	}
	// clawd registered no request it could answer: Gemini's dialog is the
	// only place to answer.
	if r := w.mustClawd(ctx, "permissions", "--json"); strings.Contains(r.stdout, id) {
		t.Errorf("clawd permissions lists a request of the gemini session: %s", r.stdout)
	}
	if _, err := os.Stat(filepath.Join(w.project, "hooked.txt")); !os.IsNotExist(err) {
		t.Errorf("hooked.txt exists before the dialog was answered (stat: %v)", err)
	}

	tui.SendKeys("Enter") // 1. Allow once
	all = events.waitFor(60*time.Second, "turn.end of the gemini session", func(evs []event) bool {
		return anyEvent(forSession(evs, id), hasKind("turn.end"))
	})
	if _, err := os.Stat(filepath.Join(w.project, "hooked.txt")); err != nil {
		t.Errorf("hooked.txt after allowing: %v", err)
	}
	sess := forSession(all, id)
	t.Logf("events: %v", sess)
	wantKinds := []string{"session.start", "prompt.submit", "tool.start", "notification", "tool.end", "turn.end"}
	wantStates := []string{"idle", "thinking", "working", "waiting", "working", "attention"}
	if got := field(sess, func(e event) string { return e.Kind }); !slices.Equal(got, wantKinds) {
		t.Errorf("event kinds %v, want %v", got, wantKinds)
	}
	if got := field(sess, func(e event) string { return e.State }); !slices.Equal(got, wantStates) {
		t.Errorf("states %v, want %v: waiting while the dialog is up, working once allowed, then done", got, wantStates)
	}
	for _, e := range sess {
		if e.Cwd != w.project || e.Headless {
			t.Errorf("event of the TUI session: cwd %q, headless %v; want the project, attended: %s", e.Cwd, e.Headless, e.raw)
		}
	}
	checkPrivate(t, all, command, final)
	if turns := w.api.OfKind(fakegemini.KindTurn); len(turns) != 2 {
		t.Errorf("the fake saw %d turn requests, want 2: the call, then the answer after the tool ran", len(turns))
	}

	// A refusal in Gemini's dialog fires no hook at all: the session
	// shows waiting until the person's next prompt, which clears it.
	seen := len(forSession(all, id))
	tui.WaitFor(geminiReady, 30*time.Second)
	tui.submit("Please " + refuse + " now")
	events.waitFor(60*time.Second, "the second dialog's notification", func(evs []event) bool {
		return len(slices.DeleteFunc(forSession(evs, id), func(e event) bool { return e.Kind != "notification" })) == 2
	})
	tui.WaitFor(geminiToolDialog, 30*time.Second)
	tui.SendKeys("Escape") // 3. No, suggest changes (esc)
	tui.WaitFor(regexp.MustCompile(`Request cancelled`), 30*time.Second)
	if st, _ := w.status(ctx); func() bool { s, found := st.session(id); return !found || s.State != "waiting" }() {
		t.Errorf("clawd status after a refusal in Gemini's dialog = %+v, want still waiting (Gemini reports no refusal)", st.Sessions)
	}
	tui.submit("Please " + after + " now")
	all = events.waitFor(60*time.Second, "turn.end of the prompt after the refusal", func(evs []event) bool {
		return len(slices.DeleteFunc(forSession(evs, id), func(e event) bool { return e.Kind != "turn.end" })) == 2
	})
	sess = forSession(all, id)[seen:]
	t.Logf("events from the refusal on: %v", sess)
	wantKinds = []string{"prompt.submit", "tool.start", "notification", "prompt.submit", "turn.end"}
	wantStates = []string{"thinking", "working", "waiting", "thinking", "attention"}
	if got := field(sess, func(e event) string { return e.Kind }); !slices.Equal(got, wantKinds) {
		t.Errorf("event kinds from the refusal on %v, want %v: nothing between the dialog and the next prompt", got, wantKinds)
	}
	if got := field(sess, func(e event) string { return e.State }); !slices.Equal(got, wantStates) {
		t.Errorf("states from the refusal on %v, want %v", got, wantStates)
	}
	if _, err := os.Stat(filepath.Join(w.project, refused)); !os.IsNotExist(err) {
		t.Errorf("%s exists although the call was refused (stat: %v)", refused, err)
	}

	if rc := tui.quit(); rc != 0 {
		t.Errorf("gemini exited %d after /quit, want 0", rc)
	}
	// /quit fires SessionEnd twice (two shutdown paths); the CLI does not
	// wait for either. The first ends the session, the second finds none.
	all = events.waitFor(15*time.Second, "two session.end events", func(evs []event) bool {
		return len(slices.DeleteFunc(forSession(evs, id), func(e event) bool { return e.Kind != "session.end" })) >= 2
	})
	for _, e := range forSession(all, id) {
		if e.Kind == "session.end" && e.State != "sleeping" {
			t.Errorf("session.end: state %q, want sleeping: %s", e.State, e.raw)
		}
	}
	w.checkEndedSession(ctx, t, id)
	w.checkGeminiOffline(t)

	w.uninstallGemini(ctx)
	events.close()
	serve.shutdown()
	t.Logf("TestGeminiTUIToolPermission took %v", time.Since(started).Round(time.Millisecond))
}

// TestGeminiUntrustedFolder: in a folder the person told Gemini not to
// trust, Gemini runs no hook at all, clawd's included: a whole turn goes
// by and the runtime hears nothing of the session, and `clawd agents`
// says why. The same folder with trust skipped for one run (--skip-trust)
// shows the session: the installed hooks work, trust alone decides.
func TestGeminiUntrustedFolder(t *testing.T) {
	t.Parallel()
	started := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Second)
	defer cancel()
	deadline, _ := ctx.Deadline()
	const marker, answer = "E2E_GEMINI_UNTRUSTED", "Nothing to do here."
	w := newGeminiWorld(t)
	w.startGeminiAPI(fakegemini.Script{Conversations: []fakegemini.Conversation{
		{Match: marker, Steps: []fakegemini.Step{fakegemini.Text(answer)}},
	}})
	w.trustProject("DO_NOT_TRUST")
	serve := w.startServe()
	events := w.startEvents()
	events.sync(ctx)
	w.installGemini(ctx)

	tui := w.startGeminiTUI(deadline)
	tui.WaitFor(regexp.MustCompile(`This folder is untrusted, project settings, hooks`), 10*time.Second)
	tui.submit("Please " + marker + " now")
	tui.WaitFor(regexp.MustCompile(regexp.QuoteMeta(answer)), 60*time.Second)
	// Gemini waits for its BeforeAgent hooks before it calls the model,
	// and a clawd hook has handed its event to the runtime before it
	// exits: had one run, its event would be in the stream before the
	// probe that follows.
	if turns := w.api.OfKind(fakegemini.KindTurn); len(turns) != 1 || turns[0].Conversation != marker {
		t.Fatalf("the fake saw turn requests %+v, want the untrusted session's one", turns)
	}
	events.sync(ctx)
	for _, e := range events.snapshot() {
		if e.Agent == "gemini" {
			t.Errorf("an event of the untrusted gemini session reached clawd: %s", e.raw)
		}
	}
	if st, ok := w.status(ctx); ok {
		if s, found := geminiSession(st); found {
			t.Errorf("clawd status lists a gemini session from the untrusted folder: %+v", s)
		}
	}
	r := w.mustClawd(ctx, "agents")
	if !strings.Contains(r.stdout, "Gemini runs no hooks at all in a folder you have not trusted: clawd cannot see those sessions") {
		t.Errorf("clawd agents does not say why untrusted Gemini sessions are missing:\n%s", r.stdout)
	}

	// The same folder, trust skipped for one headless run.
	res := w.runGemini(ctx, "Please "+marker+" again", "--skip-trust")
	if res.code != 0 || res.sessionID == "" || res.response != answer {
		t.Fatalf("gemini -p --skip-trust: session %q, response %q; %s", res.sessionID, res.response, res.result)
	}
	all := events.waitFor(15*time.Second, "session.end of the trusted run", func(evs []event) bool {
		return anyEvent(forSession(evs, res.sessionID), hasKind("session.end"))
	})
	if got := field(forSession(all, res.sessionID), func(e event) string { return e.Kind }); !slices.Equal(got,
		[]string{"session.start", "prompt.submit", "turn.end", "session.end"}) {
		t.Errorf("events of the --skip-trust run: %v, want the whole session", got)
	}
	w.checkGeminiOffline(t)

	w.uninstallGemini(ctx)
	events.close()
	serve.shutdown()
	t.Logf("TestGeminiUntrustedFolder took %v", time.Since(started).Round(time.Millisecond))
}
