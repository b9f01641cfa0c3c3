//go:build !windows

package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/clawdhq/clawd/internal/fakeopenai"
)

// The opencode tests drive the real opencode (scripts/install-agents.sh
// installs it) against internal/fakeopenai's Chat Completions on
// loopback: a custom OpenAI-compatible provider in opencode.json. opencode
// has no command hooks; what clawd will hook is a plugin, a JS file in the
// config folder's plugin/ that opencode loads and hands every bus event
// and hook call. Until clawd has its own, a recorder plugin writes what it
// gets in the hookRecorder's format.

// opencodeVersion is the opencode release scripts/install-agents.sh
// installs; the plugin events the tests rely on are this version's
// (../shared/fixtures/opencode).
const opencodeVersion = "1.18.33"

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

// opencodeRecorderPlugin is a plugin that records every bus event
// ("event.<type>", but the chatty message.part.delta) and every hook call
// ("hook.<name>", its input and output) into a hookRecorder folder, one
// file per call, numbered in the order opencode made them. %s is the
// folder as a JS string.
const opencodeRecorderPlugin = `// Records what opencode hands its plugins, for clawd's end-to-end tests.
import fs from "node:fs"
import path from "node:path"

const dir = %s
let seq = 0

// plain drops what JSON cannot hold (functions, cycles).
function plain(v) {
  const seen = new WeakSet()
  return JSON.stringify(v, (k, x) => {
    if (typeof x === "function") return "[function]"
    if (x && typeof x === "object") {
      if (seen.has(x)) return "[cycle]"
      seen.add(x)
    }
    return x
  })
}

function rec(label, payload) {
  seq += 1
  const file = path.join(dir, String(seq).padStart(19, "0") + "-" + process.pid + "-" + label)
  fs.writeFileSync(file + ".part", plain(payload) ?? "null")
  fs.renameSync(file + ".part", file + ".json")
}

export const E2ERecorder = async (input) => {
  rec("plugin.init", { directory: input.directory, worktree: input.worktree, project: input.project })
  const hook = (name) => async (i, o) => rec("hook." + name, { input: i, output: o })
  return {
    event: async ({ event }) => {
      if (event.type !== "message.part.delta") rec("event." + event.type, event)
    },
    "chat.message": hook("chat.message"),
    "tool.execute.before": hook("tool.execute.before"),
    "tool.execute.after": hook("tool.execute.after"),
    "permission.ask": hook("permission.ask"),
    dispose: async () => rec("hook.dispose", {}),
  }
}
`

// writeRecorderPlugin installs the recorder plugin and returns its folder
// of calls (read them with readHookCalls).
func (w *opencodeWorld) writeRecorderPlugin() string {
	w.t.Helper()
	dir := filepath.Join(w.dir, "plugin-calls")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		w.t.Fatal(err)
	}
	quoted, _ := json.Marshal(dir)
	src := strings.Replace(opencodeRecorderPlugin, "%s", string(quoted), 1)
	if err := os.WriteFile(filepath.Join(w.configDir, "plugin", "e2e-recorder.js"), []byte(src), 0o600); err != nil {
		w.t.Fatal(err)
	}
	return dir
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

