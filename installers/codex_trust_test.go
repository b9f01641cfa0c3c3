package installers

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

const (
	fixtureHome   = "/home/user/.codex"
	fixtureHooks  = fixtureHome + "/hooks.json"
	fixtureConfig = fixtureHome + "/config.toml"
)

func readFixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "codex", "fixture", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// trustTables decodes the [hooks.state] tables of a config.toml into
// key → trusted_hash.
func trustTables(t *testing.T, config []byte) map[string]string {
	t.Helper()
	m, err := decodeTOML(config)
	if err != nil {
		t.Fatalf("decodeTOML: %v\n%s", err, config)
	}
	state, err := trustState(m)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for k := range state {
		out[k] = stateHash(state, k)
	}
	return out
}

// TestCodexTrustHashFixture checks the hash against the trust entries the
// real Codex 0.169.0 accepted for the fixture hooks.json, and the tables
// editTrust writes for them against the fixture file byte for byte.
func TestCodexTrustHashFixture(t *testing.T) {
	hooks := readFixture(t, "hooks.json")
	want := readFixture(t, "config.hooks-state.toml")
	handlers, err := jsonCodexHandlers(hooks, Known{})
	if err != nil {
		t.Fatal(err)
	}
	if len(handlers) != 12 {
		t.Fatalf("jsonCodexHandlers(fixture) found %d handlers, want 12", len(handlers))
	}
	wantHashes := trustTables(t, want)
	for _, h := range handlers {
		key := CodexHookKey(fixtureHooks, h.Event, h.group, h.handler)
		if got := CodexTrustHash(h.CodexHook); got != wantHashes[key] {
			t.Errorf("CodexTrustHash(%s) = %s, want %s (key %s)", h.Event, got, wantHashes[key], key)
		}
		if !h.ours || !h.hashable {
			t.Errorf("%s handler %q: ours %v, hashable %v; want both", h.Event, h.Command, h.ours, h.hashable)
		}
	}
	// The fixture's comment header alone, then the tables clawd adds.
	header := want[:bytes.Index(want, []byte("\n\n"))+1]
	got, ch, err := editTrust(header, []trustSource{{path: fixtureHooks, after: handlers}})
	if err != nil {
		t.Fatal(err)
	}
	if ch != (TrustChanges{Added: 12}) {
		t.Errorf("editTrust changes = %+v, want 12 added", ch)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("editTrust(fixture hooks) differs from config.hooks-state.toml:\n%s", unifiedDiff("want", "got", want, got))
	}
}

// TestCodexTrustHashInlineFixture checks the hashes of the fixture's
// inline hooks against the trust entries in the same file, keyed by the
// config.toml path.
func TestCodexTrustHashInlineFixture(t *testing.T) {
	config := readFixture(t, "config.inline-hooks.toml")
	m, err := decodeTOML(config)
	if err != nil {
		t.Fatal(err)
	}
	handlers, err := inlineCodexHandlers(m, Known{})
	if err != nil {
		t.Fatal(err)
	}
	if len(handlers) != 12 {
		t.Fatalf("inlineCodexHandlers(fixture) found %d handlers, want 12", len(handlers))
	}
	want := trustTables(t, config)
	for _, h := range handlers {
		key := CodexHookKey(fixtureConfig, h.Event, h.group, h.handler)
		if got := CodexTrustHash(h.CodexHook); got != want[key] {
			t.Errorf("CodexTrustHash(%s) = %s, want %s (key %s)", h.Event, got, want[key], key)
		}
	}
}

