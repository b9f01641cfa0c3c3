package e2e

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/clawdhq/clawd/internal/fakeanthropic"
	"github.com/clawdhq/clawd/internal/fakeopenai"
	"github.com/clawdhq/clawd/runtime/client"
)

// selfRepairOff writes the world's config.toml with the runtime's
// self-repair off, so that what repairs a broken install is doctor --fix.
func (w *world) selfRepairOff() {
	w.t.Helper()
	if err := os.WriteFile(filepath.Join(w.clawdHome, "config.toml"), []byte("[doctor]\nself_repair = false\n"), 0o600); err != nil {
		w.t.Fatal(err)
	}
}

// doctorFixes runs `clawd doctor --agent agent`, which must fail with the
// check id, then `clawd doctor --fix --agent agent`, which must repair
// it and pass, its connection test arriving at the runtime.
func (w *world) doctorFixes(ctx context.Context, agent, failing string) {
	w.t.Helper()
	r := w.clawd(ctx, "", "doctor", "--agent", agent)
	if r.code != 1 || !regexp.MustCompile(`(?m)^  fail +`+regexp.QuoteMeta(failing)+`: `).MatchString(r.stdout) {
		w.t.Fatalf("clawd doctor on the broken install: %s\nwant exit 1 and %s failing", r, failing)
	}
	r = w.clawd(ctx, "", "doctor", "--fix", "--agent", agent)
	if r.code != 0 || strings.Contains(r.stdout, "  fail ") ||
		!regexp.MustCompile(`(?m)^  ok +`+agent+`\.connection: the hook's test event arrived in \d+ ms$`).MatchString(r.stdout) {
		w.t.Fatalf("clawd doctor --fix: %s\nwant exit 0, nothing failing, the connection test arrived", r)
	}
	w.t.Logf("clawd doctor --fix:\n%s", r.stdout)
}

// TestDoctorFixesClaude: clawd's entries removed from Claude Code's
// settings (another tool rewrote it); doctor finds it, doctor --fix
// repairs it, and the real Claude Code then reports a whole session.
func TestDoctorFixesClaude(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	const marker = "E2E_DOCTOR_CLAUDE"
	w := newWorld(t)
	w.startAPI(fakeanthropic.Script{Conversations: []fakeanthropic.Conversation{lifecycleScript(marker, w.project)}})
	w.selfRepairOff()
	serve := w.startServe()
	events := w.startEvents()
	events.sync(ctx)
	w.install(ctx)
	if err := os.WriteFile(w.settingsFile(), []byte(originalSettings), 0o600); err != nil {
		t.Fatal(err)
	}
	w.doctorFixes(ctx, "claude", "claude.hooks.missing")

	id := newUUID(t)
	res := w.runClaude(ctx, id, "Please "+marker+" now", "--allowedTools", "Bash", "Write")
	if res.code != 0 || !strings.Contains(res.stdout, finalText) {
		t.Fatalf("claude -p after doctor --fix: %s", res.result)
	}
	checkHooksExitedZero(t, w, res.debug, "SessionStart:startup", "UserPromptSubmit", "PreToolUse:Bash",
		"PostToolUse:Bash", "Stop", "SessionEnd:other")
	all := events.waitFor(15*time.Second, "session.end of the claude session", func(evs []event) bool {
		return anyEvent(forSession(evs, id), hasKind("session.end"))
	})
	kinds := field(forSession(all, id), func(e event) string { return e.Kind })
	if !subsequence(kinds, []string{"session.start", "prompt.submit", "tool.start", "tool.end", "turn.end", "session.end"}) {
		t.Errorf("events of the session after doctor --fix: %v", kinds)
	}
	// The connection tests (their payloads name sessions clawd-doctor-*)
	// never showed as events.
	for _, e := range all {
		if strings.HasPrefix(e.SessionID, "clawd-doctor-") {
			t.Errorf("a connection test came through as an event: %s", e.raw)
		}
	}
	events.close()
	serve.shutdown()
}

// TestDoctorFixesCodex: Codex's trust hashes of clawd's hooks went stale,
// so the real Codex would skip them without a word; doctor finds it,
// doctor --fix trusts them again as Codex computes the hashes (Codex's
// own hooks/list says so), and the real Codex then reports a session.
func TestDoctorFixesCodex(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	const marker = "E2E_DOCTOR_CODEX"
	w := newCodexWorld(t)
	w.startOpenAI(fakeopenai.Script{Conversations: []fakeopenai.Conversation{codexLifecycle(marker)}})
	w.selfRepairOff()
	serve := w.startServe()
	events := w.startEvents()
	events.sync(ctx)
	w.installCodex(ctx)

	config, err := os.ReadFile(w.configFile())
	if err != nil {
		t.Fatal(err)
	}
	stale := regexp.MustCompile(`trusted_hash = "sha256:[0-9a-f]{64}"`).ReplaceAll(config, []byte(`trusted_hash = "sha256:`+strings.Repeat("0", 64)+`"`))
	if err := os.WriteFile(w.configFile(), stale, 0o600); err != nil {
		t.Fatal(err)
	}
	trusted := 0
	for _, h := range w.codexHooksList(ctx) {
		if h.TrustStatus == "trusted" {
			trusted++
		}
	}
	if trusted != 0 {
		t.Fatalf("Codex still trusts %d hooks with every hash stale", trusted)
	}
	w.doctorFixes(ctx, "codex", "codex.trust.stale")
	w.checkCodexTrusts(ctx, clawdBin, 12)

	res := w.runCodexExec(ctx, "Please "+marker+" now")
	if res.code != 0 || !strings.Contains(res.stdout, codexFinal) || res.sessionID == "" {
		t.Fatalf("codex exec after doctor --fix: %s", res.result)
	}
	checkCodexHooksCompleted(t, res, "SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop")
	all := events.waitFor(15*time.Second, "session.end of the codex session", func(evs []event) bool {
		return anyEvent(forSession(evs, res.sessionID), hasKind("session.end"))
	})
	kinds := field(forSession(all, res.sessionID), func(e event) string { return e.Kind })
	if !subsequence(kinds, []string{"session.start", "prompt.submit", "tool.start", "tool.end", "turn.end", "session.end"}) {
		t.Errorf("events of the session after doctor --fix: %v", kinds)
	}
	events.close()
	serve.shutdown()
}

