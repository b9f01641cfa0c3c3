package agents

import (
	"strings"
	"testing"
)

// TestCrushAsks: the calls Crush runs without asking are no request (its
// safe read-only commands, its searches, a file in the project); the
// others are.
func TestCrushAsks(t *testing.T) {
	tests := []struct {
		tool, input string
		want        bool
	}{
		{"bash", `{"command":"git status"}`, false},
		{"bash", `{"command":"git status --short"}`, false},
		{"bash", `{"command":"ls -la"}`, false},
		{"bash", `{"command":"echo hi > out.txt"}`, false},
		{"bash", `{"command":"LS"}`, false},
		{"bash", `{"command":"lsof"}`, true},
		{"bash", `{"command":"git status; rm -rf x"}`, true},
		{"bash", `{"command":"echo $(whoami)"}`, true},
		{"bash", `{"command":"go test ./..."}`, true},
		{"bash", `{}`, true},
		{"edit", `{"file_path":"/home/user/project/a.go"}`, true},
		{"write", `{}`, true},
		{"fetch", `{"url":"https://example.com"}`, true},
		{"mcp_github_create_issue", `{}`, true},
		{"view", `{"file_path":"/home/user/project/a.go"}`, false},
		{"view", `{"file_path":"a.go"}`, false},
		{"view", `{"file_path":"/etc/passwd"}`, true},
		{"ls", `{"path":"/home/user"}`, true},
		{"ls", `{"path":"/home/user/project/sub"}`, false},
		{"glob", `{"pattern":"*"}`, false},
		{"agent", `{"prompt":"x"}`, false},
	}
	for _, tt := range tests {
		if got := crushAsks(tt.tool, []byte(tt.input), "/home/user/project"); got != tt.want {
			t.Errorf("crushAsks(%s, %s) = %v, want %v", tt.tool, tt.input, got, tt.want)
		}
	}
}

// TestCrushRender: Crush's own answer format, as its hooks read it
// (internal/hooks parseStdout): allow, deny with the reason, and nothing
// for no decision.
func TestCrushRender(t *testing.T) {
	for _, tt := range []struct {
		d    *Decision
		want string
	}{
		{&Decision{Allow: true}, `{"decision":"allow"}`},
		{&Decision{}, `{"decision":"deny","reason":"Denied from clawd"}`},
		{&Decision{Message: `not "that" one`}, `{"decision":"deny","reason":"not \"that\" one"}`},
	} {
		if got := Crush.Render("PreToolUse", tt.d); strings.TrimSuffix(string(got), "\n") != tt.want || !strings.HasSuffix(string(got), "\n") {
			t.Errorf("Render(%+v) = %q, want %s", tt.d, got, tt.want)
		}
	}
	if got := Crush.Render("PreToolUse", nil); got != nil {
		t.Errorf("Render(nil) = %q, want nothing", got)
	}
}
