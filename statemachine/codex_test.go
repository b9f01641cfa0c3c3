package statemachine

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/clawdhq/clawd/agents"
)

// codexSteps decodes captured Codex payloads (testdata/codex/hooks) and
// applies them one second apart, returning the machine and the time of
// the last one.
func codexSteps(t *testing.T, m *Machine, at time.Time, files ...string) (Result, time.Time) {
	t.Helper()
	var res Result
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join("..", "testdata", "codex", "hooks", f))
		if err != nil {
			t.Fatal(err)
		}
		at = at.Add(time.Second)
		e, err := agents.Codex.Decode(b, "", func(string) string { return "" }, at)
		if err != nil {
			t.Fatalf("Decode(%s): %v", f, err)
		}
		res = m.Apply(e, at)
	}
	return res, at
}

// The parent waits for the person on its own call while a sub-agent starts
// a turn of its own: the sub-agent's prompt, which Codex reports with the
// parent's session id, must not close the parent's request.
func TestCodexSubagentPromptKeepsParentWaiting(t *testing.T) {
	m := New(Options{})
	_, at := codexSteps(t, m, replayStart, "SessionStart.json", "UserPromptSubmit.json",
		"PreToolUse.spawn_agent.json", "PostToolUse.spawn_agent.json", "SubagentStart.json",
		"PreToolUse.json", "PermissionRequest.json")
	res, _ := codexSteps(t, m, at, "UserPromptSubmit.subagent.json")
	if s := res.Session; s.State != Waiting || s.Pending != 1 || s.Subagents != 1 || s.BaseState != Juggling {
		t.Errorf("after a sub-agent's prompt: state %s base %s pending %d subagents %d, want waiting, juggling, 1, 1",
			s.State, s.BaseState, s.Pending, s.Subagents)
	}
	if res.Session.Title != "write hi to out.txt" {
		t.Errorf("title = %q, want the person's prompt, not the sub-agent's", res.Session.Title)
	}
}

// A sub-agent's prompt seen without its SubagentStart (clawd started
// mid-turn) still counts the sub-agent.
func TestCodexSubagentPromptAlone(t *testing.T) {
	m := New(Options{})
	res, _ := codexSteps(t, m, replayStart, "UserPromptSubmit.subagent.json")
	if s := res.Session; s.State != Juggling || s.Subagents != 1 || s.Title != "" {
		t.Errorf("a lone sub-agent prompt: state %s subagents %d title %q, want juggling, 1, none", s.State, s.Subagents, s.Title)
	}
}

// A sub-agent's SubagentStop ends the sub-agent, never the parent's turn:
// no "done" until the parent's own Stop.
func TestCodexSubagentStopKeepsParentTurn(t *testing.T) {
	m := New(Options{})
	_, at := codexSteps(t, m, replayStart, "SessionStart.json", "UserPromptSubmit.json",
		"PreToolUse.spawn_agent.json", "PostToolUse.spawn_agent.json", "SubagentStart.json",
		"UserPromptSubmit.subagent.json", "PreToolUse.wait_agent.json", "PreToolUse.subagent.json",
		"PostToolUse.subagent.json")
	res, at := codexSteps(t, m, at, "SubagentStop.json")
	if s := res.Session; s.State != Working || s.Subagents != 0 {
		t.Errorf("after SubagentStop: state %s subagents %d, want working, 0", s.State, s.Subagents)
	}
	res, _ = codexSteps(t, m, at, "PostToolUse.wait_agent.json", "Stop.json")
	if s := res.Session; s.State != Attention || s.BaseState != Idle {
		t.Errorf("after the parent's Stop: state %s base %s, want attention over idle", s.State, s.BaseState)
	}
}

// Interrupt ends the turn the person cut short: idle at once, its open
// request gone, and no "done" flash.
func TestCodexInterruptIsNotDone(t *testing.T) {
	m := New(Options{})
	_, at := codexSteps(t, m, replayStart, "SessionStart.json", "UserPromptSubmit.json",
		"PreToolUse.json", "PermissionRequest.json")
	res, at := codexSteps(t, m, at, "Interrupt.json")
	if s := res.Session; s.State != Idle || s.Pending != 0 {
		t.Errorf("after Interrupt: state %s pending %d, want idle, 0", s.State, s.Pending)
	}
	for _, r := range m.Tick(at.Add(time.Second), nil) {
		if r.Session.State == Attention {
			t.Errorf("Tick after Interrupt: %+v, want no attention", r.Session)
		}
	}
	// A Stop is still "done".
	res, _ = codexSteps(t, m, at, "UserPromptSubmit.json", "Stop.json")
	if res.Session.State != Attention {
		t.Errorf("after Stop: state %s, want attention", res.Session.State)
	}
}
