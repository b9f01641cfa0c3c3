package agents

import "testing"

// TestSessionTitleLine: Qoder's and WorkBuddy's renames and generated
// names are read from their transcripts as Claude Code's are, and nothing
// else there names a session.
func TestSessionTitleLine(t *testing.T) {
	const sid = "9a0de000-0000-4000-8000-00000000q0d1"
	tests := []struct {
		line         string
		title        string
		named, found bool
	}{
		{`{"type":"custom-title","sessionId":"` + sid + `","customTitle":"Parser flake"}`, "Parser flake", true, true},
		{`{"type":"ai-title","sessionId":"` + sid + `","aiTitle":"Fix flaky parser test"}`, "Fix flaky parser test", false, true},
		// A generated name of another session is not this one's.
		{`{"type":"ai-title","sessionId":"another-session","aiTitle":"Not this one"}`, "", false, false},
		// Claude Code's other records mean nothing in Qoder's file.
		{`{"type":"agent-name","agentName":"Shop refactor","sessionId":"` + sid + `"}`, "", false, false},
		{`{"type":"summary","summary":"Login bug hunt"}`, "", false, false},
		{`{"type":"user","message":{"role":"user","content":"{\"type\":\"custom-title\",\"customTitle\":\"x\"}"}}`, "", false, false},
		{`{"type":"custom-title","customTitle":"cut`, "", false, false},
	}
	for _, a := range []*Agent{Qoder, WorkBuddy} {
		for _, tt := range tests {
			title, named, found := a.TitleFile.Line([]byte(tt.line), sid)
			if title != tt.title || named != tt.named || found != tt.found {
				t.Errorf("%s: TitleFile.Line(%s) = %q, %v, %v; want %q, %v, %v", a.ID, tt.line, title, named, found, tt.title, tt.named, tt.found)
			}
		}
	}
}
