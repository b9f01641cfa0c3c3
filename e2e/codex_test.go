package e2e

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/clawdhq/clawd/internal/fakeopenai"
)

// The Codex tests drive the real Codex CLI (scripts/install-agents.sh
// installs it) against internal/fakeopenai on loopback. Codex's HOME is
// the world's home and its CODEX_HOME the default ~/.codex in it, so
// `clawd install codex` and the runtime's rollout monitor find it the way
// they find a person's.

// codexVersion is the Codex CLI release the tests run (agentVersion): the
// pinned one, or the one scripts/drift.sh tries; the hook payloads,
// rollout format and screen texts the tests rely on are this version's.
var codexVersion = agentVersion("codex")

// codexAPIKey is what Codex sends the fake as its bearer token (through
// the provider's env_key).
const codexAPIKey = "sk-clawd-e2e-fake-openai"

// codexEvents are the hook events clawd installs for Codex, in the order of
// agents.Codex.Hooks, with Codex's snake-case labels (its trust keys).
var codexEvents = []struct{ name, snake string }{
	{"SessionStart", "session_start"}, {"UserPromptSubmit", "user_prompt_submit"},
	{"PreToolUse", "pre_tool_use"}, {"PermissionRequest", "permission_request"},
	{"PostToolUse", "post_tool_use"}, {"PreCompact", "pre_compact"},
	{"PostCompact", "post_compact"}, {"Stop", "stop"},
	{"SubagentStart", "subagent_start"}, {"SubagentStop", "subagent_stop"},
	{"SessionEnd", "session_end"}, {"Interrupt", "interrupt"},
}

// codexPath returns the Codex executable: $CLAWD_E2E_CODEX, else the
// native binary of the platform package under the cache folder
// scripts/install-agents.sh installs into. The native binary rather than
// the npm launcher (node, which execs it): one process to follow and stop.
func codexPath(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("CLAWD_E2E_CODEX"); p != "" {
		return p
	}
	pattern := filepath.Join(testCache(t), "codex", "node_modules", "@openai", "codex-*", "vendor", "*", "bin", "codex*")
	matches, _ := filepath.Glob(pattern)
	for _, m := range matches {
		if base := filepath.Base(m); base == "codex" || base == "codex.exe" {
			return m
		}
	}
	t.Fatalf("Codex CLI %s not found at %s: run scripts/test.sh to install the agent CLIs", codexVersion, pattern)
	return ""
}

// checkCodexVersion fails the test unless bin is the pinned release.
func checkCodexVersion(t *testing.T, bin string) {
	t.Helper()
	out, err := exec.Command(bin, "--version").Output()
	if got := strings.TrimSpace(string(out)); err != nil || got != "codex-cli "+codexVersion {
		t.Fatalf("%s --version = %q (%v), want %q", bin, got, err, "codex-cli "+codexVersion)
	}
}

// codexWorld is a world with a Codex home and a fake OpenAI API.
type codexWorld struct {
	*world
	codexHome string // ~/.codex of the world's home
	bin       string
	api       *fakeopenai.Server
	// userConfig is the config.toml the user had before clawd: uninstall
	// must give it back byte for byte.
	userConfig string
	execRuns   int
}

func newCodexWorld(t *testing.T) *codexWorld {
	t.Helper()
	w := &codexWorld{world: newWorld(t), bin: codexPath(t)}
	checkCodexVersion(t, w.bin)
	w.codexHome = filepath.Join(w.home, ".codex")
	if err := os.MkdirAll(w.codexHome, 0o700); err != nil {
		t.Fatal(err)
	}
	return w
}

// startOpenAI starts the fake API and writes the user's config.toml for
// it.
func (w *codexWorld) startOpenAI(script fakeopenai.Script) {
	w.t.Helper()
	w.api = fakeopenai.New(script)
	w.api.Start()
	w.t.Cleanup(w.api.Close)
	w.userConfig = codexConfig(w.api.URL(), w.project)
	if err := os.WriteFile(w.configFile(), []byte(w.userConfig), 0o600); err != nil {
		w.t.Fatal(err)
	}
}

