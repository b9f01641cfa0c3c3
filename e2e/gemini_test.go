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

	"github.com/clawdhq/clawd/internal/fakegemini"
)

// The Gemini tests drive the real Gemini CLI (scripts/install-agents.sh
// installs it) against internal/fakegemini on loopback, with API-key auth
// and GOOGLE_GEMINI_BASE_URL pointing at the fake. Gemini's home is
// ~/.gemini of the world's home. Until clawd knows Gemini, its hooks are a
// hookRecorder.

// geminiVersion is the Gemini CLI release scripts/install-agents.sh
// installs; the hook payloads and screens the tests rely on are this
// version's (../shared/fixtures/gemini).
const geminiVersion = "0.61.0"

// geminiAPIKey is what Gemini sends the fake as x-goog-api-key.
const geminiAPIKey = "clawd-e2e-fake-gemini-key"

// geminiEvents are Gemini CLI's 11 hook events.
var geminiEvents = []string{"SessionStart", "SessionEnd", "BeforeAgent", "AfterAgent", "BeforeModel", "AfterModel",
	"BeforeToolSelection", "BeforeTool", "AfterTool", "PreCompress", "Notification"}

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

// startGeminiAPI starts the fake API and writes the user's settings for
// it, with extra top-level keys (hooks, ...) on top, and trusts the
// project: Gemini runs no hooks at all in an untrusted folder.
func (w *geminiWorld) startGeminiAPI(script fakegemini.Script, extra map[string]any) {
	w.t.Helper()
	w.api = fakegemini.New(script)
	w.api.Start()
	w.t.Cleanup(w.api.Close)
	w.writeGeminiSettings(extra)
	w.trustProject()
}

func (w *geminiWorld) settingsFile() string { return filepath.Join(w.geminiHome, "settings.json") }

// geminiUserSettings is a user's ~/.gemini/settings.json that keeps Gemini
// offline and quiet: API-key auth (the base URL comes from the
// environment), no telemetry, usage statistics or update checks, no tips
// or banner on the screen.
func geminiUserSettings() map[string]any {
	return map[string]any{
		"security":  map[string]any{"auth": map[string]any{"selectedType": "gemini-api-key"}},
		"privacy":   map[string]any{"usageStatisticsEnabled": false},
		"telemetry": map[string]any{"enabled": false},
		"general":   map[string]any{"enableAutoUpdate": false, "enableAutoUpdateNotification": false},
		"ui":        map[string]any{"hideTips": true, "hideBanner": true},
	}
}

// writeGeminiSettings writes the user's settings with extra on top.
func (w *geminiWorld) writeGeminiSettings(extra map[string]any) {
	w.t.Helper()
	s := geminiUserSettings()
	for k, v := range extra {
		s[k] = v
	}
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		w.t.Fatal(err)
	}
	if err := os.WriteFile(w.settingsFile(), append(data, '\n'), 0o600); err != nil {
		w.t.Fatal(err)
	}
}

// trustProject marks the project folder trusted, as the CLI's own trust
// dialog does.
func (w *geminiWorld) trustProject() {
	w.t.Helper()
	data, _ := json.Marshal(map[string]string{w.project: "TRUST_FOLDER"})
	if err := os.WriteFile(filepath.Join(w.geminiHome, "trustedFolders.json"), data, 0o600); err != nil {
		w.t.Fatal(err)
	}
}

// geminiHooks is the settings' hooks block that runs command(event) on
// every event, timeouts in milliseconds.
func geminiHooks(command func(event string) string) map[string]any {
	hooks := map[string]any{}
	for _, ev := range geminiEvents {
		hooks[ev] = []any{map[string]any{"matcher": "*", "hooks": []any{map[string]any{
			"name": "e2e-recorder", "type": "command", "command": command(ev), "timeout": 30000}}}}
	}
	return map[string]any{"hooksConfig": map[string]any{"enabled": true, "notifications": true}, "hooks": hooks}
}

// geminiEnv is the whole environment of gemini: offline against the fake
// API, HOME the world's, every proxy the fake (see proxyEnv).
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

// geminiShellTurn: run_shell_command writes out.txt, then the answer.
func geminiShellTurn(marker, command, final string) fakegemini.Conversation {
	return fakegemini.Conversation{Match: marker, Steps: []fakegemini.Step{
		fakegemini.Shell(command, "write a file"),
		fakegemini.Text(final),
	}}
}

// geminiHeadlessEvents is the order of hook events of `gemini -p` in yolo
// mode with one tool call (fixture headless-yolo-shell). PreCompress fires
// before every model call, compressing or not.
var geminiHeadlessEvents = []string{"SessionStart", "BeforeAgent",
	"PreCompress", "BeforeModel", "BeforeToolSelection", "AfterModel", "BeforeTool", "AfterTool",
	"PreCompress", "BeforeModel", "BeforeToolSelection", "AfterModel", "AfterAgent", "SessionEnd"}

// collapse returns evs with runs of the same event cut to one: Gemini
// fires AfterModel per streamed chunk, Qwen MessageDisplay per chunk that
// arrives apart.
func collapse(evs []string) []string { return slices.Compact(slices.Clone(evs)) }

