package agents

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"
)

const (
	hooksDir     = "../testdata/claude/hooks"
	sequencesDir = "../testdata/claude/sequences"
)

var now = time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)

func noEnv(string) string { return "" }

func envOf(vars map[string]string) Env { return func(k string) string { return vars[k] } }

func readFixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(hooksDir, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func decodeFixture(t *testing.T, name string) Event {
	t.Helper()
	e, err := Claude.Decode(readFixture(t, name), "", noEnv, now)
	if err != nil {
		t.Fatalf("Decode(%s) error: %v", name, err)
	}
	return e
}

// hookKinds is the kind every captured payload must decode to.
var hookKinds = map[string]Kind{
	"ConfigChange.json":                           KindConfigChange,
	"CwdChanged.json":                             KindCwdChange,
	"DirectoryAdded.json":                         KindDirectoryAdd,
	"Elicitation.json":                            KindQuestion,
	"ElicitationResult.json":                      KindQuestionAnswered,
	"FileChanged.json":                            KindFileChange,
	"InstructionsLoaded.json":                     KindInstructionsLoad,
	"MessageDisplay.json":                         KindMessage,
	"Notification.elicitation_dialog.json":        KindNotification,
	"Notification.elicitation_response.json":      KindNotification,
	"Notification.idle_prompt.json":               KindNotification,
	"Notification.permission_prompt-plan.json":    KindNotification,
	"Notification.permission_prompt.json":         KindNotification,
	"PermissionDenied.json":                       KindPermissionDenied,
	"PermissionRequest.AskUserQuestion.json":      KindQuestion,
	"PermissionRequest.ExitPlanMode.json":         KindPermissionRequest,
	"PermissionRequest.after-pretooluse-ask.json": KindPermissionRequest,
	"PermissionRequest.json":                      KindPermissionRequest,
	"PermissionRequest.mcp.json":                  KindPermissionRequest,
	"PermissionRequest.Edit.json":                 KindPermissionRequest,
	"PermissionRequest.Write.json":                KindPermissionRequest,
	"PermissionRequest.WebFetch.json":             KindPermissionRequest,
	"PermissionRequest.no-suggestions.json":       KindPermissionRequest,
	"PermissionRequest.setMode.json":              KindPermissionRequest,
	"PostCompact.json":                            KindCompactEnd,
	"PostModelSwitch.json":                        KindModelSwitched,
	"PostToolBatch.agent-launch.json":             KindToolBatch,
	"PostToolBatch.json":                          KindToolBatch,
	"PostToolBatch.parallel.json":                 KindToolBatch,
	"PostToolBatch.subagent.json":                 KindToolBatch,
	"PostToolUse.Agent.json":                      KindToolEnd,
	"PostToolUse.AskUserQuestion.json":            KindToolEnd,
	"PostToolUse.Read.json":                       KindToolEnd,
	"PostToolUse.json":                            KindToolEnd,
	"PostToolUse.mcp.json":                        KindToolEnd,
	"PostToolUse.subagent.json":                   KindToolEnd,
	"PostToolUseFailure.json":                     KindToolFailure,
	"PreCompact.json":                             KindCompactStart,
	"PreModelSwitch.json":                         KindModelSwitch,
	"PreSkillShellCommand.json":                   KindToolStart,
	"PreToolUse.Agent.json":                       KindToolStart,
	"PreToolUse.AskUserQuestion.json":             KindToolStart,
	"PreToolUse.Read.json":                        KindToolStart,
	"PreToolUse.auto.json":                        KindToolStart,
	"PreToolUse.json":                             KindToolStart,
	"PreToolUse.mcp.json":                         KindToolStart,
	"PreToolUse.subagent.json":                    KindToolStart,
	"SessionEnd.clear.json":                       KindSessionEnd,
	"SessionEnd.json":                             KindSessionEnd,
	"SessionEnd.prompt_input_exit.json":           KindSessionEnd,
	"SessionStart.clear.json":                     KindSessionStart,
	"SessionStart.compact.json":                   KindSessionStart,
	"SessionStart.json":                           KindSessionStart,
	"SessionStart.resume.json":                    KindSessionStart,
	"SessionStart.startup-interactive.json":       KindSessionStart,
	"Setup.init.json":                             KindSetup,
	"Setup.maintenance.json":                      KindSetup,
	"Stop.json":                                   KindTurnEnd,
	"StopFailure.json":                            KindTurnFailure,
	"SubagentStart.json":                          KindSubagentStart,
	"SubagentStop.internal-compact.json":          KindSubagentStop,
	"SubagentStop.json":                           KindSubagentStop,
	"UserPromptExpansion.json":                    KindPromptExpansion,
	"UserPromptSubmit.json":                       KindPromptSubmit,
	"UserPromptSubmit.slash-command.json":         KindPromptSubmit,
	"UserPromptSubmit.task-notification.json":     KindPromptSubmit,
	"WorktreeCreate.json":                         KindWorktreeCreate,
	"WorktreeRemove.json":                         KindWorktreeRemove,
}

func hookFixtures(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(hooksDir, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range files {
		if name := filepath.Base(f); !strings.HasPrefix(name, "_") {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		t.Fatal("no hook fixtures found")
	}
	return names
}

func TestDecodeClaudeFixtures(t *testing.T) {
	names := hookFixtures(t)
	for _, name := range names {
		want, ok := hookKinds[name]
		if !ok {
			t.Errorf("fixture %s has no expected kind in hookKinds", name)
			continue
		}
		e, err := Claude.Decode(readFixture(t, name), "", noEnv, now)
		if err != nil {
			t.Errorf("Decode(%s) error: %v", name, err)
			continue
		}
		if e.Kind != want {
			t.Errorf("Decode(%s) kind = %v, want %v", name, e.Kind, want)
		}
		if e.Agent != "claude" || e.SessionID == "" || !e.Time.Equal(now) || e.HookEvent != strings.SplitN(name, ".", 2)[0] {
			t.Errorf("Decode(%s) = agent %q session %q time %v hook %q", name, e.Agent, e.SessionID, e.Time, e.HookEvent)
		}
		if err := e.Validate(); err != nil {
			t.Errorf("Decode(%s).Validate() = %v", name, err)
		}
	}
	for name := range hookKinds {
		if !slices.Contains(names, name) {
			t.Errorf("hookKinds lists %s, which is not a fixture", name)
		}
	}
}

// TestDecodeClaudeFields pins what each kind of payload contributes. The
// compared projection leaves out what every event has (ids, time, cwd,
// permission mode, the input hash).
func TestDecodeClaudeFields(t *testing.T) {
	tests := []struct {
		file string
		want Event
	}{
		{"SessionStart.json", Event{Kind: KindSessionStart, Source: "startup"}},
		{"SessionStart.resume.json", Event{Kind: KindSessionStart, Source: "resume"}},
		{"SessionStart.compact.json", Event{Kind: KindSessionStart, Source: "compact"}},
		{"SessionStart.clear.json", Event{Kind: KindSessionStart, Source: "clear"}},
		{"SessionEnd.json", Event{Kind: KindSessionEnd, Reason: "other"}},
		{"SessionEnd.clear.json", Event{Kind: KindSessionEnd, Reason: "clear"}},
		{"SessionEnd.prompt_input_exit.json", Event{Kind: KindSessionEnd, Reason: "prompt_input_exit"}},
		{"Setup.init.json", Event{Kind: KindSetup, Source: "init"}},
		{"Setup.maintenance.json", Event{Kind: KindSetup, Source: "maintenance"}},
		{"PreCompact.json", Event{Kind: KindCompactStart, Source: "manual"}},
		{"PostCompact.json", Event{Kind: KindCompactEnd, Source: "manual"}},
		{"PreModelSwitch.json", Event{Kind: KindModelSwitch, Source: "command"}},
		{"ConfigChange.json", Event{Kind: KindConfigChange, Source: "user_settings"}},
		{"DirectoryAdded.json", Event{Kind: KindDirectoryAdd, Source: "slash_command"}},
		{"Notification.permission_prompt.json", Event{Kind: KindNotification, NotificationType: "permission_prompt", Notice: NoticeDialog}},
		{"Notification.idle_prompt.json", Event{Kind: KindNotification, NotificationType: "idle_prompt", Notice: NoticeIdle}},
		{"Notification.elicitation_dialog.json", Event{Kind: KindNotification, NotificationType: "elicitation_dialog", Notice: NoticeQuestion}},
		{"Notification.elicitation_response.json", Event{Kind: KindNotification, NotificationType: "elicitation_response", Notice: NoticeAnswered}},
		{"StopFailure.json", Event{Kind: KindTurnFailure, ErrorKind: "unknown",
			ErrorText: "API Error: 400 fake invalid request for StopFailure"}},
		{"Stop.json", Event{Kind: KindTurnEnd}},
		{"UserPromptSubmit.json", Event{Kind: KindPromptSubmit, Title: "CAPTURE_ALL please", TitleSource: TitleFromPrompt}},
		{"UserPromptSubmit.slash-command.json", Event{Kind: KindPromptSubmit, Title: "/greet world", TitleSource: TitleFromPrompt}},
		{"UserPromptSubmit.task-notification.json", Event{Kind: KindPromptSubmit}},
		{"UserPromptExpansion.json", Event{Kind: KindPromptExpansion}},
		{"PreToolUse.json", Event{Kind: KindToolStart, ToolName: "Bash", ToolUseID: "toolu_41d9bc73b5ee4249842dcc7e"}},
		{"PreSkillShellCommand.json", Event{Kind: KindToolStart, ToolName: "Bash", ToolUseID: "00d37b4b-2859-494e-b1c9-30ce6d2d50f5:inner:preamble-0"}},
		{"PreToolUse.mcp.json", Event{Kind: KindToolStart, ToolName: "mcp__mini__ask_user", ToolUseID: "toolu_c2d476254d00471f8bac28bf"}},
		{"PreToolUse.subagent.json", Event{Kind: KindToolStart, ToolName: "Bash", ToolUseID: "toolu_962f3843000b456abc626896",
			SubagentID: "afc7f71e8f325b97f", SubagentType: "general-purpose"}},
		{"PostToolUse.json", Event{Kind: KindToolEnd, ToolName: "Bash", ToolUseID: "toolu_41d9bc73b5ee4249842dcc7e"}},
		{"PostToolUse.Agent.json", Event{Kind: KindToolEnd, ToolName: "Agent", ToolUseID: "toolu_8cda64971b2740c88a5b76fa"}},
		{"PostToolUseFailure.json", Event{Kind: KindToolFailure, ToolName: "Bash", ToolUseID: "toolu_f8a2e23a55eb4662a21d66e7"}},
		{"PermissionRequest.json", Event{Kind: KindPermissionRequest, ToolName: "Bash"}},
		{"PermissionRequest.mcp.json", Event{Kind: KindPermissionRequest, ToolName: "mcp__mini__ask_user"}},
		{"PermissionDenied.json", Event{Kind: KindPermissionDenied, ToolName: "Bash", ToolUseID: "toolu_f992977d67014c3c82ab7ca1"}},
		{"PostToolBatch.json", Event{Kind: KindToolBatch, ToolUseIDs: []string{"toolu_41d9bc73b5ee4249842dcc7e"}}},
		{"PostToolBatch.parallel.json", Event{Kind: KindToolBatch,
			ToolUseIDs: []string{"toolu_488cf4d16718426d812ab723", "toolu_d92ae7bf22524bc495fbdcf9"}}},
		{"PostToolBatch.subagent.json", Event{Kind: KindToolBatch, ToolUseIDs: []string{"toolu_962f3843000b456abc626896"},
			SubagentID: "afc7f71e8f325b97f", SubagentType: "general-purpose"}},
		{"SubagentStart.json", Event{Kind: KindSubagentStart, SubagentID: "afc7f71e8f325b97f", SubagentType: "general-purpose"}},
		// The stopping subagent lists itself as still running: not
		// background work.
		{"SubagentStop.json", Event{Kind: KindSubagentStop, SubagentID: "afc7f71e8f325b97f", SubagentType: "general-purpose"}},
		// Compaction's internal agent: agent_type "".
		{"SubagentStop.internal-compact.json", Event{Kind: KindSubagentStop, SubagentID: "a2c9a9db2a5096074"}},
		{"Elicitation.json", Event{Kind: KindQuestion, ToolName: "mini"}},
		{"ElicitationResult.json", Event{Kind: KindQuestionAnswered, ToolName: "mini", Action: "accept"}},
	}
	for _, tt := range tests {
		e := decodeFixture(t, tt.file)
		got := e
		got.Agent, got.SessionID, got.Time, got.HookEvent = "", "", time.Time{}, ""
		got.Cwd, got.ProjectDir, got.InputHash, got.PermissionMode = "", "", "", ""
		got.TurnID, got.Response = "", "" // TestDecodeTurnAndResponse
		if want := "/home/user/.claude/projects/-home-user-project/" + e.SessionID + ".jsonl"; got.Transcript != want {
			t.Errorf("Decode(%s) transcript = %q, want %q", tt.file, got.Transcript, want)
		}
		got.Transcript = ""
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Decode(%s) = %+v, want %+v", tt.file, got, tt.want)
		}
	}
}

func TestDecodeClaudeCwdChanged(t *testing.T) {
	e := decodeFixture(t, "CwdChanged.json")
	if e.Cwd != "/home/user/project/sub" {
		t.Errorf("Decode(CwdChanged) cwd = %q, want the new cwd /home/user/project/sub", e.Cwd)
	}
	// Claude 2.1.328 already reports the new cwd in "cwd"; new_cwd is
	// what the event is about, so it wins should the two ever differ.
	payload := patch(t, "CwdChanged.json", map[string]any{"cwd": "/home/user/project"})
	e, err := Claude.Decode(payload, "", noEnv, now)
	if err != nil || e.Cwd != "/home/user/project/sub" {
		t.Errorf("Decode(CwdChanged with the old cwd) cwd = %q, %v; want new_cwd", e.Cwd, err)
	}
}

// patch decodes a fixture with some top-level fields replaced.
func patch(t *testing.T, name string, fields map[string]any) []byte {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(readFixture(t, name), &m); err != nil {
		t.Fatal(err)
	}
	for k, v := range fields {
		if v == nil {
			delete(m, k)
		} else {
			m[k] = v
		}
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestDecodeClaudeBackgroundTasks(t *testing.T) {
	tasks := []any{
		map[string]any{"id": "a1", "type": "subagent", "status": "running"},
		map[string]any{"id": "b2", "type": "shell", "status": "running"},
		map[string]any{"id": "c3", "type": "shell", "status": "completed"},
	}
	tests := []struct {
		file   string
		fields map[string]any
		want   int
	}{
		{"Stop.json", nil, 0},
		{"Stop.json", map[string]any{"background_tasks": tasks}, 2},
		{"SubagentStop.json", nil, 0},
		// A subagent stopping while others run counts them, not itself.
		{"SubagentStop.json", map[string]any{"agent_id": "a1", "background_tasks": tasks}, 1},
		{"Stop.json", map[string]any{"background_tasks": "garbage"}, 0},
	}
	for _, tt := range tests {
		e, err := Claude.Decode(patch(t, tt.file, tt.fields), "", noEnv, now)
		if err != nil {
			t.Fatal(err)
		}
		if e.BackgroundTasks != tt.want {
			t.Errorf("Decode(%s %v) background tasks = %d, want %d", tt.file, tt.fields, e.BackgroundTasks, tt.want)
		}
	}
}

func TestDecodeClaudeInterrupt(t *testing.T) {
	e, err := Claude.Decode(patch(t, "PostToolUseFailure.json", map[string]any{"is_interrupt": true}), "", noEnv, now)
	if err != nil || !e.Interrupt {
		t.Errorf("Decode(PostToolUseFailure is_interrupt) interrupt = %v, %v; want true", e.Interrupt, err)
	}
}

func TestDecodeClaudeAskUserQuestion(t *testing.T) {
	payload := patch(t, "PermissionRequest.json", map[string]any{
		"tool_name":              "AskUserQuestion",
		"tool_input":             map[string]any{"questions": []any{map[string]any{"question": "Which database?"}}},
		"permission_suggestions": nil,
	})
	e, err := Claude.Decode(payload, "", noEnv, now)
	if err != nil {
		t.Fatal(err)
	}
	if e.Kind != KindQuestion || e.ToolName != "AskUserQuestion" || e.InputHash == "" {
		t.Errorf("Decode(PermissionRequest AskUserQuestion) = kind %v tool %q hash %q, want question.asked AskUserQuestion with a hash",
			e.Kind, e.ToolName, e.InputHash)
	}
	if e.HookEvent != "PermissionRequest" {
		t.Errorf("hook event = %q, want PermissionRequest (the hook still owes a decision)", e.HookEvent)
	}
}

func TestDecodeClaudeSessionTitle(t *testing.T) {
	e, err := Claude.Decode(patch(t, "UserPromptSubmit.json", map[string]any{"session_title": "Capture\tall  hooks"}), "", noEnv, now)
	if err != nil {
		t.Fatal(err)
	}
	if e.Title != "Capture all hooks" || e.TitleSource != TitleFromAgent {
		t.Errorf("Decode(session_title) title = %q (%s), want the agent's", e.Title, e.TitleSource)
	}
	// A title that cleans to nothing is no title.
	e, err = Claude.Decode(patch(t, "SessionStart.json", map[string]any{"session_title": "\x1b\x07"}), "", noEnv, now)
	if err != nil {
		t.Fatal(err)
	}
	if e.Title != "" || e.TitleSource != "" {
		t.Errorf("Decode(session_title of control characters) = %q (%s), want none", e.Title, e.TitleSource)
	}
}

// recorded is one hook call of a recorded run: the event named on the
// command line, the payload and, where recorded, the environment the
// agent gave the hook.
type recorded struct {
	Event string            `json:"event"`
	Stdin json.RawMessage   `json:"stdin"`
	Env   map[string]string `json:"env"`
}

func readSequence(t *testing.T, run string) []recorded {
	t.Helper()
	return readRecorded(t, filepath.Join(sequencesDir, run+".jsonl"))
}

// readRecorded reads a recorded hook sequence, one {"event","stdin"} (and
// "env") per line.
func readRecorded(t *testing.T, path string) []recorded {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []recorded
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var r recorded
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	if len(out) == 0 {
		t.Fatalf("sequence %s is empty", path)
	}
	return out
}

// TestPermissionRequestMatchesPreToolUse checks the premise of pending
// matching: a PermissionRequest (no tool_use_id) fingerprints its input the
// same as the PreToolUse that announced the call.
func TestPermissionRequestMatchesPreToolUse(t *testing.T) {
	checkRequestPairs(t, Claude, readSequence(t, "print-capture_all"), false)
}

// checkRequestPairs decodes seq with a and checks that each
// PermissionRequest hashes its input as the PreToolUse before it did, and
// with checkEnds that a PostToolUse hashes as its PreToolUse. The
// sequences hold two requests with different inputs.
func checkRequestPairs(t *testing.T, a *Agent, seq []recorded, checkEnds bool) {
	t.Helper()
	var last Event
	pairs := 0
	hashes := map[string]bool{}
	for i, r := range seq {
		e, err := a.Decode(r.Stdin, "", noEnv, now)
		if err != nil {
			t.Fatalf("event %d: %v", i, err)
		}
		switch e.Kind {
		case KindToolStart:
			last = e
		case KindPermissionRequest:
			if last.Kind != KindToolStart {
				t.Fatalf("event %d: PermissionRequest without a PreToolUse before it", i)
			}
			if e.InputHash == "" || e.InputHash != last.InputHash {
				t.Errorf("event %d: PermissionRequest hash %q, PreToolUse %s hash %q; want equal",
					i, e.InputHash, last.ToolUseID, last.InputHash)
			}
			hashes[e.InputHash] = true
			pairs++
		case KindToolEnd:
			if checkEnds && e.ToolUseID == last.ToolUseID && e.InputHash != last.InputHash {
				t.Errorf("event %d: PostToolUse %s hash %q, its PreToolUse %q; want equal", i, e.ToolUseID, e.InputHash, last.InputHash)
			}
		}
	}
	if pairs != 2 || len(hashes) != 2 {
		t.Errorf("found %d request/PreToolUse pairs with %d distinct hashes, want 2 and 2", pairs, len(hashes))
	}
}

func TestFingerprint(t *testing.T) {
	a := Fingerprint("claude", "Bash", []byte(`{"command": "ls",  "description": "x"}`))
	b := Fingerprint("claude", "Bash", []byte(`{"command":"ls","description":"x"}`))
	if a != b {
		t.Errorf("Fingerprint of the same input pretty and compact: %s != %s", a, b)
	}
	for _, other := range []string{
		Fingerprint("claude", "Read", []byte(`{"command":"ls","description":"x"}`)),
		Fingerprint("codex", "Bash", []byte(`{"command":"ls","description":"x"}`)),
		Fingerprint("claude", "Bash", []byte(`{"command":"ls -l","description":"x"}`)),
	} {
		if other == a {
			t.Errorf("Fingerprint collides for a different call: %s", a)
		}
	}
	if len(a) > MaxWordLen {
		t.Errorf("Fingerprint is %d bytes, over MaxWordLen", len(a))
	}
}

func TestDecodeClaudeEnv(t *testing.T) {
	tests := []struct {
		name     string
		env      map[string]string
		headless bool
	}{
		{"print", map[string]string{"CLAUDE_CODE_ENTRYPOINT": "sdk-cli", "CLAUDE_CODE_SESSION_ATTENDED": "0"}, true},
		{"tmux", map[string]string{"CLAUDE_CODE_ENTRYPOINT": "cli", "CLAUDE_CODE_SESSION_ATTENDED": "1"}, false},
		{"none", nil, false},
		{"sdk without attended", map[string]string{"CLAUDE_CODE_ENTRYPOINT": "sdk-ts"}, true},
		{"attended wins", map[string]string{"CLAUDE_CODE_ENTRYPOINT": "sdk-cli", "CLAUDE_CODE_SESSION_ATTENDED": "1"}, false},
	}
	payload := readFixture(t, "SessionStart.json")
	for _, tt := range tests {
		e, err := Claude.Decode(payload, "", envOf(tt.env), now)
		if err != nil {
			t.Fatal(err)
		}
		if e.Headless != tt.headless {
			t.Errorf("Decode with env %s headless = %v, want %v", tt.name, e.Headless, tt.headless)
		}
	}
}

// TestDecodeClaudeRecordedEnv decodes with the environments the hooks
// really saw.
func TestDecodeClaudeRecordedEnv(t *testing.T) {
	tests := []struct {
		envFile  string
		headless bool
	}{
		{"print-capture_all.PreToolUse.json", true},
		{"tmux-tour.PreToolUse.json", false},
	}
	payload := readFixture(t, "PreToolUse.json")
	for _, tt := range tests {
		b, err := os.ReadFile(filepath.Join("../testdata/claude/env", tt.envFile))
		if err != nil {
			t.Fatal(err)
		}
		var vars map[string]string
		if err := json.Unmarshal(b, &vars); err != nil {
			t.Fatal(err)
		}
		e, err := Claude.Decode(payload, "", envOf(vars), now)
		if err != nil {
			t.Fatal(err)
		}
		if e.Headless != tt.headless {
			t.Errorf("Decode with env %s headless = %v, want %v", tt.envFile, e.Headless, tt.headless)
		}
		if vars["CLAUDE_PID"] != "" && e.AgentPID <= 0 {
			t.Errorf("Decode with env %s pid = %d, want CLAUDE_PID %s", tt.envFile, e.AgentPID, vars["CLAUDE_PID"])
		}
		if e.ProjectDir != vars["CLAUDE_PROJECT_DIR"] {
			t.Errorf("Decode with env %s project dir = %q, want %q", tt.envFile, e.ProjectDir, vars["CLAUDE_PROJECT_DIR"])
		}
	}
}

func TestDecodeClaudePID(t *testing.T) {
	payload := readFixture(t, "PreToolUse.json")
	for pid, want := range map[string]int{"12345": 12345, "": 0, "0": 0, "-4": 0, "abc": 0, "12x": 0} {
		e, err := Claude.Decode(payload, "", envOf(map[string]string{"CLAUDE_PID": pid}), now)
		if err != nil {
			t.Fatal(err)
		}
		if e.AgentPID != want {
			t.Errorf("Decode with CLAUDE_PID=%q pid = %d, want %d", pid, e.AgentPID, want)
		}
	}
}

func TestDecodeClaudeErrors(t *testing.T) {
	tests := []struct {
		name    string
		payload string
		event   string
		env     map[string]string
		want    error
	}{
		{"not JSON", `{"session_id": "s", `, "", nil, ErrNotJSON},
		{"empty", ``, "Stop", nil, ErrNotJSON},
		{"array", `[{"session_id":"s","hook_event_name":"Stop"}]`, "", nil, ErrNotJSON},
		{"string", `"Stop"`, "Stop", nil, ErrNotJSON},
		{"unknown event", `{"session_id":"s","hook_event_name":"BeforeLunch"}`, "", nil, ErrUnknownEvent},
		{"no event at all", `{"session_id":"s"}`, "", nil, ErrUnknownEvent},
		{"unknown event on the command line", `{"session_id":"s"}`, "BeforeLunch", nil, ErrUnknownEvent},
		{"no session", `{"hook_event_name":"Stop"}`, "", nil, ErrNoSession},
		{"session id not a string", `{"session_id":42,"hook_event_name":"Stop"}`, "", nil, ErrNoSession},
	}
	for _, tt := range tests {
		_, err := Claude.Decode([]byte(tt.payload), tt.event, envOf(tt.env), now)
		if !errors.Is(err, tt.want) {
			t.Errorf("Decode(%s) error = %v, want %v", tt.name, err, tt.want)
		}
	}
}

func TestDecodeClaudeFallbacks(t *testing.T) {
	// The event name from the command line stands in for a missing one.
	e, err := Claude.Decode([]byte(`{"session_id":"s"}`), "Stop", noEnv, now)
	if err != nil || e.Kind != KindTurnEnd || e.HookEvent != "Stop" {
		t.Errorf("Decode(no hook_event_name, arg Stop) = %v %q, %v; want turn.end", e.Kind, e.HookEvent, err)
	}
	// The session id from the environment stands in for a missing one.
	env := envOf(map[string]string{"CLAUDE_CODE_SESSION_ID": "5e550000-0000-4000-8000-0000000000ee"})
	e, err = Claude.Decode([]byte(`{"hook_event_name":"Stop"}`), "", env, now)
	if err != nil || e.SessionID != "5e550000-0000-4000-8000-0000000000ee" {
		t.Errorf("Decode(no session_id, env) session = %q, %v; want the env's", e.SessionID, err)
	}
	// Over-long fields are clipped to their limits.
	long := strings.Repeat("x", 2*MaxIDLen)
	e, err = Claude.Decode([]byte(`{"session_id":"`+long+`","hook_event_name":"PreToolUse","tool_name":"`+long+`"}`), "", noEnv, now)
	if err != nil || len(e.SessionID) != MaxIDLen || len(e.ToolName) != MaxIDLen {
		t.Errorf("Decode(long ids) = %d, %d bytes, %v; want clipped to %d", len(e.SessionID), len(e.ToolName), err, MaxIDLen)
	}
	if err := e.Validate(); err != nil {
		t.Errorf("Validate(clipped event) = %v", err)
	}
}

func TestDecodeClaudeTruncated(t *testing.T) {
	// A PermissionRequest as Claude writes it (compact, in Claude's field
	// order), with a big input.
	var m map[string]any
	if err := json.Unmarshal(readFixture(t, "PermissionRequest.json"), &m); err != nil {
		t.Fatal(err)
	}
	m["tool_input"] = map[string]any{"command": "cat > big.txt <<EOF\n" + strings.Repeat("data ", 1<<18) + "EOF"}
	raw := readFixture(t, "PermissionRequest.json")
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		t.Fatal(err)
	}
	small := buf.String()
	i := strings.Index(small, `"tool_input":`)
	big, _ := json.Marshal(m["tool_input"])
	full := small[:i] + `"tool_input":` + string(big) + `}`
	if !json.Valid([]byte(full)) || len(full) < 1<<20 {
		t.Fatalf("test payload is broken: %d bytes", len(full))
	}
	sid := "5e550000-0000-4000-8000-000000000001"

	// Cut inside the big input: everything before it is there.
	e, err := Claude.DecodeTruncated([]byte(full[:1024]), "PermissionRequest", noEnv, now)
	if err != nil {
		t.Fatal(err)
	}
	if e.SessionID != sid || e.Kind != KindPermissionRequest || e.ToolName != "Bash" || !e.Truncated {
		t.Errorf("Claude.DecodeTruncated(1 KiB) = session %q kind %v tool %q truncated %v", e.SessionID, e.Kind, e.ToolName, e.Truncated)
	}
	if e.InputHash != "" {
		t.Errorf("Claude.DecodeTruncated hashed a cut input: %q", e.InputHash)
	}
	if _, err := Claude.Decode([]byte(full[:1024]), "PermissionRequest", noEnv, now); !errors.Is(err, ErrNotJSON) {
		t.Errorf("Decode(cut payload) error = %v, want ErrNotJSON", err)
	}

	// The first 300 bytes end inside "hook_event_name" (Claude writes
	// transcript_path, prompt_id and effort first): the session id is
	// there, the kind comes from the event name on the command line, and
	// tool_name (byte ~340) is beyond the cut. The hook's real cap is
	// megabytes, far past these fields.
	e, err = Claude.DecodeTruncated([]byte(full[:300]), "PermissionRequest", noEnv, now)
	if err != nil {
		t.Fatal(err)
	}
	if e.SessionID != sid || e.Kind != KindPermissionRequest || !e.Truncated {
		t.Errorf("Claude.DecodeTruncated(300 bytes) = session %q kind %v truncated %v", e.SessionID, e.Kind, e.Truncated)
	}
	if e.ToolName != "" {
		t.Errorf("Claude.DecodeTruncated(300 bytes) tool = %q, want none: a cut value is never half-read", e.ToolName)
	}
	// No value is read half: a cut inside tool_name gives no tool name.
	j := strings.Index(full, `"tool_name":"Bash"`) + len(`"tool_name":"Ba`)
	if e, _ := Claude.DecodeTruncated([]byte(full[:j]), "PermissionRequest", noEnv, now); e.ToolName != "" {
		t.Errorf("Claude.DecodeTruncated(cut in tool_name) tool = %q, want none", e.ToolName)
	}
}

// TestDecodeClaudeKeepsContentOut checks that no decoded event carries
// what people typed or tools saw: the prompt, tool input and output,
// assistant messages, notification texts, form contents.
func TestDecodeClaudeKeepsContentOut(t *testing.T) {
	var payloads [][]byte
	for _, name := range hookFixtures(t) {
		payloads = append(payloads, readFixture(t, name))
	}
	files, _ := filepath.Glob(filepath.Join(sequencesDir, "*.jsonl"))
	for _, f := range files {
		for _, r := range readSequence(t, strings.TrimSuffix(filepath.Base(f), ".jsonl")) {
			payloads = append(payloads, r.Stdin)
		}
	}
	contentKeys := []string{"prompt", "tool_input", "tool_response", "last_assistant_message", "message",
		"content", "requested_schema", "compact_summary", "custom_instructions", "delta", "command_args",
		"error_details"}
	checked := 0
	for _, p := range payloads {
		e, err := Claude.Decode(p, "", noEnv, now)
		if err != nil {
			t.Fatal(err)
		}
		// The title is derived from the prompt on purpose (and tested on
		// its own), and a turn's final answer rides in Response for
		// automations, which the runtime takes off the event at once
		// (runtime's TestResponseNeverRecorded); nothing else may carry
		// content.
		if e.Response != "" && (e.Kind != KindTurnEnd || e.Response != payloadField(p, "last_assistant_message")) {
			t.Errorf("%s carries Response %q", e.HookEvent, e.Response)
		}
		// A failed turn's reason is the one error text an event carries on
		// purpose: the person sees why the turn failed.
		if e.ErrorText != "" && (e.Kind != KindTurnFailure || !strings.HasPrefix(e.ErrorText, "API Error")) {
			t.Errorf("%s carries ErrorText %q", e.HookEvent, e.ErrorText)
		}
		e.Title, e.Response, e.ErrorText = "", "", ""
		out := marshal(t, e)
		var m map[string]any
		if err := json.Unmarshal(p, &m); err != nil {
			t.Fatal(err)
		}
		content := map[string]any{}
		for _, k := range contentKeys {
			content[k] = m[k]
		}
		if e.Kind == KindToolFailure {
			content["error"] = m["error"] // StopFailure's error is a kind word
		}
		if calls, ok := m["tool_calls"].([]any); ok {
			var inner []any
			for _, c := range calls {
				c, _ := c.(map[string]any)
				inner = append(inner, c["tool_input"], c["tool_response"])
			}
			content["tool_calls"] = inner
		}
		// What the event carries on purpose may also occur in content
		// (pwd prints the cwd).
		meta := []string{e.Cwd, e.ProjectDir, e.ToolName, e.ToolUseID, e.SessionID}
		for k, v := range content {
			for _, s := range leaves(v) {
				if slices.Contains(meta, s) {
					continue
				}
				checked++
				if strings.Contains(out, jsonText(t, s)) {
					t.Errorf("%s event carries %s text %q: %s", e.HookEvent, k, s, out)
				}
			}
		}
	}
	if checked < 100 {
		t.Errorf("only %d content strings checked; the fixtures changed?", checked)
	}
}

// leaves returns the string values in v that are long enough to be
// content rather than a coincidence ("ls", "Bash").
func leaves(v any) []string {
	var out []string
	switch v := v.(type) {
	case string:
		if len(v) >= 6 {
			out = append(out, v)
		}
	case map[string]any:
		for _, x := range v {
			out = append(out, leaves(x)...)
		}
	case []any:
		for _, x := range v {
			out = append(out, leaves(x)...)
		}
	}
	return out
}

func marshal(t *testing.T, v any) string {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// jsonText is s as it appears inside a JSON string.
func jsonText(t *testing.T, s string) string {
	q := strings.TrimSpace(marshal(t, s))
	return q[1 : len(q)-1]
}

func TestValidate(t *testing.T) {
	valid := decodeFixture(t, "PreToolUse.subagent.json")
	if err := valid.Validate(); err != nil {
		t.Fatalf("Validate(decoded PreToolUse) = %v", err)
	}
	long := func(n int) string { return strings.Repeat("x", n) }
	tests := []struct {
		name   string
		modify func(e *Event)
	}{
		{"unknown agent", func(e *Event) { e.Agent = "clippy" }},
		{"unknown kind", func(e *Event) { e.Kind = "tool.started" }},
		{"empty kind", func(e *Event) { e.Kind = "" }},
		{"empty session id", func(e *Event) { e.SessionID = "" }},
		{"no time", func(e *Event) { e.Time = time.Time{} }},
		{"long session id", func(e *Event) { e.SessionID = long(MaxIDLen + 1) }},
		{"long cwd", func(e *Event) { e.Cwd = long(MaxPathLen + 1) }},
		{"long tool name", func(e *Event) { e.ToolName = long(MaxIDLen + 1) }},
		{"long input hash", func(e *Event) { e.InputHash = long(MaxWordLen + 1) }},
		{"long reason", func(e *Event) { e.Reason = long(MaxWordLen + 1) }},
		{"long state", func(e *Event) { e.State = long(MaxWordLen + 1) }},
		{"long title", func(e *Event) { e.Title = strings.Repeat("é", MaxTitleLen+1) }},
		{"invalid UTF-8", func(e *Event) { e.Cwd = "/home/\xff" }},
		{"unknown title source", func(e *Event) { e.Title, e.TitleSource = "t", "guess" }},
		// Only the person, through the API, names a session: a hook cannot
		// pass its title off as theirs.
		{"person title source", func(e *Event) { e.Title, e.TitleSource = "t", TitleFromPerson }},
		{"too many batch ids", func(e *Event) { e.ToolUseIDs = make([]string, MaxBatchIDs+1) }},
		{"long batch id", func(e *Event) { e.ToolUseIDs = []string{"a", long(MaxIDLen + 1)} }},
		{"negative pid", func(e *Event) { e.AgentPID = -1 }},
		{"negative background tasks", func(e *Event) { e.BackgroundTasks = -1 }},
	}
	for _, tt := range tests {
		e := valid
		tt.modify(&e)
		if err := e.Validate(); !errors.Is(err, ErrInvalidEvent) {
			t.Errorf("Validate(%s) = %v, want ErrInvalidEvent", tt.name, err)
		}
	}
	// At the limits is fine; the alias of an agent is not its id.
	e := valid
	e.SessionID, e.Title, e.ToolUseIDs = long(MaxIDLen), strings.Repeat("é", MaxTitleLen), make([]string, MaxBatchIDs)
	if err := e.Validate(); err != nil {
		t.Errorf("Validate(at the limits) = %v", err)
	}
	e = valid
	e.Kind, e.State = KindState, "working"
	if err := e.Validate(); err != nil {
		t.Errorf("Validate(state event) = %v", err)
	}
}

func TestClaudeRegistry(t *testing.T) {
	for _, name := range []string{"claude", "Claude", " claude-code ", "claude_code", "claudecode"} {
		if Lookup(name) != Claude {
			t.Errorf("Lookup(%q) = %v, want Claude", name, Lookup(name))
		}
	}
	if a := Lookup("codex-ish"); a != nil {
		t.Errorf("Lookup(codex-ish) = %v, want nil", a.ID)
	}
	for name, k := range Claude.Kinds() {
		if !k.Valid() {
			t.Errorf("Claude.Kinds()[%s] = %v, not a kind", name, k)
		}
	}
	for _, h := range Claude.Hooks {
		if _, ok := Claude.Kinds()[h.Event]; !ok {
			t.Errorf("registered hook %s is not decoded", h.Event)
		}
		if h.Event == "WorktreeCreate" || h.Event == "WorktreeRemove" {
			t.Errorf("%s is registered: its stdout would be taken as the worktree path", h.Event)
		}
	}
	if h, ok := Claude.Hook("PermissionRequest"); !ok || !h.Blocking || h.Timeout != ClaudePermissionTimeout {
		t.Errorf("Hook(PermissionRequest) = %+v, %v", h, ok)
	}
	if got := string(Claude.NoDecision("PermissionRequest")); got != "{}\n" {
		t.Errorf("NoDecision(PermissionRequest) = %q, want {}", got)
	}
	for _, ev := range []string{"PreCompact", "Stop", "PreToolUse"} {
		if got := Claude.NoDecision(ev); len(got) != 0 {
			t.Errorf("NoDecision(%s) = %q, want nothing", ev, got)
		}
	}
}

// TestClaudeDescribe: what a Claude permission request asks, as a person
// reads it: its kind, the summary of each tool's input, a question's
// options, the "always" rules offered, and a preview of a large input.
func TestClaudeDescribe(t *testing.T) {
	perm := func(tool string) Event {
		return Event{Agent: claudeID, Kind: KindPermissionRequest, ToolName: tool}
	}
	question := Event{Agent: claudeID, Kind: KindQuestion, ToolName: "AskUserQuestion"}
	cases := []struct {
		ev      Event
		payload string
		kind    RequestKind
		summary string
		options []string
	}{
		{perm("Bash"), `{"tool_input":{"description":"run tests","command":"go test ./..."}}`, RequestPermission, "go test ./...", nil},
		{perm("Edit"), `{"tool_input":{"file_path":"/src/main.go","old_string":"a","new_string":"b"}}`, RequestPermission, "/src/main.go", nil},
		{perm("Read"), `{"tool_input":{"file_path":"/etc/hosts"}}`, RequestPermission, "/etc/hosts", nil},
		{perm("NotebookEdit"), `{"tool_input":{"notebook_path":"/n.ipynb"}}`, RequestPermission, "/n.ipynb", nil},
		{perm("Grep"), `{"tool_input":{"path":"/src","pattern":"TODO"}}`, RequestPermission, "TODO", nil},
		{perm("WebFetch"), `{"tool_input":{"prompt":"summarize","url":"https://go.dev"}}`, RequestPermission, "https://go.dev", nil},
		{perm("WebSearch"), `{"tool_input":{"query":"go generics"}}`, RequestPermission, "go generics", nil},
		{perm("mcp__github__create_issue"), `{"tool_input":{"repo":"clawdhq/clawd"}}`, RequestPermission, "", nil},
		{perm("ExitPlanMode"), `{"tool_input":{"plan":"1. Add\n2. Test"}}`, RequestPlan, "1. Add\n2. Test", nil},
		{question, `{"tool_input":{"questions":[{"question":"Which color?","header":"Color","options":[{"label":"Red","description":"warm"},{"label":"Blue"}]}]}}`,
			RequestQuestion, "Which color?", []string{"Red", "Blue"}},
		{question, `{"tool_input":{"questions":[{"question":"A?","header":"First","options":[{"label":"x"}]},{"question":"B?","header":"Second","options":[{"label":"y"}]}]}}`,
			RequestQuestion, "A?", []string{"First: x", "Second: y"}},
	}
	for _, c := range cases {
		r := Claude.Describe(c.ev, []byte(c.payload), false)
		if r.Kind != c.kind || r.Summary != c.summary || !slices.Equal(r.Options, c.options) {
			t.Errorf("Describe(%s, %s) = kind %q, summary %q, options %q; want %q, %q, %q",
				c.ev.ToolName, c.payload, r.Kind, r.Summary, r.Options, c.kind, c.summary, c.options)
		}
	}

	elicitation := Event{Agent: claudeID, Kind: KindQuestion, ToolName: "github"}
	if r := Claude.Describe(elicitation, []byte(`{"message":"Pick a repository"}`), false); r.Kind != RequestQuestion || r.Message != "Pick a repository" {
		t.Errorf("Describe(elicitation) = %+v", r)
	}

	big := `{"tool_input":{"file_path":"/big","content":"` + strings.Repeat("x", MaxRequestInput) + `"}}`
	r := Claude.Describe(perm("Write"), []byte(big), false)
	if !r.InputTruncated || len(r.ToolInput) > MaxRequestInput+16 || r.Summary != "/big" {
		t.Errorf("Describe(large Write) = truncated %v, %d bytes of input, summary %q; want a preview and the file", r.InputTruncated, len(r.ToolInput), r.Summary)
	}
}

func TestClaudeSuggestionLabels(t *testing.T) {
	cases := []struct{ in, want string }{
		{`{"type":"setMode","mode":"acceptEdits","destination":"session"}`, "Auto-accept edits this session"},
		{`{"type":"setMode","mode":"acceptEdits","destination":"localSettings"}`, "Auto-accept edits"},
		{`{"type":"addRules","rules":[{"toolName":"Bash","ruleContent":"npm test"}],"behavior":"allow","destination":"localSettings"}`, "Always allow Bash(npm test)"},
		{`{"type":"addRules","rules":[{"toolName":"WebFetch"}],"behavior":"allow"}`, "Always allow WebFetch"},
		{`{"type":"addRules","rules":[{"toolName":"Bash"}],"behavior":"deny"}`, "Always deny Bash"},
		{`{"type":"addDirectories","directories":["/home/me/lib"],"destination":"session"}`, "Allow access to /home/me/lib"},
		{`{"type":"setMode","mode":"plan"}`, "Switch to plan mode"},
		{`{"type":"somethingNew"}`, "Apply somethingNew"},
		{`42`, "Apply suggestion"},
	}
	for _, c := range cases {
		if got := claudeSuggestionLabel(json.RawMessage(c.in)); got != c.want {
			t.Errorf("claudeSuggestionLabel(%s) = %q, want %q", c.in, got, c.want)
		}
	}
	payload := `{"tool_input":{"command":"ls"},"permission_suggestions":[` + cases[0].in + `,` + cases[2].in + `]}`
	r := Claude.Describe(Event{Agent: claudeID, Kind: KindPermissionRequest, ToolName: "Bash"}, []byte(payload), false)
	if len(r.Suggestions) != 2 || !slices.Equal(r.SuggestionLabels, []string{cases[0].want, cases[2].want}) {
		t.Errorf("Describe with suggestions = %d raw, labels %q", len(r.Suggestions), r.SuggestionLabels)
	}
}

// payloadField is the top-level string field name of a JSON payload.
func payloadField(p []byte, name string) string {
	var m map[string]any
	json.Unmarshal(p, &m)
	s, _ := m[name].(string)
	return s
}

// TestClaudeTitleLine reads transcript lines as Claude Code 2.1.328 wrote
// them: the named ones from a `claude -p --name "Shop refactor"` run, the
// generated one (ai-title) in the shape its code writes for an interactive
// session, which no offline -p run produces.
func TestClaudeTitleLine(t *testing.T) {
	const sid = "5e550000-0000-4000-8000-000000000042"
	tests := []struct {
		line         string
		title        string
		named, found bool
	}{
		{`{"type":"custom-title","customTitle":"Shop refactor","sessionId":"5e550000-0000-4000-8000-000000000042"}`, "Shop refactor", true, true},
		{`{"type":"agent-name","agentName":"Shop refactor","sessionId":"5e550000-0000-4000-8000-000000000042"}`, "Shop refactor", true, true},
		// A name the person gave holds for a session resumed or forked
		// from the one it was given in.
		{`{"type":"custom-title","customTitle":"Older name","sessionId":"5e550000-0000-4000-8000-000000000001"}`, "Older name", true, true},
		{`{"type":"ai-title","aiTitle":"Fix login redirect","sessionId":"5e550000-0000-4000-8000-000000000042"}`, "Fix login redirect", false, true},
		// A generated title of another session is not this one's.
		{`{"type":"ai-title","aiTitle":"Someone else's","sessionId":"5e550000-0000-4000-8000-000000000001"}`, "", false, false},
		{`{"type":"summary","summary":"Login bug hunt","leafUuid":"00000000-0000-4000-8000-000000000010"}`, "Login bug hunt", false, true},
		{`{"type":"last-prompt","lastPrompt":"fix the login bug please","leafUuid":"00000000-0000-4000-8000-000000000006","sessionId":"5e550000-0000-4000-8000-000000000042"}`, "", false, false},
		{`{"type":"queue-operation","operation":"enqueue","timestamp":"2026-12-01T13:27:17.913Z","sessionId":"5e550000-0000-4000-8000-000000000042","content":"fix the login bug please"}`, "", false, false},
		// A message whose text merely mentions the record type.
		{`{"parentUuid":null,"type":"user","message":{"role":"user","content":"{\"type\":\"custom-title\",\"customTitle\":\"x\"}"}}`, "", false, false},
		{`{"type":"custom-title","customTitle":42}`, "", false, false},
		{`{"type":"custom-title","customTitle":"cut`, "", false, false},
		{``, "", false, false},
	}
	for _, tt := range tests {
		title, named, found := Claude.TitleFile.Line([]byte(tt.line), sid)
		if title != tt.title || named != tt.named || found != tt.found {
			t.Errorf("TitleFile.Line(%s) = %q, %v, %v; want %q, %v, %v", tt.line, title, named, found, tt.title, tt.named, tt.found)
		}
	}
	e := decodeFixture(t, "SessionStart.json")
	if p := Claude.TitleFile.Path(&e); !strings.HasSuffix(p, ".jsonl") || !strings.HasPrefix(p, "/home/user/.claude/projects/") {
		t.Errorf("TitleFile.Path(SessionStart) = %q, want its transcript_path", p)
	}
}

// The questions of the captured AskUserQuestion
// (hooks/PermissionRequest.AskUserQuestion.json), as clawd reads them.
var capturedQuestions = []Question{
	{Header: "Database", Text: "Which database should we use?", Custom: true, Options: []QuestionOption{
		{"Postgres", "Relational, strong consistency"}, {"SQLite", "Embedded, zero setup"}, {"Redis", "In-memory key-value"}}},
	{Header: "Features", Text: "Which features do you want?", MultiSelect: true, Custom: true, Options: []QuestionOption{
		{"Auth", "Login and sessions"}, {"Search, full text", "A label with a comma"}, {"Export", "CSV export"}}},
	{Header: "Language", Text: "Which language?", Custom: true, Options: []QuestionOption{
		{"Go", "Compiled"}, {"Rust", "Also compiled"}}},
}

// describeFixture is what the hook makes of a captured PermissionRequest.
func describeFixture(t *testing.T, name string, cut bool) Request {
	t.Helper()
	return Claude.Describe(decodeFixture(t, name), readFixture(t, name), cut)
}

// TestClaudeDescribeQuestionsAndPlan reads the captured AskUserQuestion's
// questions whole (none from a cut payload: they could not be answered
// exactly) and ExitPlanMode's plan.
func TestClaudeDescribeQuestionsAndPlan(t *testing.T) {
	r := describeFixture(t, "PermissionRequest.AskUserQuestion.json", false)
	if r.Kind != RequestQuestion || !reflect.DeepEqual(r.Questions, capturedQuestions) {
		t.Errorf("Describe(AskUserQuestion) = kind %q, questions %+v; want %q, %+v", r.Kind, r.Questions, RequestQuestion, capturedQuestions)
	}
	if r := describeFixture(t, "PermissionRequest.AskUserQuestion.json", true); r.Questions != nil || !r.InputTruncated {
		t.Errorf("Describe(cut AskUserQuestion) = questions %+v, truncated %v; want none, truncated", r.Questions, r.InputTruncated)
	}
	r = describeFixture(t, "PermissionRequest.ExitPlanMode.json", false)
	if want := "# Plan\n\n1. Add a table.\n2. Write tests.\n"; r.Kind != RequestPlan || r.Plan != want || r.Questions != nil {
		t.Errorf("Describe(ExitPlanMode) = kind %q, plan %q, questions %v; want %q, %q, none", r.Kind, r.Plan, r.Questions, RequestPlan, want)
	}
}

// TestClaudeAnswer: the answers to the captured questions render as the
// hook output the e2e test proved with Claude Code 2.1.328
// (outputs/PermissionRequest.answer.json): the model read each answer.
func TestClaudeAnswer(t *testing.T) {
	req := describeFixture(t, "PermissionRequest.AskUserQuestion.json", false)
	d, err := Claude.Answer(req, []Answer{
		{Labels: []string{"SQLite"}},
		{Labels: []string{"Auth", "Search, full text"}, Text: "Audit log"},
		{Text: "Zig, maybe\n"},
	})
	if err != nil {
		t.Fatal(err)
	}
	got := Claude.Render("PermissionRequest", &d)
	want, err := os.ReadFile(filepath.Join(outputsDir, "PermissionRequest.answer.json"))
	if err != nil {
		t.Fatal(err)
	}
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("Render(answer) = %q: %v", got, err)
	}
	if err := json.Unmarshal(want, &w); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(g, w) || bytes.Count(got, []byte("\n")) != 1 {
		t.Errorf("Render(answer) = %s\nwant (one line) %s", got, want)
	}
	// The input is Claude's own but for the answers: questions and all.
	mine, own := gjson.GetBytes(d.UpdatedInput, "questions").Raw, gjson.GetBytes(req.ToolInput, "questions").Raw
	if compactLine(t, []byte(mine)) != compactLine(t, []byte(own)) {
		t.Errorf("updatedInput questions = %s, want the tool's own %s", mine, own)
	}
}

func TestClaudeAnswerText(t *testing.T) {
	single := Question{Text: "One?", Custom: true}
	multi := Question{Text: "Many?", MultiSelect: true, Custom: true}
	cases := []struct {
		q    Question
		a    Answer
		want string
	}{
		{single, Answer{Labels: []string{"SQLite"}}, "SQLite"},
		// One answer is never quoted, whatever it holds.
		{single, Answer{Labels: []string{`Say "hi", then go`}}, `Say "hi", then go`},
		{single, Answer{Text: "  my own  "}, "my own"},
		{single, Answer{}, ""},
		{multi, Answer{Labels: []string{"Auth", "Export"}}, "Auth, Export"},
		{multi, Answer{Labels: []string{"Red, green", `Say "hi"`, "Blue"}}, `"Red, green", "Say \"hi\"", Blue`},
		{multi, Answer{Labels: []string{"Auth"}, Text: "Audit, log"}, `Auth, "Audit, log"`},
		// A comma without a space is Claude's own label text.
		{multi, Answer{Labels: []string{"a,b", "c"}}, "a,b, c"},
	}
	for _, c := range cases {
		if got := claudeAnswerText(c.q, c.a); got != c.want {
			t.Errorf("claudeAnswerText(%s, %+v) = %s, want %s", c.q.Text, c.a, got, c.want)
		}
	}
	// As JSON.stringify quotes: control characters escaped, <, >, & and
	// U+2028 as they are.
	if got, want := jsQuote("a\"b\\c\n\t\x01<&>\u2028"), `"a\"b\\c\n\t\u0001<&>`+"\u2028"+`"`; got != want {
		t.Errorf("jsQuote = %s, want %s", got, want)
	}
}

func TestClaudeAnswerRefuses(t *testing.T) {
	req := describeFixture(t, "PermissionRequest.AskUserQuestion.json", false)
	three := func(a Answer) []Answer { return []Answer{a, {}, {}} }
	cut := describeFixture(t, "PermissionRequest.AskUserQuestion.json", true)
	plan := describeFixture(t, "PermissionRequest.ExitPlanMode.json", false)
	elicitation := Claude.Describe(Event{Agent: claudeID, Kind: KindQuestion, ToolName: "github"}, []byte(`{"message":"Pick"}`), false)
	cases := []struct {
		name    string
		req     Request
		answers []Answer
		want    error
	}{
		{"an option it does not have", req, three(Answer{Labels: []string{"MySQL"}}), ErrBadAnswer},
		{"two answers to one", req, three(Answer{Labels: []string{"SQLite", "Redis"}}), ErrBadAnswer},
		{"too few answers", req, []Answer{{Labels: []string{"SQLite"}}}, ErrBadAnswer},
		{"nothing answered", req, three(Answer{}), ErrBadAnswer},
		{"a cut input", cut, three(Answer{Labels: []string{"SQLite"}}), ErrCannotAnswer},
		{"a plan", plan, three(Answer{Labels: []string{"SQLite"}}), ErrCannotAnswer},
		{"an elicitation", elicitation, []Answer{{Text: "x"}}, ErrCannotAnswer},
	}
	for _, c := range cases {
		if d, err := Claude.Answer(c.req, c.answers); !errors.Is(err, c.want) {
			t.Errorf("Answer(%s) = %+v, %v; want %v", c.name, d, err, c.want)
		}
	}
}

// TestClaudeApprove: approving a plan is an allow with an empty
// updatedInput, which Claude Code 2.1.328 takes (a bare allow it leaves
// on the screen).
func TestClaudeApprove(t *testing.T) {
	d := Claude.Approve(describeFixture(t, "PermissionRequest.ExitPlanMode.json", false))
	want, err := os.ReadFile(filepath.Join(outputsDir, "PermissionRequest.approve-plan.json"))
	if err != nil {
		t.Fatal(err)
	}
	if got := Claude.Render("PermissionRequest", &d); compactLine(t, got) != compactLine(t, want) {
		t.Errorf("Render(Approve) = %s, want %s", got, want)
	}
}
