package agents

import (
	"cmp"
	"errors"
	"runtime"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestPromptTitle(t *testing.T) {
	// full is MaxTitleLen (120) characters: words of four and a last of five.
	full := strings.Repeat("abcd ", 23) + "abcde"
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
		{full, full},
		{full + "f", strings.Repeat("abcd ", 23) + "abcd…"},
		// A cut at a space does not leave it before the ellipsis.
		{strings.Repeat("x", 118) + " yyyy", strings.Repeat("x", 118) + "…"},
		{strings.Repeat("é", 150), strings.Repeat("é", 119) + "…"},
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
		{strings.Repeat("word ", 30), strings.TrimSpace(strings.Repeat("word ", 24)) + "…"},
		// The secret filter holds for the agent's titles too: a generated
		// title repeats the prompt's words, and a rename is typed text.
		{"token refresh", ""},
		{"deploy with sk-ant-api03-abcdefgh", ""},
		{strings.Repeat("x ", 1024) + "token", strings.Repeat("x ", 59) + "x…"},
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
	if want := strings.Repeat("refactor the lexer ", 6) + "refac…"; got != want {
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

func TestPersonTitle(t *testing.T) {
	tests := []struct {
		title, want string
		err         error
	}{
		{"Shop refactor", "Shop refactor", nil},
		{"  Shop\n refactor \x1b[2J ", "Shop refactor [2J", nil},
		{strings.Repeat("word ", 30), strings.TrimSpace(strings.Repeat("word ", 24)) + "…", nil},
		// Empty takes the person's title away.
		{"", "", nil},
		{" \t\u200b", "", nil},
		{"rotate the api_key", "", ErrSecretTitle},
		{"ghp_abcdefghijklmnop1234", "", ErrSecretTitle},
	}
	for _, tt := range tests {
		got, err := PersonTitle(tt.title)
		if got != tt.want || !errors.Is(err, tt.err) || (err == nil) != (tt.err == nil) {
			t.Errorf("PersonTitle(%q) = %q, %v; want %q, %v", tt.title, got, err, tt.want, tt.err)
		}
	}
}

// TestTitlePrecedence plays what a session hears, in order, and checks the
// title it shows after each step: the person's over the agent's over the
// first prompt's.
func TestTitlePrecedence(t *testing.T) {
	type step struct {
		src   TitleSource
		title string
		// want is the title shown after the step, from wantSrc;
		// changed says whether the step changed anything.
		want    string
		wantSrc TitleSource
		changed bool
	}
	tests := []struct {
		name  string
		steps []step
	}{
		{"first prompt names a session", []step{
			{TitleFromPrompt, "fix the parser", "fix the parser", TitleFromPrompt, true},
			{TitleFromPrompt, "and now the tests", "fix the parser", TitleFromPrompt, false},
		}},
		{"agent over prompt, in either order", []step{
			{TitleFromAgent, "Parser rewrite", "Parser rewrite", TitleFromAgent, true},
			{TitleFromPrompt, "fix the parser", "Parser rewrite", TitleFromAgent, true},
			{TitleFromAgent, "Renamed in the agent", "Renamed in the agent", TitleFromAgent, true},
			{TitleFromAgent, "", "Renamed in the agent", TitleFromAgent, false},
		}},
		{"person over agent and prompt", []step{
			{TitleFromPrompt, "fix the parser", "fix the parser", TitleFromPrompt, true},
			{TitleFromAgent, "Parser rewrite", "Parser rewrite", TitleFromAgent, true},
			{TitleFromPerson, "Shop", "Shop", TitleFromPerson, true},
			{TitleFromAgent, "Renamed in the agent", "Shop", TitleFromPerson, true},
			{TitleFromPerson, "Shop", "Shop", TitleFromPerson, false},
			// Taking the person's title away shows the agent's latest.
			{TitleFromPerson, "", "Renamed in the agent", TitleFromAgent, true},
		}},
		{"person before anything else", []step{
			{TitleFromPerson, "Shop", "Shop", TitleFromPerson, true},
			{TitleFromPrompt, "fix the parser", "Shop", TitleFromPerson, true},
			{TitleFromPerson, "", "fix the parser", TitleFromPrompt, true},
		}},
		{"unknown source is ignored", []step{
			{TitleSource("hook"), "sneaky", "", "", false},
		}},
	}
	for _, tt := range tests {
		var ts Titles
		for i, st := range tt.steps {
			changed := ts.Set(st.title, st.src)
			got, src := ts.Best()
			if got != st.want || src != st.wantSrc || changed != st.changed {
				t.Errorf("%s, step %d: Set(%q, %s) = %v, Best() = %q, %s; want %v, %q, %s",
					tt.name, i, st.title, st.src, changed, got, src, st.changed, st.want, st.wantSrc)
			}
		}
	}
}

// TestResume: each agent's own command that resumes a session by its id,
// as its CLI's --help (and, for Copilot, its closing summary) says it.
func TestResume(t *testing.T) {
	want := map[string]string{
		"claude":   "claude --resume ID",
		"codex":    "codex resume ID",
		"gemini":   "gemini --resume ID",
		"qwen":     "qwen --resume ID",
		"copilot":  "copilot --resume=ID",
		"opencode": "opencode --session ID",
		"droid":    "droid --resume ID",
	}
	// The agents that came with the rest of the seed's (their files say
	// how each was verified): clawd knows no resume by id of theirs.
	for _, id := range []string{"pi", "omp", "openclaw", "qoder", "cursor", "codebuddy", "kiro", "kimi", "antigravity", "grok", "workbuddy",
		"qwenwork", "traecode", "minimax", "zcode", "codewhale", "reasonix"} {
		want[id] = "none"
	}
	// Past the seed: no resume by id that was seen to work.
	want["kilo"] = "kilo --session ID"
	for _, id := range []string{"cline", "auggie", "crush"} {
		want[id] = "none"
	}
	for _, a := range All() {
		got := "none"
		if a.Resume != nil {
			got = strings.Join(append([]string{a.Command}, a.Resume("ID")...), " ")
		}
		if w, ok := want[a.ID]; !ok || got != w {
			t.Errorf("%s resumes with %q, want %q", a.ID, got, cmp.Or(w, "(an entry in this test)"))
		}
	}
}
