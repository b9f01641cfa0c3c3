//go:build !windows

package e2e

import (
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

// The Qwen Code tests drive the real Qwen Code CLI (scripts/install-agents.sh
// installs it) against internal/fakeopenai's Chat Completions on loopback:
// an OpenAI-compatible model provider in ~/.qwen/settings.json with the
// fake's base URL. Until clawd knows Qwen, its hooks are a hookRecorder.

// qwenVersion is the Qwen Code release scripts/install-agents.sh installs;
// the hook payloads the tests rely on are this version's
// (../shared/fixtures/qwen).
const qwenVersion = "0.24.4"

// qwenAPIKey is what Qwen sends the fake as its bearer token (through the
// provider's envKey).
const qwenAPIKey = "sk-clawd-e2e-fake-qwen"

// qwenModel is the model id the provider names and the fake lists.
const qwenModel = "fake-model"

// qwenEvents are Qwen Code's 22 hook events.
var qwenEvents = []string{"PreToolUse", "PostToolUse", "PostToolUseFailure", "PostToolBatch", "Notification",
	"UserPromptSubmit", "UserPromptExpansion", "SessionStart", "Stop", "MessageDisplay", "SubagentStart",
	"SubagentStop", "PreCompact", "PostCompact", "SessionEnd", "SessionDelete", "PermissionRequest",
	"PermissionDenied", "StopFailure", "TodoCreated", "TodoCompleted", "InstructionsLoaded"}

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

// startQwenAPI starts the fake API and writes the user's settings for it,
// with extra top-level keys (hooks, ...) on top.
func (w *qwenWorld) startQwenAPI(script fakeopenai.Script, extra map[string]any) {
	w.t.Helper()
	script.Model = qwenModel
	w.api = fakeopenai.New(script)
	w.api.Start()
	w.t.Cleanup(w.api.Close)
	s := qwenUserSettings(w.api.URL() + "/v1")
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

// qwenUserSettings is a user's ~/.qwen/settings.json with an
// OpenAI-compatible provider at baseURL (its key in the environment), and
// Qwen kept offline and quiet: no usage statistics, telemetry or update
// checks.
func qwenUserSettings(baseURL string) map[string]any {
	return map[string]any{
		"modelProviders": map[string]any{"openai": []any{map[string]any{
			"id": qwenModel, "name": qwenModel, "baseUrl": baseURL, "envKey": "OPENAI_API_KEY"}}},
		"security":  map[string]any{"auth": map[string]any{"selectedType": "openai"}},
		"model":     map[string]any{"name": qwenModel},
		"privacy":   map[string]any{"usageStatisticsEnabled": false},
		"telemetry": map[string]any{"enabled": false},
		"general":   map[string]any{"enableAutoUpdate": false, "disableAutoUpdate": true, "disableUpdateNag": true},
	}
}

// qwenHooks is the settings' hooks block that runs command(event) on every
// event, timeouts in seconds.
func qwenHooks(command func(event string) string) map[string]any {
	hooks := map[string]any{}
	for _, ev := range qwenEvents {
		hooks[ev] = []any{map[string]any{"matcher": "*", "hooks": []any{map[string]any{
			"name": "e2e-recorder", "type": "command", "command": command(ev), "timeout": 30}}}}
	}
	return map[string]any{"hooks": hooks}
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

// qwenHeadlessEvents is the order of hook events of `qwen -p` in yolo
// mode with one tool call (fixture headless-yolo-shell), runs of one event
// cut to one (see collapse): UserPromptSubmit
// fires again, with an empty prompt, when the tool's result goes back to
// the model; there is no SessionEnd in -p.
var qwenHeadlessEvents = []string{"InstructionsLoaded", "SessionStart", "Notification", "UserPromptSubmit",
	"PreToolUse", "PostToolUse", "PostToolBatch", "UserPromptSubmit", "MessageDisplay", "Stop"}

// TestQwenHeadlessHooks: `qwen -p` in yolo mode, offline against the
// fake, runs one shell command and answers; the hook events fire in the
// fixture's order with the session's id and cwd, the tool's name, input
// and the model's call id, and nothing tries to leave the machine.
func TestQwenHeadlessHooks(t *testing.T) {
	t.Parallel()
	started := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	const marker = "E2E_QWEN_HEADLESS"
	const command, final = "echo hello > out.txt", "Wrote hello to out.txt."
	w := newQwenWorld(t)
	rec := w.newHookRecorder()
	w.startQwenAPI(fakeopenai.Script{Conversations: []fakeopenai.Conversation{{Match: marker, Steps: []fakeopenai.Step{
		fakeopenai.Tool("run_shell_command", map[string]any{"command": command, "description": "write a file"}),
		fakeopenai.Text(final),
	}}}}, qwenHooks(rec.command))

	prompt := "Please " + marker + " now"
	res := w.runQwen(ctx, prompt, "--approval-mode", "yolo")
	if res.code != 0 || res.sessionID == "" || res.response != final {
		t.Fatalf("qwen -p: session %q, response %q; %s", res.sessionID, res.response, res.result)
	}
	if data, err := os.ReadFile(filepath.Join(w.project, "out.txt")); err != nil || string(data) != "hello\n" {
		t.Errorf("out.txt = %q (%v), want the tool's hello", data, err)
	}
	calls := rec.waitFor(15*time.Second, "Stop hook", hasEvent("Stop"))
	t.Logf("hook events: %v", callEvents(calls))
	// MessageDisplay fires with the answer so far, debounced, while it
	// streams (when chunks arrive apart), then once more with is_final.
	if got := collapse(callEvents(calls)); !slices.Equal(got, qwenHeadlessEvents) {
		t.Errorf("hook events (MessageDisplay runs cut to one) = %v, want %v", got, qwenHeadlessEvents)
	}
	finals := 0
	for _, c := range ofEvent(calls, "MessageDisplay") {
		text := c.str("displayed_text")
		switch {
		case c.get("is_final").Bool() && text == final:
			finals++
		case c.get("is_final").Bool() || !strings.HasPrefix(final, text):
			t.Errorf("MessageDisplay = %s, want the answer so far, or all of it with is_final", c.Payload)
		}
	}
	if finals != 1 {
		t.Errorf("%d final MessageDisplay calls with the whole answer, want 1", finals)
	}
	checkPayloads(t, calls, "session_id", res.sessionID, "cwd", w.project)
	for _, c := range calls {
		if got := c.str("hook_event_name"); got != c.Event {
			t.Errorf("%s: hook_event_name = %q", c.Event, got)
		}
		if got := c.str("permission_mode"); got != "yolo" {
			t.Errorf("%s: permission_mode = %q, want yolo", c.Event, got)
		}
		if c.Env["QWEN_CODE_SESSION_ID"] != res.sessionID || c.Env["QWEN_PROJECT_DIR"] != w.project ||
			c.Env["CLAUDE_PROJECT_DIR"] != w.project {
			t.Errorf("%s: env QWEN_CODE_SESSION_ID %q QWEN_PROJECT_DIR %q CLAUDE_PROJECT_DIR %q, want the session and the project",
				c.Event, c.Env["QWEN_CODE_SESSION_ID"], c.Env["QWEN_PROJECT_DIR"], c.Env["CLAUDE_PROJECT_DIR"])
		}
	}
	if got := ofEvent(calls, "SessionStart")[0].str("source"); got != "startup" {
		t.Errorf("SessionStart source = %q, want startup", got)
	}
	prompts := ofEvent(calls, "UserPromptSubmit")
	if prompts[0].str("prompt") != prompt || prompts[0].str("submitted_prompt") != prompt ||
		prompts[1].str("prompt") != "" || prompts[1].str("submitted_prompt") != "" {
		t.Errorf("UserPromptSubmit = %s then %s, want the prompt submitted, then an empty continuation", prompts[0].Payload, prompts[1].Payload)
	}
	calls0 := w.api.IssuedCalls(marker)
	if len(calls0) != 1 {
		t.Fatalf("the fake model issued %v, want one call", calls0)
	}
	for _, ev := range []string{"PreToolUse", "PostToolUse"} {
		c := ofEvent(calls, ev)[0]
		if c.str("tool_name") != "run_shell_command" || c.str("tool_input.command") != command ||
			c.str("tool_call_id") != calls0[0].CallID || !strings.HasPrefix(c.str("tool_use_id"), "toolu_") {
			t.Errorf("%s = %s, want run_shell_command %q with the model's call id %s", ev, c.Payload, command, calls0[0].CallID)
		}
	}
	if got := ofEvent(calls, "Stop")[0].str("last_assistant_message"); got != final {
		t.Errorf("Stop last_assistant_message = %q, want %q", got, final)
	}

	if turns := w.api.OfKind(fakeopenai.KindTurn); len(turns) != 2 || turns[1].Step != 1 {
		t.Errorf("the fake saw %d turn requests, want 2 of %s", len(turns), marker)
	}
	if out, ok := w.api.CallOutput(calls0[0].CallID); !ok || !strings.Contains(out.Text, "Exit Code: 0") {
		t.Errorf("the tool's output sent back = %+v (%v), want the command's exit code 0", out, ok)
	}
	checkOpenAIOffline(t, "qwen", w.api, qwenAPIKey)
	t.Logf("TestQwenHeadlessHooks took %v (qwen -p %v)", time.Since(started).Round(time.Millisecond), res.dur.Round(time.Millisecond))
}
