//go:build !windows

package e2e

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clawdhq/clawd/internal/fakeopenai"
)

// The OMP tests drive the real OMP (oh-my-pi; scripts/install-agents.sh
// installs it and the Bun it runs on) against internal/fakeopenai's Chat
// Completions on loopback: a custom OpenAI-compatible provider in the
// agent folder's models.yml (OMP turns a models.json into models.yml at
// its first start and reads only that from then on). `clawd install omp`
// writes clawd's extension, extensions/clawd.ts in the agent folder,
// which OMP loads and hands its lifecycle events.

// ompVersion is the OMP release scripts/install-agents.sh installs.
const ompVersion = "18.2.3"

// ompAPIKey is what OMP sends the fake as its bearer token.
const ompAPIKey = "sk-clawd-e2e-fake-omp"

// ompWorld is a world with an OMP agent folder and a fake OpenAI API.
type ompWorld struct {
	*world
	agentDir string // ~/.omp/agent of the world's home
	bun, cli string // OMP is cli, a Bun script
	api      *fakeopenai.Server
}

func newOMPWorld(t *testing.T) *ompWorld {
	t.Helper()
	w := &ompWorld{world: newWorld(t)}
	w.bun = cachedCLI(t, "Bun (for OMP)", ompVersion, "CLAWD_E2E_OMP_BUN", "omp", "node_modules", "bun", "bin", "bun.exe")
	w.cli = cachedCLI(t, "OMP", ompVersion, "CLAWD_E2E_OMP", "omp", "node_modules", "@oh-my-pi", "pi-coding-agent", "dist", "cli.js")
	out, err := exec.Command(w.bun, w.cli, "--version").CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "omp/"+ompVersion {
		t.Fatalf("omp --version = %q (%v), want omp/%s: run scripts/install-agents.sh", out, err, ompVersion)
	}
	w.agentDir = filepath.Join(w.home, ".omp", "agent")
	if err := os.MkdirAll(filepath.Join(w.agentDir, "extensions"), 0o700); err != nil {
		t.Fatal(err)
	}
	return w
}

// startOMPAPI starts the fake API and writes the user's models.yml with a
// provider "fake" for it, and an extension of the user's own.
func (w *ompWorld) startOMPAPI(script fakeopenai.Script) {
	w.t.Helper()
	w.api = fakeopenai.New(script)
	w.api.Start()
	w.t.Cleanup(w.api.Close)
	models := "providers:\n  fake:\n    baseUrl: " + w.api.URL() + "/v1\n    api: openai-completions\n    apiKey: " + ompAPIKey +
		"\n    compat:\n      supportsDeveloperRole: false\n      supportsReasoningEffort: false\n    models:\n      - id: " + fakeopenai.DefaultModel + "\n"
	for name, body := range map[string]string{
		"models.yml":         models,
		"extensions/mine.ts": "export default function (omp: any) {}\n",
	} {
		if err := os.WriteFile(filepath.Join(w.agentDir, name), []byte(body), 0o600); err != nil {
			w.t.Fatal(err)
		}
	}
}