func (w *codexWorld) configFile() string { return filepath.Join(w.codexHome, "config.toml") }
func (w *codexWorld) hooksFile() string  { return filepath.Join(w.codexHome, "hooks.json") }

// codexConfig is a user's config.toml that points Codex at the fake API
// (codex-hooks.md §2): a custom provider on the Responses wire API and a
// catalog model slug, so Codex offers its full tool set (apply_patch
// included). The rest keeps Codex offline and quiet: no update check, no
// analytics, no plugin marketplace or apps (each of those calls out at
// start-up), no tips on the screen, no retries of a failed request, the project trusted (no trust prompt), and the start-up
// nudges the TUI shows a few times marked as seen (else it counts them up
// in this file).
func codexConfig(apiURL, project string) string {
	return fmt.Sprintf(`# The user's own Codex settings: clawd install keeps every line of them.
model = "gpt-5.5"
model_provider = "fake"
approval_policy = "on-request"
sandbox_mode = "workspace-write"
check_for_update_on_startup = false

[model_providers.fake]
name = "Fake OpenAI"
base_url = "%s/v1"
env_key = "FAKE_OPENAI_API_KEY"
wire_api = "responses"
request_max_retries = 0
stream_max_retries = 0

[features]
plugins = false
remote_plugin = false
apps = false

[analytics]
enabled = false

[projects.%q]
trust_level = "trusted"

[notice.model_migrations]
"gpt-5.5" = "gpt-6-sol"

[tui]
screen_reader_detection_done = true
show_tooltips = false

[tui.model_availability_nux]
"gpt-6.1-sol" = 100
`, apiURL, project)
}

// codexEnv is the whole environment of codex. Every proxy variable points
// at the fake API, which refuses and records any request for another host:
// whatever Codex (or a hook, or a command it runs) tries to reach beyond
// loopback shows up in w.api.OfKind(KindOutbound) and never leaves the
// machine.
func (w *codexWorld) codexEnv() []string {
	env := []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + w.home,
		"CODEX_HOME=" + w.codexHome,
		"CLAWD_HOME=" + w.clawdHome,
		"FAKE_OPENAI_API_KEY=" + codexAPIKey,
		"TERM=xterm-256color",
		"LANG=C.UTF-8",
		"SHELL=/bin/bash",
		// Never the developer's own desktop session (see clawdEnv).
		"XDG_RUNTIME_DIR=" + w.dir,
	}
	env = append(env, proxyEnv(w.api.URL())...)
	return append(env, raceEnv()...)
}

// codexExecResult is a finished `codex exec` run.
type codexExecResult struct {
	result
	sessionID string
	hooks     []codexHookLine
}

// codexHookLine is one "hook: <Event> [<status>]" line `codex exec`
// prints on stderr.
type codexHookLine struct{ Event, Status string }

// codexHookRe matches them; a line without a status says the hook started.
var codexHookRe = regexp.MustCompile(`(?m)^hook: ([A-Za-z]+)(?: ([A-Za-z]+))?\s*$`)

// codexSessionRe matches the session id in exec's header.
var codexSessionRe = regexp.MustCompile(`(?m)^session id: (\S+)\s*$`)

// parseCodexHookLines returns the hook lines of exec's stderr.
func parseCodexHookLines(stderr string) []codexHookLine {
	var out []codexHookLine
	for _, m := range codexHookRe.FindAllStringSubmatch(stderr, -1) {
		out = append(out, codexHookLine{m[1], m[2]})
	}
	return out
}

