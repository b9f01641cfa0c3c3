//go:build !windows

package e2e

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/clawdhq/clawd/internal/fakeanthropic"
	"github.com/clawdhq/clawd/internal/fakeopenai"
	"github.com/clawdhq/clawd/runtime/client"
)

// history runs `clawd history --json` and returns the sessions.
func (w *world) history(ctx context.Context, args ...string) []client.HistoryEntry {
	w.t.Helper()
	r := w.mustClawd(ctx, append([]string{"history", "--json"}, args...)...)
	var h client.History
	if err := json.Unmarshal([]byte(r.stdout), &h); err != nil {
		w.t.Fatalf("clawd history --json printed %q: %v", r.stdout, err)
	}
	return h.Sessions
}

// awaitHistory waits until the history holds session id as cond wants it.
func (w *world) awaitHistory(ctx context.Context, id string, cond func(client.HistoryEntry) bool) client.HistoryEntry {
	w.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		for _, e := range w.history(ctx) {
			if e.SessionID == id && cond(e) {
				return e
			}
		}
		if time.Now().After(deadline) {
			w.t.Fatalf("session %s not in the history as expected within 15 s: %+v", id, w.history(ctx))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// awaitTitle waits until `clawd status` shows session id titled want.
func (w *world) awaitTitle(ctx context.Context, id, want string) statusSession {
	w.t.Helper()
	return w.awaitTitleFrom(ctx, id, want, "")
}

// awaitTitleFrom waits until `clawd status` shows session id titled want
// from source (person, agent or prompt; "" for any).
func (w *world) awaitTitleFrom(ctx context.Context, id, want, source string) statusSession {
	w.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		st, ok := w.status(ctx)
		s, found := st.session(id)
		if ok && found && s.Title == want && (source == "" || s.TitleSource == source) {
			return s
		}
		if time.Now().After(deadline) {
			w.t.Fatalf("clawd status never showed session %s titled %q (from %q) within 20 s; last: %+v", id, want, source, s)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// transcriptHas waits until the session's Claude Code transcript has a
// line containing want.
func (w *world) transcriptHas(id, want string) {
	w.t.Helper()
	w.transcriptHasFile(filepath.Join(w.home, ".claude", "projects", transcriptFolder(w.project), id+".jsonl"), want)
}

// transcriptHasFile waits until the file at path has a line containing
// want.
func (w *world) transcriptHasFile(path, want string) {
	w.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		data, _ := os.ReadFile(path)
		if strings.Contains(string(data), want) {
			return
		}
		if time.Now().After(deadline) {
			w.t.Fatalf("%s has no %s within 30 s", path, want)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// transcriptFolder is Claude Code's folder name for a project: every
// character that is not a letter or a digit becomes '-'.
func transcriptFolder(dir string) string {
	return regexp.MustCompile(`[^A-Za-z0-9]`).ReplaceAllString(dir, "-")
}

// TestClaudeSessionNames follows one interactive Claude Code session's
// title through every source: its first prompt; the title Claude Code
// generates (only in its transcript: no hook carries it), read from the
// transcript; the name the person gives it with /rename in Claude Code;
// and `clawd rename`, which wins over all of them, in status and history.
func TestClaudeSessionNames(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 180*time.Second)
	defer cancel()
	deadline, _ := ctx.Deadline()
	w := newWorld(t)
	id := newUUID(t)
	// Claude Code asks the model for a title as JSON in a side request
	// (no tools) once the first turn is done.
	w.startAPI(fakeanthropic.Script{
		Conversations: []fakeanthropic.Conversation{{Steps: []fakeanthropic.Step{fakeanthropic.Text("E2E_NAMES_DONE")}}},
		SideText:      `{"title":"Login bug hunt"}`,
	})
	w.startServe()
	events := w.startEvents()
	events.sync(ctx)
	w.install(ctx)

	// Title generation is "nonessential traffic": allowed here, with
	// every proxy pointed at the fake API so nothing leaves the machine.
	var env []string
	for _, e := range w.claudeEnv() {
		if !strings.HasPrefix(e, "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=") {
			env = append(env, e)
		}
	}
	env = append(env, proxyEnv(w.api.URL())...)
	c := w.startInteractiveClaudeEnv(id, deadline, env)
	done := regexp.MustCompile("E2E_NAMES_DONE")
	turn := func(prompt string, n int) {
		t.Helper()
		c.submit(prompt)
		events.waitFor(45*time.Second, "turn.end of "+prompt, func(evs []event) bool {
			return len(slices.DeleteFunc(forSession(evs, id), func(e event) bool { return e.Kind != "turn.end" })) >= n
		})
		c.WaitFor(done, 10*time.Second)
	}

	turn("fix the login bug please", 1)
	if !anyEvent(forSession(events.snapshot(), id), func(e event) bool { return e.Title == "fix the login bug please" }) {
		t.Errorf("the first prompt's event carried no title from the prompt")
	}
	w.transcriptHas(id, `"type":"ai-title","aiTitle":"Login bug hunt"`)
	turn("and the logout one", 2)
	if s := w.awaitTitle(ctx, id, "Login bug hunt"); s.Headless {
		t.Errorf("the TUI session shows headless: %+v", s)
	}
	// The generated title came from the transcript alone.
	for _, e := range forSession(events.snapshot(), id) {
		if e.Title == "Login bug hunt" {
			t.Errorf("a hook event carried the generated title, so the transcript was not what named it: %s", e.raw)
		}
	}

	c.submit("/rename Shop refactor")
	w.transcriptHas(id, `"type":"custom-title","customTitle":"Shop refactor"`)
	turn("now the signup form", 3)
	w.awaitTitle(ctx, id, "Shop refactor")

	r := w.mustClawd(ctx, "rename", id[:8], "Mine, not Claude's")
	if !strings.Contains(r.stdout, `"Mine, not Claude's"`) {
		t.Errorf("clawd rename printed %q", r.stdout)
	}
	w.awaitTitle(ctx, id, "Mine, not Claude's")
	c.submit("/rename Claude's second name")
	w.transcriptHas(id, `"customTitle":"Claude's second name"`)
	turn("one more", 4)
	if st, ok := w.status(ctx); ok {
		if s, _ := st.session(id); s.Title != "Mine, not Claude's" {
			t.Errorf("after a rename in Claude Code: title %q, want the person's", s.Title)
		}
	}
	if r := w.clawd(ctx, "", "rename", id, "my api_key rotation"); r.code == 0 || !strings.Contains(r.stderr, "credential") {
		t.Errorf("clawd rename with a secret-looking title: %s, want refused", r)
	}

	if rc := c.exit(); rc != 0 {
		t.Errorf("claude exited %d after /exit", rc)
	}
	e := w.awaitHistory(ctx, id, func(e client.HistoryEntry) bool { return e.Ended })
	if e.Title != "Mine, not Claude's" || e.TitleSource != "person" || e.Turns != 4 || e.Cwd != w.project || e.Headless {
		t.Errorf("history entry = %+v, want the person's title, 4 turns, the project folder, not headless", e)
	}
	// --clear gives Claude's own name back, in the history too.
	w.mustClawd(ctx, "rename", "--clear", "claude:"+id)
	e = w.awaitHistory(ctx, id, func(e client.HistoryEntry) bool { return e.TitleSource == "agent" })
	if e.Title != "Claude's second name" {
		t.Errorf("after --clear: %q, want Claude's latest name", e.Title)
	}
}

// startInteractiveClaudeEnv is startInteractiveClaude with env as the
// whole environment of claude.
func (w *world) startInteractiveClaudeEnv(id string, deadline time.Time, env []string) *interactiveClaude {
	w.t.Helper()
	bin := claudePath(w.t)
	w.writeInteractiveState(claudeCLIVersion(w.t, bin))
	w.claudeRun++
	debugFile := filepath.Join(w.dir, "claude-debug-names.log")
	argv := []string{bin, "--permission-mode", "default", "--session-id", id, "--debug-file", debugFile}
	c := &interactiveClaude{tmux: startTmux(w.t, w.project, 160, 50, env, argv), debugFile: debugFile}
	c.deadline = deadline
	c.WaitFor(claudePrompt, 60*time.Second)
	return c
}

// TestClaudeNameHeadless: `claude -p --name` names a headless session
// (Claude Code writes the name to its transcript and hands it to the
// hooks); clawd shows it and keeps it in the history, headless.
func TestClaudeNameHeadless(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	w := newWorld(t)
	id := newUUID(t)
	w.startAPI(fakeanthropic.Script{Conversations: []fakeanthropic.Conversation{{Steps: []fakeanthropic.Step{fakeanthropic.Text("named")}}}})
	w.startServe()
	w.install(ctx)
	if r := w.runClaude(ctx, id, "fix the login bug please", "--name", "Shop refactor"); r.code != 0 {
		t.Fatalf("claude -p --name: %s", r)
	}
	w.transcriptHas(id, `"type":"custom-title","customTitle":"Shop refactor"`)
	e := w.awaitHistory(ctx, id, func(e client.HistoryEntry) bool { return e.Ended })
	if e.Title != "Shop refactor" || e.TitleSource != "agent" || !e.Headless || e.Turns != 1 {
		t.Errorf("history entry = %+v, want the name, from the agent, headless, 1 turn", e)
	}
	for _, args := range [][]string{{"--search", "shop"}, {"--agent", "claude-code"}, {"--since", "1h"}} {
		if got := w.history(ctx, args...); len(got) != 1 || got[0].SessionID != id {
			t.Errorf("clawd history %v = %+v, want the one session", args, got)
		}
	}
	if got := w.history(ctx, "--search", "nothing-like-it"); len(got) != 0 {
		t.Errorf("clawd history --search nothing-like-it = %+v, want none", got)
	}
	r := w.mustClawd(ctx, "history")
	if !strings.Contains(r.stdout, "Shop refactor") || !strings.Contains(r.stdout, id) || !strings.Contains(r.stdout, "(headless)") {
		t.Errorf("clawd history printed:\n%s", r.stdout)
	}
}

// TestResume resumes a session made in the same test: first with a fake
// claude on PATH that records its arguments and folder (and exits 3, which
// clawd resume passes on), then the real Claude Code's TUI under tmux,
// which carries the conversation on against the fake model API.
func TestResume(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 180*time.Second)
	defer cancel()
	deadline, _ := ctx.Deadline()
	w := newWorld(t)
	id := newUUID(t)
	w.startAPI(fakeanthropic.Script{Conversations: []fakeanthropic.Conversation{
		{Match: "E2E_RESUMED", Steps: []fakeanthropic.Step{fakeanthropic.Text("E2E_RESUME_SECOND_DONE")}},
		{Steps: []fakeanthropic.Step{fakeanthropic.Text("E2E_RESUME_FIRST_DONE")}},
	}})
	w.startServe()
	w.install(ctx)
	if r := w.runClaude(ctx, id, "remember the word PELICAN"); r.code != 0 {
		t.Fatalf("claude -p: %s", r)
	}
	w.awaitHistory(ctx, id, func(e client.HistoryEntry) bool { return e.Ended })

	// A fake claude that records how it was run.
	bin := filepath.Join(w.dir, "fakebin")
	record := filepath.Join(w.dir, "record")
	if err := os.MkdirAll(bin, 0o700); err != nil {
		t.Fatal(err)
	}
	script := "#!/bin/sh\nprintf '%s\\n' \"$@\" > " + shellQuote(record+".argv") + "\npwd > " + shellQuote(record+".cwd") + "\nexit 3\n"
	if err := os.WriteFile(filepath.Join(bin, "claude"), []byte(script), 0o700); err != nil {
		t.Fatal(err)
	}
	w.pathPrefix = bin
	r := w.clawd(ctx, "", "resume", id[:13])
	argv, _ := os.ReadFile(record + ".argv")
	cwd, _ := os.ReadFile(record + ".cwd")
	if r.code != 3 || string(argv) != "--resume\n"+id+"\n" || strings.TrimSpace(string(cwd)) != w.project {
		t.Errorf("clawd resume with a fake claude: %s\nargv %q, cwd %q; want exit 3, --resume %s, in %s", r, argv, cwd, id, w.project)
	}
	if r := w.mustClawd(ctx, "resume", "--print", "claude:"+id); strings.TrimSpace(r.stdout) != "cd "+shellQuote(w.project)+" && claude --resume "+id {
		t.Errorf("clawd resume --print printed %q", r.stdout)
	}
	if r := w.clawd(ctx, "", "resume", "no-such-session"); r.code != 1 || !strings.Contains(r.stderr, "no such session") {
		t.Errorf("clawd resume no-such-session: %s", r)
	}

	// The real one: clawd resume runs claude --resume in this terminal.
	w.pathPrefix = ""
	w.writeInteractiveState(claudeCLIVersion(t, claudePath(t)))
	env := append(w.claudeEnv(), "PATH="+filepath.Dir(claudePath(t))+string(os.PathListSeparator)+os.Getenv("PATH"))
	tm := startTmux(t, w.dir, 160, 50, env, []string{clawdBin, "resume", id})
	tm.deadline = deadline
	// The TUI comes up with the first turn on the screen, and the prompt.
	tm.WaitFor(regexp.MustCompile(`(?s)remember the word PELICAN.*E2E_RESUME_FIRST_DONE.*❯`), 60*time.Second)
	c := &interactiveClaude{tmux: tm}
	c.submit("what was the word? E2E_RESUMED")
	c.WaitFor(regexp.MustCompile("E2E_RESUME_SECOND_DONE"), 45*time.Second)
	var resumed bool
	for _, req := range w.api.MessageRequests() {
		if req.Conversation != "E2E_RESUMED" {
			continue
		}
		for _, m := range req.Messages {
			for _, b := range m.Blocks {
				resumed = resumed || strings.Contains(b.Text, "remember the word PELICAN")
			}
		}
	}
	if !resumed {
		t.Errorf("the resumed session's request did not carry the first turn: claude did not resume it")
	}
	if rc := c.exit(); rc != 0 {
		t.Errorf("clawd resume exited %d after /exit, want claude's 0", rc)
	}
	e := w.awaitHistory(ctx, id, func(e client.HistoryEntry) bool { return e.Ended && e.Turns == 2 })
	if e.Headless {
		t.Errorf("after the resume in the TUI: %+v, want not headless", e)
	}
}

// TestQwenResumeAndRename: a `qwen -p` session lands in the history;
// clawd resume runs the real `qwen --resume` in its folder under tmux,
// which carries the first turn's conversation on against the fake API;
// /rename in Qwen's TUI writes the name only to its chat file, where clawd
// reads it on the next prompt; clawd rename wins over it.
func TestQwenResumeAndRename(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 180*time.Second)
	defer cancel()
	deadline, _ := ctx.Deadline()
	w := newQwenWorld(t)
	w.startQwenAPI(fakeopenai.Script{Conversations: []fakeopenai.Conversation{
		{Match: "E2E_QWEN_RESUMED", Steps: []fakeopenai.Step{fakeopenai.Text("E2E_QWEN_SECOND_DONE")}},
		{Match: "E2E_QWEN_FIRST", Steps: []fakeopenai.Step{fakeopenai.Text("E2E_QWEN_FIRST_DONE")}},
	}})
	w.startServe()
	w.installQwen(ctx)
	res := w.runQwen(ctx, "remember the word PELICAN E2E_QWEN_FIRST")
	if res.code != 0 || res.sessionID == "" || res.response != "E2E_QWEN_FIRST_DONE" {
		t.Fatalf("qwen -p: session %q, response %q; %s", res.sessionID, res.response, res.result)
	}
	id := res.sessionID
	// qwen -p has no SessionEnd: the session leaves (for the history)
	// once the runtime finds Qwen's launcher gone, within 10 s.
	e := w.awaitHistory(ctx, id, func(e client.HistoryEntry) bool { return !e.Live })
	if e.Agent != "qwen" || e.Cwd != w.project || strings.Join(e.Resume, " ") != "qwen --resume "+id {
		t.Errorf("history entry = %+v, want qwen in the project, resumed with qwen --resume %s", e, id)
	}

	env := append(w.qwenEnv(), "PATH="+filepath.Dir(w.bin)+string(os.PathListSeparator)+os.Getenv("PATH"))
	tm := startTmux(t, w.dir, 160, 50, env, []string{clawdBin, "resume", id[:8]})
	tm.deadline = deadline
	c := &qwenTUI{tmux: tm, w: w}
	c.WaitFor(qwenReady, 60*time.Second)
	c.submit("/rename Shop refactor")
	chats, _ := filepath.Glob(filepath.Join(w.qwenHome, "projects", "*", "chats", id+".jsonl"))
	if len(chats) != 1 {
		t.Fatalf("Qwen's chat files of %s: %v, want one", id, chats)
	}
	w.transcriptHasFile(chats[0], `"customTitle":"Shop refactor"`)
	c.submit("what was the word? E2E_QWEN_RESUMED")
	c.WaitFor(regexp.MustCompile("E2E_QWEN_SECOND_DONE"), 45*time.Second)
	s := w.awaitTitle(ctx, id, "Shop refactor")
	if s.Agent != "qwen" || s.Headless {
		t.Errorf("resumed session in clawd status = %+v, want qwen, not headless", s)
	}
	var resumed bool
	for _, req := range w.api.Requests() {
		if req.Conversation != "E2E_QWEN_RESUMED" {
			continue
		}
		for _, it := range req.Input {
			resumed = resumed || strings.Contains(it.Text, "remember the word PELICAN")
		}
	}
	if !resumed {
		t.Errorf("the resumed session's request did not carry the first turn: qwen did not resume it")
	}

	// The person's title wins over Qwen's; taking it away shows Qwen's.
	w.mustClawd(ctx, "rename", id, "Mine")
	w.awaitTitle(ctx, id, "Mine")
	w.mustClawd(ctx, "rename", "--clear", id)
	w.awaitTitle(ctx, id, "Shop refactor")
	if rc := c.quit(); rc != 0 {
		t.Errorf("clawd resume exited %d after /quit, want qwen's 0", rc)
	}
	e = w.awaitHistory(ctx, id, func(e client.HistoryEntry) bool { return e.Ended && e.Turns == 2 })
	if e.Title != "Shop refactor" || e.TitleSource != "agent" {
		t.Errorf("history entry after the resume = %+v, want Qwen's name for it, from the agent", e)
	}
}

// TestCopilotName: `copilot -p --name` names the session only in its
// workspace.yaml, which clawd reads when the session starts: the session
// shows the name (the agent's, over its prompt's) and keeps it in the
// history, with Copilot's own resume command.
func TestCopilotName(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	w := newCopilotWorld(t)
	w.startCopilotAPI(fakeopenai.Script{Conversations: []fakeopenai.Conversation{{Steps: []fakeopenai.Step{fakeopenai.Text("E2E_COPILOT_DONE")}}}})
	w.startServe()
	w.installCopilot(ctx)
	r := w.runCopilot(ctx, "fix the login bug", "--name", "Shop refactor")
	if r.code != 0 || r.sessionID == "" {
		t.Fatalf("copilot -p --name: %s (session %q)", r.result, r.sessionID)
	}
	e := w.awaitHistory(ctx, r.sessionID, func(e client.HistoryEntry) bool { return e.Ended })
	if e.Title != "Shop refactor" || e.TitleSource != "agent" || !e.Headless || strings.Join(e.Resume, " ") != "copilot --resume="+r.sessionID {
		t.Errorf("history entry = %+v, want Copilot's name for it from the agent, headless, resumed with copilot --resume=%s", e, r.sessionID)
	}
}
