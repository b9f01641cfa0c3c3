package agents

import (
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
)

const (
	codexHooksDir   = "../testdata/codex/hooks"
	codexRepliesDir = "../testdata/codex/hook-replies"
)

func readCodexFixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(codexHooksDir, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func readCodexReply(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(codexRepliesDir, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// compactLine is a verified reply as the hook prints it: compact JSON,
// one line.
func compactLine(t *testing.T, b []byte) string {
	t.Helper()
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		t.Fatal(err)
	}
	return buf.String() + "\n"
}

func codexFixtures(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(codexHooksDir, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range files {
		names = append(names, filepath.Base(f))
	}
	if len(names) == 0 {
		t.Fatal("no Codex hook fixtures found")
	}
	return names
}

func readCodexSequence(t *testing.T, run string) []recorded {
	t.Helper()
	return readRecorded(t, filepath.Join(codexHooksDir, "sequence."+run+".jsonl"))
}

// The ids and rollout paths of the captured TUI session.
const (
	codexRoot     = "01a22a78-156e-7373-a74d-0cd4a178e045"
	codexSub      = "01a22a78-9664-7052-a91e-64ee877daddb"
	codexRollout  = "/home/user/.codex/sessions/2026/11/30/rollout-2026-11-30T03-20-42-" + codexRoot + ".jsonl"
	codexSubRoll  = "/home/user/.codex/sessions/2026/11/30/rollout-2026-11-30T03-21-15-" + codexSub + ".jsonl"
	codexResumeID = "01a22a75-9e05-75c3-ab35-53d76fa9c8e6"
	codexPatchID  = "01a22a71-feb4-7b53-84be-4b375daa5ab0"
)

// TestDecodeCodexFixtures decodes every captured payload and pins what it
// contributes. The projection leaves out what every event has (agent,
// time, cwd, permission mode, input hash), which is checked on its own.
func TestDecodeCodexFixtures(t *testing.T) {
	rollout := func(id, stamp string) string {
		return "/home/user/.codex/sessions/2026/11/30/rollout-2026-11-30T" + stamp + "-" + id + ".jsonl"
	}
	tests := map[string]Event{
		"SessionStart.json": {Kind: KindSessionStart, SessionID: codexRoot, Transcript: codexRollout, Source: "startup"},
		"SessionStart.resume.json": {Kind: KindSessionStart, SessionID: codexResumeID,
			Transcript: rollout(codexResumeID, "03-18-00"), Source: "resume"},
		"SessionStart.compact.json": {Kind: KindSessionStart, SessionID: codexRoot, Transcript: codexRollout, Source: "compact"},
		"UserPromptSubmit.json": {Kind: KindPromptSubmit, SessionID: codexRoot, Transcript: codexRollout,
			Title: "write hi to out.txt", TitleSource: TitleFromPrompt},
		// The sub-agent's prompt comes from the parent's model: no title.
		"UserPromptSubmit.subagent.json": {Kind: KindPromptSubmit, SessionID: codexRoot, Transcript: codexSubRoll,
			SubagentID: codexSub, SubagentType: "default"},
		"PreToolUse.json": {Kind: KindToolStart, SessionID: codexRoot, Transcript: codexRollout,
			ToolName: "Bash", ToolUseID: "call_fake_1"},
		"PreToolUse.apply_patch.json": {Kind: KindToolStart, SessionID: codexRoot, Transcript: codexRollout,
			ToolName: "apply_patch", ToolUseID: "call_fake_4"},
		"PreToolUse.spawn_agent.json": {Kind: KindToolStart, SessionID: codexRoot, Transcript: codexRollout,
			ToolName: "spawn_agent", ToolUseID: "call_fake_10"},
		"PreToolUse.wait_agent.json": {Kind: KindToolStart, SessionID: codexRoot, Transcript: codexRollout,
			ToolName: "multi_agent_v1wait_agent", ToolUseID: "call_fake_11"},
		// request_user_input's only hook (captured for the answers
		// research: Codex runs no PermissionRequest for it).
		"PreToolUse.request_user_input.json": {Kind: KindToolStart, SessionID: "01a23485-ea5d-7842-a557-9b981384387a",
			Transcript: "/home/user/.codex/sessions/2026/12/02/rollout-2026-12-02T02-12-01-01a23485-ea5d-7842-a557-9b981384387a.jsonl",
			ToolName:   "request_user_input", ToolUseID: "call_80bce2647bfb381917e89366"},
		"PreToolUse.subagent.json": {Kind: KindToolStart, SessionID: codexRoot, Transcript: codexSubRoll,
			ToolName: "Bash", ToolUseID: "call_fake_12", SubagentID: codexSub, SubagentType: "default"},
		"PermissionRequest.json": {Kind: KindPermissionRequest, SessionID: codexRoot, Transcript: codexRollout,
			ToolName: "Bash"},
		"PermissionRequest.apply_patch.json": {Kind: KindPermissionRequest, SessionID: codexPatchID,
			Transcript: rollout(codexPatchID, "03-14-03"), ToolName: "apply_patch"},
		"PostToolUse.json": {Kind: KindToolEnd, SessionID: codexRoot, Transcript: codexRollout,
			ToolName: "Bash", ToolUseID: "call_fake_1"},
		"PostToolUse.apply_patch.json": {Kind: KindToolEnd, SessionID: codexRoot, Transcript: codexRollout,
			ToolName: "apply_patch", ToolUseID: "call_fake_4"},
		"PostToolUse.spawn_agent.json": {Kind: KindToolEnd, SessionID: codexRoot, Transcript: codexRollout,
			ToolName: "spawn_agent", ToolUseID: "call_fake_10"},
		"PostToolUse.wait_agent.json": {Kind: KindToolEnd, SessionID: codexRoot, Transcript: codexRollout,
			ToolName: "multi_agent_v1wait_agent", ToolUseID: "call_fake_11"},
		"PostToolUse.subagent.json": {Kind: KindToolEnd, SessionID: codexRoot, Transcript: codexSubRoll,
			ToolName: "Bash", ToolUseID: "call_fake_12", SubagentID: codexSub, SubagentType: "default"},
		"PreCompact.json":  {Kind: KindCompactStart, SessionID: codexRoot, Transcript: codexRollout, Source: "manual"},
		"PostCompact.json": {Kind: KindCompactEnd, SessionID: codexRoot, Transcript: codexRollout, Source: "manual"},
		"Stop.json":        {Kind: KindTurnEnd, SessionID: codexRoot, Transcript: codexRollout},
		"Interrupt.json":   {Kind: KindTurnEnd, SessionID: codexRoot, Transcript: codexRollout, Reason: ReasonInterrupt},
		// SubagentStart's transcript_path is already the sub-agent's.
		"SubagentStart.json": {Kind: KindSubagentStart, SessionID: codexRoot, Transcript: codexSubRoll,
			SubagentID: codexSub, SubagentType: "default"},
		// SubagentStop's transcript_path is the parent's: the sub-agent's
		// own is agent_transcript_path.
		"SubagentStop.json": {Kind: KindSubagentStop, SessionID: codexRoot, Transcript: codexSubRoll,
			SubagentID: codexSub, SubagentType: "default"},
		"SessionEnd.json": {Kind: KindSessionEnd, SessionID: codexRoot, Transcript: codexRollout, Reason: "other"},
	}
	names := codexFixtures(t)
	for _, name := range names {
		want, ok := tests[name]
		if !ok {
			t.Errorf("fixture %s has no expected event", name)
			continue
		}
		e, err := Codex.Decode(readCodexFixture(t, name), "", noEnv, now)
		if err != nil {
			t.Errorf("Decode(%s) error: %v", name, err)
			continue
		}
		if e.Agent != "codex" || !e.Time.Equal(now) || e.HookEvent != strings.SplitN(name, ".", 2)[0] || e.Cwd != "/home/user/project" {
			t.Errorf("Decode(%s) = agent %q time %v hook %q cwd %q", name, e.Agent, e.Time, e.HookEvent, e.Cwd)
		}
		isTool := e.Kind == KindToolStart || e.Kind == KindToolEnd || e.Kind == KindPermissionRequest
		if isTool != (e.InputHash != "") {
			t.Errorf("Decode(%s) input hash = %q, want one exactly for tool events", name, e.InputHash)
		}
		if err := e.Validate(); err != nil {
			t.Errorf("Decode(%s).Validate() = %v", name, err)
		}
		got := e
		got.Agent, got.Time, got.HookEvent, got.Cwd, got.PermissionMode, got.InputHash = "", time.Time{}, "", "", "", ""
		got.TurnID, got.Response = "", "" // TestDecodeTurnAndResponse
		if !reflect.DeepEqual(got, want) {
			t.Errorf("Decode(%s) = %+v, want %+v", name, got, want)
		}
		checkAppendJSON(t, name, e)
	}
	for name := range tests {
		if !slices.Contains(names, name) {
			t.Errorf("the table lists %s, which is not a fixture", name)
		}
	}
}

func TestDecodeCodexPermissionMode(t *testing.T) {
	for name, want := range map[string]string{
		"PreToolUse.json":          "default",
		"SessionStart.resume.json": "bypassPermissions", // codex exec resume
		"PreCompact.json":          "",                  // not sent
	} {
		e, err := Codex.Decode(readCodexFixture(t, name), "", noEnv, now)
		if err != nil || e.PermissionMode != want {
			t.Errorf("Decode(%s) permission mode = %q, %v, want %q", name, e.PermissionMode, err, want)
		}
	}
}

// TestCodexSequencesDecode decodes every hook call of the recorded runs:
// the event name on the command line (what the installer writes) agrees
// with the payload's, and the sub-agent's calls are the root session's.
func TestCodexSequencesDecode(t *testing.T) {
	for _, run := range []string{"tui-session", "exec"} {
		seq := readCodexSequence(t, run)
		sessions := map[string]bool{}
		for i, r := range seq {
			e, err := Codex.Decode(r.Stdin, r.Event, noEnv, now)
			if err != nil {
				t.Fatalf("%s event %d (%s): %v", run, i, r.Event, err)
			}
			if e.HookEvent != r.Event {
				t.Errorf("%s event %d decoded as %s, recorded as %s", run, i, e.HookEvent, r.Event)
			}
			if err := e.Validate(); err != nil {
				t.Errorf("%s event %d: Validate() = %v", run, i, err)
			}
			sessions[e.SessionID] = true
		}
		if len(sessions) != 1 {
			t.Errorf("%s: %d session ids, want 1 (sub-agents report the root session)", run, len(sessions))
		}
	}
}

// TestCodexPermissionRequestMatchesPreToolUse checks the premise of pending
// matching: a PermissionRequest (no tool_use_id, and the justification
// added to its input) fingerprints its input the same as the PreToolUse
// that announced the call and the PostToolUse that ended it.
func TestCodexPermissionRequestMatchesPreToolUse(t *testing.T) {
	checkRequestPairs(t, Codex, readCodexSequence(t, "tui-session"), true)
}

func TestCodexFingerprint(t *testing.T) {
	base := CodexFingerprint("Bash", []byte(`{"command":"echo hi > out.txt"}`))
	same := []string{
		`{"command": "echo hi > out.txt", "description": "Need to write out.txt"}`,
		`{"description":"other words","command":"echo hi > out.txt"}`,
		`{"command":"echo hi \u003e out.txt\n"}`,
		"{\n  \"command\": \"  echo hi > out.txt\"\n}",
	}
	for _, in := range same {
		if got := CodexFingerprint("Bash", []byte(in)); got != base {
			t.Errorf("CodexFingerprint(Bash, %s) = %s, want %s (the same call)", in, got, base)
		}
	}
	different := []struct {
		tool, in string
	}{
		{"Bash", `{"command":"echo hi > out2.txt"}`},
		{"apply_patch", `{"command":"echo hi > out.txt"}`},
		{"Bash", `{"command":["echo","hi"]}`},
		{"spawn_agent", `{"message":"write sub to sub.txt"}`},
	}
	for _, d := range different {
		if got := CodexFingerprint(d.tool, []byte(d.in)); got == base {
			t.Errorf("CodexFingerprint(%s, %s) = %s, the hash of another call", d.tool, d.in, got)
		}
	}
	// Inputs without a string command are hashed whole.
	a := CodexFingerprint("multi_agent_v1wait_agent", []byte(`{"targets":["a"],"timeout_ms":30000}`))
	b := CodexFingerprint("multi_agent_v1wait_agent", []byte(`{"targets":["b"],"timeout_ms":30000}`))
	if a == b || a != Fingerprint("codex", "multi_agent_v1wait_agent", []byte(`{"targets": ["a"], "timeout_ms": 30000}`)) {
		t.Errorf("CodexFingerprint of whole inputs: %s, %s", a, b)
	}
}

func TestCodexRender(t *testing.T) {
	allow := compactLine(t, readCodexReply(t, "PermissionRequest.allow.json"))
	deny := compactLine(t, readCodexReply(t, "PermissionRequest.deny.json"))
	noop := string(readCodexReply(t, "noop.json"))
	cases := []struct {
		name  string
		event string
		d     *Decision
		want  string
	}{
		{"allow", "PermissionRequest", &Decision{Allow: true}, allow},
		{"deny with the verified message", "PermissionRequest", &Decision{Message: "Denied from clawd"}, deny},
		// The model is always told something: Rejected("") says nothing.
		{"deny without a message", "PermissionRequest", &Decision{}, deny},
		{"deny with a blank message", "PermissionRequest", &Decision{Message: " \n"}, deny},
		// Codex fails the hook on updatedPermissions: "always" is a
		// plain allow.
		{"always allow", "PermissionRequest", &Decision{Allow: true,
			UpdatedPermissions: []json.RawMessage{json.RawMessage(`{"type":"addRules"}`)}}, allow},
		// ... and on interrupt: a plain deny.
		{"deny and interrupt", "PermissionRequest", &Decision{Message: "Denied from clawd", Interrupt: true}, deny},
		{"no decision", "PermissionRequest", nil, noop},
		{"not a blocking event", "PreToolUse", &Decision{Allow: true}, noop},
		{"never a Stop block", "Stop", &Decision{Message: "go on"}, noop},
	}
	for _, c := range cases {
		if got := string(Codex.Render(c.event, c.d)); got != c.want {
			t.Errorf("Render(%s) = %q, want %q", c.name, got, c.want)
		}
	}
	// A message of any text stays one line of valid JSON.
	got := Codex.Render("PermissionRequest", &Decision{Message: "no\n\"quotes\" <b>&"})
	var v struct {
		HookSpecificOutput struct {
			Decision struct{ Behavior, Message string }
		}
	}
	if err := json.Unmarshal(got, &v); err != nil || bytes.Count(got, []byte("\n")) != 1 ||
		v.HookSpecificOutput.Decision.Message != "no\n\"quotes\" <b>&" || v.HookSpecificOutput.Decision.Behavior != "deny" {
		t.Errorf("Render(deny with a message needing escapes) = %q, %v", got, err)
	}
}

// TestCodexNoDecision checks the no-decision answer of every event against
// the verified no-op, and that no answer the hook can print is one Codex
// rejects or loops on.
func TestCodexNoDecision(t *testing.T) {
	noop := readCodexReply(t, "noop.json")
	rejected := []string{
		compactLine(t, readCodexReply(t, "PreToolUse.allow.UNSUPPORTED.json")),
		compactLine(t, readCodexReply(t, "PermissionRequest.updatedInput.UNSUPPORTED.json")),
		compactLine(t, readCodexReply(t, "Stop.block.LOOPS.json")),
	}
	for _, h := range Codex.Hooks {
		if got := Codex.NoDecision(h.Event); !bytes.Equal(got, noop) {
			t.Errorf("NoDecision(%s) = %q, want %q", h.Event, got, noop)
		}
		for _, d := range []*Decision{nil, {Allow: true}, {}, {Allow: true, UpdatedPermissions: []json.RawMessage{json.RawMessage(`{"type":"addRules"}`)}}} {
			out := string(Codex.Render(h.Event, d))
			for _, bad := range []string{"updatedInput", "updatedPermissions", "interrupt", "block", "permissionDecision"} {
				if strings.Contains(out, bad) {
					t.Errorf("Render(%s, %+v) = %q, which Codex rejects (%s)", h.Event, d, out, bad)
				}
			}
			if slices.Contains(rejected, out) {
				t.Errorf("Render(%s, %+v) = %q, an answer Codex rejects", h.Event, d, out)
			}
		}
	}
}

func TestCodexRegistry(t *testing.T) {
	for _, name := range []string{"codex", "Codex", " CODEX "} {
		if Lookup(name) != Codex {
			t.Errorf("Lookup(%q) = %v, want Codex", name, Lookup(name))
		}
	}
	if all := All(); len(all) < 2 || all[0] != Claude || all[1] != Codex {
		t.Errorf("All() does not list Codex right after Claude")
	}
	want := map[string]int{
		"SessionStart": 10, "UserPromptSubmit": 10, "PreToolUse": 10, "PermissionRequest": 600,
		"PostToolUse": 10, "PreCompact": 10, "PostCompact": 10, "Stop": 10, "SubagentStart": 10,
		"SubagentStop": 10, "SessionEnd": 3, "Interrupt": 3,
	}
	if len(Codex.Hooks) != len(want) {
		t.Errorf("Codex registers %d hooks, want %d", len(Codex.Hooks), len(want))
	}
	for _, h := range Codex.Hooks {
		if timeout, ok := want[h.Event]; !ok || h.Timeout != timeout {
			t.Errorf("Hook %s timeout %d, want %d (registered: %v)", h.Event, h.Timeout, timeout, ok)
		}
		if h.Blocking != (h.Event == "PermissionRequest") {
			t.Errorf("Hook %s blocking = %v", h.Event, h.Blocking)
		}
		if k, ok := Codex.Kinds()[h.Event]; !ok || !k.Valid() {
			t.Errorf("registered hook %s is not decoded: %v, %v", h.Event, k, ok)
		}
	}
	if got, w := Codex.PermissionWait("PermissionRequest"), 570*time.Second; got != w {
		t.Errorf("Codex.PermissionWait(PermissionRequest) = %v, want %v", got, w)
	}
	// The installer writes what Codex accepted: the same events and
	// timeouts as the verified hooks.json.
	b, err := os.ReadFile("../testdata/codex/config/hooks.json")
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		Hooks map[string][]struct {
			Hooks []struct {
				Command string
				Timeout int
			}
		}
	}
	if err := json.Unmarshal(b, &cfg); err != nil {
		t.Fatal(err)
	}
	for event, groups := range cfg.Hooks {
		h, ok := Codex.Hook(event)
		if !ok || len(groups) != 1 || len(groups[0].Hooks) != 1 || groups[0].Hooks[0].Timeout != h.Timeout ||
			groups[0].Hooks[0].Command != "clawd hook codex "+event {
			t.Errorf("verified hooks.json has %s %+v, registry %+v, %v", event, groups, h, ok)
		}
	}
}

func TestDecodeCodexErrors(t *testing.T) {
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
		{"unknown event", `{"session_id":"s","hook_event_name":"PreModelRequest"}`, "", nil, ErrUnknownEvent},
		{"a Claude-only event", `{"session_id":"s","hook_event_name":"Notification"}`, "", nil, ErrUnknownEvent},
		{"no event at all", `{"session_id":"s"}`, "", nil, ErrUnknownEvent},
		{"no session", `{"hook_event_name":"Stop"}`, "", nil, ErrNoSession},
		// Claude's session variable is not Codex's.
		{"no session, Claude's env", `{"hook_event_name":"Stop"}`, "", map[string]string{"CLAUDE_CODE_SESSION_ID": "x"}, ErrNoSession},
		{"session id not a string", `{"session_id":42,"hook_event_name":"Stop"}`, "", nil, ErrNoSession},
	}
	for _, tt := range tests {
		_, err := Codex.Decode([]byte(tt.payload), tt.event, envOf(tt.env), now)
		if !errors.Is(err, tt.want) {
			t.Errorf("Decode(%s) error = %v, want %v", tt.name, err, tt.want)
		}
	}
	// The event name on the command line stands in for a missing one.
	e, err := Codex.Decode([]byte(`{"session_id":"s","transcript_path":null}`), "Interrupt", noEnv, now)
	if err != nil || e.Kind != KindTurnEnd || e.HookEvent != "Interrupt" || e.Reason != ReasonInterrupt || e.Transcript != "" {
		t.Errorf("Decode(no hook_event_name, arg Interrupt) = %+v, %v; want an interrupted turn.end", e, err)
	}
}

func TestDecodeCodexTruncated(t *testing.T) {
	var m map[string]any
	raw := readCodexFixture(t, "PostToolUse.subagent.json")
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	// Codex's field order (the fixture's): tool_use_id comes last.
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		t.Fatal(err)
	}
	full := buf.String()
	cut := full[:strings.Index(full, `"tool_input":`)+len(`"tool_input":{"command":"echo`)]
	e, err := Codex.DecodeTruncated([]byte(cut), "PostToolUse", noEnv, now)
	if err != nil {
		t.Fatal(err)
	}
	if e.SessionID != codexRoot || e.Kind != KindToolEnd || e.ToolName != "Bash" || e.SubagentID != codexSub ||
		e.Transcript != codexSubRoll || !e.Truncated || e.InputHash != "" || e.ToolUseID != "" {
		t.Errorf("Codex.DecodeTruncated(cut in tool_input) = %+v", e)
	}
	if _, err := Codex.Decode([]byte(cut), "PostToolUse", noEnv, now); !errors.Is(err, ErrNotJSON) {
		t.Errorf("Decode(cut payload) error = %v, want ErrNotJSON", err)
	}
}

