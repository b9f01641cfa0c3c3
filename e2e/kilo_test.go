//go:build !windows

package e2e

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/clawdhq/clawd/internal/fakeopenai"
	"github.com/clawdhq/clawd/runtime/client"
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

// kiloWorld is a world with a Kilo config folder and a fake model API.
type kiloWorld struct {
	*world
	bin, configDir string
	api            *fakeopenai.Server
	// userConfig is the kilo.json the user wrote.
	userConfig []byte
}

// newKiloWorld writes a user's kilo.json with the fake API as its model
// provider and permission (nil: Kilo's defaults) as its rules.
func newKiloWorld(t *testing.T, script fakeopenai.Script, permission map[string]any) *kiloWorld {
	t.Helper()
	w := &kiloWorld{world: newWorld(t), bin: kiloPath(t)}
	checkCLIVersion(t, w.bin, kiloVersion)
	w.api = fakeopenai.New(script)
	w.api.Start()
	t.Cleanup(w.api.Close)
	w.configDir = filepath.Join(w.home, ".config", "kilo")
	if err := os.MkdirAll(w.configDir, 0o700); err != nil {
		t.Fatal(err)
	}
	cfg := opencodeUserConfig(w.api.URL() + "/v1")
	delete(cfg, "$schema")
	cfg["provider"].(map[string]any)["fake"].(map[string]any)["options"] = map[string]any{"baseURL": w.api.URL() + "/v1", "apiKey": kiloAPIKey}
	if permission != nil {
		cfg["permission"] = permission
	}
	var err error
	if w.userConfig, err = json.MarshalIndent(cfg, "", "  "); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(w.configDir, "kilo.json"), w.userConfig, 0o600); err != nil {
		t.Fatal(err)
	}
	return w
}

// kiloEnv is the whole environment of kilo: its XDG folders in the
// world's home, no catalog, update or share, every proxy the fake.
func (w *kiloWorld) kiloEnv() []string {
	env := append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + w.home, "CLAWD_HOME=" + w.clawdHome,
		"XDG_CONFIG_HOME=" + filepath.Join(w.home, ".config"), "XDG_DATA_HOME=" + filepath.Join(w.home, ".local", "share"),
		"XDG_CACHE_HOME=" + filepath.Join(w.home, ".cache"), "XDG_STATE_HOME=" + filepath.Join(w.home, ".local", "state"),
		"KILO_DISABLE_MODELS_FETCH=1", "KILO_DISABLE_AUTOUPDATE=1", "KILO_DISABLE_SHARE=1",
		"TERM=xterm-256color", "LANG=C.UTF-8", "SHELL=/bin/bash", "XDG_RUNTIME_DIR=" + w.dir}, proxyEnv(w.api.URL())...)
	return append(env, raceEnv()...)
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
	w := newKiloWorld(t, fakeopenai.Script{Model: fakeopenai.DefaultModel, Conversations: []fakeopenai.Conversation{{Match: marker, Steps: []fakeopenai.Step{
		fakeopenai.Tool("bash", map[string]any{"command": "echo hello > out.txt", "description": "write a file"}), fakeopenai.Text(final),
	}}}}, nil)
	configDir, userConfig, api, bin := w.configDir, w.userConfig, w.api, w.bin
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
	cmd.Env = w.kiloEnv()
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

var (
	// kiloHome is the TUI's input line, ready for a prompt.
	kiloHome = regexp.MustCompile(`Ask anything`)
	// kiloAsk is Kilo's own permission prompt.
	kiloAsk = regexp.MustCompile(`Permission required`)
)

// TestKiloTUIPermission: in Kilo's TUI with bash set to ask, the request
// shows in clawd, not headless, as Kilo's own prompt does; `clawd
// permissions allow` runs the command and Kilo's prompt goes away. /exit
// ends the session in clawd.
func TestKiloTUIPermission(t *testing.T) {
	t.Parallel()
	started := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 240*time.Second)
	defer cancel()
	deadline, _ := ctx.Deadline()
	const (
		marker  = "E2E_KILO_ASK"
		command = "echo yes > allowed.txt"
		final   = "Wrote allowed.txt as approved."
	)
	w := newKiloWorld(t, fakeopenai.Script{Model: fakeopenai.DefaultModel, Conversations: []fakeopenai.Conversation{{Match: marker, Steps: []fakeopenai.Step{
		fakeopenai.Tool("bash", map[string]any{"command": command, "description": "write a file"}), fakeopenai.Text(final),
	}}}}, map[string]any{"bash": "ask"})
	serve := w.startServe()
	events := w.startEvents()
	events.sync(ctx)
	w.mustClawd(ctx, "install", "kilo")

	tui := startTmux(t, w.project, 160, 50, w.kiloEnv(), []string{w.bin})
	tui.deadline = deadline
	tui.WaitFor(kiloHome, 150*time.Second)
	prompt := "Please " + marker + " now"
	tui.Type(prompt)
	tui.WaitFor(regexp.MustCompile(regexp.QuoteMeta(prompt)), 10*time.Second)
	time.Sleep(300 * time.Millisecond)
	tui.SendKeys("Enter")

	list := w.waitPermissions(ctx, 90*time.Second, "kilo's request for "+command, func(l []client.PermissionView) bool { return len(l) > 0 })
	p := list[0]
	if len(list) != 1 || p.Agent != "kilo" || p.Kind != client.KindPermission || p.Tool != "bash" || p.Summary != command ||
		p.Headless || p.Cwd != w.project || !strings.HasPrefix(p.SessionID, "ses_") {
		t.Fatalf("listed requests = %+v, want one of kilo's bash %q, not headless, in the project", list, command)
	}
	tui.WaitFor(kiloAsk, 30*time.Second)
	if r := w.mustPerm(ctx, "allow", p.ID); !strings.HasPrefix(r.stdout, "allowed "+p.ID) {
		t.Errorf("clawd permissions allow %s printed %q", p.ID, r.stdout)
	}
	tui.WaitFor(regexp.MustCompile(regexp.QuoteMeta(final)), 60*time.Second)
	if screen, gone := tui.awaitGone(kiloAsk, 10*time.Second); !gone {
		t.Errorf("Kilo's own prompt is still there after clawd allowed:\n%s", screen)
	}
	if data, err := os.ReadFile(filepath.Join(w.project, "allowed.txt")); err != nil || string(data) != "yes\n" {
		t.Errorf("allowed.txt = %q (%v): the allowed command did not run", data, err)
	}
	evs := events.waitFor(20*time.Second, "the turn's end", func(evs []event) bool {
		return anyEvent(forSession(evs, p.SessionID), hasKind("turn.end"))
	})
	want := []string{"prompt.submit:thinking", "permission.request:waiting", "permission.granted:working", "tool.end:working", "turn.end:attention"}
	if got := kindStates(forSession(evs, p.SessionID)); !subsequence(got, want) {
		t.Errorf("events %v, want %v in this order", got, want)
	}
	// Ctrl-C does not quit Kilo's TUI (it clears the input): /exit does.
	tui.Type("/exit")
	time.Sleep(500 * time.Millisecond)
	tui.SendKeys("Enter")
	tui.WaitExit(30 * time.Second)
	events.waitFor(20*time.Second, "the session's end", func(evs []event) bool {
		return anyEvent(forSession(evs, p.SessionID), hasKind("session.end"))
	})
	w.mustClawd(ctx, "uninstall", "kilo")
	events.close()
	serve.shutdown()
	t.Logf("TestKiloTUIPermission took %v", time.Since(started).Round(time.Millisecond))
}
