//go:build !windows

package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/clawdhq/clawd/internal/fakeopenai"
	"github.com/clawdhq/clawd/runtime/client"
)

// The opencode tests drive the real opencode (scripts/install-agents.sh
// installs it) against internal/fakeopenai's Chat Completions on
// loopback: a custom OpenAI-compatible provider in opencode.json. opencode
// has no command hooks: `clawd install opencode` writes clawd's plugin, a
// JS file in the config folder's plugin/ that opencode loads and hands
// every bus event, which runs `clawd hook opencode <event>`.

// opencodeVersion is the opencode release the tests run (agentVersion):
// the pinned one, or the one scripts/drift.sh tries; the plugin events the
// tests rely on are this version's (../shared/fixtures/opencode).
var opencodeVersion = agentVersion("opencode")

// opencodeAPIKey is what opencode sends the fake as its bearer token.
const opencodeAPIKey = "sk-clawd-e2e-fake-opencode"

// opencodePath returns opencode (the native binary npm's postinstall
// linked): $CLAWD_E2E_OPENCODE, else where scripts/install-agents.sh puts
// it.
func opencodePath(t *testing.T) string {
	t.Helper()
	return cachedCLI(t, "opencode", opencodeVersion, "CLAWD_E2E_OPENCODE", "opencode", "node_modules", ".bin", "opencode")
}

// opencodeWorld is a world with an opencode config folder and a fake
// OpenAI-compatible API.
type opencodeWorld struct {
	*world
	configDir string // $XDG_CONFIG_HOME/opencode of the world's home
	bin       string
	api       *fakeopenai.Server
	runs      int
}

func newOpencodeWorld(t *testing.T) *opencodeWorld {
	t.Helper()
	w := &opencodeWorld{world: newWorld(t), bin: opencodePath(t)}
	checkCLIVersion(t, w.bin, opencodeVersion)
	w.configDir = filepath.Join(w.home, ".config", "opencode")
	if err := os.MkdirAll(filepath.Join(w.configDir, "plugin"), 0o700); err != nil {
		t.Fatal(err)
	}
	return w
}

// startOpencodeAPI starts the fake API and writes the user's opencode.json
// for it, with permission as its permission rules (nil: opencode's
// defaults).
func (w *opencodeWorld) startOpencodeAPI(script fakeopenai.Script, permission map[string]any) {
	w.t.Helper()
	w.api = fakeopenai.New(script)
	w.api.Start()
	w.t.Cleanup(w.api.Close)
	cfg := opencodeUserConfig(w.api.URL() + "/v1")
	if permission != nil {
		cfg["permission"] = permission
	}
	data, err := json.MarshalIndent(cfg, "", "  ")
	if err != nil {
		w.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(w.configDir, "opencode.json"), append(data, '\n'), 0o600); err != nil {
		w.t.Fatal(err)
	}
	w.pinPluginDeps()
}

// opencodeUserConfig is a user's opencode.json with a custom
// OpenAI-compatible provider "fake" at baseURL as the model (also for
// titles), and sharing and updates off.
func opencodeUserConfig(baseURL string) map[string]any {
	return map[string]any{
		"$schema":     "https://opencode.ai/config.json",
		"autoupdate":  false,
		"share":       "disabled",
		"model":       "fake/" + fakeopenai.DefaultModel,
		"small_model": "fake/" + fakeopenai.DefaultModel,
		"provider": map[string]any{"fake": map[string]any{
			"npm":     "@ai-sdk/openai-compatible",
			"name":    "Fake",
			"options": map[string]any{"baseURL": baseURL, "apiKey": opencodeAPIKey},
			"models":  map[string]any{fakeopenai.DefaultModel: map[string]any{"name": "Fake Model", "tool_call": true}},
		}},
	}
}

