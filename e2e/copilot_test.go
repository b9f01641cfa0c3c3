//go:build !windows

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/clawdhq/clawd/internal/fakeopenai"
	"github.com/clawdhq/clawd/runtime/client"
)

// The Copilot tests drive the real GitHub Copilot CLI
// (scripts/install-agents.sh installs it) offline, with no GitHub account:
// COPILOT_OFFLINE and a bring-your-own-key provider pointing at
// internal/fakeopenai's Chat Completions on loopback. Copilot's home is
// ~/.copilot of the world's home; its unpacked runtime is shared from the
// test cache. `clawd install copilot` writes its hook file there.

// copilotVersion is the Copilot CLI release the tests run (agentVersion):
// the pinned one, or the one scripts/drift.sh tries; the hook payloads the
// tests rely on are this version's (../shared/fixtures/copilot).
var copilotVersion = agentVersion("copilot")

// copilotAPIKey is what Copilot sends the fake as its bearer token.
const copilotAPIKey = "sk-clawd-e2e-fake-copilot"

// copilotHookTimeouts are the events `clawd install copilot` registers,
// with their timeoutSec.
var copilotHookTimeouts = map[string]int{
	"sessionStart": 10, "userPromptSubmitted": 10, "preToolUse": 10, "permissionRequest": 600, "postToolUse": 10,
	"postToolUseFailure": 10, "agentStop": 10, "errorOccurred": 10, "sessionEnd": 10,
}

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

func (w *copilotWorld) hookFile() string { return filepath.Join(w.copilotHome, "hooks", "clawd.json") }

