//go:build linux

package e2e

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/clawdhq/clawd/runtime/client"
)

// atOnce is what "at once" means for a hook the runtime answers without
// holding: far below the minutes a held request waits, with room for a
// -race binary on a loaded machine.
const atOnce = 5 * time.Second

// subagentPayload is Claude Code's PermissionRequest from inside a
// subagent (testdata/claude/built: no capture has one) in session id.
func subagentPayload(t *testing.T, id, cwd string) string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(readTestdata(t, "claude", "built", "PermissionRequest.subagent.json"), &m); err != nil {
		t.Fatal(err)
	}
	m["session_id"], m["cwd"] = id, cwd
	b, _ := json.Marshal(m)
	return string(b)
}

// TestSubagentPermissionsToTerminal: with subagent_permissions = false
// the real hook, given a subagent's PermissionRequest, prints Claude
// Code's no-decision at once and the runtime logs why at debug; the
// session's own request in the same session is still held and answered
// from clawd.
func TestSubagentPermissionsToTerminal(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	w := newWorld(t)
	w.writeConfig("[agents.claude]\nsubagent_permissions = false\n")
	serve := w.startServeWith(clawdBin, "serve", "--headless", "--port", "0", "--log-level", "debug")
	id := newUUID(t)
	noDecision := string(readTestdata(t, "claude", "outputs", "PermissionRequest.no-decision.json"))

	r := w.clawd(ctx, subagentPayload(t, id, w.project), "hook", "claude", "PermissionRequest")
	t.Logf("the subagent's request answered in %v", r.dur.Round(time.Millisecond))
	if r.code != 0 || !jsonEqual(r.stdout, noDecision) || r.dur > atOnce {
		t.Fatalf("hook for a subagent's request: %s\nwant Claude Code's no decision (%s) within %v", r, noDecision, atOnce)
	}
	if list := w.pendingPermissions(ctx); len(list) != 0 {
		t.Errorf("pending after the subagent's request = %s, want none", dumpPermissions(list))
	}
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(serve.stderr.String(), "reason=subagent") && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if log := serve.stderr.String(); !strings.Contains(log, `level=DEBUG msg="permission not shown" agent=claude session=`+id+` subagent=afc7f71e8f325b97f tool=Bash reason=subagent`) {
		t.Errorf("serve's log lacks the subagent's request at debug:\n%s", log)
	}

	own := w.blockingHook(ctx, withSessionJSON(t, readTestdata(t, "claude", "hooks", "PermissionRequest.json"), id))
	list := w.waitPermissions(ctx, 15*time.Second, "the session's own request", func(l []client.PermissionView) bool { return len(l) == 1 })
	if p := list[0]; p.SessionID != id || p.SubagentID != "" {
		t.Errorf("pending = %+v, want the session's own request, unmarked", p)
	}
	w.mustPerm(ctx, "allow", list[0].ID)
	if r := own.wait(t); gjson.Get(r.stdout, "hookSpecificOutput.decision.behavior").String() != "allow" {
		t.Errorf("the session's own request printed %q, want Claude's allow", r.stdout)
	}
	serve.shutdown()
}

// TestDisabledAgent: with enabled = false the real hooks of Claude Code
// still exit 0, its PermissionRequest gets Claude's no decision at once,
// and nothing of it shows: no session in clawd status, no request; clawd
// agents and clawd doctor say it is disabled.
func TestDisabledAgent(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	w := newWorld(t)
	w.writeConfig("[agents.claude-code]\nenabled = false\n")
	serve := w.startServe()
	id := newUUID(t)
	noDecision := string(readTestdata(t, "claude", "outputs", "PermissionRequest.no-decision.json"))

	for _, name := range []string{"SessionStart.json", "UserPromptSubmit.json"} {
		if r := w.clawd(ctx, withSessionJSON(t, readTestdata(t, "claude", "hooks", name), id), "hook", "claude"); r.code != 0 {
			t.Fatalf("clawd hook claude (%s): %s", name, r)
		}
	}
	r := w.clawd(ctx, withSessionJSON(t, readTestdata(t, "claude", "hooks", "PermissionRequest.json"), id), "hook", "claude", "PermissionRequest")
	t.Logf("the disabled agent's request answered in %v", r.dur.Round(time.Millisecond))
	if r.code != 0 || !jsonEqual(r.stdout, noDecision) || r.dur > atOnce {
		t.Fatalf("hook for a disabled agent's request: %s\nwant Claude Code's no decision (%s) within %v", r, noDecision, atOnce)
	}
	if st, ok := w.status(ctx); ok && len(st.Sessions) != 0 {
		t.Errorf("clawd status sessions = %+v, want none: the agent is disabled", st.Sessions)
	}
	if list := w.pendingPermissions(ctx); len(list) != 0 {
		t.Errorf("pending = %s, want none", dumpPermissions(list))
	}

	var list []client.AgentInfo
	if r := w.mustClawd(ctx, "agents", "--all", "--json"); json.Unmarshal([]byte(r.stdout), &list) != nil {
		t.Fatalf("clawd agents --json printed %q", r.stdout)
	}
	for _, a := range list {
		if a.Disabled != (a.ID == "claude") {
			t.Errorf("clawd agents: %s disabled = %v, want only claude disabled", a.ID, a.Disabled)
		}
	}
	d := w.clawd(ctx, "", "doctor", "--json", "--agent", "claude")
	if c := gjson.Get(d.stdout, `checks.#(id=="claude.enabled")`); c.Get("status").String() != "warn" ||
		!strings.Contains(c.Get("finding").String(), "disabled in config.toml") {
		t.Errorf("clawd doctor: claude.enabled = %s, want a warning that it is disabled in config.toml\n%s", c.Raw, d)
	}
	serve.shutdown()
}

// withSessionJSON is withSession as a string.
func withSessionJSON(t *testing.T, payload []byte, id string) string {
	t.Helper()
	return string(withSession(t, payload, id))
}
