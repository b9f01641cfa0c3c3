package agents

import (
	"testing"
	"time"
)

// TestKiroSessionIsItsFolder: Kiro's payloads carry no session id, so a
// Kiro session is the folder it runs in: two prompts in one folder are one
// session, a prompt in another folder another, and a payload without a
// folder the one session "default".
func TestKiroSessionIsItsFolder(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	id := func(payload string) string {
		t.Helper()
		e, err := Kiro.Decode([]byte(payload), "userPromptSubmit", func(string) string { return "" }, now)
		if err != nil {
			t.Fatalf("Decode(%s): %v", payload, err)
		}
		return e.SessionID
	}
	a := id(`{"hook_event_name":"userPromptSubmit","cwd":"/home/user/a","prompt":"one"}`)
	if again := id(`{"hook_event_name":"userPromptSubmit","cwd":"/home/user/a","prompt":"two"}`); again != a {
		t.Errorf("two prompts in /home/user/a are sessions %q and %q, want one", a, again)
	}
	if b := id(`{"hook_event_name":"userPromptSubmit","cwd":"/home/user/b","prompt":"one"}`); b == a {
		t.Errorf("prompts in /home/user/a and /home/user/b are both session %q, want two", a)
	}
	if d := id(`{"hook_event_name":"userPromptSubmit","prompt":"one"}`); d != "default" {
		t.Errorf("a payload without cwd is session %q, want \"default\"", d)
	}
}