// runCodexExec runs `codex exec prompt` in the project folder.
func (w *codexWorld) runCodexExec(ctx context.Context, prompt string) codexExecResult {
	w.t.Helper()
	w.execRuns++
	cmd := exec.CommandContext(ctx, w.bin, "exec", "--skip-git-repo-check", prompt)
	cmd.Env = w.codexEnv()
	cmd.Dir = w.project
	cmd.Stdin = strings.NewReader("")
	r := codexExecResult{result: run(w.t, cmd)}
	if m := codexSessionRe.FindStringSubmatch(r.stderr); m != nil {
		r.sessionID = m[1]
	}
	r.hooks = parseCodexHookLines(r.stderr)
	w.t.Logf("codex exec run %d: exit %d in %v, session %s", w.execRuns, r.code, r.dur.Round(time.Millisecond), r.sessionID)
	return r
}

// codexHookProblems returns what is wrong with exec's hook lines: a hook
// that did not complete (Failed, Blocked, or no status line at all), or
// fewer completed runs of an event than want asks for (want may repeat an
// event).
func codexHookProblems(hooks []codexHookLine, want ...string) []string {
	var problems []string
	started, completed := map[string]int{}, map[string]int{}
	for _, h := range hooks {
		switch h.Status {
		case "":
			started[h.Event]++
		case "Completed":
			completed[h.Event]++
		default:
			problems = append(problems, fmt.Sprintf("hook %s %s, want Completed", h.Event, h.Status))
		}
	}
	for _, ev := range slices.Sorted(maps.Keys(started)) {
		if n := started[ev]; completed[ev] != n {
			problems = append(problems, fmt.Sprintf("hook %s started %d times and completed %d times", ev, n, completed[ev]))
		}
	}
	need := map[string]int{}
	for _, ev := range want {
		need[ev]++
	}
	for _, ev := range slices.Sorted(maps.Keys(need)) {
		if n := need[ev]; completed[ev] < n {
			problems = append(problems, fmt.Sprintf("%d completed runs of the %s hook, want %d", completed[ev], ev, n))
		}
	}
	return problems
}

// checkCodexHooksCompleted proves from exec's stderr that every hook that
// started completed, and that each of want ran.
func checkCodexHooksCompleted(t *testing.T, r codexExecResult, want ...string) {
	t.Helper()
	for _, p := range codexHookProblems(r.hooks, want...) {
		t.Errorf("codex exec: %s; hook lines: %v", p, r.hooks)
	}
}

// TestCodexHookProblems checks the reader of exec's hook lines on lines of
// the real 0.169.0, including the failures it must catch.
func TestCodexHookProblems(t *testing.T) {
	stderr := strings.Join([]string{
		"warning: clamping SessionEnd hook timeout to 3s in /h/.codex/hooks.json",
		"hook: SessionStart",
		"hook: SessionStart Completed",
		"hook: PreToolUse",
		"hook: PreToolUse Failed",
		"exec",
		"/bin/bash -lc 'echo hi > out.txt' in /p",
		"hook: Stop",
		"hook: Stop Completed",
		"hook: PostToolUse",
	}, "\n")
	hooks := parseCodexHookLines(stderr)
	want := []codexHookLine{{"SessionStart", ""}, {"SessionStart", "Completed"}, {"PreToolUse", ""}, {"PreToolUse", "Failed"},
		{"Stop", ""}, {"Stop", "Completed"}, {"PostToolUse", ""}}
	if !slices.Equal(hooks, want) {
		t.Errorf("parseCodexHookLines = %v, want %v", hooks, want)
	}
	for _, tc := range []struct {
		name  string
		hooks []codexHookLine
		want  []string
		n     int
	}{
		{"all completed", want[:2], []string{"SessionStart"}, 0},
		{"failed and unfinished", hooks, nil, 3},
		{"blocked", []codexHookLine{{"PreToolUse", ""}, {"PreToolUse", "Blocked"}}, nil, 2},
		{"missing run", want[:2], []string{"SessionStart", "SessionStart", "Stop"}, 2},
	} {
		if got := codexHookProblems(tc.hooks, tc.want...); len(got) != tc.n {
			t.Errorf("%s: codexHookProblems(%v, %v) = %q, want %d problems", tc.name, tc.hooks, tc.want, got, tc.n)
		}
	}
}