// TestGeminiHeadlessHooks: `gemini -p` in yolo mode, offline against the
// fake, runs one shell command and answers; every hook event fires in the
// fixture's order with the session's id and cwd, the tool's name and
// input, and nothing tries to leave the machine.
func TestGeminiHeadlessHooks(t *testing.T) {
	t.Parallel()
	started := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	const marker = "E2E_GEMINI_HEADLESS"
	const command, final = "echo hello > out.txt", "Wrote hello to out.txt."
	w := newGeminiWorld(t)
	rec := w.newHookRecorder()
	w.startGeminiAPI(fakegemini.Script{Conversations: []fakegemini.Conversation{geminiShellTurn(marker, command, final)}},
		geminiHooks(rec.command))

	res := w.runGemini(ctx, "Please "+marker+" now", "--approval-mode", "yolo")
	if res.code != 0 || res.sessionID == "" || res.response != final {
		t.Fatalf("gemini -p: session %q, response %q; %s", res.sessionID, res.response, res.result)
	}
	if data, err := os.ReadFile(filepath.Join(w.project, "out.txt")); err != nil || string(data) != "hello\n" {
		t.Errorf("out.txt = %q (%v), want the tool's hello", data, err)
	}
	// Gemini does not wait for its SessionEnd hook.
	calls := rec.waitFor(15*time.Second, "SessionEnd hook", hasEvent("SessionEnd"))
	t.Logf("hook events: %v", callEvents(calls))
	if got := collapse(callEvents(calls)); !slices.Equal(got, geminiHeadlessEvents) {
		t.Errorf("hook events (AfterModel runs cut to one) = %v, want %v", got, geminiHeadlessEvents)
	}
	checkPayloads(t, calls, "session_id", res.sessionID, "cwd", w.project)
	for _, c := range calls {
		if got := c.str("hook_event_name"); got != c.Event {
			t.Errorf("%s: hook_event_name = %q", c.Event, got)
		}
		if tp := c.str("transcript_path"); !strings.HasPrefix(tp, filepath.Join(w.geminiHome, "tmp")+"/") {
			t.Errorf("%s: transcript_path = %q, want a file under %s/tmp", c.Event, tp, w.geminiHome)
		}
		if _, err := time.Parse(time.RFC3339, c.str("timestamp")); err != nil {
			t.Errorf("%s: timestamp %q is not ISO-8601: %v", c.Event, c.str("timestamp"), err)
		}
		if c.Env["GEMINI_SESSION_ID"] != res.sessionID || c.Env["GEMINI_PROJECT_DIR"] != w.project ||
			c.Env["CLAUDE_PROJECT_DIR"] != w.project {
			t.Errorf("%s: env GEMINI_SESSION_ID %q GEMINI_PROJECT_DIR %q CLAUDE_PROJECT_DIR %q, want the session and the project",
				c.Event, c.Env["GEMINI_SESSION_ID"], c.Env["GEMINI_PROJECT_DIR"], c.Env["CLAUDE_PROJECT_DIR"])
		}
	}
	byEvent := func(ev string) hookCall {
		cs := ofEvent(calls, ev)
		if len(cs) == 0 {
			t.Fatalf("no %s call", ev)
		}
		return cs[0]
	}
	if got := byEvent("SessionStart").str("source"); got != "startup" {
		t.Errorf("SessionStart source = %q, want startup", got)
	}
	if got := byEvent("BeforeAgent").str("prompt"); got != "Please "+marker+" now" {
		t.Errorf("BeforeAgent prompt = %q", got)
	}
	for _, ev := range []string{"BeforeTool", "AfterTool"} {
		c := byEvent(ev)
		if c.str("tool_name") != "run_shell_command" || c.str("tool_input.command") != command {
			t.Errorf("%s: tool_name %q, tool_input.command %q; want run_shell_command, %q", ev, c.str("tool_name"), c.str("tool_input.command"), command)
		}
	}
	// AfterModel fires per streamed chunk, and AfterAgent's
	// prompt_response repeats the last chunk's text (0.61.0 joins the
	// chunks, then adds the last once more): "Wrote hello to out.txt.  to
	// out.txt." for this two-chunk reply. The answer printed is right.
	if got := byEvent("AfterAgent").str("prompt_response"); !strings.HasPrefix(got, final) {
		t.Errorf("AfterAgent prompt_response = %q, want it to start with %q", got, final)
	}
	if n := len(ofEvent(calls, "AfterModel")); n != 3 {
		t.Errorf("%d AfterModel calls, want 3: one for the call's chunk, one per chunk of the two-chunk answer", n)
	}
	if got := byEvent("SessionEnd").str("reason"); got != "exit" {
		t.Errorf("SessionEnd reason = %q, want exit", got)
	}
	if got := byEvent("PreCompress").str("trigger"); got != "auto" {
		t.Errorf("PreCompress trigger = %q, want auto", got)
	}

	// The fake ran the turn: the call, then the answer after the tool's
	// output came back.
	turns := w.api.OfKind(fakegemini.KindTurn)
	if len(turns) != 2 || turns[0].Conversation != marker || turns[1].Step != 1 {
		t.Errorf("the fake saw %d turn requests (%+v), want 2 of %s", len(turns), turns, marker)
	}
	if rs := w.api.FunctionResponses("run_shell_command"); len(rs) != 1 {
		t.Errorf("function responses of run_shell_command = %+v, want one", rs)
	}
	w.checkGeminiOffline(t)
	t.Logf("TestGeminiHeadlessHooks took %v (gemini -p %v)", time.Since(started).Round(time.Millisecond), res.dur.Round(time.Millisecond))
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
	c.WaitFor(geminiReady, 30*time.Second)
	c.Type("/quit")
	c.WaitFor(regexp.MustCompile(`/quit`), 10*time.Second)
	time.Sleep(300 * time.Millisecond)
	c.SendKeys("Enter")
	return c.WaitExit(30 * time.Second)
}