// TestOpencodeRunPlugin: `opencode run --auto` with bash set to ask,
// offline against the fake, runs one shell command and answers; the
// recorder plugin sees the session's bus events and hook calls in the
// fixture's order (run-auto-approve): the permission asked and answered
// once, the tool before and after under the model's call id, the session
// busy then idle, and dispose at the end; nothing tries to leave the
// machine.
func TestOpencodeRunPlugin(t *testing.T) {
	t.Parallel()
	started := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	const marker = "E2E_OPENCODE_RUN"
	const command, final, title = "echo hello > out.txt", "Wrote hello to out.txt.", "Write hello"
	w := newOpencodeWorld(t)
	calls := w.writeRecorderPlugin()
	w.startOpencodeAPI(fakeopenai.Script{Title: title, Conversations: []fakeopenai.Conversation{{Match: marker,
		Steps: []fakeopenai.Step{
			fakeopenai.Tool("bash", map[string]any{"command": command, "description": "write a file"}),
			fakeopenai.Text(final),
		}}}}, map[string]any{"bash": "ask", "edit": "ask"})

	message := "Please " + marker + " now"
	res := w.runOpencode(ctx, message, "--auto")
	if res.code != 0 || res.sessionID == "" || !strings.Contains(res.stdout, final) {
		t.Fatalf("opencode run: session %q; %s", res.sessionID, res.result)
	}
	if data, err := os.ReadFile(filepath.Join(w.project, "out.txt")); err != nil || string(data) != "hello\n" {
		t.Errorf("out.txt = %q (%v), want the tool's hello", data, err)
	}
	recorded := waitHookCalls(t, calls, 10*time.Second, "the plugin's dispose", hasEvent("hook.dispose"))
	var got []string
	for _, c := range recorded {
		if c.Event != "event.plugin.added" { // one per plugin at start-up, ~45 of them
			got = append(got, c.Event)
		}
	}
	t.Logf("plugin calls: %v", got)
	want := []string{"plugin.init", "event.session.created", "hook.chat.message", "event.session.status",
		"hook.tool.execute.before", "event.permission.asked", "event.permission.replied", "hook.tool.execute.after",
		"event.session.status", "event.session.idle", "hook.dispose"}
	if !subsequence(got, want) {
		t.Errorf("plugin calls %v, want %v in this order", got, want)
	}
	id := res.sessionID
	first := func(label string) hookCall {
		cs := ofEvent(recorded, label)
		if len(cs) == 0 {
			t.Fatalf("no %s call", label)
		}
		return cs[0]
	}
	if c := first("plugin.init"); c.str("directory") != w.project {
		t.Errorf("plugin.init = %s, want directory %q", c.Payload, w.project)
	}
	if c := first("event.session.created"); c.str("properties.sessionID") != id || c.str("properties.info.directory") != w.project ||
		c.str("properties.info.version") != opencodeVersion {
		t.Errorf("session.created = %s, want session %s in %s", c.Payload, id, w.project)
	}
	// `opencode run` hands the model (and the plugins) a message with
	// spaces in double quotes: "\"Please ... now\"".
	if c := first("hook.chat.message"); c.str("input.sessionID") != id || c.str("output.parts.0.text") != `"`+message+`"` {
		t.Errorf("chat.message = %s, want the message of session %s", c.Payload, id)
	}
	issued := w.api.IssuedCalls(marker)
	if len(issued) != 1 {
		t.Fatalf("the fake model issued %v, want one call", issued)
	}
	for _, label := range []string{"hook.tool.execute.before", "hook.tool.execute.after"} {
		c := first(label)
		if c.str("input.tool") != "bash" || c.str("input.sessionID") != id || c.str("input.callID") != issued[0].CallID {
			t.Errorf("%s = %s, want bash of session %s under the model's call id %s", label, c.Payload, id, issued[0].CallID)
		}
	}
	if got := first("hook.tool.execute.before").str("output.args.command"); got != command {
		t.Errorf("tool.execute.before args.command = %q, want %q", got, command)
	}
	asked, replied := first("event.permission.asked"), first("event.permission.replied")
	if asked.str("properties.sessionID") != id || asked.str("properties.permission") != "bash" ||
		asked.str("properties.metadata.command") != command || asked.str("properties.tool.callID") != issued[0].CallID {
		t.Errorf("permission.asked = %s, want bash %q of session %s", asked.Payload, command, id)
	}
	if replied.str("properties.requestID") != asked.str("properties.id") || replied.str("properties.reply") != "once" {
		t.Errorf("permission.replied = %s, want once for %s", replied.Payload, asked.str("properties.id"))
	}
	var statuses []string
	for _, c := range ofEvent(recorded, "event.session.status") {
		if c.str("properties.sessionID") == id {
			statuses = append(statuses, c.str("properties.status.type"))
		}
	}
	if !subsequence(statuses, []string{"busy", "idle"}) || statuses[len(statuses)-1] != "idle" {
		t.Errorf("session.status types %v, want busy, then idle last", statuses)
	}
	if len(ofEvent(recorded, "hook.permission.ask")) != 0 {
		t.Errorf("the typed permission.ask hook was called: 1.18.33 never calls it, the fixtures say")
	}
	// The title opencode asked the model for names the session.
	titled := false
	for _, c := range ofEvent(recorded, "event.session.updated") {
		titled = titled || c.str("properties.info.title") == title
	}
	if !titled {
		t.Errorf("no session.updated carries the title %q the fake gave", title)
	}

	kinds := field(w.api.Requests(), func(r fakeopenai.Request) string { return r.Kind })
	if turns := w.api.OfKind(fakeopenai.KindTurn); len(turns) != 2 || !slices.Contains(kinds, fakeopenai.KindTitle) {
		t.Errorf("the fake saw %v, want a title request and 2 turn requests", kinds)
	}
	if _, ok := w.api.CallOutput(issued[0].CallID); !ok {
		t.Errorf("opencode sent the model no output of the call %s", issued[0].CallID)
	}
	checkOpenAIOffline(t, "opencode", w.api, opencodeAPIKey)
	t.Logf("TestOpencodeRunPlugin took %v (opencode run %v)", time.Since(started).Round(time.Millisecond), res.dur.Round(time.Millisecond))
}
