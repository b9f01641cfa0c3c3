//go:build !windows

package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/clawdhq/clawd/internal/fakeopenai"
)

// The Cline tests drive the real Cline CLI (npm cline,
// scripts/install-agents.sh installs it) against internal/fakeopenai's Chat
// Completions as an openai-compatible provider set with `cline auth`.

const clineVersion = "3.0.65"

const clineAPIKey = "sk-clawd-e2e-fake-cline"

// clineEvents are the hook files `clawd install cline` writes.
var clineEvents = []string{"TaskStart", "TaskResume", "UserPromptSubmit", "PreToolUse", "PostToolUse", "TaskComplete",
	"TaskError", "TaskCancel", "SessionShutdown"}

func clinePath(t *testing.T) string {
	t.Helper()
	return cachedCLI(t, "Cline", clineVersion, "CLAWD_E2E_CLINE", "cline", "node_modules", ".bin", "cline")
}

// TestClineLifecycle: with `clawd install cline`'s hook files beside a
// hook of the user's own, a one-shot `cline "<prompt>"` that runs one
// command shows its session idle, working, then done, under the id Cline
// keeps it by, in the project; the user's hook still runs; no permission
// is asked (Cline's hooks cannot approve). Uninstall deletes clawd's files
// and leaves the user's as it was.
func TestClineLifecycle(t *testing.T) {
	t.Parallel()
	started := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Second)
	defer cancel()
	const marker, final = "E2E_CLINE_RUN", "Wrote out.txt."
	w := newWorld(t)
	bin := clinePath(t)
	checkCLIVersion(t, bin, clineVersion)
	api := fakeopenai.New(fakeopenai.Script{Model: "fake-model", Conversations: []fakeopenai.Conversation{{Match: marker, Steps: []fakeopenai.Step{
		fakeopenai.Tool("run_commands", map[string]any{"commands": []string{"echo hello > out.txt"}}), fakeopenai.Text(final),
	}}}})
	api.Start()
	t.Cleanup(api.Close)
	env := append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + w.home, "CLAWD_HOME=" + w.clawdHome, "LANG=C.UTF-8",
		"SHELL=/bin/bash", "XDG_RUNTIME_DIR=" + w.dir}, proxyEnv(api.URL())...)
	env = append(env, raceEnv()...)
	cline := func(args ...string) result {
		cmd := exec.CommandContext(ctx, bin, args...)
		cmd.Env, cmd.Dir, cmd.WaitDelay = env, w.project, 5*time.Second
		return run(t, cmd)
	}
	if r := cline("auth", "-p", "openai-compatible", "-k", clineAPIKey, "-m", "fake-model", "-b", api.URL()+"/v1"); r.code != 0 {
		t.Fatalf("cline auth: %s", r)
	}
	hooks := filepath.Join(w.home, ".cline", "hooks")
	if err := os.MkdirAll(hooks, 0o755); err != nil {
		t.Fatal(err)
	}
	userHook := "#!/bin/bash\ncat > /dev/null\necho ran >> \"$HOME/user-hook.log\"\n"
	if err := os.WriteFile(filepath.Join(hooks, "PreToolUse"), []byte(userHook), 0o755); err != nil {
		t.Fatal(err)
	}
	serve := w.startServe()
	events := w.startEvents()
	events.sync(ctx)
	w.mustClawd(ctx, "install", "cline")
	for _, ev := range clineEvents {
		data, err := os.ReadFile(filepath.Join(hooks, ev+".bash"))
		if err != nil || !strings.Contains(string(data), " hook cline "+ev+"\n") || !strings.Contains(string(data), clawdBin) {
			t.Errorf("%s.bash after install = %q (%v), want this clawd's hook for %s", ev, data, err, ev)
		}
	}

	res := cline("Please " + marker + " now")
	if res.code != 0 || !strings.Contains(res.stdout, final) {
		t.Fatalf("cline: %s", res)
	}
	if data, err := os.ReadFile(filepath.Join(w.project, "out.txt")); err != nil || string(data) != "hello\n" {
		t.Errorf("out.txt = %q (%v), want the command's hello", data, err)
	}
	all := events.waitFor(20*time.Second, "turn.end of the cline session", func(evs []event) bool {
		return anyEvent(evs, func(e event) bool { return e.Agent == "cline" && e.Kind == "turn.end" })
	})
	var id string
	for _, e := range all {
		if e.Agent == "cline" {
			id = e.SessionID
			break
		}
	}
	sess := forSession(all, id)
	kinds := field(sess, func(e event) string { return e.Kind })
	if want := []string{"session.start", "tool.start", "tool.end", "turn.end"}; !slices.Equal(kinds, want) {
		t.Errorf("cline events %v, want %v", kinds, want)
	}
	wantState := map[string]string{"session.start": "idle", "tool.start": "working", "tool.end": "working", "turn.end": "attention"}
	for _, e := range sess {
		if s := wantState[e.Kind]; e.State != s || e.Cwd != w.project {
			t.Errorf("%s: state %q cwd %q, want %q in the project", e.Kind, e.State, e.Cwd, s)
		}
		if (e.Kind == "tool.start" || e.Kind == "tool.end") && (e.ToolName != "run_commands" || !strings.HasPrefix(e.ToolUseID, "call_")) {
			t.Errorf("%s: tool %q id %q, want run_commands and the model's call id", e.Kind, e.ToolName, e.ToolUseID)
		}
	}
	// Cline keeps the session under the id its hooks name.
	if _, err := os.Stat(filepath.Join(w.home, ".cline", "data", "sessions", id)); err != nil {
		t.Errorf("the session id %q is not the folder Cline keeps the session in: %v", id, err)
	}
	if st, ok := w.status(ctx); ok {
		if s, found := st.session(id); !found || s.Agent != "cline" || s.Cwd != w.project {
			t.Errorf("clawd status lists %+v (found %v), want the cline session in the project", s, found)
		}
	}
	if data, err := os.ReadFile(filepath.Join(w.home, "user-hook.log")); err != nil || string(data) != "ran\n" {
		t.Errorf("the user's own PreToolUse hook log = %q (%v), want it to have run once beside clawd's", data, err)
	}
	if l := w.pendingPermissions(ctx); len(l) != 0 {
		t.Errorf("requests of a cline run: %+v, want none", l)
	}
	for _, r := range api.Requests() {
		if r.Kind == fakeopenai.KindOutbound {
			t.Logf("refused outbound: %s %s", r.Method, r.Path)
		} else if r.Kind == fakeopenai.KindTurn && r.Authorization != clineAPIKey {
			t.Errorf("cline sent a model request with bearer %q", r.Authorization)
		}
	}

	w.mustClawd(ctx, "uninstall", "cline")
	entries, err := os.ReadDir(hooks)
	if err != nil || len(entries) != 1 || entries[0].Name() != "PreToolUse" {
		t.Errorf("the hooks folder after uninstall holds %v (%v), want the user's PreToolUse alone", entries, err)
	}
	if data, err := os.ReadFile(filepath.Join(hooks, "PreToolUse")); err != nil || string(data) != userHook {
		t.Errorf("the user's hook after uninstall = %q (%v)", data, err)
	}
	events.close()
	serve.shutdown()
	t.Logf("TestClineLifecycle took %v (cline %v)", time.Since(started).Round(time.Millisecond), res.dur.Round(time.Millisecond))
}
