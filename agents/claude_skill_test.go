package agents

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestClaudeSkillShellCommand: a skill's shell command (2.1.332's
// PreSkillShellCommand) is registered, shows as a tool starting, is never
// answered, and is no tool call a permission request could be paired with
// by its input.
func TestClaudeSkillShellCommand(t *testing.T) {
	h, ok := Claude.Hook("PreSkillShellCommand")
	if !ok || h.Blocking {
		t.Fatalf("Hook(PreSkillShellCommand) = %+v, %v; want a registered, non-blocking hook", h, ok)
	}
	if out := Claude.NoDecision("PreSkillShellCommand"); len(out) != 0 {
		t.Errorf("NoDecision(PreSkillShellCommand) = %q, want nothing: allow adds nothing, and nothing else may be said", out)
	}
	e := decodeFixture(t, "PreSkillShellCommand.json")
	if e.Kind != KindToolStart || e.ToolName != "Bash" || e.InputHash != "" {
		t.Errorf("Decode(PreSkillShellCommand) = kind %v tool %q hash %q, want tool.start Bash without an input hash", e.Kind, e.ToolName, e.InputHash)
	}
	// The same command as a Bash call of the model's does get a hash.
	call := strings.Replace(string(readFixture(t, "PreSkillShellCommand.json")), `"PreSkillShellCommand"`, `"PreToolUse"`, 1)
	if c, err := Claude.Decode([]byte(call), "", noEnv, now); err != nil || c.InputHash == "" {
		t.Errorf("Decode(the command as PreToolUse) = hash %q, %v; want a hash", c.InputHash, err)
	}
}

// TestClaudeMCPSkillAsk: the ask before an MCP server's skill loads
// (PermissionRequest with tool_kind "mcp_skill") reads as that.
func TestClaudeMCPSkillAsk(t *testing.T) {
	payload, err := os.ReadFile(filepath.Join("..", "testdata", "claude", "built", "PermissionRequest.mcp_skill.json"))
	if err != nil {
		t.Fatal(err)
	}
	ev, err := Claude.Decode(payload, "", noEnv, now)
	if err != nil || ev.Kind != KindPermissionRequest || ev.ToolName != "Skill" {
		t.Fatalf("Decode(mcp_skill ask) = %v %q, %v; want a permission.request of Skill", ev.Kind, ev.ToolName, err)
	}
	r := Claude.Describe(ev, payload, false)
	if r.Kind != RequestPermission || r.Summary != "load MCP skill release-notes from docs" {
		t.Errorf("Describe(mcp_skill ask) = kind %q summary %q, want permission, %q", r.Kind, r.Summary, "load MCP skill release-notes from docs")
	}
	if len(r.Suggestions) != 1 || !strings.HasPrefix(r.SuggestionLabels[0], "Always allow Skill(docs:release-notes@sha256:") {
		t.Errorf("Describe(mcp_skill ask) suggestions = %q, want the one rule for this version", r.SuggestionLabels)
	}

	perm := Event{Agent: claudeID, Kind: KindPermissionRequest, ToolName: "Skill"}
	for _, c := range []struct{ payload, want string }{
		{`{"tool_kind":"mcp_skill","mcp_server":{"name":"docs"},"mcp_skill":{"name":"docs:notes"}}`, "load MCP skill notes from docs"},
		{`{"tool_kind":"mcp_skill","mcp_skill":{"name":"docs:notes"}}`, "load MCP skill notes from docs"},
		// A name of another form, or of another server, is shown whole.
		{`{"tool_kind":"mcp_skill","mcp_server":{"name":"docs"},"mcp_skill":{"name":"notes"}}`, "load MCP skill notes from docs"},
		{`{"tool_kind":"mcp_skill","mcp_server":{"name":"docs"},"mcp_skill":{"name":"other:notes"}}`, "load MCP skill other:notes from docs"},
		{`{"tool_kind":"mcp_skill","mcp_server":{"name":"docs"}}`, "load a skill from MCP server docs"},
		{`{"tool_kind":"mcp_skill"}`, "load a skill from an MCP server"},
		// Without tool_kind, mcp_skill alone says it (Claude Code sets the
		// kind for it when it is malformed).
		{`{"mcp_server":{"name":"docs"},"mcp_skill":{"name":"docs:notes"}}`, "load MCP skill notes from docs"},
		// Any other ask of the Skill tool keeps its own summary: the
		// skill's name, the first string of its input.
		{`{"tool_input":{"skill":"pdf"}}`, ""},
		{`{"tool_kind":"browser","tool_input":{"skill":"pdf"}}`, ""},
	} {
		if got := Claude.Describe(perm, []byte(c.payload), false).Summary; got != c.want {
			t.Errorf("Describe(Skill, %s).Summary = %q, want %q", c.payload, got, c.want)
		}
	}
}