// TestGeminiTUIToolPermission: the interactive Gemini in its default
// approval mode asks before a shell command that changes files: the
// Notification(ToolPermission) hook fires with the dialog on the screen,
// Enter allows once, the command runs and the turn ends (AfterAgent);
// /quit ends the session.
func TestGeminiTUIToolPermission(t *testing.T) {
	t.Parallel()
	started := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Second)
	defer cancel()
	deadline, _ := ctx.Deadline()
	const marker = "E2E_GEMINI_TUI"
	const command, final = "touch hooked.txt", "Created hooked.txt."
	w := newGeminiWorld(t)
	rec := w.newHookRecorder()
	w.startGeminiAPI(fakegemini.Script{Conversations: []fakegemini.Conversation{geminiShellTurn(marker, command, final)}},
		geminiHooks(rec.command))

	tui := w.startGeminiTUI(deadline)
	start := rec.waitFor(30*time.Second, "SessionStart hook", hasEvent("SessionStart"))
	id := start[0].str("session_id")
	if got := start[0].str("source"); got != "startup" || id == "" {
		t.Errorf("SessionStart source %q session %q, want startup and an id", got, id)
	}
	prompt := "Please " + marker + " now"
	tui.submit(prompt)

	calls := rec.waitFor(60*time.Second, "Notification hook", hasEvent("Notification"))
	n := ofEvent(calls, "Notification")[0]
	if n.str("notification_type") != "ToolPermission" || n.str("details.type") != "exec" || n.str("details.command") != command {
		t.Errorf("Notification = %s, want ToolPermission for exec %q", n.Payload, command)
	}
	screen := tui.WaitFor(geminiToolDialog, 30*time.Second)
	if !strings.Contains(screen, command) {
		t.Errorf("the dialog does not show the command %q:\n%s", command, screen)
	}
	if _, err := os.Stat(filepath.Join(w.project, "hooked.txt")); !os.IsNotExist(err) {
		t.Errorf("hooked.txt exists before the dialog was answered (stat: %v)", err)
	}
	tui.SendKeys("Enter") // 1. Allow once

	calls = rec.waitFor(60*time.Second, "AfterAgent hook", hasEvent("AfterAgent"))
	if _, err := os.Stat(filepath.Join(w.project, "hooked.txt")); err != nil {
		t.Errorf("hooked.txt after allowing: %v", err)
	}
	want := []string{"SessionStart", "BeforeAgent", "PreCompress", "BeforeModel", "BeforeToolSelection", "AfterModel",
		"BeforeTool", "Notification", "AfterTool", "PreCompress", "BeforeModel", "BeforeToolSelection", "AfterModel", "AfterAgent"}
	if got := collapse(callEvents(calls)); !slices.Equal(got, want) {
		t.Errorf("hook events up to AfterAgent (AfterModel runs cut to one) = %v, want %v (fixture interactive-shell-confirm)", got, want)
	}
	checkPayloads(t, calls, "session_id", id, "cwd", w.project)
	if got := ofEvent(calls, "AfterAgent")[0].str("prompt_response"); !strings.HasPrefix(got, final) {
		t.Errorf("AfterAgent prompt_response = %q, want it to start with %q", got, final)
	}

	if rc := tui.quit(); rc != 0 {
		t.Errorf("gemini exited %d after /quit, want 0", rc)
	}
	// /quit fires SessionEnd twice (two shutdown paths); the CLI does not
	// wait for either.
	calls = rec.waitFor(15*time.Second, "two SessionEnd hooks", func(calls []hookCall) bool {
		return len(ofEvent(calls, "SessionEnd")) >= 2
	})
	for _, c := range ofEvent(calls, "SessionEnd") {
		if c.str("reason") != "exit" || c.str("session_id") != id {
			t.Errorf("SessionEnd = %s, want reason exit of session %s", c.Payload, id)
		}
	}
	if turns := w.api.OfKind(fakegemini.KindTurn); len(turns) != 2 {
		t.Errorf("the fake saw %d turn requests, want 2", len(turns))
	}
	w.checkGeminiOffline(t)
	t.Logf("TestGeminiTUIToolPermission took %v", time.Since(started).Round(time.Millisecond))
}