// hookGroup is a matcher group of hooks.json.
type hookGroup struct {
	Matcher *string `json:"matcher"`
	Hooks   []struct {
		Type    string `json:"type"`
		Command string `json:"command"`
		Timeout int    `json:"timeout"`
	} `json:"hooks"`
}

// isCodexHookCommand reports whether cmd runs this run's clawd binary
// (maybe quoted) as "hook codex", maybe followed by the event name.
func isCodexHookCommand(cmd, event string) bool {
	path, rest, ok := strings.Cut(cmd, " hook codex")
	return ok && strings.Trim(path, `"'`) == clawdBin && (rest == "" || rest == " "+event)
}

// installCodex runs `clawd install codex` and checks what Codex needs to
// run clawd's hooks: a command handler per event in hooks.json with the
// agreed timeouts and no matcher, and a trust entry per handler in
// config.toml, beside every line of the user's own config, which the real
// Codex lists as trusted.
func (w *codexWorld) installCodex(ctx context.Context) {
	w.t.Helper()
	r := w.mustClawd(ctx, "install", "codex")
	w.t.Logf("clawd install codex:\n%s%s", r.stdout, r.stderr)
	data, err := os.ReadFile(w.hooksFile())
	if err != nil {
		w.t.Fatalf("hooks.json after install: %v", err)
	}
	var hj struct {
		Hooks map[string][]hookGroup `json:"hooks"`
	}
	if err := json.Unmarshal(data, &hj); err != nil {
		w.t.Fatalf("hooks.json after install: %v\n%s", err, data)
	}
	cfg, err := os.ReadFile(w.configFile())
	if err != nil {
		w.t.Fatal(err)
	}
	if !containsLines(string(cfg), w.userConfig) {
		w.t.Errorf("config.toml after install lost lines of the user's config:\n%s", cfg)
	}
	wantTimeout := map[string]int{"PermissionRequest": 600, "SessionEnd": 3, "Interrupt": 3}
	for _, ev := range codexEvents {
		found := false
		for g, grp := range hj.Hooks[ev.name] {
			for h, hk := range grp.Hooks {
				if hk.Type != "command" || !isCodexHookCommand(hk.Command, ev.name) {
					continue
				}
				found = true
				want := cmp.Or(wantTimeout[ev.name], 10)
				if hk.Timeout != want || grp.Matcher != nil {
					w.t.Errorf("hooks.json %s handler: timeout %d, matcher %v; want %d and no matcher", ev.name, hk.Timeout, grp.Matcher, want)
				}
				key := fmt.Sprintf("%s:%s:%d:%d", w.hooksFile(), ev.snake, g, h)
				if !strings.Contains(string(cfg), fmt.Sprintf("[hooks.state.%q]", key)) {
					w.t.Errorf("config.toml after install has no trust entry [hooks.state.%q]", key)
				}
			}
		}
		if !found {
			w.t.Errorf("hooks.json after install has no command hook %q for %s:\n%s", clawdBin+" hook codex", ev.name, data)
		}
	}
	if n := strings.Count(string(cfg), "trusted_hash"); n != len(codexEvents) {
		w.t.Errorf("config.toml after install has %d trusted_hash entries, want %d:\n%s", n, len(codexEvents), cfg)
	}
	// And Codex itself agrees: it trusts every one.
	w.checkCodexTrusts(ctx, clawdBin, len(codexEvents))
}

// containsLines reports whether every line of want occurs in have, in
// order.
func containsLines(have, want string) bool {
	return subsequence(strings.Split(have, "\n"), strings.Split(strings.TrimSuffix(want, "\n"), "\n"))
}

