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

	"github.com/clawdhq/clawd/internal/fakeopenai"
	"github.com/tidwall/gjson"
)

// The Copilot tests drive the real GitHub Copilot CLI
// (scripts/install-agents.sh installs it) offline, with no GitHub account:
// COPILOT_OFFLINE and a bring-your-own-key provider pointing at
// internal/fakeopenai's Chat Completions on loopback. Copilot's home is
// ~/.copilot of the world's home; its unpacked runtime is shared from the
// test cache. Until clawd knows Copilot, its hooks are a hookRecorder.

// copilotVersion is the Copilot CLI release scripts/install-agents.sh
// installs; the hook payloads the tests rely on are this version's
// (../shared/fixtures/copilot).
const copilotVersion = "1.0.102"

// copilotAPIKey is what Copilot sends the fake as its bearer token.
const copilotAPIKey = "sk-clawd-e2e-fake-copilot"

// copilotEvents are Copilot's native camelCase hook events.
var copilotEvents = []string{"sessionStart", "sessionEnd", "userPromptSubmitted", "preToolUse", "postToolUse",
	"postToolUseFailure", "errorOccurred", "agentStop", "subagentStart", "subagentStop", "preCompact",
	"notification", "permissionRequest"}

// copilotPath returns Copilot's native executable (the npm launcher, node,
// only runs it): $CLAWD_E2E_COPILOT, else the platform package under the
// test cache.
func copilotPath(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("CLAWD_E2E_COPILOT"); p != "" {
		return p
	}
	pattern := filepath.Join(testCache(t), "copilot", "node_modules", "@github", "copilot-*", "copilot")
	matches, _ := filepath.Glob(pattern)
	if len(matches) == 0 {
		t.Fatalf("Copilot CLI %s not found at %s: run scripts/test.sh (or scripts/install-agents.sh) to install the agent CLIs",
			copilotVersion, pattern)
	}
	return matches[0]
}

// copilotPkgCache is where scripts/install-agents.sh unpacked Copilot's
// runtime (COPILOT_PKG_CACHE_HOME): else every Copilot would unpack
// ~235 MB into its HOME on first start.
func copilotPkgCache(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(testCache(t), "copilot", "pkg-cache")
	if m, _ := filepath.Glob(filepath.Join(dir, "pkg", "*", copilotVersion, "app.js")); len(m) == 0 {
		t.Fatalf("Copilot CLI %s's runtime is not unpacked in %s: run scripts/install-agents.sh", copilotVersion, dir)
	}
	return dir
}

// copilotWorld is a world with a Copilot home and a fake OpenAI-compatible
// API.
type copilotWorld struct {
	*world
	copilotHome string // ~/.copilot of the world's home
	bin         string
	pkgCache    string
	api         *fakeopenai.Server
	runs        int
}

func newCopilotWorld(t *testing.T) *copilotWorld {
	t.Helper()
	w := &copilotWorld{world: newWorld(t), bin: copilotPath(t), pkgCache: copilotPkgCache(t)}
	checkCLIVersion(t, w.bin, copilotVersion)
	w.copilotHome = filepath.Join(w.home, ".copilot")
	if err := os.MkdirAll(filepath.Join(w.copilotHome, "hooks"), 0o700); err != nil {
		t.Fatal(err)
	}
	return w
}

// startCopilotAPI starts the fake API.
func (w *copilotWorld) startCopilotAPI(script fakeopenai.Script) {
	w.t.Helper()
	w.api = fakeopenai.New(script)
	w.api.Start()
	w.t.Cleanup(w.api.Close)
}

// writeHookFile writes a hook file of Copilot's own camelCase format into
// ~/.copilot/hooks, running command(event) on every event (timeouts in
// seconds).
func (w *copilotWorld) writeHookFile(name string, command func(event string) string) {
	w.t.Helper()
	hooks := map[string]any{}
	for _, ev := range copilotEvents {
		hooks[ev] = []any{map[string]any{"type": "command", "bash": command(ev), "timeoutSec": 30}}
	}
	data, err := json.MarshalIndent(map[string]any{"version": 1, "hooks": hooks}, "", "  ")
	if err != nil {
		w.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(w.copilotHome, "hooks", name), append(data, '\n'), 0o600); err != nil {
		w.t.Fatal(err)
	}
}

