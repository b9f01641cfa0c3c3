//go:build !windows

package e2e

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/clawdhq/clawd/internal/fakeopenai"
)

// The Qoder test drives the real Qoder CLI (scripts/install-agents.sh
// installs it) as far as it goes here: it answers no prompt without a
// Qoder login (`qodercli -p` prints "Not logged in · Please run /login"
// and exits 1, and its custom providers need a logged-in account), but
// its TUI starts a session, fires SessionStart, asks whether to trust the
// folder and to sign in, and fires SessionEnd when told to exit. Whatever
// Qoder tries to reach goes to a fake proxy that refuses it.

// qoderVersion is the Qoder CLI release the tests run (agentVersion): the
// pinned one, or the one scripts/drift.sh tries.
var qoderVersion = agentVersion("qoder")

var (
	// qoderTrust is Qoder's question whether to trust the folder.
	qoderTrust = regexp.MustCompile(`Do you trust the files in this folder\?[\s\S]*Trust folder`)
	// qoderSignIn is the screen Qoder shows without a login.
	qoderSignIn = regexp.MustCompile(`Sign in to continue[\s\S]*Exit the application`)
	// qoderExit is that screen with Exit chosen.
	qoderExit = regexp.MustCompile(`❯ 2\. Exit the application`)
)

// TestQoderSessionWithoutLogin: with clawd's hooks installed beside the
// person's own, the real Qoder TUI's session shows in clawd from its
// SessionStart (idle, in the project) until its SessionEnd, and uninstall
// takes clawd's hooks out of the settings Qoder rewrote meanwhile, keeping
// the person's hook and what Qoder added.
func TestQoderSessionWithoutLogin(t *testing.T) {
	t.Parallel()
	started := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 240*time.Second)
	defer cancel()
	bin := cachedCLI(t, "Qoder CLI", qoderVersion, "CLAWD_E2E_QODER", "qoder", "node_modules", ".bin", "qodercli")
	checkCLIVersion(t, bin, qoderVersion)
	w := newWorld(t)
	proxy := fakeopenai.New(fakeopenai.Script{})
	proxy.Start()
	t.Cleanup(proxy.Close)

	settings := filepath.Join(w.home, ".qoder", "settings.json")
	const mine = "notify-send qoder-done"
	if err := os.MkdirAll(filepath.Dir(settings), 0o700); err != nil {
		t.Fatal(err)
	}
	own := `{"hooks": {"Stop": [{"matcher": "*", "hooks": [{"type": "command", "command": "` + mine + `"}]}]}}` + "\n"
	if err := os.WriteFile(settings, []byte(own), 0o600); err != nil {
		t.Fatal(err)
	}
	serve := w.startServe()
	events := w.startEvents()
	events.sync(ctx)
	if r := w.mustClawd(ctx, "install", "qoder"); !strings.HasPrefix(r.stdout, "qoder: installed 8 hooks in "+settings) {
		t.Errorf("clawd install qoder printed %q, want 8 hooks in %s", r.stdout, settings)
	}

	env := []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + w.home,
		"CLAWD_HOME=" + w.clawdHome,
		"TERM=xterm-256color",
		"LANG=C.UTF-8",
		"SHELL=/bin/bash",
		"XDG_RUNTIME_DIR=" + w.dir,
	}
	env = append(env, proxyEnv(proxy.URL())...)
	tui := startTmux(t, w.project, 160, 50, append(env, raceEnv()...), []string{bin})
	tui.deadline = time.Now().Add(200 * time.Second)
	tui.WaitFor(qoderTrust, 60*time.Second)
	tui.SendKeys("Enter")
	tui.WaitFor(qoderSignIn, 30*time.Second)

	// Qoder's SessionStart hook comes after its own start-up calls (its
	// HTTP DNS and update checks, refused here) give up: seen from a few
	// to over 15 seconds after the sign-in screen, more under load.
	evs := events.waitFor(90*time.Second, "session.start of qoder's session", func(evs []event) bool {
		return anyEvent(evs, func(e event) bool { return e.Agent == "qoder" && e.Kind == "session.start" })
	})
	id := filterEvents(evs, func(e event) bool { return e.Agent == "qoder" })[0].SessionID
	if st, ok := w.status(ctx); ok {
		if s, found := st.session(id); !found || s.State != "idle" || s.Cwd != w.project {
			t.Errorf("clawd status lists qoder's session as %+v (found %v), want idle in %s", s, found, w.project)
		}
	}

	tui.SendKeys("Down")
	tui.WaitFor(qoderExit, 10*time.Second)
	tui.SendKeys("Enter")
	if rc := tui.WaitExit(30 * time.Second); rc != 0 {
		t.Errorf("qodercli exited %d after Exit the application, want 0", rc)
	}
	evs = events.waitFor(15*time.Second, "session.end of qoder's session", func(evs []event) bool {
		return anyEvent(evs, func(e event) bool { return e.Agent == "qoder" && e.Kind == "session.end" })
	})
	sess := forSession(evs, id)
	t.Logf("events: %v", sess)
	want := []string{"session.start:idle", "session.end:sleeping"}
	if got := kindStates(sess); strings.Join(got, " ") != strings.Join(want, " ") ||
		len(sess) != len(filterEvents(evs, func(e event) bool { return e.Agent == "qoder" })) {
		t.Errorf("qoder's events %v, want %v, all of one session", got, want)
	}
	for _, e := range sess {
		if e.Cwd != w.project || e.HookEvent != map[string]string{"session.start": "SessionStart", "session.end": "SessionEnd"}[e.Kind] {
			t.Errorf("event %s: hook %s in %s, want Qoder's own event in %s", e.raw, e.HookEvent, e.Cwd, w.project)
		}
	}
	w.checkEndedSession(ctx, t, id)
	w.checkHookLog(t)
	for _, r := range proxy.Requests() {
		t.Logf("refused by the fake proxy: %s %s %s", r.Kind, r.Method, r.Path)
	}

	rewritten, err := os.ReadFile(settings)
	if err != nil {
		t.Fatal(err)
	}
	r := w.mustClawd(ctx, "uninstall", "qoder")
	if !strings.HasPrefix(r.stdout, "qoder: removed 8 hooks from "+settings) {
		t.Errorf("clawd uninstall qoder printed %q, want 8 hooks removed from %s", r.stdout, settings)
	}
	after, err := os.ReadFile(settings)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(after, &doc); err != nil {
		t.Fatalf("settings.json after uninstall: %v\n%s", err, after)
	}
	if strings.Contains(string(after), "hook qoder") || !strings.Contains(string(after), mine) {
		t.Errorf("settings.json after uninstall, want the person's hook and none of clawd's:\n%s", after)
	}
	// What Qoder wrote into its settings as it started stays.
	var qoders map[string]json.RawMessage
	if err := json.Unmarshal(rewritten, &qoders); err != nil {
		t.Fatal(err)
	}
	for k := range qoders {
		if _, ok := doc[k]; !ok && k != "hooks" {
			t.Errorf("uninstall dropped %q, which Qoder wrote into its settings:\n%s", k, after)
		}
	}
	events.close()
	serve.shutdown()
	t.Logf("TestQoderSessionWithoutLogin took %v", time.Since(started).Round(time.Millisecond))
}