// uninstallCodex runs `clawd uninstall codex` and checks that the user's
// config.toml is byte for byte what it was and that hooks.json, which the
// user did not have, is gone or holds no hook.
func (w *codexWorld) uninstallCodex(ctx context.Context) {
	w.t.Helper()
	w.mustClawd(ctx, "uninstall", "codex")
	cfg, err := os.ReadFile(w.configFile())
	if err != nil {
		w.t.Fatalf("config.toml after uninstall: %v", err)
	}
	if string(cfg) != w.userConfig {
		w.t.Errorf("config.toml after uninstall =\n%s\nwant the user's original\n%s", cfg, w.userConfig)
	}
	data, err := os.ReadFile(w.hooksFile())
	if err == nil {
		var hj struct {
			Hooks map[string][]hookGroup `json:"hooks"`
		}
		if json.Unmarshal(data, &hj) != nil || len(hj.Hooks) != 0 {
			w.t.Errorf("hooks.json after uninstall still holds hooks (the user had no hooks.json):\n%s", data)
		}
	} else if !os.IsNotExist(err) {
		w.t.Errorf("hooks.json after uninstall: %v", err)
	}
}

// codexAnnouncementHost is where the TUI fetches its announcement tip,
// unconditionally at start-up (Codex 0.169.0 has no setting for it); the
// fake proxy refuses it like anything else.
const codexAnnouncementHost = "raw.githubusercontent.com:443"

// checkOffline checks that Codex asked the fake for nothing but model
// replies, with the key from its env_key, and tried no other host than
// the allowed ones (host:port), which the fake refused.
func (w *codexWorld) checkOffline(t *testing.T, allowed ...string) {
	t.Helper()
	checkOpenAIOffline(t, "codex", w.api, codexAPIKey, allowed...)
}

// checkOpenAIOffline checks that agent asked the fake OpenAI API for
// nothing but model replies (and its model list), with key as its bearer
// token, and tried no other host than the allowed ones (host:port), which
// the fake, its proxy, refused.
func checkOpenAIOffline(t *testing.T, agent string, api *fakeopenai.Server, key string, allowed ...string) {
	t.Helper()
	for _, r := range api.Requests() {
		switch {
		case r.Kind == fakeopenai.KindOutbound && slices.Contains(allowed, r.Path):
			t.Logf("refused as expected: %s %s", r.Method, r.Path)
		case r.Kind == fakeopenai.KindOutbound:
			t.Errorf("something under %s tried to reach %s %s (refused by the fake proxy)", agent, r.Method, r.Path)
		case r.Kind == fakeopenai.KindOther:
			t.Errorf("%s asked the fake API for %s %s", agent, r.Method, r.Path)
		case r.Authorization != key:
			t.Errorf("%s sent %s %s with bearer %q, want %q", agent, r.Method, r.Path, r.Authorization, key)
		}
	}
}

// codexCalls returns the call ids the fake model issued in the
// conversation, by the tool name hooks report (exec_command is Bash).
func (w *codexWorld) codexCalls(marker string) map[string][]string {
	ids := map[string][]string{}
	for _, c := range w.api.IssuedCalls(marker) {
		name := c.Name
		if name == "exec_command" {
			name = "Bash"
		}
		ids[name] = append(ids[name], c.CallID)
	}
	return ids
}

// codexFiles checks what the lifecycle script's tools wrote.
func (w *codexWorld) checkCodexFiles(t *testing.T) {
	t.Helper()
	for name, want := range map[string]string{"out.txt": "hello\n", "note.txt": codexNote + "\n"} {
		data, err := os.ReadFile(filepath.Join(w.project, name))
		if err != nil || string(data) != want {
			t.Errorf("%s = %q (%v), want %q", name, data, err, want)
		}
	}
}

const (
	// codexNote is what apply_patch writes into note.txt; it must never
	// show up in clawd's events.
	codexNote  = "hi from the private patch payload"
	codexFinal = "All done: out.txt and note.txt are written."
)

// codexLifecycle: exec_command writes out.txt, apply_patch adds note.txt,
// then the answer.
func codexLifecycle(marker string) fakeopenai.Conversation {
	return fakeopenai.Conversation{Match: marker, Steps: []fakeopenai.Step{
		fakeopenai.Exec("echo hello > out.txt"),
		fakeopenai.Patch(fakeopenai.AddFilePatch("note.txt", codexNote)),
		fakeopenai.Text(codexFinal),
	}}
}