// copilotEnv is the whole environment of copilot: offline (no GitHub
// login, no update check) against the fake API as a bring-your-own-key
// provider, with a model profile that has tools (gpt-4.1) sent to the fake
// as fake-model; HOME the world's, every proxy the fake (see proxyEnv).
func (w *copilotWorld) copilotEnv() []string {
	env := []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + w.home,
		"CLAWD_HOME=" + w.clawdHome,
		"COPILOT_OFFLINE=true",
		"COPILOT_AUTO_UPDATE=false",
		"COPILOT_PKG_CACHE_HOME=" + w.pkgCache,
		"COPILOT_PROVIDER_BASE_URL=" + w.api.URL() + "/v1",
		"COPILOT_PROVIDER_API_KEY=" + copilotAPIKey,
		"COPILOT_MODEL=" + fakeopenai.DefaultModel,
		"COPILOT_PROVIDER_MODEL_ID=gpt-4.1",
		"COPILOT_PROVIDER_WIRE_MODEL=" + fakeopenai.DefaultModel,
		"TERM=xterm-256color",
		"LANG=C.UTF-8",
		"SHELL=/bin/bash",
		"XDG_RUNTIME_DIR=" + w.dir,
	}
	env = append(env, proxyEnv(w.api.URL())...)
	return append(env, raceEnv()...)
}

// copilotResult is a finished `copilot -p` run.
type copilotResult struct {
	result
	sessionID string // from the "copilot --resume=<id>" hint
}

// copilotResumeRe matches the session id in the run's closing summary.
var copilotResumeRe = regexp.MustCompile(`copilot --resume=(\S+)`)

// runCopilot runs `copilot -p prompt --disable-client-telemetry` in the
// project folder, plus args (e.g. --allow-all-tools).
func (w *copilotWorld) runCopilot(ctx context.Context, prompt string, args ...string) copilotResult {
	w.t.Helper()
	w.runs++
	cmd := exec.CommandContext(ctx, w.bin, append([]string{"-p", prompt, "--disable-client-telemetry"}, args...)...)
	cmd.Env = w.copilotEnv()
	cmd.Dir = w.project
	cmd.Stdin = strings.NewReader("")
	r := copilotResult{result: run(w.t, cmd)}
	if m := copilotResumeRe.FindStringSubmatch(r.stdout + r.stderr); m != nil {
		r.sessionID = m[1]
	}
	w.t.Logf("copilot -p run %d: exit %d in %v, session %s", w.runs, r.code, r.dur.Round(time.Millisecond), r.sessionID)
	return r
}