// pinPluginDeps makes the config folder look like one whose dependencies
// are installed: at every start opencode otherwise runs an npm install of
// @opencode-ai/plugin there, in the background, which fails offline (the
// fake proxy refuses registry.npmjs.org). It skips it when node_modules
// exists and package-lock.json lists every dependency of package.json.
func (w *opencodeWorld) pinPluginDeps() {
	w.t.Helper()
	dep := map[string]string{"@opencode-ai/plugin": opencodeVersion}
	files := map[string]any{
		"package.json":      map[string]any{"dependencies": dep},
		"package-lock.json": map[string]any{"lockfileVersion": 3, "packages": map[string]any{"": map[string]any{"dependencies": dep}}},
	}
	for name, v := range files {
		data, _ := json.MarshalIndent(v, "", "  ")
		if err := os.WriteFile(filepath.Join(w.configDir, name), data, 0o600); err != nil {
			w.t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(w.configDir, "node_modules"), 0o700); err != nil {
		w.t.Fatal(err)
	}
}

// opencodeEnv is the whole environment of opencode: its XDG folders in the
// world's home, no models.dev catalog, update, share or LSP downloads, and
// every proxy the fake (see proxyEnv).
func (w *opencodeWorld) opencodeEnv() []string {
	env := []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + w.home,
		"CLAWD_HOME=" + w.clawdHome,
		"XDG_CONFIG_HOME=" + filepath.Join(w.home, ".config"),
		"XDG_DATA_HOME=" + filepath.Join(w.home, ".local", "share"),
		"XDG_CACHE_HOME=" + filepath.Join(w.home, ".cache"),
		"XDG_STATE_HOME=" + filepath.Join(w.home, ".local", "state"),
		"OPENCODE_DISABLE_MODELS_FETCH=1",
		"OPENCODE_DISABLE_AUTOUPDATE=1",
		"OPENCODE_DISABLE_LSP_DOWNLOAD=1",
		"OPENCODE_DISABLE_SHARE=1",
		"TERM=xterm-256color",
		"LANG=C.UTF-8",
		"SHELL=/bin/bash",
		"XDG_RUNTIME_DIR=" + w.dir,
	}
	env = append(env, proxyEnv(w.api.URL())...)
	return append(env, raceEnv()...)
}

// opencodeResult is a finished `opencode run`.
type opencodeResult struct {
	result
	sessionID string // from --format json
}

// runOpencode runs `opencode run --format json` with message in the
// project folder, plus args (e.g. --auto).
func (w *opencodeWorld) runOpencode(ctx context.Context, message string, args ...string) opencodeResult {
	w.t.Helper()
	w.runs++
	full := append(append([]string{"run", "--format", "json"}, args...), message)
	cmd := exec.CommandContext(ctx, w.bin, full...)
	cmd.Env = w.opencodeEnv()
	cmd.Dir = w.project
	cmd.Stdin = strings.NewReader("")
	r := opencodeResult{result: run(w.t, cmd)}
	sc := bufio.NewScanner(strings.NewReader(r.stdout))
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	for sc.Scan() {
		var ev struct {
			SessionID string `json:"sessionID"`
		}
		if json.Unmarshal(sc.Bytes(), &ev) == nil && ev.SessionID != "" && r.sessionID == "" {
			r.sessionID = ev.SessionID
		}
	}
	w.t.Logf("opencode run %d: exit %d in %v, session %s", w.runs, r.code, r.dur.Round(time.Millisecond), r.sessionID)
	return r
}

// pluginFile is where `clawd install opencode` puts clawd's plugin.
func (w *opencodeWorld) pluginFile() string { return filepath.Join(w.configDir, "plugin", "clawd.js") }

// installOpencode runs `clawd install opencode` and checks the plugin it
// wrote runs this clawd.
func (w *opencodeWorld) installOpencode(ctx context.Context) {
	w.t.Helper()
	r := w.mustClawd(ctx, "install", "opencode")
	if !strings.HasPrefix(r.stdout, "opencode: installed ") || !strings.Contains(r.stdout, w.pluginFile()) {
		w.t.Errorf("clawd install opencode printed %q, want it installed in %s", r.stdout, w.pluginFile())
	}
	data, err := os.ReadFile(w.pluginFile())
	if err != nil {
		w.t.Fatalf("the plugin after install: %v", err)
	}
	quoted, _ := json.Marshal(clawdBin)
	if !strings.Contains(string(data), "\nconst CLAWD = "+string(quoted)+"\n") {
		w.t.Errorf("the plugin does not run %s:\n%.600s", clawdBin, data)
	}
}