// midTurn is `clawd status` as seen between two model replies.
type midTurn struct {
	found bool
	sess  statusSession
	st    status
}

// statusBeforeStep returns a BeforeReply that records `clawd status`
// for the session of the conversation's step-th reply, once it shows want
// (or after 5 s), and the channel it arrives on.
func (w *codexWorld) statusBeforeStep(ctx context.Context, marker string, step int, want string) (func(fakeopenai.Request), <-chan midTurn) {
	ch := make(chan midTurn, 1)
	return func(r fakeopenai.Request) {
		if r.Conversation != marker || r.Step != step || r.Kind != fakeopenai.KindTurn {
			return
		}
		deadline := time.Now().Add(5 * time.Second)
		for {
			st, ok := w.status(ctx)
			s, found := st.session(r.Metadata.SessionID)
			if ok && found && s.State == want || time.Now().After(deadline) {
				select {
				case ch <- midTurn{found, s, st}:
				default:
				}
				return
			}
			time.Sleep(50 * time.Millisecond)
		}
	}, ch
}

// checkCodexEvent checks what every event of a codex exec session carries.
func checkCodexCommon(t *testing.T, w *codexWorld, sess []event) {
	t.Helper()
	cwds := 0
	for _, e := range sess {
		if e.Agent != "codex" || e.Time.IsZero() || e.State == "" {
			t.Errorf("event lacks agent codex, time or state: %s", e.raw)
		}
		if e.Cwd != "" {
			cwds++
			if got, err := filepath.EvalSymlinks(e.Cwd); err != nil || got != w.project {
				t.Errorf("event cwd = %q, want the project %q: %s", e.Cwd, w.project, e.raw)
			}
		}
	}
	if cwds == 0 {
		t.Errorf("no event of the session carries its cwd")
	}
}

// checkCodexTools checks that each tool started and ended once, under the
// call id the fake model issued.
func checkCodexTools(t *testing.T, sess []event, ids map[string][]string) {
	t.Helper()
	for _, tool := range []string{"Bash", "apply_patch"} {
		var start, end []event
		for _, e := range sess {
			if e.ToolName == tool && e.Kind == "tool.start" {
				start = append(start, e)
			}
			if e.ToolName == tool && e.Kind == "tool.end" {
				end = append(end, e)
			}
		}
		if len(ids[tool]) != 1 {
			t.Errorf("the fake model issued %s calls %v, want one", tool, ids[tool])
			continue
		}
		if len(start) != 1 || len(end) != 1 {
			t.Errorf("%s: %d tool.start and %d tool.end events, want one each", tool, len(start), len(end))
			continue
		}
		if start[0].ToolUseID != ids[tool][0] || end[0].ToolUseID != ids[tool][0] {
			t.Errorf("%s: tool_use_id start %q, end %q, want both %q (the model's call_id)",
				tool, start[0].ToolUseID, end[0].ToolUseID, ids[tool][0])
		}
	}
}

