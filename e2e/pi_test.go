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

// The Pi tests drive the real Pi (scripts/install-agents.sh installs it)
// against internal/fakeopenai's Chat Completions on loopback: a custom
// OpenAI-compatible provider in the agent folder's models.json. Pi has no
// command hooks: `clawd install pi` writes clawd's extension,
// extensions/clawd.ts in the agent folder, which Pi loads and hands its
// lifecycle events, and which runs `clawd hook pi <event>`.

// piVersion is the Pi release the tests run (agentVersion): the pinned
// one, or the one scripts/drift.sh tries.
var piVersion = agentVersion("pi")

// piAPIKey is what Pi sends the fake as its bearer token.
const piAPIKey = "sk-clawd-e2e-fake-pi"

// piPath returns Pi (a node script): $CLAWD_E2E_PI, else where
// scripts/install-agents.sh puts it.
func piPath(t *testing.T) string {
	t.Helper()
	return cachedCLI(t, "Pi", piVersion, "CLAWD_E2E_PI", "pi", "node_modules", ".bin", "pi")
}

// piWorld is a world with a Pi agent folder and a fake OpenAI-compatible
// API.
type piWorld struct {
	*world
	agentDir string // ~/.pi/agent of the world's home
	bin      string
	api      *fakeopenai.Server
}

func newPiWorld(t *testing.T) *piWorld {
	t.Helper()
	w := &piWorld{world: newWorld(t), bin: piPath(t)}
	checkCLIVersion(t, w.bin, piVersion)
	w.agentDir = filepath.Join(w.home, ".pi", "agent")
	if err := os.MkdirAll(filepath.Join(w.agentDir, "extensions"), 0o700); err != nil {
		t.Fatal(err)
	}
	return w
}

// startPiAPI starts the fake API and writes the user's models.json with a
// provider "fake" for it, and an extension of the user's own.
func (w *piWorld) startPiAPI(script fakeopenai.Script) {
	w.t.Helper()
	w.api = fakeopenai.New(script)
	w.api.Start()
	w.t.Cleanup(w.api.Close)
	models := map[string]any{"providers": map[string]any{"fake": map[string]any{
		"baseUrl": w.api.URL() + "/v1",
		"api":     "openai-completions",
		"apiKey":  piAPIKey,
		// The fake speaks plain Chat Completions: the system prompt as a
		// system message, no reasoning_effort.
		"compat": map[string]any{"supportsDeveloperRole": false, "supportsReasoningEffort": false},
		"models": []any{map[string]any{"id": fakeopenai.DefaultModel}},
	}}}
	data, err := json.MarshalIndent(models, "", "  ")
	if err != nil {
		w.t.Fatal(err)
	}
	for name, body := range map[string][]byte{
		"models.json":        append(data, '\n'),
		"extensions/mine.ts": []byte("export default function (pi: any) {}\n"),
	} {
		if err := os.WriteFile(filepath.Join(w.agentDir, name), body, 0o600); err != nil {
			w.t.Fatal(err)
		}
	}
}

// piEnv is the whole environment of pi: offline against the fake, HOME
// the world's, every proxy the fake (see proxyEnv).
func (w *piWorld) piEnv() []string {
	env := []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + w.home,
		"CLAWD_HOME=" + w.clawdHome,
		"PI_OFFLINE=1",
		"TERM=xterm-256color",
		"LANG=C.UTF-8",
		"SHELL=/bin/bash",
		"XDG_RUNTIME_DIR=" + w.dir,
	}
	env = append(env, proxyEnv(w.api.URL())...)
	return append(env, raceEnv()...)
}

// runPi runs `pi -p` with the fake model and message in the project
// folder.
func (w *piWorld) runPi(ctx context.Context, message string) result {
	w.t.Helper()
	cmd := exec.CommandContext(ctx, w.bin, "--offline", "--provider", "fake", "--model", fakeopenai.DefaultModel, "-p", message)
	cmd.Env = w.piEnv()
	cmd.Dir = w.project
	cmd.Stdin = strings.NewReader("")
	r := run(w.t, cmd)
	w.t.Logf("pi -p: exit %d in %v", r.code, r.dur.Round(time.Millisecond))
	return r
}

// extensionFile is where `clawd install pi` puts clawd's extension.
func (w *piWorld) extensionFile() string { return filepath.Join(w.agentDir, "extensions", "clawd.ts") }

// agentFiles lists the agent folder's files outside sessions/ (which Pi
// writes) with their bytes.
func (w *piWorld) agentFiles() map[string]string {
	w.t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(w.agentDir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(w.agentDir, p)
		if d.IsDir() {
			if rel == "sessions" {
				return filepath.SkipDir
			}
			out[rel+"/"] = ""
			return nil
		}
		b, err := os.ReadFile(p)
		out[rel] = string(b)
		return err
	})
	if err != nil {
		w.t.Fatal(err)
	}
	return out
}

