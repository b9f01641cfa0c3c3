//go:build !windows

package e2e

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clawdhq/clawd/internal/fakeopenai"
)

// The Kilo Code tests drive the real Kilo Code CLI (npm @kilocode/cli,
// scripts/install-agents.sh installs it) against internal/fakeopenai's Chat
// Completions as a custom OpenAI-compatible provider in kilo.json, as
// opencode's tests do: Kilo is a fork of opencode and takes clawd's opencode
// plugin, which runs `clawd hook kilo`.

const kiloVersion = "7.7.7"

const kiloAPIKey = "sk-clawd-e2e-fake-kilo"

func kiloPath(t *testing.T) string {
	t.Helper()
	return cachedCLI(t, "Kilo Code", kiloVersion, "CLAWD_E2E_KILO", "kilo", "node_modules", ".bin", "kilo")
}

// TestKiloRun: with `clawd install kilo`'s plugin, `kilo run` that runs
// one command shows its session idle in the project, thinking under the
// prompt's title, working, done, and ending when Kilo exits (its title,
// named as it exits, brings nothing back); headless, as `kilo run` answers
// permissions itself. clawd never touches kilo.json, and uninstall removes
// the plugin.
func TestKiloRun(t *testing.T) {
	t.Parallel()
	started := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Second)
	defer cancel()
	const (
		marker  = "E2E_KILO_RUN"
		final   = "Wrote hello to out.txt."
		message = "Please " + marker + " now"
	)
	w := newWorld(t)
	bin := kiloPath(t)
	checkCLIVersion(t, bin, kiloVersion)
	api := fakeopenai.New(fakeopenai.Script{Model: fakeopenai.DefaultModel, Conversations: []fakeopenai.Conversation{{Match: marker, Steps: []fakeopenai.Step{
		fakeopenai.Tool("bash", map[string]any{"command": "echo hello > out.txt", "description": "write a file"}), fakeopenai.Text(final),
	}}}})
	api.Start()
	t.Cleanup(api.Close)
	configDir := filepath.Join(w.home, ".config", "kilo")
	if err := os.MkdirAll(configDir, 0o700); err != nil {
		t.Fatal(err)
	}
	cfg := opencodeUserConfig(api.URL() + "/v1")
	delete(cfg, "$schema")
	cfg["provider"].(map[string]any)["fake"].(map[string]any)["options"] = map[string]any{"baseURL": api.URL() + "/v1", "apiKey": kiloAPIKey}
	userConfig, err := json.MarshalIndent(cfg, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(configDir, "kilo.json"), userConfig, 0o600); err != nil {
		t.Fatal(err)
	}
	serve := w.startServe()
	events := w.startEvents()
	events.sync(ctx)
	w.mustClawd(ctx, "install", "kilo")
	if data, _ := os.ReadFile(filepath.Join(configDir, "kilo.json")); string(data) != string(userConfig) {
		t.Errorf("install changed kilo.json:\n%s", data)
	}
	plugin := filepath.Join(configDir, "plugin", "clawd.js")
	if data, err := os.ReadFile(plugin); err != nil || !strings.Contains(string(data), `["hook", "kilo", name]`) {
		t.Fatalf("plugin after install (%v):\n%.400s", err, data)
	}

	cmd := exec.CommandContext(ctx, bin, "run", message)
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + w.home, "CLAWD_HOME=" + w.clawdHome,
		"XDG_CONFIG_HOME=" + filepath.Join(w.home, ".config"), "XDG_DATA_HOME=" + filepath.Join(w.home, ".local", "share"),
		"XDG_CACHE_HOME=" + filepath.Join(w.home, ".cache"), "XDG_STATE_HOME=" + filepath.Join(w.home, ".local", "state"),
		"KILO_DISABLE_MODELS_FETCH=1", "KILO_DISABLE_AUTOUPDATE=1", "KILO_DISABLE_SHARE=1",
		"LANG=C.UTF-8", "SHELL=/bin/bash", "XDG_RUNTIME_DIR=" + w.dir}, proxyEnv(api.URL())...)
	cmd.Env = append(cmd.Env, raceEnv()...)
	cmd.Dir, cmd.WaitDelay = w.project, 5*time.Second
	res := run(t, cmd)
	if res.code != 0 || !strings.Contains(res.stdout, final) {
		t.Fatalf("kilo run: %s", res)
	}
	if data, err := os.ReadFile(filepath.Join(w.project, "out.txt")); err != nil || string(data) != "hello\n" {
		t.Errorf("out.txt = %q (%v), want the tool's hello", data, err)
	}
	all := events.waitFor(20*time.Second, "session.end of the kilo run", func(evs []event) bool {
		return anyEvent(evs, func(e event) bool { return e.Agent == "kilo" && e.Kind == "session.end" })
	})
	var id string
	for _, e := range all {
		if e.Agent == "kilo" {
			id = e.SessionID
			break
		}
	}
	sess := forSession(all, id)
	t.Logf("events: %v", sess)
	want := []string{"session.start:idle", "prompt.submit:thinking", "tool.start:working", "tool.end:working",
		"turn.end:attention", "session.end:sleeping"}
	if got := kindStates(sess); !subsequence(got, want) {
		t.Errorf("events %v, want %v in this order", got, want)
	}
	calls := api.IssuedCalls(marker)
	for _, e := range sess {
		if e.Agent != "kilo" || e.Cwd != w.project || !e.Headless || !strings.HasPrefix(id, "ses_") {
			t.Errorf("event not Kilo's, headless, in the project: %s", e.raw)
		}
		if e.Kind == "prompt.submit" && e.Title != message {
			t.Errorf("prompt.submit title %q, want %q", e.Title, message)
		}
		if (e.Kind == "tool.start" || e.Kind == "tool.end") && (e.ToolName != "bash" || len(calls) != 1 || e.ToolUseID != calls[0].CallID) {
			t.Errorf("%s: tool %q id %q, want bash and the model's call %v", e.Kind, e.ToolName, e.ToolUseID, calls)
		}
	}
	if st, ok := w.status(ctx); ok {
		if s, found := st.session(id); found {
			t.Errorf("clawd status still lists the ended kilo session: %+v", s)
		}
	}
	for _, r := range api.Requests() {
		if r.Kind == fakeopenai.KindOutbound {
			t.Logf("refused outbound: %s %s", r.Method, r.Path)
		} else if r.Kind == fakeopenai.KindTurn && r.Authorization != kiloAPIKey {
			t.Errorf("kilo sent a model request with bearer %q", r.Authorization)
		}
	}
	// Kilo rewrites kilo.json as it runs (its $schema, a permission):
	// uninstall leaves it as Kilo left it.
	kiloLeft, _ := os.ReadFile(filepath.Join(configDir, "kilo.json"))
	w.mustClawd(ctx, "uninstall", "kilo")
	if _, err := os.Stat(plugin); !os.IsNotExist(err) {
		t.Errorf("the plugin is still there after uninstall (stat: %v)", err)
	}
	if data, _ := os.ReadFile(filepath.Join(configDir, "kilo.json")); string(data) != string(kiloLeft) {
		t.Errorf("uninstall changed kilo.json:\n%s", data)
	}
	events.close()
	serve.shutdown()
	t.Logf("TestKiloRun took %v (kilo run %v)", time.Since(started).Round(time.Millisecond), res.dur.Round(time.Millisecond))
}