// TestCodexExecLifecycle: `codex exec` with clawd's hooks installed (and
// trusted: else Codex silently skips them) shows the session thinking,
// working, then done, every hook event arriving once, with nothing
// doubled by the rollout monitor, which sees the same session.
func TestCodexExecLifecycle(t *testing.T) {
	started := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	const marker = "E2E_CODEX_LIFECYCLE"
	const title = "Please " + marker + " now"
	w := newCodexWorld(t)
	before, mid := w.statusBeforeStep(ctx, marker, 1, "working")
	w.startOpenAI(fakeopenai.Script{Conversations: []fakeopenai.Conversation{codexLifecycle(marker)}, BeforeReply: before})

	serve := w.startServe()
	events := w.startEvents()
	events.sync(ctx)
	w.installCodex(ctx)

	res := w.runCodexExec(ctx, title+"\n"+secondLine)
	if res.code != 0 || !strings.Contains(res.stdout, codexFinal) || res.sessionID == "" {
		t.Fatalf("codex exec: %s", res.result)
	}
	w.checkCodexFiles(t)
	checkCodexHooksCompleted(t, res, "SessionStart", "UserPromptSubmit", "PreToolUse", "PreToolUse",
		"PostToolUse", "PostToolUse", "Stop")
	id := res.sessionID
	for i, r := range w.api.OfKind(fakeopenai.KindTurn) {
		if r.Metadata.SessionID != id || r.Originator != "codex_exec" || r.Step != i {
			t.Errorf("turn request %d: session %q, originator %q, step %d; want session %s from codex_exec, step %d",
				i, r.Metadata.SessionID, r.Originator, r.Step, id, i)
		}
	}
	if n := len(w.api.OfKind(fakeopenai.KindTurn)); n != 3 {
		t.Errorf("the fake saw %d turn requests, want 3", n)
	}

	// SessionEnd runs as codex exec exits.
	all := events.waitFor(15*time.Second, "session.end of the codex session", func(evs []event) bool {
		return anyEvent(forSession(evs, id), hasKind("session.end"))
	})
	sess := forSession(all, id)
	t.Logf("events: %v", sess)
	checkCodexCommon(t, w, sess)
	for _, e := range sess {
		if !e.Headless {
			t.Errorf("event of a codex exec session not marked headless: %s", e.raw)
		}
	}
	// Exactly the hooks' events: the monitor read the same rollout and
	// must have added nothing.
	kinds := field(sess, func(e event) string { return e.Kind })
	wantKinds := []string{"session.start", "prompt.submit", "tool.start", "tool.end", "tool.start", "tool.end",
		"turn.end", "session.end"}
	if !slices.Equal(kinds, wantKinds) {
		t.Errorf("event kinds %v, want exactly %v", kinds, wantKinds)
	}
	hookEvents := field(sess, func(e event) string { return e.HookEvent })
	if want := []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "PreToolUse", "PostToolUse",
		"Stop", "SessionEnd"}; !slices.Equal(hookEvents, want) {
		t.Errorf("hook events %v, want %v", hookEvents, want)
	}
	states := field(sess, func(e event) string { return e.State })
	if !subsequence(states, []string{"thinking", "working", "attention"}) {
		t.Errorf("states %v, want thinking, then working, then attention", states)
	}
	wantState := map[string]string{"prompt.submit": "thinking", "tool.start": "working", "tool.end": "working",
		"turn.end": "attention"}
	for _, e := range sess {
		if want, ok := wantState[e.Kind]; ok && e.State != want {
			t.Errorf("%s: state %q, want %q", e.Kind, e.State, want)
		}
		if e.Kind == "prompt.submit" && e.Title != title || e.Title != "" && e.Title != title {
			t.Errorf("%s: title %q, want %q", e.Kind, e.Title, title)
		}
	}
	checkCodexTools(t, sess, w.codexCalls(marker))
	checkPrivate(t, all, secondLine, "hello", codexNote, codexFinal, "echo ", "Begin Patch")

	select {
	case m := <-mid:
		if !m.found || m.sess.Agent != "codex" || m.sess.State != "working" || m.sess.Title != title ||
			m.sess.Cwd != w.project || !m.sess.Headless {
			t.Errorf("clawd status between the tool calls = %+v (listed %v), want codex, working, title %q, cwd %q, headless",
				m.sess, m.found, title, w.project)
		}
	default:
		t.Errorf("the fake model never got the second reply's request: no mid-turn status")
	}

	// Once the session ended, the monitor (still tailing its rollout) must
	// not bring it back.
	if evs, late := events.await(3*time.Second, func(evs []event) bool { return len(forSession(evs, id)) > len(sess) }); late {
		t.Errorf("events of the session after session.end: %v", forSession(evs, id)[len(sess):])
	}
	w.checkEndedSession(ctx, t, id)
	w.checkOffline(t)

	w.uninstallCodex(ctx)
	events.close()
	serve.shutdown()
	t.Logf("TestCodexExecLifecycle took %v (codex exec %v)", time.Since(started).Round(time.Millisecond), res.dur.Round(time.Millisecond))
}