// uninstallOpencode runs `clawd uninstall opencode` and checks the plugin
// is gone and opencode's own files are as they were.
func (w *opencodeWorld) uninstallOpencode(ctx context.Context) {
	w.t.Helper()
	before, _ := os.ReadFile(filepath.Join(w.configDir, "opencode.json"))
	r := w.mustClawd(ctx, "uninstall", "opencode")
	if !strings.Contains(r.stdout, "deleted it") {
		w.t.Errorf("clawd uninstall opencode printed %q, want the plugin deleted", r.stdout)
	}
	if _, err := os.Stat(w.pluginFile()); !errors.Is(err, os.ErrNotExist) {
		w.t.Errorf("the plugin is still there after uninstall (stat: %v)", err)
	}
	if after, _ := os.ReadFile(filepath.Join(w.configDir, "opencode.json")); string(after) != string(before) {
		w.t.Errorf("uninstall changed opencode.json")
	}
}

// checkHookLog fails the test when a hook logged a payload it could not
// decode: a plugin or extension of clawd's sends only what the decoder
// knows.
func (w *world) checkHookLog(t *testing.T) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(w.clawdHome, "logs", "hook.log"))
	if errors.Is(err, os.ErrNotExist) {
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if strings.Contains(line, "decode payload") || strings.Contains(line, "level=ERROR") {
			t.Errorf("hook.log: %s", line)
		}
	}
}

// kindStates are a session's events as kind:state.
func kindStates(evs []event) []string {
	return field(evs, func(e event) string { return e.Kind + ":" + e.State })
}

// TestOpencodeRun: with clawd's plugin installed, `opencode run` offline
// against the fake runs a shell command, then a subagent through the task
// tool, and answers. clawd follows it from the plugin alone: the session
// starts idle in the project, thinks under the prompt's title (the quotes
// `opencode run` wraps it in taken off), works on the command, juggles
// the subagent (its own session filed under the root), is done, takes
// opencode's own title, and ends when opencode exits; it is headless, as
// `opencode run` answers permissions itself. Uninstall removes the plugin.
func TestOpencodeRun(t *testing.T) {
	t.Parallel()
	started := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 180*time.Second)
	defer cancel()
	const (
		marker    = "E2E_OPENCODE_RUN"
		subMarker = "E2E_OPENCODE_SUB"
		command   = "echo hello > out.txt"
		final     = "Wrote hello to out.txt."
		subFinal  = "The subagent says hi."
		title     = "Write hello"
		message   = "Please " + marker + " now"
	)
	w := newOpencodeWorld(t)
	w.startOpencodeAPI(fakeopenai.Script{Title: title, Conversations: []fakeopenai.Conversation{
		{Match: marker, Steps: []fakeopenai.Step{
			fakeopenai.Tool("bash", map[string]any{"command": command, "description": "write a file"}),
			fakeopenai.Tool("task", map[string]any{"description": "greet", "prompt": "Say hi " + subMarker, "subagent_type": "general"}),
			fakeopenai.Text(final),
		}},
		{Match: subMarker, Steps: []fakeopenai.Step{fakeopenai.Text(subFinal)}},
	}}, nil)
	serve := w.startServe()
	events := w.startEvents()
	events.sync(ctx)
	w.installOpencode(ctx)

	res := w.runOpencode(ctx, message)
	if res.code != 0 || res.sessionID == "" || !strings.Contains(res.stdout, final) {
		t.Fatalf("opencode run: session %q; %s", res.sessionID, res.result)
	}
	if data, err := os.ReadFile(filepath.Join(w.project, "out.txt")); err != nil || string(data) != "hello\n" {
		t.Errorf("out.txt = %q (%v), want the tool's hello", data, err)
	}
	id := res.sessionID
	evs := events.waitFor(15*time.Second, "session.end of the run", func(evs []event) bool {
		return anyEvent(forSession(evs, id), hasKind("session.end"))
	})
	sess := forSession(evs, id)
	t.Logf("events: %v", sess)
	// opencode reports the child session before the task tool runs.
	want := []string{"session.start:idle", "prompt.submit:thinking", "tool.start:working", "tool.end:working",
		"subagent.start:juggling", "tool.start:juggling", "prompt.submit:juggling", "subagent.stop:working",
		"tool.end:working", "turn.end:attention", "session.end:sleeping"}
	if got := kindStates(sess); !subsequence(got, want) {
		t.Errorf("events %v, want %v in this order", got, want)
	}
	issued := w.api.IssuedCalls(marker)
	if len(issued) != 2 || issued[0].Name != "bash" || issued[1].Name != "task" {
		t.Fatalf("the fake model issued %+v, want bash then task", issued)
	}
	var tools []string
	for _, e := range sess {
		if e.Kind == "tool.start" || e.Kind == "tool.end" {
			tools = append(tools, e.Kind+":"+e.ToolName+":"+e.ToolUseID)
		}
	}
	wantTools := []string{"tool.start:bash:" + issued[0].CallID, "tool.end:bash:" + issued[0].CallID,
		"tool.start:task:" + issued[1].CallID, "tool.end:task:" + issued[1].CallID}
	if !slices.Equal(tools, wantTools) {
		t.Errorf("tool events %v, want %v", tools, wantTools)
	}
	var titles []string
	for _, e := range sess {
		if e.Cwd != w.project || e.Agent != "opencode" || !e.Headless {
			t.Errorf("event not opencode's, headless, in the project: %s", e.raw)
		}
		if e.Kind == "subagent.start" || e.Kind == "subagent.stop" {
			if sub := gjson.Get(e.raw, "subagent_id").String(); !strings.HasPrefix(sub, "ses_") || sub == id {
				t.Errorf("%s names subagent %q, want the child session", e.Kind, sub)
			}
		}
		if e.Title != "" {
			titles = append(titles, e.Kind+":"+e.Title)
		}
	}
	if !subsequence(titles, []string{"prompt.submit:" + message}) || !slices.Contains(titles, "session.update:"+title) {
		t.Errorf("titles %v, want the prompt's (no quotes), then opencode's %q", titles, title)
	}
	if n := len(filterEvents(evs, func(e event) bool { return e.Agent == "opencode" && e.SessionID != id })); n != 0 {
		t.Errorf("%d opencode events of other sessions: the subagent's must be filed under its root", n)
	}
	checkPrivate(t, evs, final, subFinal, "echo ", "hello > out")
	w.checkEndedSession(ctx, t, id)
	w.checkHookLog(t)
	checkOpenAIOffline(t, "opencode", w.api, opencodeAPIKey)

	w.uninstallOpencode(ctx)
	events.close()
	serve.shutdown()
	t.Logf("TestOpencodeRun took %v (opencode run %v)", time.Since(started).Round(time.Millisecond), res.dur.Round(time.Millisecond))
}