// TestDecodeCodexKeepsContentOut checks that no decoded event carries what
// people typed or tools saw: prompts (other than the derived title), tool
// input and output, assistant messages.
func TestDecodeCodexKeepsContentOut(t *testing.T) {
	var payloads [][]byte
	for _, name := range codexFixtures(t) {
		payloads = append(payloads, readCodexFixture(t, name))
	}
	for _, run := range []string{"tui-session", "exec"} {
		for _, r := range readCodexSequence(t, run) {
			payloads = append(payloads, r.Stdin)
		}
	}
	checked := 0
	for _, p := range payloads {
		e, err := Codex.Decode(p, "", noEnv, now)
		if err != nil {
			t.Fatal(err)
		}
		// A turn's final answer rides in Response for automations only
		// (see TestDecodeClaudeKeepsContentOut).
		if e.Response != "" && (e.Kind != KindTurnEnd || e.Response != payloadField(p, "last_assistant_message")) {
			t.Errorf("%s carries Response %q", e.HookEvent, e.Response)
		}
		e.Title, e.Response = "", ""
		out := marshal(t, e)
		var m map[string]any
		if err := json.Unmarshal(p, &m); err != nil {
			t.Fatal(err)
		}
		meta := []string{e.Cwd, e.ToolName, e.ToolUseID, e.SessionID, e.SubagentID, e.Transcript}
		for _, k := range []string{"prompt", "tool_input", "tool_response", "last_assistant_message", "model"} {
			for _, s := range leaves(m[k]) {
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
	if checked < 50 {
		t.Errorf("only %d content strings checked; the fixtures changed?", checked)
	}
}

// TestDecodeTurnAndResponse: every Claude and Codex event names its turn
// (Claude's prompt_id, Codex's turn_id), and a top-level turn's end
// carries the final answer for automations; nothing else does.
func TestDecodeTurnAndResponse(t *testing.T) {
	for _, c := range []struct {
		a       *Agent
		read    func(*testing.T, string) []byte
		file    string
		turnKey string
	}{
		{Claude, readFixture, "UserPromptSubmit.json", "prompt_id"},
		{Claude, readFixture, "PreToolUse.json", "prompt_id"},
		{Claude, readFixture, "Stop.json", "prompt_id"},
		{Codex, readCodexFixture, "UserPromptSubmit.json", "turn_id"},
		{Codex, readCodexFixture, "Stop.json", "turn_id"},
		{Codex, readCodexFixture, "Interrupt.json", "turn_id"},
	} {
		p := c.read(t, c.file)
		e, err := c.a.Decode(p, "", noEnv, now)
		if err != nil {
			t.Fatal(err)
		}
		if want := payloadField(p, c.turnKey); want == "" || e.TurnID != want {
			t.Errorf("%s %s: TurnID %q, want %s %q", c.a.ID, c.file, e.TurnID, c.turnKey, want)
		}
		want := ""
		if e.Kind == KindTurnEnd && e.HookEvent == "Stop" {
			want = payloadField(p, "last_assistant_message")
		}
		if e.Response != want {
			t.Errorf("%s %s: Response %q, want %q", c.a.ID, c.file, e.Response, want)
		}
	}
}