// TestCodexExecRolloutMonitor: the same run with clawd's hooks
// uninstalled. Codex runs no hook at all, and the runtime's monitor of
// ~/.codex/sessions alone shows the session thinking, working, then done,
// with the same tools under the same ids.
func TestCodexExecRolloutMonitor(t *testing.T) {
	started := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	const marker = "E2E_CODEX_MONITOR"
	const title = "Please " + marker + " now"
	w := newCodexWorld(t)
	before, mid := w.statusBeforeStep(ctx, marker, 1, "working")
	w.startOpenAI(fakeopenai.Script{Conversations: []fakeopenai.Conversation{codexLifecycle(marker)}, BeforeReply: before})

	serve := w.startServe()
	events := w.startEvents()
	events.sync(ctx)
	w.installCodex(ctx)
	w.uninstallCodex(ctx)

	res := w.runCodexExec(ctx, title+"\n"+secondLine)
	if res.code != 0 || !strings.Contains(res.stdout, codexFinal) || res.sessionID == "" {
		t.Fatalf("codex exec: %s", res.result)
	}
	if len(res.hooks) != 0 {
		t.Errorf("codex exec ran hooks after clawd uninstall codex: %v", res.hooks)
	}
	w.checkCodexFiles(t)
	id := res.sessionID

	all := events.waitFor(30*time.Second, "turn.end of the codex session from its rollout", func(evs []event) bool {
		return anyEvent(forSession(evs, id), hasKind("turn.end"))
	})
	sess := forSession(all, id)
	t.Logf("events: %v", sess)
	checkCodexCommon(t, w, sess)
	for _, e := range sess {
		if !e.Headless {
			t.Errorf("event of a codex exec session not marked headless: %s", e.raw)
		}
	}
	kinds := field(sess, func(e event) string { return e.Kind })
	if want := []string{"prompt.submit", "tool.start", "tool.end", "tool.start", "tool.end", "turn.end"}; !subsequence(kinds, want) {
		t.Errorf("event kinds %v, want %v in this order", kinds, want)
	}
	states := field(sess, func(e event) string { return e.State })
	if !subsequence(states, []string{"thinking", "working", "attention"}) {
		t.Errorf("states %v, want thinking, then working, then attention", states)
	}
	wantState := map[string]string{"prompt.submit": "thinking", "tool.start": "working", "turn.end": "attention"}
	for _, e := range sess {
		if want, ok := wantState[e.Kind]; ok && e.State != want {
			t.Errorf("%s: state %q, want %q", e.Kind, e.State, want)
		}
	}
	checkCodexTools(t, sess, w.codexCalls(marker))
	checkPrivate(t, all, secondLine, "hello", codexNote, codexFinal, "echo ", "Begin Patch")

	// The monitor follows the rollout as Codex writes it: between the two
	// tool calls the session is working.
	select {
	case m := <-mid:
		if !m.found || m.sess.Agent != "codex" || m.sess.State != "working" || m.sess.Cwd != w.project || !m.sess.Headless {
			t.Errorf("clawd status between the tool calls = %+v (listed %v), want codex, working, cwd %q, headless",
				m.sess, m.found, w.project)
		}
	default:
		t.Errorf("the fake model never got the second reply's request: no mid-turn status")
	}

	// No SessionEnd without hooks: the session stays listed, done.
	st, ok := w.status(ctx)
	if s, found := st.session(id); ok && (!found || s.Agent != "codex" || s.Cwd != w.project || !s.Headless) {
		t.Errorf("clawd status after the run: %+v (listed %v), want the codex session, cwd %q, headless", s, found, w.project)
	} else if ok {
		t.Logf("clawd status after the run: %+v", s)
	}
	w.checkOffline(t)

	events.close()
	serve.shutdown()
	t.Logf("TestCodexExecRolloutMonitor took %v (codex exec %v)", time.Since(started).Round(time.Millisecond), res.dur.Round(time.Millisecond))
}
