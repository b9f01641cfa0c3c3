package cmd

import (
	"context"
	"testing"
	"time"

	"github.com/clawdhq/clawd/agents"
)

// TestHookForeignCaller: Grok Build scans Claude Code's settings and runs
// the hooks there, clawd's included, with GROK_HOOK_EVENT set. Such a run
// of `clawd hook claude` answers Grok's `{}` at once and records nothing,
// a PermissionRequest included; the same call without the variable makes
// a session, so the silence is the guard's.
func TestHookForeignCaller(t *testing.T) {
	grok := agents.Lookup("grok")
	if grok == nil || grok.HookEnv == "" {
		t.Fatal("Grok Build is not in the registry with its hook variable")
	}
	home := t.TempDir()
	s := startRuntime(t, home)
	call := func(event string, stdin []byte, vars map[string]string) string {
		t.Helper()
		e, out, errb := testEnv(t, home, stdin, vars)
		done := make(chan int, 1)
		go func() { done <- run(context.Background(), e, []string{"clawd", "hook", "claude", event}) }()
		select {
		case code := <-done:
			if code != 0 || errb.Len() > 0 {
				t.Errorf("hook claude %s: exit %d, stderr %q", event, code, errb)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("hook claude %s did not return: the guard must answer at once", event)
		}
		return out.String()
	}
	byGrok := map[string]string{grok.HookEnv: "session_start"}
	for _, c := range []struct{ event, fixture string }{
		{"SessionStart", "SessionStart.json"},
		{"UserPromptSubmit", "UserPromptSubmit.json"},
		{"PermissionRequest", "PermissionRequest.json"},
	} {
		if out := call(c.event, fixture(t, c.fixture), byGrok); out != "{}\n" {
			t.Errorf("hook claude %s run by Grok printed %q, want {}", c.event, out)
		}
	}
	if snap := s.Snapshot(); len(snap.Sessions) != 0 {
		t.Errorf("sessions after Grok's runs: %+v, want none", snap.Sessions)
	}
	if l := hookLog(t, home); l != "" {
		t.Errorf("hook.log = %q, want nothing", l)
	}
	call("SessionStart", fixture(t, "SessionStart.json"), map[string]string{grok.HookEnv: ""})
	if snap := s.Snapshot(); len(snap.Sessions) != 1 {
		t.Errorf("sessions after Claude Code's own SessionStart: %+v, want one", snap.Sessions)
	}
}
