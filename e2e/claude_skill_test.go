package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/internal/fakeanthropic"
)

// skillCommand is a project command whose text runs a shell command as
// it loads (a !`...` line), with the permission to run it.
const skillCommand = `---
description: Greets with the output of a shell command
allowed-tools: Bash(echo:*)
---
E2E_SKILL_SHELL says: !` + "`echo skill-shell-ran`" + `
`

// TestClaudeSkillShellCommand runs a command whose text holds a shell
// command: Claude Code (since 2.1.332) fires PreSkillShellCommand before it
// runs it. clawd shows the session working on it and never answers it, so
// the command runs as it would without clawd. An older release does not
// know the event, and would stop its TUI at a Settings Warning for it:
// clawd does not register it there, and the command runs all the same.
func TestClaudeSkillShellCommand(t *testing.T) {
	spec, _ := agents.Claude.Hook("PreSkillShellCommand")
	knows := agents.CompareVersions(claudeVersion, spec.Since) >= 0
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	const marker = "E2E_SKILL_SHELL"
	const final = "Greeted."
	w := newWorld(t)
	id := newUUID(t)
	w.startAPI(fakeanthropic.Script{Conversations: []fakeanthropic.Conversation{
		{Match: marker, Steps: []fakeanthropic.Step{fakeanthropic.Text(final)}},
	}})
	commands := filepath.Join(w.project, ".claude", "commands")
	if err := os.MkdirAll(commands, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(commands, "greet.md"), []byte(skillCommand), 0o600); err != nil {
		t.Fatal(err)
	}
	w.startServe()
	events := w.startEvents()
	events.sync(ctx)
	w.install(ctx)

	res := w.runClaude(ctx, id, "/greet")
	if res.code != 0 || !strings.Contains(res.stdout, final) {
		t.Fatalf("claude -p /greet: %s", res.result)
	}
	ran := false
	for _, r := range w.api.MessageRequests() {
		ran = ran || r.Conversation == marker && strings.Contains(r.Prompt, "E2E_SKILL_SHELL says: skill-shell-ran")
	}
	if !ran {
		t.Errorf("no model request carries the command's output: the skill's shell command did not run; prompts: %v", w.api.MessageRequests())
	}
	settings, err := os.ReadFile(w.settingsFile())
	if err != nil {
		t.Fatal(err)
	}
	if registered := strings.Contains(string(settings), `"PreSkillShellCommand"`); registered != knows {
		t.Fatalf("clawd install with Claude Code %s on PATH: PreSkillShellCommand registered %v, want %v (since %s)", claudeVersion, registered, knows, spec.Since)
	}
	if !knows {
		checkHooksExitedZero(t, w, res.debug, "UserPromptSubmit", "Stop")
		return
	}
	checkHooksExitedZero(t, w, res.debug, "UserPromptSubmit", "PreSkillShellCommand:Bash", "Stop")
	all := events.waitFor(15*time.Second, "session.end of the claude session", func(evs []event) bool {
		return anyEvent(forSession(evs, id), hasKind("session.end"))
	})
	sess := forSession(all, id)
	t.Logf("events: %v", sess)
	var shell *event
	for i, e := range sess {
		if e.HookEvent == "PreSkillShellCommand" {
			shell = &sess[i]
		}
	}
	switch {
	case shell == nil:
		t.Errorf("clawd events shows no PreSkillShellCommand of the session; events:\n%s", dumpEvents(sess))
	case shell.Kind != "tool.start" || shell.State != "working" || shell.ToolName != "Bash":
		t.Errorf("PreSkillShellCommand = %s (state %s), want tool.start -> working Bash:\n%s", shell, shell.State, shell.raw)
	}
}