func TestCodexTrustHash(t *testing.T) {
	ptr := func(v int) *int { return &v }
	str := func(s string) *string { return &s }
	base := CodexHook{Event: "PreToolUse", Matcher: str("*"), Command: "clawd hook codex PreToolUse", Timeout: ptr(10)}
	// The example measured in codex-hooks.md §3.8.
	if got, want := CodexTrustHash(base), "sha256:b741180f11155017304f4128a8bc9d8d23630c5e923b3f791d9c97644dba4cfb"; got != want {
		t.Fatalf("CodexTrustHash(%+v) = %s, want %s", base, got, want)
	}
	with := func(f func(h *CodexHook)) CodexHook {
		h := base
		f(&h)
		return h
	}
	tests := []struct {
		name string
		a, b CodexHook
		same bool
	}{
		{"timeout changes the hash", base, with(func(h *CodexHook) { h.Timeout = ptr(11) }), false},
		{"command changes the hash", base, with(func(h *CodexHook) { h.Command = "/usr/local/bin/clawd hook codex PreToolUse" }), false},
		{"matcher changes the hash", base, with(func(h *CodexHook) { h.Matcher = nil }), false},
		{"async changes the hash", base, with(func(h *CodexHook) { h.Async = true }), false},
		{"statusMessage changes the hash", base, with(func(h *CodexHook) { h.StatusMessage = str("checking") }), false},
		{"event changes the hash", base, with(func(h *CodexHook) { h.Event = "PostToolUse" }), false},
		{"no timeout is 600", with(func(h *CodexHook) { h.Timeout = nil }), with(func(h *CodexHook) { h.Timeout = ptr(600) }), true},
		{"timeout at least 1", with(func(h *CodexHook) { h.Timeout = ptr(0) }), with(func(h *CodexHook) { h.Timeout = ptr(1) }), true},
		{"SessionEnd clamps to 3", CodexHook{Event: "SessionEnd", Command: "x", Timeout: ptr(30)}, CodexHook{Event: "SessionEnd", Command: "x", Timeout: ptr(3)}, true},
		{"SessionEnd defaults to 1", CodexHook{Event: "SessionEnd", Command: "x"}, CodexHook{Event: "SessionEnd", Command: "x", Timeout: ptr(1)}, true},
		{"Interrupt clamps to 3", CodexHook{Event: "Interrupt", Command: "x", Timeout: ptr(600)}, CodexHook{Event: "Interrupt", Command: "x", Timeout: ptr(3)}, true},
		{"Stop drops its matcher", CodexHook{Event: "Stop", Command: "x", Matcher: str("*")}, CodexHook{Event: "Stop", Command: "x"}, true},
		{"UserPromptSubmit drops its matcher", CodexHook{Event: "UserPromptSubmit", Command: "x", Matcher: str("Bash")}, CodexHook{Event: "UserPromptSubmit", Command: "x"}, true},
		{"SessionStart keeps its matcher", CodexHook{Event: "SessionStart", Command: "x", Matcher: str("startup")}, CodexHook{Event: "SessionStart", Command: "x"}, false},
	}
	for _, tt := range tests {
		a, b := CodexTrustHash(tt.a), CodexTrustHash(tt.b)
		if (a == b) != tt.same {
			t.Errorf("%s: CodexTrustHash(%+v) = %s, CodexTrustHash(%+v) = %s; want same = %v", tt.name, tt.a, a, tt.b, b, tt.same)
		}
	}
}

func TestCanonicalJSONString(t *testing.T) {
	tests := []struct{ in, want string }{
		{`plain`, `"plain"`},
		{`a "quoted" \ path`, `"a \"quoted\" \\ path"`},
		{"tab\tnl\ncr\rbs\bff\f", `"tab\tnl\ncr\rbs\bff\f"`},
		{"\x01\x1f", `"\u0001\u001f"`},
		{"<&> é ☃ \u2028 \x7f", "\"<&> é ☃ \u2028 \x7f\""},
	}
	for _, tt := range tests {
		if got := canonicalJSONString(tt.in); got != tt.want {
			t.Errorf("canonicalJSONString(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

func TestCodexEventLabel(t *testing.T) {
	tests := map[string]string{
		"SessionStart": "session_start", "UserPromptSubmit": "user_prompt_submit", "PreToolUse": "pre_tool_use",
		"PermissionRequest": "permission_request", "PostToolUse": "post_tool_use", "PreCompact": "pre_compact",
		"PostCompact": "post_compact", "Stop": "stop", "SubagentStart": "subagent_start", "SubagentStop": "subagent_stop",
		"SessionEnd": "session_end", "Interrupt": "interrupt",
	}
	for in, want := range tests {
		if got := CodexEventLabel(in); got != want {
			t.Errorf("CodexEventLabel(%q) = %q, want %q", in, got, want)
		}
	}
}