// installCopilot runs `clawd install copilot` and checks the hook file it
// writes: Copilot's native format, one handler per event running this
// run's clawd with the event's name.
func (w *copilotWorld) installCopilot(ctx context.Context) {
	w.t.Helper()
	r := w.mustClawd(ctx, "install", "copilot")
	w.t.Logf("clawd install copilot: %s", strings.TrimSpace(r.stdout))
	data, err := os.ReadFile(w.hookFile())
	if err != nil {
		w.t.Fatalf("hook file after install: %v", err)
	}
	var f struct {
		Version int `json:"version"`
		Hooks   map[string][]struct {
			Type       string `json:"type"`
			Bash       string `json:"bash"`
			TimeoutSec int    `json:"timeoutSec"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(data, &f); err != nil || f.Version != 1 || len(f.Hooks) != len(copilotHookTimeouts) {
		w.t.Fatalf("hook file after install (%v), want version 1 and %d events:\n%s", err, len(copilotHookTimeouts), data)
	}
	for ev, timeout := range copilotHookTimeouts {
		hs := f.Hooks[ev]
		if len(hs) != 1 || hs[0].Type != "command" || strings.Trim(strings.TrimSuffix(hs[0].Bash, " hook copilot "+ev), `"`) != clawdBin ||
			hs[0].TimeoutSec != timeout {
			w.t.Errorf("hook file: %s = %+v, want one command running %s hook copilot %s, timeoutSec %d", ev, hs, clawdBin, ev, timeout)
		}
	}
}

// uninstallCopilot runs `clawd uninstall copilot` and checks that the
// hook file is gone and nothing else in the hooks folder changed.
func (w *copilotWorld) uninstallCopilot(ctx context.Context) {
	w.t.Helper()
	w.mustClawd(ctx, "uninstall", "copilot")
	if _, err := os.Stat(w.hookFile()); !errors.Is(err, os.ErrNotExist) {
		w.t.Errorf("the hook file is still there after uninstall (stat: %v)", err)
	}
	entries, err := os.ReadDir(filepath.Dir(w.hookFile()))
	if err != nil || len(entries) != 0 {
		w.t.Errorf("the hooks folder after uninstall holds %v (%v), want nothing, as before", entries, err)
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
	err       error  // the run could not be started or was killed
}

// copilotResumeRe matches the session id in the run's closing summary.
var copilotResumeRe = regexp.MustCompile(`copilot --resume=(\S+)`)

// runCopilot runs `copilot -p prompt --disable-client-telemetry` in the
// project folder, plus args (e.g. --allow-all-tools).
func (w *copilotWorld) runCopilot(ctx context.Context, prompt string, args ...string) copilotResult {
	w.t.Helper()
	r := <-w.startCopilot(ctx, prompt, args...)
	if r.err != nil {
		w.t.Fatal(r.err)
	}
	return r
}

// startCopilot starts what runCopilot runs and returns where its result
// will come; the test goroutine may meanwhile answer its hooks.
func (w *copilotWorld) startCopilot(ctx context.Context, prompt string, args ...string) <-chan copilotResult {
	w.t.Helper()
	w.runs++
	n := w.runs
	cmd := exec.CommandContext(ctx, w.bin, append([]string{"-p", prompt, "--disable-client-telemetry"}, args...)...)
	cmd.Env = w.copilotEnv()
	cmd.Dir = w.project
	cmd.Stdin = strings.NewReader("")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = 5 * time.Second
	orphanProof(cmd)
	ch := make(chan copilotResult, 1)
	start := time.Now()
	if err := cmd.Start(); err != nil {
		ch <- copilotResult{err: err}
		return ch
	}
	go func() {
		err := cmd.Wait()
		r := copilotResult{result: result{stdout: stdout.String(), stderr: stderr.String(), dur: time.Since(start)}}
		var ee *exec.ExitError
		switch {
		case err == nil:
		case errors.As(err, &ee) && ee.Exited():
			r.code = ee.ExitCode()
		default:
			r.err = err
		}
		if m := copilotResumeRe.FindStringSubmatch(r.stdout + r.stderr); m != nil {
			r.sessionID = m[1]
		}
		w.t.Logf("copilot -p run %d: exit %d in %v, session %s", n, r.code, r.dur.Round(time.Millisecond), r.sessionID)
		ch <- r
	}()
	return ch
}

// TestCopilotPromptLifecycle: with `clawd install copilot`'s hook file,
// `copilot -p --allow-all-tools` runs one shell command and answers; the
// runtime shows the session (headless: -p has no loader) thinking, titled
// by the prompt, in the project, then working, then done, then gone at
// sessionEnd. Its permissionRequest, which Copilot fires even with
// --allow-all-tools, gets no decision at once: nobody answers a headless
// session. Uninstall deletes the hook file; nothing tried to leave the
// machine.
func TestCopilotPromptLifecycle(t *testing.T) {
	t.Parallel()
	started := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	const marker = "E2E_COPILOT_PROMPT"
	const title = "Please " + marker + " now"
	const command, final = "echo hello > out.txt", "Wrote hello to out.txt."
	w := newCopilotWorld(t)
	before, mid := w.statusAtStep(ctx, "copilot", marker, 0, "thinking")
	w.startCopilotAPI(fakeopenai.Script{BeforeReply: before, Conversations: []fakeopenai.Conversation{{Match: marker, Steps: []fakeopenai.Step{
		fakeopenai.Tool("bash", map[string]any{"command": command, "description": "write a file"}),
		fakeopenai.Text(final),
	}}}})
	serve := w.startServe()
	events := w.startEvents()
	events.sync(ctx)
	w.installCopilot(ctx)

	res := w.runCopilot(ctx, title+"\n"+secondLine, "--allow-all-tools")
	if res.code != 0 || res.sessionID == "" || !strings.Contains(res.stdout, final) {
		t.Fatalf("copilot -p: session %q; %s", res.sessionID, res.result)
	}
	if data, err := os.ReadFile(filepath.Join(w.project, "out.txt")); err != nil || string(data) != "hello\n" {
		t.Errorf("out.txt = %q (%v), want the tool's hello", data, err)
	}
	id := res.sessionID
	all := events.waitFor(15*time.Second, "session.end of the copilot session", func(evs []event) bool {
		return anyEvent(forSession(evs, id), hasKind("session.end"))
	})
	sess := forSession(all, id)
	t.Logf("events: %v", sess)
	hooks := field(sess, func(e event) string { return e.HookEvent })
	// sessionStart comes with the first prompt, in either order with
	// userPromptSubmitted; both mean thinking, and only the latter is a
	// prompt.submit (the turn, counted once).
	if len(hooks) >= 2 && hooks[0] == "userPromptSubmitted" {
		hooks[0], hooks[1] = hooks[1], hooks[0]
	}
	if want := []string{"sessionStart", "userPromptSubmitted", "preToolUse", "permissionRequest", "postToolUse",
		"agentStop", "sessionEnd"}; !slices.Equal(hooks, want) {
		t.Errorf("hook events %v, want %v (the first two in either order)", hooks, want)
	}
	wantState := map[string]string{"prompt.expansion": "thinking", "prompt.submit": "thinking", "tool.start": "working",
		"tool.end": "working", "turn.end": "attention"}
	wantKind := map[string]string{"sessionStart": "prompt.expansion", "userPromptSubmitted": "prompt.submit"}
	for _, e := range sess {
		if w, ok := wantState[e.Kind]; ok && e.State != w {
			t.Errorf("%s/%s: state %q, want %q", e.Kind, e.HookEvent, e.State, w)
		}
		if e.Agent != "copilot" || !e.Headless || e.Time.IsZero() || e.Cwd != w.project {
			t.Errorf("event lacks agent copilot, headless, time or the project as cwd: %s", e.raw)
		}
		if k, ok := wantKind[e.HookEvent]; ok && e.Kind != k {
			t.Errorf("%s: kind %q, want %q", e.HookEvent, e.Kind, k)
		}
		if prompt := wantKind[e.HookEvent] != ""; prompt && e.Title != title || !prompt && e.Title != "" {
			t.Errorf("%s/%s: title %q, want %q on the prompts only", e.Kind, e.HookEvent, e.Title, title)
		}
		// Copilot stamps its events in epoch milliseconds: clawd's time
		// is Copilot's, within the run.
		if e.Time.Before(started) || e.Time.After(time.Now()) {
			t.Errorf("%s: time %v, not within the run", e.Kind, e.Time)
		}
	}
	checkPrivate(t, all, secondLine, command, final)
	select {
	case m := <-mid:
		if !m.found || m.sess.SessionID != id || m.sess.State != "thinking" || m.sess.Title != title ||
			m.sess.Cwd != w.project || !m.sess.Headless {
			t.Errorf("clawd status as the model was asked = %+v (listed %v), want session %s thinking, title %q, cwd %q, headless",
				m.sess, m.found, id, title, w.project)
		}
	default:
		t.Errorf("the fake model never got the first request: no mid-turn status")
	}
	if list := w.pendingPermissions(ctx); len(list) != 0 {
		t.Errorf("clawd permissions --json lists a headless session's request:\n%s", dumpPermissions(list))
	}
	w.checkEndedSession(ctx, t, id)

	issued := w.api.IssuedCalls(marker)
	if turns := w.api.OfKind(fakeopenai.KindTurn); len(turns) != 2 || len(issued) != 1 {
		t.Errorf("the fake saw %d turn requests and issued %v, want 2 requests and one call", len(turns), issued)
	} else if out, ok := w.api.CallOutput(issued[0].CallID); !ok || !strings.Contains(out.Text, "exit code 0") {
		t.Errorf("the tool's output sent back = %+v (%v), want exit code 0", out, ok)
	}
	checkOpenAIOffline(t, "copilot", w.api, copilotAPIKey)
	w.uninstallCopilot(ctx)
	events.close()
	serve.shutdown()
	t.Logf("TestCopilotPromptLifecycle took %v (copilot -p %v)", time.Since(started).Round(time.Millisecond), res.dur.Round(time.Millisecond))
}

// awaitCopilotRequest waits until `clawd permissions --json` lists one
// pending bash request of a copilot session whose summary is command, and
// checks what the list says about it.
func (w *copilotWorld) awaitCopilotRequest(ctx context.Context, t *testing.T, command, title string) client.PermissionView {
	t.Helper()
	start := time.Now()
	list := w.waitPermissions(ctx, 60*time.Second, "pending copilot request for "+command, func(l []client.PermissionView) bool {
		return slices.ContainsFunc(l, func(p client.PermissionView) bool { return p.Agent == "copilot" && p.Summary == command })
	})
	if len(list) != 1 {
		t.Fatalf("clawd permissions --json lists, want one request of the copilot session:\n%s", dumpPermissions(list))
	}
	p := list[0]
	t.Logf("listed after %v: %s", time.Since(start).Round(time.Millisecond), dumpPermissions(list))
	if p.ID == "" || p.Kind != client.KindPermission || p.Tool != "bash" || p.State != "pending" || !p.Headless ||
		p.SessionID == "" || p.Title != title || p.Cwd != w.project {
		t.Errorf("listed request = %+v, want kind permission, bash, pending, headless, title %q, cwd %q", p, title, w.project)
	}
	return p
}

// TestCopilotPromptPermissions: without --allow-all-tools, copilot -p
// asks its permissionRequest hook, and with headless = "ask" clawd holds
// the request for the person: `clawd permissions allow` runs the command,
// `clawd permissions deny --message` blocks it and Copilot tells the model
// the message.
func TestCopilotPromptPermissions(t *testing.T) {
	t.Parallel()
	started := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 180*time.Second)
	defer cancel()
	const (
		allowMarker = "E2E_COPILOT_ALLOW"
		denyMarker  = "E2E_COPILOT_DENY"
		allowTitle  = "Please " + allowMarker + " now"
		denyTitle   = "Please " + denyMarker + " now"
		allowCmd    = "touch allowed.txt"
		denyCmd     = "touch denied.txt"
		allowDone   = "Created allowed.txt as approved."
		denyDone    = "Understood, I did not create denied.txt."
		message     = "not this one, thanks"
	)
	w := newCopilotWorld(t)
	w.startCopilotAPI(fakeopenai.Script{Conversations: []fakeopenai.Conversation{
		shellTurn("bash", allowMarker, allowCmd, allowDone),
		shellTurn("bash", denyMarker, denyCmd, denyDone),
	}})
	// copilot -p is headless, whose requests clawd leaves to the agent by
	// default.
	if err := os.WriteFile(filepath.Join(w.clawdHome, "config.toml"), []byte("[permissions]\nheadless = \"ask\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	serve := w.startServe()
	stream := w.followPermissions(ctx, serve)
	events := w.startEvents()
	events.sync(ctx)
	w.installCopilot(ctx)

	// Allow.
	done := w.startCopilot(ctx, allowTitle)
	p := w.awaitCopilotRequest(ctx, t, allowCmd, allowTitle)
	if r := w.mustPerm(ctx, "allow", p.ID); !strings.HasPrefix(r.stdout, "allowed "+p.ID) {
		t.Errorf("clawd permissions allow %s printed %q, want \"allowed %s ...\"", p.ID, r.stdout, p.ID)
	}
	res := <-done
	if res.err != nil || res.code != 0 || !strings.Contains(res.stdout, allowDone) {
		t.Fatalf("copilot -p (allowed): %v; %s", res.err, res.result)
	}
	if _, err := os.Stat(filepath.Join(w.project, "allowed.txt")); err != nil {
		t.Errorf("allowed.txt: %v: the allowed command did not run", err)
	}
	awaitAnswered(t, stream, p.ID)
	allowCall := w.api.IssuedCalls(allowMarker)
	if len(allowCall) != 1 {
		t.Fatalf("the fake model issued %v in %s, want one call", allowCall, allowMarker)
	}
	if out, ok := w.api.CallOutput(allowCall[0].CallID); !ok || !strings.Contains(out.Text, "exit code 0") {
		t.Errorf("the allowed call's output = %+v (found %v), want exit code 0", out, ok)
	}

	// Deny.
	done = w.startCopilot(ctx, denyTitle)
	p2 := w.awaitCopilotRequest(ctx, t, denyCmd, denyTitle)
	if p2.SessionID == p.SessionID {
		t.Errorf("the second run's request is of the first run's session %s", p.SessionID)
	}
	if r := w.mustPerm(ctx, "deny", p2.ID, "--message", message); !strings.HasPrefix(r.stdout, "denied "+p2.ID) {
		t.Errorf("clawd permissions deny %s printed %q, want \"denied %s ...\"", p2.ID, r.stdout, p2.ID)
	}
	res2 := <-done
	if res2.err != nil || res2.code != 0 || !strings.Contains(res2.stdout, denyDone) {
		t.Fatalf("copilot -p (denied): %v; %s", res2.err, res2.result)
	}
	if _, err := os.Stat(filepath.Join(w.project, "denied.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("denied.txt exists (stat: %v): the denied command ran", err)
	}
	awaitAnswered(t, stream, p2.ID)
	denyCall := w.api.IssuedCalls(denyMarker)
	if len(denyCall) != 1 {
		t.Fatalf("the fake model issued %v in %s, want one call", denyCall, denyMarker)
	}
	if out, ok := w.api.CallOutput(denyCall[0].CallID); !ok || !strings.Contains(out.Text, "Permission denied by a PermissionRequest hook: "+message) {
		t.Errorf("the denied call's output = %+v (found %v), want Copilot telling the model %q", out, ok, message)
	}

	for _, r := range []struct {
		id, title string
		ran       bool
	}{{p.SessionID, allowTitle, true}, {p2.SessionID, denyTitle, false}} {
		evs := events.waitFor(15*time.Second, "session.end of "+r.id, func(evs []event) bool {
			return anyEvent(forSession(evs, r.id), hasKind("session.end"))
		})
		sess := forSession(evs, r.id)
		t.Logf("events of %s: %v", r.title, sess)
		kinds := field(sess, func(e event) string { return e.Kind + ":" + e.State })
		want := []string{"prompt.submit:thinking", "tool.start:working", "permission.request:waiting"}
		if r.ran {
			want = append(want, "tool.end:working")
		}
		want = append(want, "turn.end:attention")
		if !subsequence(kinds, want) {
			t.Errorf("events of %s: %v, want %v in this order", r.title, kinds, want)
		}
		if got := len(filterEvents(sess, func(e event) bool { return e.Kind == "tool.end" })); got != map[bool]int{true: 1}[r.ran] {
			t.Errorf("events of %s: %d tool.end, want %d", r.title, got, map[bool]int{true: 1}[r.ran])
		}
	}
	if list := w.pendingPermissions(ctx); len(list) != 0 {
		t.Errorf("clawd permissions --json after both answers lists:\n%s", dumpPermissions(list))
	}
	checkOpenAIOffline(t, "copilot", w.api, copilotAPIKey)
	w.uninstallCopilot(ctx)
	stream.stop()
	events.close()
	serve.shutdown()
	t.Logf("TestCopilotPromptPermissions took %v (copilot -p %v, %v)", time.Since(started).Round(time.Millisecond),
		res.dur.Round(time.Millisecond), res2.dur.Round(time.Millisecond))
}
