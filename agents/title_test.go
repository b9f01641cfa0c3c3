package agents

import (
	"runtime"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestPromptTitle(t *testing.T) {
	forty := strings.Repeat("abcd ", 7) + "abcde"
	tests := []struct {
		prompt, want string
	}{
		{"fix the parser", "fix the parser"},
		{"fix the parser\nand then the tests", "fix the parser"},
		{"\n  \n\t\n  refactor   the\tlexer  \nmore", "refactor the lexer"},
		{"first\r\nsecond", "first"},
		{"ring\x07 the bell", "ring the bell"},
		{"a \x1b b", "a b"},
		{"\u202eevil\u2066 title\u200b", "evil title"},
		{"csi\u009b2J", "csi2J"},
		{"", ""},
		{" \n\t\n ", ""},
		{forty, forty},
		{forty + "f", "abcd abcd abcd abcd abcd abcd abcd abcd…"},
		// A cut at a space does not leave it before the ellipsis.
		{strings.Repeat("x", 38) + " yyyy", strings.Repeat("x", 38) + "…"},
		{strings.Repeat("é", 50), strings.Repeat("é", 39) + "…"},
		// Text Claude injects as a prompt (a background task finished).
		{"<task-notification>\n<task-id>afc7f71e8f325b97f</task-id>", ""},
		{"/greet world", "/greet world"},
		// Secrets are refused, not cut out.
		{"use api_key=abc123 for the staging client", ""},
		{"set API-KEY in the env", ""},
		{"curl -H 'Authorization: Bearer abc' localhost", ""},
		{"my password is hunter2", ""},
		{"the passwd file", ""},
		{"call it with sk-ant-api03-abcdefgh", ""},
		{"push with ghp_abcdefghijklmnop1234", ""},
		{"github_pat_11ABCDEFG0123456789", ""},
		{"aws AKIAIOSFODNN7EXAMPLE in prod", ""},
		{"decode eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2ln please", ""},
		{"-----BEGIN RSA PRIVATE KEY-----\nMIIE...", ""},
		{"slack xoxb-1234567890-abc", ""},
		{"rotate the client secret", ""},
		// By design (the original app's list): "token" as a plain word is
		// refused too, so these prompts get no title. A missing title is
		// harmless; a leaked credential is not.
		{"fix the token bucket in rate.go", ""},
		{"fix the tokenizer", ""},
		{"where are credentials loaded", ""},
		// Ordinary prompts near the list stay.
		{"refactor the auth middleware", "refactor the auth middleware"},
		{"skip the flaky test", "skip the flaky test"},
		{"sk-1 is too short to be a key", "sk-1 is too short to be a key"},
	}
	for _, tt := range tests {
		got := PromptTitle(tt.prompt)
		if got != tt.want {
			t.Errorf("PromptTitle(%q) = %q, want %q", tt.prompt, got, tt.want)
		}
		if n := utf8.RuneCountInString(got); n > MaxTitleLen {
			t.Errorf("PromptTitle(%q) has %d characters, more than %d", tt.prompt, n, MaxTitleLen)
		}
	}
}

func TestAgentTitle(t *testing.T) {
	tests := []struct {
		title, want string
	}{
		{"Parser rewrite", "Parser rewrite"},
		{"  Parser\n\trewrite  ", "Parser rewrite"},
		{strings.Repeat("word ", 10), "word word word word word word word word…"},
		// An agent's title is its own choice: no secret filter, it only
		// gets cleaned.
		{"token refresh", "token refresh"},
		// Titles end up in terminals: an escape sequence must not pass.
		{"Fix \x1b]0;pwned\x07 parser", "Fix ]0;pwned parser"},
		{"\x1b[2J", "[2J"},
		{"\x00\x07", ""},
		{"tab\tand\nnewline", "tab and newline"},
	}
	for _, tt := range tests {
		if got := AgentTitle(tt.title); got != tt.want {
			t.Errorf("AgentTitle(%q) = %q, want %q", tt.title, got, tt.want)
		}
	}
}

// TestPromptTitleBoundedWork: a title costs the same for a one-line
// prompt of 4 MiB (the hook's stdin cap) as for a short one: it looks at
// the first KiB of the line only.
func TestPromptTitleBoundedWork(t *testing.T) {
	prompt := strings.Repeat("refactor the lexer ", (4<<20)/19) + "\nsecond line"
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	got := PromptTitle(prompt)
	runtime.ReadMemStats(&after)
	if want := "refactor the lexer refactor the lexer r…"; got != want {
		t.Errorf("PromptTitle(4 MiB line) = %q, want %q", got, want)
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 64<<10 {
		t.Errorf("PromptTitle(4 MiB line) allocated %d bytes, want at most 64 KiB: it must not clean the whole line", n)
	}
	// A secret past the first KiB cannot reach the title, and no longer
	// costs it.
	if got := PromptTitle(strings.Repeat("x ", 1024) + "token=abc"); got == "" {
		t.Error("PromptTitle refused a title for a secret-looking word 2 KiB into the line")
	}
	if got := PromptTitle("see " + strings.Repeat("x ", 100) + "token=abc"); got != "" {
		t.Errorf("PromptTitle = %q for a secret-looking word in the first KiB, want \"\"", got)
	}
}
