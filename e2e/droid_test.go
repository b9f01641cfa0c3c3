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
	"github.com/clawdhq/clawd/runtime/client"
)

// The Factory Droid tests drive the real `droid exec` (npm @factory/cli,
// scripts/install-agents.sh installs it) against internal/fakeopenai's Chat
// Completions as a bring-your-own-key model in ~/.factory/settings.json.
// Droid's TUI asks for a Factory login first and is not run.

// droidVersion is the Droid the tests expect: the npm launcher 0.225.1
// pulls this platform binary.
const droidVersion = "0.225.2"

// droidAPIKey is what Droid sends the fake as its bearer token.
const droidAPIKey = "sk-clawd-e2e-fake-droid"

// droidEvents are the events `clawd install droid` registers.
var droidEvents = []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Notification",
	"SubagentStop", "PreCompact", "Stop", "SessionEnd"}

// droidPath returns droid: $CLAWD_E2E_DROID, else where
// scripts/install-agents.sh puts it.
func droidPath(t *testing.T) string {
	t.Helper()
	return cachedCLI(t, "Factory Droid", droidVersion, "CLAWD_E2E_DROID", "droid", "node_modules", ".bin", "droid")
}

// droidUserHooks is a hooks.json of the user's own, which clawd's install
// adds to and its uninstall gives back byte for byte.
const droidUserHooks = `{
  "PostToolUse": [
    {
      "matcher": "Edit",
      "hooks": [{"type": "command", "command": "true # the user's formatter", "timeout": 5}]
    }
  ]
}
`

// droidWorld is a world with a Droid home and a fake model API.
type droidWorld struct {
	*world
	bin string
	api *fakeopenai.Server
}