var (
	// opencodeHome is the TUI's start screen, ready for a first prompt.
	opencodeHome = regexp.MustCompile(`Ask anything`)
	// opencodeAsk is opencode's own permission prompt.
	opencodeAsk = regexp.MustCompile(`Permission required`)
)

// opencodeTUI is the opencode TUI running under tmux in an opencode world.
type opencodeTUI struct {
	*tmux
	w *opencodeWorld
}

// startOpencodeTUI starts `opencode` (the TUI) in the project folder and
// waits for its start screen. Waits end by deadline.
func (w *opencodeWorld) startOpencodeTUI(deadline time.Time) *opencodeTUI {
	w.t.Helper()
	c := &opencodeTUI{tmux: startTmux(w.t, w.project, 160, 50, w.opencodeEnv(), []string{w.bin}), w: w}
	c.deadline = deadline
	start := time.Now()
	c.WaitFor(opencodeHome, 150*time.Second)
	w.t.Logf("the opencode TUI was ready after %v", time.Since(start).Round(time.Millisecond))
	return c
}

// submit types a prompt, waits until it shows, then presses Enter as a
// separate key.
func (c *opencodeTUI) submit(prompt string) {
	c.t.Helper()
	c.Type(prompt)
	c.WaitFor(regexp.MustCompile(regexp.QuoteMeta(prompt)), 10*time.Second)
	time.Sleep(300 * time.Millisecond)
	c.SendKeys("Enter")
}

// quit presses Ctrl-C twice, as the harness's person does, and returns
// the exit code.
func (c *opencodeTUI) quit() int {
	c.t.Helper()
	c.SendKeys("C-c")
	time.Sleep(time.Second)
	if _, ok := c.await(exitedRe, time.Second); !ok {
		c.SendKeys("C-c")
	}
	return c.WaitExit(30 * time.Second)
}