// runOMP runs `omp -p` with the fake model and message in the project
// folder.
func (w *ompWorld) runOMP(ctx context.Context, message string) result {
	w.t.Helper()
	cmd := exec.CommandContext(ctx, w.bun, w.cli, "--provider", "fake", "--model", fakeopenai.DefaultModel, "-p", message)
	cmd.Env = append([]string{
		"PATH=" + filepath.Dir(w.bun) + ":" + os.Getenv("PATH"),
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
	w.t.Logf("omp -p: exit %d in %v", r.code, r.dur.Round(time.Millisecond))
	return r
}

// ompFiles lists the agent folder's files that were there before OMP ran
// with their bytes (OMP adds its databases and sessions/ at its start).
func (w *ompWorld) ompFiles() map[string]string {
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

// TestOMPPrompt: with clawd's extension installed, `omp -p` offline
// against the fake runs one shell command and answers. clawd follows it
// from the extension alone: the session starts idle in the project,
// thinks under the prompt's title, works on the command (the call's own
// id), is done once (session_stop, then an agent_end that will not
// continue), and ends when OMP exits; it is headless. Uninstall deletes
// the extension and leaves the user's files as they were.
func TestOMPPrompt(t *testing.T) {
	t.Parallel()
	started := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	const (
		marker  = "E2E_OMP_PROMPT"
		command = "echo hello > out.txt"
		final   = "Wrote hello to out.txt."
		message = "Please " + marker + " now"
	)
	w := newOMPWorld(t)
	w.startOMPAPI(fakeopenai.Script{Conversations: []fakeopenai.Conversation{{Match: marker, Steps: []fakeopenai.Step{
		fakeopenai.Tool("bash", map[string]any{"command": command}),
		fakeopenai.Text(final),
	}}}})
	before := w.ompFiles()
	serve := w.startServe()
	events := w.startEvents()
	events.sync(ctx)

	ext := filepath.Join(w.agentDir, "extensions", "clawd.ts")
	r := w.mustClawd(ctx, "install", "omp")
	if !strings.HasPrefix(r.stdout, "omp: installed 10 hooks in "+ext) {
		t.Errorf("clawd install omp printed %q, want 10 hooks in %s", r.stdout, ext)
	}

	res := w.runOMP(ctx, message)
	if res.code != 0 || !strings.Contains(res.stdout, final) {
		t.Fatalf("omp -p: %s", res)
	}
	if data, err := os.ReadFile(filepath.Join(w.project, "out.txt")); err != nil || string(data) != "hello\n" {
		t.Errorf("out.txt = %q (%v), want the tool's hello", data, err)
	}
	evs := events.waitFor(15*time.Second, "session.end of omp's session", func(evs []event) bool {
		return anyEvent(evs, func(e event) bool { return e.Agent == "omp" && e.Kind == "session.end" })
	})
	omps := filterEvents(evs, func(e event) bool { return e.Agent == "omp" })
	id := omps[0].SessionID
	sess := forSession(evs, id)
	t.Logf("events: %v", sess)
	want := []string{"session.start:idle", "prompt.submit:thinking", "tool.start:working", "tool.end:working",
		"turn.end:attention", "session.end:sleeping"}
	if got := kindStates(sess); !subsequence(got, want) || len(sess) != len(omps) {
		t.Errorf("events %v (of %d omp events), want %v in this order, all of one session", got, len(omps), want)
	}
	if n := len(filterEvents(sess, func(e event) bool { return e.Kind == "turn.end" })); n != 1 {
		t.Errorf("%d turn.end events, want 1 (session_stop confirmed by agent_end)", n)
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
	// OMP refreshes the model catalogs of its built-in providers at its
	// start: the fake proxy refuses those CONNECTs, nothing leaves the
	// machine.
	var catalogs []string
	for _, r := range w.api.Requests() {
		if r.Kind == fakeopenai.KindOutbound && r.Method == "CONNECT" {
			catalogs = append(catalogs, r.Path)
		}
	}
	checkOpenAIOffline(t, "omp", w.api, ompAPIKey, catalogs...)

	r = w.mustClawd(ctx, "uninstall", "omp")
	if !strings.Contains(r.stdout, "deleted it") {
		t.Errorf("clawd uninstall omp printed %q, want the extension deleted", r.stdout)
	}
	if _, err := os.Stat(ext); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the extension is still there after uninstall (stat: %v)", err)
	}
	after := w.ompFiles()
	for name, data := range before {
		if after[name] != data {
			t.Errorf("after uninstall %s holds %q, want %q as before install", name, after[name], data)
		}
	}
	events.close()
	serve.shutdown()
	t.Logf("TestOMPPrompt took %v (omp -p %v)", time.Since(started).Round(time.Millisecond), res.dur.Round(time.Millisecond))
}