func newDroidWorld(t *testing.T, script fakeopenai.Script) *droidWorld {
	t.Helper()
	w := &droidWorld{world: newWorld(t), bin: droidPath(t)}
	checkCLIVersion(t, w.bin, droidVersion)
	script.Model = "fake-model"
	w.api = fakeopenai.New(script)
	w.api.Start()
	t.Cleanup(w.api.Close)
	dir := filepath.Join(w.home, ".factory")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	settings, err := json.Marshal(map[string]any{
		"customModels": []any{map[string]any{"model": "fake-model", "displayName": "Fake", "baseUrl": w.api.URL() + "/v1",
			"apiKey": droidAPIKey, "provider": "generic-chat-completion-api"}},
		"sessionDefaultSettings": map[string]any{"model": "custom:Fake-0"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "settings.json"), settings, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(w.hooksFile(), []byte(droidUserHooks), 0o600); err != nil {
		t.Fatal(err)
	}
	return w
}

func (w *droidWorld) hooksFile() string { return filepath.Join(w.home, ".factory", "hooks.json") }

// droidExec runs `droid exec args... prompt` in the project; done gets
// its result.
func (w *droidWorld) droidExec(ctx context.Context, prompt string, args ...string) <-chan result {
	cmd := exec.CommandContext(ctx, w.bin, append(append([]string{"exec"}, args...), prompt)...)
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + w.home, "CLAWD_HOME=" + w.clawdHome, "LANG=C.UTF-8",
		"SHELL=/bin/bash", "XDG_RUNTIME_DIR=" + w.dir}
	cmd.Env = append(append(env, proxyEnv(w.api.URL())...), raceEnv()...)
	cmd.Dir = w.project
	cmd.WaitDelay = 5 * time.Second
	done := make(chan result, 1)
	go func() { done <- run(w.t, cmd) }()
	return done
}

// installDroid runs `clawd install droid` and checks hooks.json: one clawd
// handler per event, the user's hook kept.
func (w *droidWorld) installDroid(ctx context.Context) {
	w.t.Helper()
	w.mustClawd(ctx, "install", "droid")
	data, err := os.ReadFile(w.hooksFile())
	if err != nil {
		w.t.Fatal(err)
	}
	var hooks map[string][]hookGroup
	if err := json.Unmarshal(data, &hooks); err != nil {
		w.t.Fatalf("hooks.json after install: %v\n%s", err, data)
	}
	for _, ev := range droidEvents {
		n := 0
		for _, g := range hooks[ev] {
			for _, h := range g.Hooks {
				if p, ok := strings.CutSuffix(h.Command, " hook droid "+ev); ok && strings.Trim(p, `"'`) == clawdBin {
					n++
				}
			}
		}
		if n != 1 {
			w.t.Errorf("hooks.json after install has %d clawd handlers for %s, want 1:\n%s", n, ev, data)
		}
	}
	if !strings.Contains(string(data), "the user's formatter") {
		w.t.Errorf("hooks.json after install lost the user's hook:\n%s", data)
	}
}

// TestDroidExecLifecycle: with `clawd install droid`, `droid exec --auto
// high` runs a low-risk command: the session shows idle, working, done and
// ends with Droid; the call asks nothing. Without --auto, a high-risk
// command (one Droid refuses at its default autonomy) waits in clawd, and
// `clawd permissions allow` runs it; another, denied with a message, runs
// nothing and Droid tells the model the message. Uninstall gives
// hooks.json back byte for byte.
func TestDroidExecLifecycle(t *testing.T) {
	t.Parallel()
	started := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 180*time.Second)
	defer cancel()
	const (
		runMarker, allowMarker, denyMarker = "E2E_DROID_RUN", "E2E_DROID_ALLOW", "E2E_DROID_DENY"
		message                            = "not this one, thanks"
	)
	execArgs := func(cmd, risk string) map[string]any {
		return map[string]any{"command": cmd, "riskLevelReason": "the test says so", "riskLevel": risk}
	}
	w := newDroidWorld(t, fakeopenai.Script{Conversations: []fakeopenai.Conversation{
		{Match: runMarker, Steps: []fakeopenai.Step{fakeopenai.Tool("Execute", execArgs("echo hello > out.txt", "low")), fakeopenai.Text("Wrote out.txt.")}},
		{Match: allowMarker, Steps: []fakeopenai.Step{fakeopenai.Tool("Execute", execArgs("echo yes > allowed.txt", "high")), fakeopenai.Text("Wrote allowed.txt.")}},
		{Match: denyMarker, Steps: []fakeopenai.Step{fakeopenai.Tool("Execute", execArgs("echo no > denied.txt", "high")), fakeopenai.Text("I did not write it.")}},
	}})
	serve := w.startServe()
	events := w.startEvents()
	events.sync(ctx)
	w.installDroid(ctx)

	// No question asked: the session's whole life.
	res := <-w.droidExec(ctx, "Please "+runMarker+" now", "--auto", "high")
	if res.code != 0 || !strings.Contains(res.stdout, "Wrote out.txt.") {
		t.Fatalf("droid exec --auto high: %s", res)
	}
	if data, err := os.ReadFile(filepath.Join(w.project, "out.txt")); err != nil || string(data) != "hello\n" {
		t.Errorf("out.txt = %q (%v), want the command's hello", data, err)
	}
	all := events.waitFor(20*time.Second, "session.end of the droid session", func(evs []event) bool {
		return anyEvent(evs, func(e event) bool { return e.Agent == "droid" && e.Kind == "session.end" })
	})
	var id string
	for _, e := range all {
		if e.Agent == "droid" {
			id = e.SessionID
			break
		}
	}
	sess := forSession(all, id)
	kinds := field(sess, func(e event) string { return e.Kind })
	if want := []string{"session.start", "tool.start", "tool.end", "turn.end", "session.end"}; !slices.Equal(kinds, want) {
		t.Errorf("droid exec events %v, want %v", kinds, want)
	}
	wantState := map[string]string{"session.start": "idle", "tool.start": "working", "tool.end": "working", "turn.end": "attention"}
	for _, e := range sess {
		if s, ok := wantState[e.Kind]; ok && e.State != s {
			t.Errorf("%s: state %q, want %q", e.Kind, e.State, s)
		}
		if e.Cwd != w.project || (e.Kind == "tool.start" || e.Kind == "tool.end") && e.ToolName != "Execute" {
			t.Errorf("event %s: cwd %q tool %q, want the project and Execute", e.Kind, e.Cwd, e.ToolName)
		}
	}
	if st, ok := w.status(ctx); ok {
		if s, found := st.session(id); found {
			t.Errorf("clawd status still lists the ended droid session: %+v", s)
		}
	}
	if l := w.pendingPermissions(ctx); len(l) != 0 {
		t.Errorf("requests after a run that asked nothing: %+v", l)
	}

	// Allowed through clawd.
	done := w.droidExec(ctx, "Please "+allowMarker+" now")
	p := w.awaitDroidRequest(ctx, "echo yes > allowed.txt")
	if r := w.mustPerm(ctx, "allow", p.ID); !strings.HasPrefix(r.stdout, "allowed "+p.ID) {
		t.Errorf("clawd permissions allow %s printed %q", p.ID, r.stdout)
	}
	if res := <-done; res.code != 0 || !strings.Contains(res.stdout, "Wrote allowed.txt.") {
		t.Errorf("droid exec (allowed): %s", res)
	}
	if data, err := os.ReadFile(filepath.Join(w.project, "allowed.txt")); err != nil || string(data) != "yes\n" {
		t.Errorf("allowed.txt = %q (%v): the allowed command did not run", data, err)
	}

	// Denied through clawd, with a message for the model.
	done = w.droidExec(ctx, "Please "+denyMarker+" now")
	p = w.awaitDroidRequest(ctx, "echo no > denied.txt")
	if r := w.mustPerm(ctx, "deny", p.ID, "--message", message); !strings.HasPrefix(r.stdout, "denied "+p.ID) {
		t.Errorf("clawd permissions deny %s printed %q", p.ID, r.stdout)
	}
	if res := <-done; res.code != 0 {
		t.Errorf("droid exec (denied): %s", res)
	}
	if _, err := os.Stat(filepath.Join(w.project, "denied.txt")); !os.IsNotExist(err) {
		t.Errorf("denied.txt exists (stat: %v): the denied command ran", err)
	}
	if calls := w.api.IssuedCalls(denyMarker); len(calls) != 1 {
		t.Errorf("the fake issued %v for the denied run, want one call", calls)
	} else if out, ok := w.api.CallOutput(calls[0].CallID); !ok || !strings.Contains(out.Text, message) {
		t.Errorf("the denied call's output = %+v (%v), want the person's message", out, ok)
	}

	for _, r := range w.api.Requests() {
		switch {
		case r.Kind == fakeopenai.KindOutbound:
			// Droid phones home (telemetry, feature flags): the proxy
			// refuses it on the machine.
			t.Logf("refused outbound: %s %s", r.Method, r.Path)
		case r.Kind == fakeopenai.KindTurn && r.Authorization != droidAPIKey:
			t.Errorf("droid sent a model request with bearer %q, want %q", r.Authorization, droidAPIKey)
		}
	}
	w.mustClawd(ctx, "uninstall", "droid")
	if data, err := os.ReadFile(w.hooksFile()); err != nil || string(data) != droidUserHooks {
		t.Errorf("hooks.json after uninstall = %q (%v), want the user's own back byte for byte", data, err)
	}
	events.close()
	serve.shutdown()
	t.Logf("TestDroidExecLifecycle took %v (first droid exec %v)", time.Since(started).Round(time.Millisecond), res.dur.Round(time.Millisecond))
}

// awaitDroidRequest waits for the droid request that runs command, and
// checks what clawd lists of it.
func (w *droidWorld) awaitDroidRequest(ctx context.Context, command string) client.PermissionView {
	w.t.Helper()
	list := w.waitPermissions(ctx, 60*time.Second, "droid's request for "+command, func(l []client.PermissionView) bool {
		return slices.ContainsFunc(l, func(p client.PermissionView) bool { return p.Agent == "droid" && p.Summary == command })
	})
	i := slices.IndexFunc(list, func(p client.PermissionView) bool { return p.Agent == "droid" && p.Summary == command })
	p := list[i]
	if p.Kind != client.KindPermission || p.Tool != "Execute" || p.Cwd != w.project {
		w.t.Errorf("listed request = %+v, want a permission of Execute in the project", p)
	}
	return p
}
