package agents

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// readBuilt reads a payload of testdata/claude/built (put together from
// documented fields: see its README).
func readBuilt(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(hooksDir, "..", "built", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestClaudeDescribeCards reads what a person is shown of Claude Code's
// captured requests (2.1.328: Bash with its description, Edit, Write,
// WebFetch, an MCP tool) and of a MultiEdit built from its documented
// fields (2.1.328 has no such tool).
func TestClaudeDescribeCards(t *testing.T) {
	const main = "/home/user/project/main.go"
	tests := []struct {
		file  string
		built bool
		want  Request // the fields compared
	}{
		{file: "PermissionRequest.json", want: Request{Summary: "echo hello > out.txt", Description: "Write hello to out.txt"}},
		{file: "PermissionRequest.Edit.json", want: Request{Summary: main, Change: &FileChange{Path: main,
			Edits: []TextEdit{{Old: "\tprintln(\"hello\")\n", New: "\tprintln(\"hello, world\")\n\tprintln(\"bye\")\n"}}}}},
		{file: "PermissionRequest.Write.json", want: Request{Summary: "/home/user/project/notes.md", Change: &FileChange{
			Path: "/home/user/project/notes.md", Whole: true, Edits: []TextEdit{{New: "# Notes\n\nfirst line\nsecond line\n"}}}}},
		{file: "PermissionRequest.WebFetch.json", want: Request{Summary: "https://example.com/docs",
			URL: "https://example.com/docs", Prompt: "Summarize the install steps"}},
		{file: "PermissionRequest.mcp.json", want: Request{MCPServer: "mini", MCPTool: "ask_user"}},
		{file: "PermissionRequest.MultiEdit.json", built: true, want: Request{Summary: main, Change: &FileChange{Path: main,
			Edits: []TextEdit{{Old: "\tprintln(\"hello\")\n", New: "\tprintln(\"hello, world\")\n"},
				{Old: "package main\n", New: "// Command main greets.\npackage main\n"}}}}},
	}
	for _, tt := range tests {
		var payload []byte
		if tt.built {
			payload = readBuilt(t, tt.file)
		} else {
			payload = readFixture(t, tt.file)
		}
		e, err := Claude.Decode(payload, "", noEnv, now)
		if err != nil {
			t.Fatal(err)
		}
		r := Claude.Describe(e, payload, false)
		got := Request{Summary: r.Summary, Description: r.Description, URL: r.URL, Prompt: r.Prompt,
			MCPServer: r.MCPServer, MCPTool: r.MCPTool, Change: r.Change}
		if tt.file == "PermissionRequest.mcp.json" {
			got.Summary = ""
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Describe(%s) =\n%s\nwant\n%s", tt.file, asJSON(got), asJSON(tt.want))
		}
	}
}

func asJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestClaudeMCPTool(t *testing.T) {
	tests := []struct{ tool, server, wantServer, wantTool string }{
		{"mcp__mini__ask_user", "mini", "mini", "ask_user"},
		{"mcp__my__srv__do_it", "my__srv", "my__srv", "do_it"},
		{"mcp__github__create_issue", "", "github", "create_issue"},
		{"mcp__github__create_issue", "other", "github", "create_issue"},
		{"Bash", "", "", ""},
		{"mcp__broken", "", "", ""},
		{"mcp____x", "", "", ""},
	}
	for _, tt := range tests {
		if s, n := claudeMCPTool(tt.tool, tt.server); s != tt.wantServer || n != tt.wantTool {
			t.Errorf("claudeMCPTool(%q, %q) = %q, %q; want %q, %q", tt.tool, tt.server, s, n, tt.wantServer, tt.wantTool)
		}
	}
}

// hostileEdit is the captured Edit, its fields in Claude's order, whose
// new_string is 20 MB of lines that carry an ESC and a bidi override.
func hostileEdit(t *testing.T) []byte {
	t.Helper()
	line, err := json.Marshal(strings.Repeat("\x1b[2J\u202eevil line\n", 20<<20/16))
	if err != nil {
		t.Fatal(err)
	}
	const captured = `"new_string": "\tprintln(\"hello, world\")\n\tprintln(\"bye\")\n"`
	payload := readFixture(t, "PermissionRequest.Edit.json")
	if !strings.Contains(string(payload), captured) {
		t.Fatalf("the captured Edit has no %s", captured)
	}
	return []byte(strings.Replace(string(payload), captured, `"new_string": `+string(line), 1))
}

// TestFileChangeBounded: a 20 MB new_string is carried as its start, cut
// at a line's end, within MaxEditText, marked Cut; the escapes stay for
// the runtime's policy to drop. The whole request, JSON-escaped, stays far
// within the runtime's 1 MiB cap. Cut at the hook's stdin cap, the
// payload's texts are not there at all: the change is its file, marked
// Cut.
func TestFileChangeBounded(t *testing.T) {
	payload := hostileEdit(t)
	e, err := Claude.Decode(payload, "", noEnv, now)
	if err != nil {
		t.Fatal(err)
	}
	r := Claude.Describe(e, payload, false)
	c := r.Change
	if c == nil || len(c.Edits) != 1 || !c.Cut {
		t.Fatalf("Describe(20 MB Edit).Change = %+v, want one edit, cut", c)
	}
	n := len(c.Edits[0].Old) + len(c.Edits[0].New)
	if n > MaxEditText || n < MaxEditText-64 || !strings.HasSuffix(c.Edits[0].New, "evil line\n") || !utf8.ValidString(c.Edits[0].New) {
		t.Errorf("the cut edit holds %d bytes ending %q; want at most %d, nearly all of it, cut after a line", n, c.Edits[0].New[len(c.Edits[0].New)-12:], MaxEditText)
	}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) > 512<<10 {
		t.Errorf("the request of a 20 MB Edit is %d KiB as JSON, want well under the runtime's 1 MiB", len(b)>>10)
	}

	prefix := payload[:4<<20]
	e, err = Claude.DecodeTruncated(prefix, "", noEnv, now)
	if err != nil {
		t.Fatal(err)
	}
	r = Claude.Describe(e, prefix, true)
	if c := r.Change; c == nil || c.Path != "/home/user/project/main.go" || !c.Cut || len(c.Edits) != 0 {
		t.Errorf("Describe(cut Edit).Change = %+v, want its file, cut, no text", c)
	}
}

// The budget is shared by a MultiEdit's edits: those that no longer fit
// are left out, and the change says it was cut.
func TestFileChangeBudgetShared(t *testing.T) {
	big := strings.Repeat("x\n", MaxEditText/4)
	in := map[string]any{"file_path": "/p/a", "edits": []any{
		map[string]any{"old_string": big, "new_string": big},
		map[string]any{"old_string": "a", "new_string": "b"},
	}}
	payload, _ := json.Marshal(map[string]any{"session_id": "s", "hook_event_name": "PermissionRequest", "tool_name": "MultiEdit", "tool_input": in})
	e, err := Claude.Decode(payload, "", noEnv, now)
	if err != nil {
		t.Fatal(err)
	}
	c := Claude.Describe(e, payload, false).Change
	if c == nil || len(c.Edits) != 1 || !c.Cut || c.Edits[0].Old != big || c.Edits[0].New != big {
		t.Errorf("Describe(MultiEdit over the budget).Change = %d edits, cut %v; want the first whole, the second left out, cut", len(c.Edits), c.Cut)
	}
}

// TestOtherAgentsCards: the same reading for the agents that have these
// tools: Codex's Bash description and apply_patch (captured, Codex
// 0.169.0), Qwen Code's (run_shell_command captured; edit, write_file and
// web_fetch built from its 0.24.4 tool schemas), opencode's edit and
// webfetch (built from the metadata its bundled tools ask with).
func TestOtherAgentsCards(t *testing.T) {
	codex := func(file string) Request {
		t.Helper()
		payload, err := os.ReadFile(filepath.Join("..", "testdata", "codex", "hooks", file))
		if err != nil {
			t.Fatal(err)
		}
		e, err := Codex.Decode(payload, "", noEnv, now)
		if err != nil {
			t.Fatal(err)
		}
		return Codex.Describe(e, payload, false)
	}
	if r := codex("PermissionRequest.json"); r.Description != "Need to write out.txt in the workspace" || r.Change != nil {
		t.Errorf("Codex Bash: description %q, change %+v", r.Description, r.Change)
	}
	patch := "*** Begin Patch\n*** Add File: /opt/shared/outside.txt\n+hello from patch\n*** End Patch"
	if r := codex("PermissionRequest.apply_patch.json"); r.Summary != "/opt/shared/outside.txt" ||
		!reflect.DeepEqual(r.Change, &FileChange{Path: "/opt/shared/outside.txt", Patch: patch}) {
		t.Errorf("Codex apply_patch: summary %q, change %+v", r.Summary, r.Change)
	}

	runs := qwenRuns(t)
	qr := call(t, runs, "interactive-permissionrequest-allow", 3)
	qe, err := Qwen.Decode(qr.Stdin, qr.Event, noEnv, now)
	if err != nil {
		t.Fatal(err)
	}
	if r := Qwen.Describe(qe, qr.Stdin, false); r.Description != "create a file" {
		t.Errorf("Qwen run_shell_command: description %q, want the captured one", r.Description)
	}
	qwen := func(tool, input string) Request {
		payload := []byte(`{"session_id":"s","hook_event_name":"PermissionRequest","tool_name":"` + tool + `","tool_input":` + input + `}`)
		e, err := Qwen.Decode(payload, "", noEnv, now)
		if err != nil {
			t.Fatal(err)
		}
		return Qwen.Describe(e, payload, false)
	}
	if r := qwen("edit", `{"file_path":"/p/b.go","old_string":"a\n","new_string":"b\n","replace_all":true}`); !reflect.DeepEqual(r.Change,
		&FileChange{Path: "/p/b.go", Edits: []TextEdit{{Old: "a\n", New: "b\n", All: true}}}) {
		t.Errorf("Qwen edit: change %+v", r.Change)
	}
	if r := qwen("write_file", `{"file_path":"/p/a.txt","content":"x\n"}`); !reflect.DeepEqual(r.Change,
		&FileChange{Path: "/p/a.txt", Whole: true, Edits: []TextEdit{{New: "x\n"}}}) {
		t.Errorf("Qwen write_file: change %+v", r.Change)
	}
	if r := qwen("web_fetch", `{"url":"https://example.com","prompt":"read it"}`); r.URL != "https://example.com" || r.Prompt != "read it" {
		t.Errorf("Qwen web_fetch: url %q, prompt %q", r.URL, r.Prompt)
	}

	opencode := func(permission, meta string) Request {
		payload := []byte(`{"type":"permission.asked","properties":{"id":"per_1","sessionID":"ses_1","permission":"` + permission +
			`","patterns":["x"],"metadata":` + meta + `,"always":["*"]}}`)
		e, err := Opencode.Decode(payload, "permission.asked", noEnv, now)
		if err != nil {
			t.Fatal(err)
		}
		return Opencode.Describe(e, payload, false)
	}
	diff := "Index: /p/a.go\n===================================================================\n--- /p/a.go\n+++ /p/a.go\n@@ -1,1 +1,1 @@\n-a\n+b\n"
	meta, _ := json.Marshal(map[string]string{"filepath": "/p/a.go", "diff": diff})
	if r := opencode("edit", string(meta)); !reflect.DeepEqual(r.Change, &FileChange{Path: "/p/a.go", Patch: diff}) {
		t.Errorf("opencode edit: change %+v", r.Change)
	}
	if r := opencode("webfetch", `{"url":"https://example.com/a","format":"markdown"}`); r.URL != "https://example.com/a" {
		t.Errorf("opencode webfetch: url %q", r.URL)
	}
}