// integration returns agent's integration as `clawd status --json` says.
func (w *world) integration(ctx context.Context, agent string) client.Integration {
	st, _ := w.status(ctx)
	for _, in := range st.Integrations {
		if in.Agent == agent {
			return in
		}
	}
	return client.Integration{}
}

// stripSettings is another tool rewriting Claude Code's settings without
// clawd's hooks the way editors write: a temp file renamed over it.
func (w *world) stripSettings() {
	w.t.Helper()
	tmp := w.settingsFile() + ".tmp-other-tool"
	if err := os.WriteFile(tmp, []byte(originalSettings), 0o600); err != nil {
		w.t.Fatal(err)
	}
	if err := os.Rename(tmp, w.settingsFile()); err != nil {
		w.t.Fatal(err)
	}
}

// TestSelfRepair: a running runtime puts clawd's hooks back within 2 s
// when another tool rewrites Claude Code's settings without them; a tool
// that keeps removing them is given up on after three repairs, which
// status --json, clawd status and doctor report.
func TestSelfRepair(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	w := newWorld(t)
	serve := w.startServe()
	w.install(ctx)
	installed, err := os.ReadFile(w.settingsFile())
	if err != nil {
		t.Fatal(err)
	}
	wait := func(what string, d time.Duration, cond func() bool) time.Duration {
		t.Helper()
		start := time.Now()
		for !cond() {
			if time.Since(start) > d {
				t.Fatalf("no %s within %v; status: %+v\nserve's log:\n%s", what, d, w.integration(ctx, "claude"), serve.stderr.String())
			}
			time.Sleep(10 * time.Millisecond)
		}
		return time.Since(start)
	}
	wait("integration ok", 10*time.Second, func() bool { return w.integration(ctx, "claude").State == client.IntegrationOK })
	hooked := func() bool {
		b, err := os.ReadFile(w.settingsFile())
		return err == nil && string(b) == string(installed)
	}
	for i := 1; i <= 3; i++ {
		w.stripSettings()
		d := wait("repair", 2*time.Second, hooked)
		t.Logf("repair %d: the hooks were back after %v", i, d.Round(time.Millisecond))
		wait("the repair counted", 5*time.Second, func() bool { return w.integration(ctx, "claude").Repairs == i })
	}
	if in := w.integration(ctx, "claude"); in.State != client.IntegrationRepaired || in.ConfigPath != w.settingsFile() {
		t.Errorf("status --json after 3 repairs: %+v, want repaired at %s", in, w.settingsFile())
	}
	w.stripSettings()
	wait("giving up", 5*time.Second, func() bool { return w.integration(ctx, "claude").State == client.IntegrationNeedsManualFix })
	in := w.integration(ctx, "claude")
	if in.Repairs != 3 || !strings.Contains(in.Detail, "3 times within 10 minutes") {
		t.Errorf("status --json after giving up: %+v", in)
	}
	if b, _ := os.ReadFile(w.settingsFile()); string(b) != originalSettings {
		t.Errorf("the settings after giving up:\n%s\nwant the other tool's, untouched", b)
	}
	r := w.mustClawd(ctx, "status")
	if !strings.Contains(r.stdout, "claude: hooks need a manual fix (clawd doctor): clawd repaired its hooks in "+w.settingsFile()+" 3 times") {
		t.Errorf("clawd status after giving up:\n%s", r.stdout)
	}
	r = w.clawd(ctx, "", "doctor", "--agent", "claude")
	if r.code != 1 || !strings.Contains(r.stdout, "  fail    claude.self_repair: the runtime stopped repairing clawd's hooks") {
		t.Errorf("clawd doctor after the runtime gave up: %s", r)
	}
	// The person's fix: the runtime takes the file up again.
	w.mustClawd(ctx, "doctor", "--fix", "--agent", "claude")
	wait("the runtime taking it up again", 5*time.Second, func() bool {
		return w.integration(ctx, "claude").State == client.IntegrationRepaired
	})
	serve.shutdown()
}
