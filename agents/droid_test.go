package agents

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestDecodeDroidRecorded decodes the payloads captured from Droid
// 0.225.2 (testdata/droid/hooks): each is an event of the kind and fields
// clawd shows, and a PreToolUse is a request only when Droid would ask.
func TestDecodeDroidRecorded(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	env := func(k string) string {
		if k == "FACTORY_PROJECT_DIR" {
			return "/home/user/project"
		}
		return ""
	}
	tests := []struct {
		file, event string
		kind        Kind
		mode, tool  string
	}{
		{"SessionStart", "SessionStart", KindSessionStart, "off", ""},
		{"PreToolUse", "PreToolUse", KindToolStart, "auto-high", "Execute"},
		{"PreToolUse.asks", "PreToolUse", KindPermissionRequest, "auto-low", "Execute"},
		{"PostToolUse", "PostToolUse", KindToolEnd, "auto-high", "Execute"},
		{"Stop", "Stop", KindTurnEnd, "auto-high", ""},
		{"SessionEnd", "SessionEnd", KindSessionEnd, "auto-high", ""},
	}
	for _, tt := range tests {
		b, err := os.ReadFile(filepath.Join("..", "testdata", "droid", "hooks", tt.file+".json"))
		if err != nil {
			t.Fatal(err)
		}
		e, err := Droid.Decode(b, tt.event, env, now)
		if err != nil {
			t.Errorf("%s: %v", tt.file, err)
			continue
		}
		if e.Kind != tt.kind || e.PermissionMode != tt.mode || e.ToolName != tt.tool || e.SessionID != "5e550000-0000-4000-8000-000000000001" ||
			e.Cwd != "/home/user/project" || e.ProjectDir != "/home/user/project" || e.Agent != "droid" {
			t.Errorf("%s decodes to %+v, want kind %s, mode %q, tool %q in the project", tt.file, e, tt.kind, tt.mode, tt.tool)
		}
		if err := e.Validate(); err != nil {
			t.Errorf("%s: %v", tt.file, err)
		}
		if tt.tool != "" && e.InputHash == "" {
			t.Errorf("%s has no input fingerprint", tt.file)
		}
	}
}

// TestDroidAsks: the calls Droid runs on its own at an autonomy are no
// request; the others are.
func TestDroidAsks(t *testing.T) {
	tests := []struct {
		mode, tool, input string
		want              bool
	}{
		{"off", "Read", `{"file_path":"/x"}`, false},
		{"auto-low", "Grep", `{}`, false},
		{"off", "Execute", `{"command":"ls","riskLevel":"low"}`, true},
		{"auto-low", "Execute", `{"command":"ls","riskLevel":"low"}`, false},
		{"auto-low", "Execute", `{"command":"rm -rf x","riskLevel":"high"}`, true},
		{"auto-medium", "Execute", `{"command":"npm i","riskLevel":"Medium"}`, false},
		{"auto-medium", "Execute", `{"command":"x"}`, true},
		{"auto-high", "Execute", `{"command":"x"}`, false},
		{"auto-high", "Execute", `{"command":"x","riskLevel":"high"}`, false},
		{"off", "Edit", `{"file_path":"/x"}`, true},
		{"spec", "Create", `{"file_path":"/x"}`, true},
		{"auto-low", "Edit", `{"file_path":"/x"}`, false},
		{"", "Edit", `{}`, true},
		{"something-new", "Execute", `{"riskLevel":"low"}`, true},
	}
	for _, tt := range tests {
		if got := droidAsks(tt.mode, tt.tool, []byte(tt.input)); got != tt.want {
			t.Errorf("droidAsks(%q, %q, %s) = %v, want %v", tt.mode, tt.tool, tt.input, got, tt.want)
		}
	}
}

// TestDroidRender: the answers are the forms Droid 0.225.2 honoured
// (testdata/droid/outputs); no decision, and every other event, print
// nothing.
func TestDroidRender(t *testing.T) {
	for _, tt := range []struct {
		d    *Decision
		file string
	}{
		{&Decision{Allow: true}, "PreToolUse.allow.json"},
		{&Decision{Allow: false}, "PreToolUse.deny.json"},
	} {
		want, err := os.ReadFile(filepath.Join("..", "testdata", "droid", "outputs", tt.file))
		if err != nil {
			t.Fatal(err)
		}
		if got := Droid.Render("PreToolUse", tt.d); string(got) != string(want) {
			t.Errorf("Render(PreToolUse, %+v) = %s, want %s", tt.d, got, want)
		}
	}
	if got := Droid.Render("PreToolUse", &Decision{Message: "not now"}); string(got) != `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"not now"}}`+"\n" {
		t.Errorf("a deny with a message = %s", got)
	}
	for _, ev := range []string{"PreToolUse", "Stop", "SessionStart"} {
		if got := Droid.Render(ev, nil); got != nil {
			t.Errorf("Render(%s, nil) = %q, want nothing", ev, got)
		}
	}
	if got := Droid.Render("Stop", &Decision{Allow: true}); got != nil {
		t.Errorf("Render(Stop, allow) = %q, want nothing", got)
	}
}