// TestPiPrompt: with clawd's extension installed, `pi -p` offline against
// the fake runs one shell command and answers. clawd follows it from the
// extension alone: the session starts idle in the project, thinks under
// the prompt's title, works on the command (the tool call's own id), is
// done, and ends when Pi exits; it is headless (no UI). Uninstall deletes
// the extension and leaves every other file of Pi's as it was.
func TestPiPrompt(t *testing.T) {
	t.Parallel()
	started := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	const (
		marker  = "E2E_PI_PROMPT"
		command = "echo hello > out.txt"
		final   = "Wrote hello to out.txt."
		message = "Please " + marker + " now"
	)
	w := newPiWorld(t)
	w.startPiAPI(fakeopenai.Script{Conversations: []fakeopenai.Conversation{{Match: marker, Steps: []fakeopenai.Step{
		fakeopenai.Tool("bash", map[string]any{"command": command}),
		fakeopenai.Text(final),
	}}}})
	before := w.agentFiles()
	serve := w.startServe()
	events := w.startEvents()
	events.sync(ctx)

	r := w.mustClawd(ctx, "install", "pi")
	if !strings.HasPrefix(r.stdout, "pi: installed 8 hooks in "+w.extensionFile()) {
		t.Errorf("clawd install pi printed %q, want 8 hooks in %s", r.stdout, w.extensionFile())
	}

	res := w.runPi(ctx, message)
	if res.code != 0 || !strings.Contains(res.stdout, final) {
		t.Fatalf("pi -p: %s", res)
	}
	if data, err := os.ReadFile(filepath.Join(w.project, "out.txt")); err != nil || string(data) != "hello\n" {
		t.Errorf("out.txt = %q (%v), want the tool's hello", data, err)
	}
	evs := events.waitFor(15*time.Second, "session.end of pi's session", func(evs []event) bool {
		return anyEvent(evs, func(e event) bool { return e.Agent == "pi" && e.Kind == "session.end" })
	})
	pis := filterEvents(evs, func(e event) bool { return e.Agent == "pi" })
	id := pis[0].SessionID
	sess := forSession(evs, id)
	t.Logf("events: %v", sess)
	want := []string{"session.start:idle", "prompt.submit:thinking", "tool.start:working", "tool.end:working",
		"turn.end:attention", "session.end:sleeping"}
	if got := kindStates(sess); !subsequence(got, want) || len(sess) != len(pis) {
		t.Errorf("events %v (of %d pi events), want %v in this order, all of one session", got, len(pis), want)
	}
	issued := w.api.IssuedCalls(marker)
	if len(issued) != 1 || issued[0].Name != "bash" {
		t.Fatalf("the fake model issued %+v, want one bash call", issued)
	}
	for _, e := range sess {
		if e.Cwd != w.project || !e.Headless {
			t.Errorf("event not headless in the project: %s", e.raw)
		}
		if (e.Kind == "tool.start" || e.Kind == "tool.end") && (e.ToolName != "bash" || e.ToolUseID != issued[0].CallID) {
			t.Errorf("%s names %s %s, want bash %s", e.Kind, e.ToolName, e.ToolUseID, issued[0].CallID)
		}
		if e.Kind == "prompt.submit" && e.Title != message {
			t.Errorf("prompt.submit titled %q, want %q", e.Title, message)
		}
	}
	checkPrivate(t, evs, final, "echo ", "hello > out")
	w.checkEndedSession(ctx, t, id)
	w.checkHookLog(t)
	checkOpenAIOffline(t, "pi", w.api, piAPIKey)

	r = w.mustClawd(ctx, "uninstall", "pi")
	if !strings.Contains(r.stdout, "deleted it") {
		t.Errorf("clawd uninstall pi printed %q, want the extension deleted", r.stdout)
	}
	if _, err := os.Stat(w.extensionFile()); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the extension is still there after uninstall (stat: %v)", err)
	}
	after := w.agentFiles()
	for name, data := range before {
		if after[name] != data {
			t.Errorf("after uninstall %s holds %q, want %q as before install", name, after[name], data)
		}
	}
	for name := range after {
		if _, ok := before[name]; !ok && name != "auth.json" {
			t.Errorf("after uninstall %s is there, which was not before install", name)
		}
	}
	events.close()
	serve.shutdown()
	t.Logf("TestPiPrompt took %v (pi -p %v)", time.Since(started).Round(time.Millisecond), res.dur.Round(time.Millisecond))
}