// awaitOpencodeRequest waits until `clawd permissions --json` lists one
// pending bash request of an opencode session whose summary is command,
// and checks what it says.
func (w *opencodeWorld) awaitOpencodeRequest(ctx context.Context, t *testing.T, stream *permStream, command string) client.PermissionView {
	t.Helper()
	start := time.Now()
	list := w.waitPermissions(ctx, 60*time.Second, "pending opencode request for "+command, func(l []client.PermissionView) bool {
		return len(l) > 0
	})
	if len(list) != 1 {
		t.Fatalf("clawd permissions --json lists, want one request:\n%s", dumpPermissions(list))
	}
	p := list[0]
	t.Logf("listed after %v: %s", time.Since(start).Round(time.Millisecond), dumpPermissions(list))
	if p.Agent != "opencode" || p.Kind != client.KindPermission || p.Tool != "bash" || p.Summary != command ||
		p.State != "pending" || p.Headless || p.Cwd != w.project || !strings.HasPrefix(p.SessionID, "ses_") {
		t.Errorf("listed request = %+v, want opencode's bash %q, pending, not headless, in %s", p, command, w.project)
	}
	if len(p.Suggestions) != 1 || !strings.HasPrefix(p.Suggestions[0], "Always allow bash: echo") {
		t.Errorf("listed request offers %q, want opencode's own always-pattern", p.Suggestions)
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

// checkOpencodeState checks `clawd status --json` lists the TUI's session
// id in one of the states want.
func (w *opencodeWorld) checkOpencodeState(ctx context.Context, t *testing.T, id string, want ...string) {
	t.Helper()
	st, ok := w.status(ctx)
	if !ok {
		return
	}
	if s, found := st.session(id); !found || !slices.Contains(want, s.State) || s.Agent != "opencode" || s.Headless || s.Cwd != w.project {
		t.Errorf("clawd status lists session %s as %+v (listed %v), want opencode, %v, not headless, in the project", id, s, found, want)
	}
}

// turnEnds waits until the session has n turn.end events.
func turnEnds(es *eventStream, id string, n int) []event {
	es.w.t.Helper()
	return es.waitFor(60*time.Second, fmt.Sprintf("turn.end number %d", n), func(evs []event) bool {
		return len(filterEvents(forSession(evs, id), func(e event) bool { return e.Kind == "turn.end" })) >= n
	})
}

// TestOpencodeTUIPermissions: in the interactive TUI, with bash set to
// ask, a request shows in clawd as soon as opencode's own prompt does.
// `clawd permissions allow` runs the command (opencode's prompt goes
// away), `deny --message` blocks it and the model reads the message and
// goes on, a plain `deny` blocks it and ends the turn, and an answer given
// in opencode's prompt instead takes the request off clawd's list. Ctrl-C
// ends the session in clawd.
func TestOpencodeTUIPermissions(t *testing.T) {
	t.Parallel()
	started := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 360*time.Second)
	defer cancel()
	deadline, _ := ctx.Deadline()
	const (
		allowMarker = "E2E_OC_ALLOW"
		denyMarker  = "E2E_OC_DENY"
		stopMarker  = "E2E_OC_STOP"
		ownMarker   = "E2E_OC_OWN"
		allowCmd    = "echo allowed > allowed.txt"
		denyCmd     = "echo denied > denied.txt"
		stopCmd     = "echo stopped > stopped.txt"
		ownCmd      = "echo own > own.txt"
		allowDone   = "Wrote allowed.txt as approved."
		denyDone    = "Understood, no denied.txt."
		ownDone     = "Wrote own.txt."
		message     = "not this one"
		title       = "Write the files"
	)
	shell := func(marker, cmd, done string) fakeopenai.Conversation { return shellTurn("bash", marker, cmd, done) }
	w := newOpencodeWorld(t)
	w.startOpencodeAPI(fakeopenai.Script{Title: title, Conversations: []fakeopenai.Conversation{
		shell(allowMarker, allowCmd, allowDone), shell(denyMarker, denyCmd, denyDone),
		shell(stopMarker, stopCmd, "Never said: the turn ended at the rejection."), shell(ownMarker, ownCmd, ownDone),
	}}, map[string]any{"bash": "ask"})
	serve := w.startServe()
	stream := w.followPermissions(ctx, serve)
	events := w.startEvents()
	events.sync(ctx)
	w.installOpencode(ctx)
	c := w.startOpencodeTUI(deadline)
	file := func(name string) (string, error) {
		data, err := os.ReadFile(filepath.Join(w.project, name))
		return string(data), err
	}

	// Allow.
	c.submit("Please " + allowMarker + " now")
	p := w.awaitOpencodeRequest(ctx, t, stream, allowCmd)
	id := p.SessionID
	c.WaitFor(opencodeAsk, 30*time.Second) // opencode's own prompt is up too
	w.checkOpencodeState(ctx, t, id, "waiting")
	if r := w.mustPerm(ctx, "allow", p.ID); !strings.HasPrefix(r.stdout, "allowed "+p.ID) {
		t.Errorf("clawd permissions allow %s printed %q", p.ID, r.stdout)
	}
	screen := c.WaitFor(regexp.MustCompile(regexp.QuoteMeta(allowDone)), 60*time.Second)
	if opencodeAsk.MatchString(screen) {
		t.Errorf("opencode's prompt is still up after clawd allowed:\n%s", screen)
	}
	if got, err := file("allowed.txt"); got != "allowed\n" {
		t.Errorf("allowed.txt = %q (%v): the allowed command did not run", got, err)
	}
	awaitAnswered(t, stream, p.ID)
	turnEnds(events, id, 1)

	// Deny, with a message the model reads; the turn goes on.
	c.submit("Please " + denyMarker + " now")
	p = w.awaitOpencodeRequest(ctx, t, stream, denyCmd)
	if p.SessionID != id {
		t.Errorf("the second request is of session %s, want the TUI's %s", p.SessionID, id)
	}
	w.mustPerm(ctx, "deny", p.ID, "--message", message)
	c.WaitFor(regexp.MustCompile(regexp.QuoteMeta(denyDone)), 60*time.Second)
	awaitAnswered(t, stream, p.ID)
	turnEnds(events, id, 2)
	if _, err := file("denied.txt"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("denied.txt exists (%v): the denied command ran", err)
	}
	if calls := w.api.IssuedCalls(denyMarker); len(calls) != 1 {
		t.Errorf("the fake issued %+v for the denied turn, want one call", calls)
	} else if out, ok := w.api.CallOutput(calls[0].CallID); !ok || !strings.Contains(out.Text, message) {
		t.Errorf("the denied call's output = %+v (found %v), want the model told %q", out, ok, message)
	}

	// Deny without a message: opencode ends the turn there.
	c.submit("Please " + stopMarker + " now")
	p = w.awaitOpencodeRequest(ctx, t, stream, stopCmd)
	w.mustPerm(ctx, "deny", p.ID)
	awaitAnswered(t, stream, p.ID)
	turnEnds(events, id, 3)
	if _, err := file("stopped.txt"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("stopped.txt exists (%v): the denied command ran", err)
	}
	if calls := w.api.IssuedCalls(stopMarker); len(calls) != 1 {
		t.Errorf("the fake issued %+v for the rejected turn, want one call", calls)
	} else if out, ok := w.api.CallOutput(calls[0].CallID); ok {
		t.Errorf("the model got %+v after a plain rejection, want the turn ended there", out)
	}

	// Answered in opencode's own prompt: clawd's request goes away.
	c.submit("Please " + ownMarker + " now")
	p = w.awaitOpencodeRequest(ctx, t, stream, ownCmd)
	c.WaitFor(opencodeAsk, 30*time.Second)
	c.SendKeys("Enter") // "Allow once"
	chs, ok := stream.await(15*time.Second, func(chs []permChange) bool {
		_, ok := closedChange(chs, p.ID)
		return ok
	})
	if cl, _ := closedChange(chs, p.ID); !ok || cl.Reason != "withdrawn" {
		t.Errorf("request %s after opencode's prompt was answered: %+v (closed: %v), want withdrawn", p.ID, cl, ok)
	}
	c.WaitFor(regexp.MustCompile(regexp.QuoteMeta(ownDone)), 60*time.Second)
	if got, err := file("own.txt"); got != "own\n" {
		t.Errorf("own.txt = %q (%v): the command allowed in opencode did not run", got, err)
	}
	evs := turnEnds(events, id, 4)
	if list := w.pendingPermissions(ctx); len(list) != 0 {
		t.Errorf("clawd permissions --json after every answer lists:\n%s", dumpPermissions(list))
	}

	sess := forSession(evs, id)
	t.Logf("events: %v", sess)
	// opencode reports the running tool before or after it asks: the
	// session waits either way.
	want := []string{
		"prompt.submit:thinking", "permission.request:waiting", "permission.granted:working", "tool.end:working", "turn.end:attention",
		"prompt.submit:thinking", "permission.request:waiting", "permission.denied:working", "turn.end:attention",
		"prompt.submit:thinking", "permission.request:waiting", "permission.denied:working", "turn.end:attention",
		"prompt.submit:thinking", "permission.request:waiting", "permission.granted:working", "tool.end:working", "turn.end:attention",
	}
	if got := kindStates(sess); !subsequence(got, want) {
		t.Errorf("events %v, want %v in this order", got, want)
	}
	if n := len(filterEvents(sess, hasKind("tool.start"))); n != 4 {
		t.Errorf("%d tool.start events, want one a turn", n)
	}
	if n := len(filterEvents(sess, hasKind("tool.end"))); n != 2 {
		t.Errorf("%d tool.end events, want 2 (none for the denied commands)", n)
	}
	for _, e := range sess {
		if e.Agent != "opencode" || e.Headless || e.Cwd != w.project {
			t.Errorf("event of the TUI session not opencode's, headless, or elsewhere: %s", e.raw)
		}
	}
	checkPrivate(t, evs, allowDone, denyDone, ownDone, "echo ")

	if rc := c.quit(); rc != 0 {
		t.Errorf("opencode exited %d after Ctrl-C, want 0", rc)
	}
	events.waitFor(15*time.Second, "session.end once opencode quit", func(evs []event) bool {
		return anyEvent(forSession(evs, id), hasKind("session.end"))
	})
	w.checkHookLog(t)
	checkOpenAIOffline(t, "opencode", w.api, opencodeAPIKey)
	w.uninstallOpencode(ctx)
	events.close()
	serve.shutdown()
	t.Logf("TestOpencodeTUIPermissions took %v", time.Since(started).Round(time.Millisecond))
}

// TestOpencodeRuntimeDown: with clawd's plugin installed and no `clawd
// serve`, opencode runs as without it: every hook the plugin runs finds no
// runtime and leaves its event in the spool for the next serve, and
// `opencode run` takes about as long as without the plugin. The runs
// alternate, and the fastest of each kind are compared, with a generous
// bound: the plugin can add at most its 1.5 s wait at exit, and the
// machine is shared.
func TestOpencodeRuntimeDown(t *testing.T) {
	t.Parallel()
	started := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Second)
	defer cancel()
	const marker, final = "E2E_OPENCODE_DOWN", "Listed the folder."
	w := newOpencodeWorld(t)
	w.startOpencodeAPI(fakeopenai.Script{Conversations: []fakeopenai.Conversation{{Match: marker, Steps: []fakeopenai.Step{
		fakeopenai.Tool("bash", map[string]any{"command": "ls", "description": "list the folder"}),
		fakeopenai.Text(final),
	}}}}, nil)
	var with, without []time.Duration
	for i := range 4 {
		plugin := i%2 == 1
		if plugin {
			w.installOpencode(ctx)
		}
		res := w.runOpencode(ctx, "Please "+marker+" now")
		if res.code != 0 || !strings.Contains(res.stdout, final) {
			t.Fatalf("opencode run (plugin %v): %s", plugin, res.result)
		}
		if plugin {
			with = append(with, res.dur)
			w.uninstallOpencode(ctx)
		} else {
			without = append(without, res.dur)
		}
	}
	// Each hook found no runtime and left its event in the spool for the
	// next clawd serve.
	spooled := map[string]int{}
	for _, r := range w.spooled() {
		if r.Event.Agent == "opencode" {
			spooled[r.Event.HookEvent]++
		}
	}
	t.Logf("hooks that found no runtime, spooled: %v", spooled)
	for _, ev := range []string{"session.created", "chat.message", "message.part.updated", "session.status", "dispose"} {
		if spooled[ev] < 2 {
			t.Errorf("the spool holds %d %s events, want one a run at least: %v", spooled[ev], ev, spooled)
		}
	}
	w.checkHookLog(t)
	fastest := func(ds []time.Duration) time.Duration { return slices.Min(ds) }
	t.Logf("opencode run without the plugin: %v; with it, clawd not running: %v", without, with)
	if fastest(with) > 2*fastest(without)+5*time.Second {
		t.Errorf("opencode run took %v with the plugin and no runtime, %v without the plugin: the plugin slows it down", fastest(with), fastest(without))
	}
	checkOpenAIOffline(t, "opencode", w.api, opencodeAPIKey)
	t.Logf("TestOpencodeRuntimeDown took %v", time.Since(started).Round(time.Millisecond))
}