// TestCopilotPromptHooks: `copilot -p --allow-all-tools`, offline against
// the fake, runs one shell command and answers; the hook events fire in
// the fixture's order (prompt-camel-allow-all) with the session's id and
// cwd and the tool's name and input, and nothing tries to leave the
// machine.
func TestCopilotPromptHooks(t *testing.T) {
	t.Parallel()
	started := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	const marker = "E2E_COPILOT_PROMPT"
	const command, final = "echo hello > out.txt", "Wrote hello to out.txt."
	w := newCopilotWorld(t)
	rec := w.newHookRecorder()
	w.startCopilotAPI(fakeopenai.Script{Conversations: []fakeopenai.Conversation{{Match: marker, Steps: []fakeopenai.Step{
		fakeopenai.Tool("bash", map[string]any{"command": command, "description": "write a file"}),
		fakeopenai.Text(final),
	}}}})
	w.writeHookFile("e2e-recorder.json", rec.command)

	prompt := "Please " + marker + " now"
	res := w.runCopilot(ctx, prompt, "--allow-all-tools")
	if res.code != 0 || res.sessionID == "" || !strings.Contains(res.stdout, final) {
		t.Fatalf("copilot -p: session %q; %s", res.sessionID, res.result)
	}
	if data, err := os.ReadFile(filepath.Join(w.project, "out.txt")); err != nil || string(data) != "hello\n" {
		t.Errorf("out.txt = %q (%v), want the tool's hello", data, err)
	}
	calls := rec.waitFor(15*time.Second, "sessionEnd hook", hasEvent("sessionEnd"))
	got := callEvents(calls)
	t.Logf("hook events: %v", got)
	// sessionStart and userPromptSubmitted come in either order.
	want := []string{"sessionStart", "userPromptSubmitted", "preToolUse", "permissionRequest", "postToolUse", "agentStop", "sessionEnd"}
	if len(got) >= 2 && got[0] == "userPromptSubmitted" {
		got[0], got[1] = got[1], got[0]
	}
	if !slices.Equal(got, want) {
		t.Errorf("hook events = %v, want %v (the first two in either order)", got, want)
	}
	checkPayloads(t, calls, "sessionId", res.sessionID, "cwd", w.project)
	for _, c := range calls {
		if ts := c.get("timestamp"); ts.Type != gjson.Number || ts.Int() < 1e12 {
			t.Errorf("%s: timestamp %s, want epoch milliseconds", c.Event, ts.Raw)
		}
		if c.Env["COPILOT_PROJECT_DIR"] != w.project || c.Env["CLAUDE_PROJECT_DIR"] != w.project ||
			c.Env["COPILOT_HOOK_DIR"] != filepath.Join(w.copilotHome, "hooks") || c.Env["COPILOT_CLI"] != "1" {
			t.Errorf("%s: env COPILOT_PROJECT_DIR %q CLAUDE_PROJECT_DIR %q COPILOT_HOOK_DIR %q COPILOT_CLI %q", c.Event,
				c.Env["COPILOT_PROJECT_DIR"], c.Env["CLAUDE_PROJECT_DIR"], c.Env["COPILOT_HOOK_DIR"], c.Env["COPILOT_CLI"])
		}
	}
	first := func(ev string) hookCall {
		cs := ofEvent(calls, ev)
		if len(cs) == 0 {
			t.Fatalf("no %s call", ev)
		}
		return cs[0]
	}
	if s := first("sessionStart"); s.str("source") != "new" || s.str("initialPrompt") != prompt {
		t.Errorf("sessionStart = %s, want source new with the prompt", s.Payload)
	}
	if got := first("userPromptSubmitted").str("prompt"); got != prompt {
		t.Errorf("userPromptSubmitted prompt = %q", got)
	}
	for _, ev := range []string{"preToolUse", "postToolUse"} {
		if c := first(ev); c.str("toolName") != "bash" || c.str("toolArgs.command") != command {
			t.Errorf("%s = %s, want bash %q", ev, c.Payload, command)
		}
	}
	if p := first("permissionRequest"); p.str("hookName") != "permissionRequest" || p.str("toolName") != "bash" ||
		p.str("toolInput.command") != command {
		t.Errorf("permissionRequest = %s, want bash %q", p.Payload, command)
	}
	if got := first("postToolUse").str("toolResult.resultType"); got != "success" {
		t.Errorf("postToolUse toolResult.resultType = %q, want success", got)
	}
	if a := first("agentStop"); a.str("stopReason") != "end_turn" ||
		a.str("transcriptPath") != filepath.Join(w.copilotHome, "session-state", res.sessionID, "events.jsonl") {
		t.Errorf("agentStop = %s, want end_turn and the session's events.jsonl", a.Payload)
	}
	if got := first("sessionEnd").str("reason"); got != "complete" {
		t.Errorf("sessionEnd reason = %q, want complete", got)
	}

	issued := w.api.IssuedCalls(marker)
	if turns := w.api.OfKind(fakeopenai.KindTurn); len(turns) != 2 || len(issued) != 1 {
		t.Errorf("the fake saw %d turn requests and issued %v, want 2 requests and one call", len(turns), issued)
	} else if out, ok := w.api.CallOutput(issued[0].CallID); !ok || !strings.Contains(out.Text, "exit code 0") {
		t.Errorf("the tool's output sent back = %+v (%v), want exit code 0", out, ok)
	}
	checkOpenAIOffline(t, "copilot", w.api, copilotAPIKey)
	t.Logf("TestCopilotPromptHooks took %v (copilot -p %v)", time.Since(started).Round(time.Millisecond), res.dur.Round(time.Millisecond))
}
