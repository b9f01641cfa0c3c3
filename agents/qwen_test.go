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
	qwenRunsDir    = "../testdata/qwen/sequences"
	qwenOutputsDir = "../testdata/qwen/outputs"
)

func qwenRuns(t *testing.T) map[string][]recorded {
	t.Helper()
	return runsOf(t, qwenRunsDir)
}

func readQwenOutput(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(qwenOutputsDir, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestDecodeQwenRuns decodes every hook call Qwen Code 0.24.4 made in the
// recorded runs (../shared/fixtures/qwen), each with its command-line
// event and environment, into the kinds the state machine gets.
func TestDecodeQwenRuns(t *testing.T) {
	const (
		instr  = KindInstructionsLoad
		start  = KindSessionStart
		setup  = KindSetup
		prompt = KindPromptSubmit
		cont   = KindPromptContinue
		pre    = KindToolStart
		post   = KindToolEnd
		fail   = KindToolFailure
		batch  = KindToolBatch
		perm   = KindPermissionRequest
		notif  = KindNotification
		msg    = KindMessage
		stop   = KindTurnEnd
		stopf  = KindTurnFailure
		end    = KindSessionEnd
	)
	checkRunKinds(t, Qwen, qwenRuns(t), map[string][]Kind{
		// qwen -p: no SessionEnd; an API error fires neither Stop nor
		// StopFailure. auth_success is part of starting up.
		"headless-api-error-400":        {instr, start, setup, prompt},
		"headless-http-hooks":           {start, prompt, pre, post, cont, stop},
		"headless-pretooluse-deny-json": {instr, start, setup, prompt, pre, batch, cont, msg, stop},
		"headless-pretooluse-exit2":     {instr, start, setup, prompt, pre, batch, cont, msg, stop},
		"headless-yolo-shell":           {instr, start, setup, prompt, pre, post, batch, cont, msg, stop},
		"headless-yolo-tool-failure":    {instr, start, setup, prompt, pre, fail, batch, cont, msg, stop},
		// The TUI: /clear ends the session and starts another, /quit ends
		// that one.
		"interactive-api-error-400": {instr, start, prompt, stopf, notif, end, start, notif, end},
		// The permission request comes before the call's PreToolUse.
		"interactive-auto-mode-classifier-unavailable": {instr, start, prompt, perm, notif, pre, post, batch, cont, msg, stop, notif, end, start, notif, end},
		"interactive-default-permission-dialog":        {instr, start, prompt, perm, notif, pre, post, batch, cont, msg, stop, notif, end, start, notif, end},
		"interactive-permissionrequest-allow":          {instr, start, prompt, perm, pre, post, batch, cont, msg, msg, stop, notif, end, start, notif, end},
		"interactive-permissionrequest-deny":           {instr, start, prompt, perm, batch, cont, msg, stop, notif, start, end, notif, end},
	})
}

// qwenFixtureSID is the session of the recorded TUI run with the
// PermissionRequest hook answering allow.
const qwenFixtureSID = "c2989b2c-4176-4a41-a216-809828bed3cb"

// TestDecodeQwenFields pins what one call of each event and variant
// contributes. The projection leaves out what every event has (agent,
// time, cwd, project dir, pid, permission mode, input hash), which is
// checked on its own.
func TestDecodeQwenFields(t *testing.T) {
	runs := qwenRuns(t)
	const (
		allow  = "interactive-permissionrequest-allow"
		yolo   = "headless-yolo-shell"
		yoloID = "5c144e2f-6d65-4e8e-9c3b-c2c0eeb5deaa"
		tuiID  = qwenFixtureSID
		tuiID2 = "c1694035-943b-41a7-810f-322b05ae0421"
	)
	tests := []struct {
		run  string
		i    int
		want Event
	}{
		{yolo, 0, Event{Kind: KindInstructionsLoad, SessionID: yoloID}},
		{yolo, 1, Event{Kind: KindSessionStart, SessionID: yoloID, Source: "startup"}},
		{yolo, 2, Event{Kind: KindSetup, SessionID: yoloID, NotificationType: "auth_success"}},
		{yolo, 3, Event{Kind: KindPromptSubmit, SessionID: yoloID, Title: "say hello using the shell", TitleSource: TitleFromPrompt}},
		{yolo, 4, Event{Kind: KindToolStart, SessionID: yoloID, ToolName: "run_shell_command", ToolUseID: "toolu_1796008764962_ri9pqaxsb"}},
		{yolo, 5, Event{Kind: KindToolEnd, SessionID: yoloID, ToolName: "run_shell_command", ToolUseID: "toolu_1796008764962_ri9pqaxsb"}},
		{yolo, 6, Event{Kind: KindToolBatch, SessionID: yoloID, ToolUseIDs: []string{"call_fake_1"}}},
		// The tool's result goes back to the model: no title, no prompt.
		{yolo, 7, Event{Kind: KindPromptContinue, SessionID: yoloID}},
		{yolo, 8, Event{Kind: KindMessage, SessionID: yoloID}},
		{yolo, 9, Event{Kind: KindTurnEnd, SessionID: yoloID}},
		{"headless-yolo-tool-failure", 5, Event{Kind: KindToolFailure, SessionID: "8951f04b-7344-4870-acb6-4a96d4ebae65",
			ToolName: "read_file", ToolUseID: "toolu_1796009001207_na4ohhmsl"}},
		{"interactive-api-error-400", 3, Event{Kind: KindTurnFailure, SessionID: "ca72298d-afbc-4740-a22e-c51aca1fc6d6",
			ErrorKind: "invalid_request", ErrorText: "400 fake upstream error for hook testing"}},
		{allow, 3, Event{Kind: KindPermissionRequest, SessionID: tuiID, ToolName: "run_shell_command"}},
		{"interactive-default-permission-dialog", 4, Event{Kind: KindNotification, SessionID: "8a3edfce-e083-4dd7-948c-4a144aa59b1d",
			NotificationType: "permission_prompt", Notice: NoticeDialog}},
		{allow, 11, Event{Kind: KindNotification, SessionID: tuiID, NotificationType: "idle_prompt", Notice: NoticeIdle}},
		{allow, 12, Event{Kind: KindSessionEnd, SessionID: tuiID, Reason: "clear"}},
		{allow, 13, Event{Kind: KindSessionStart, SessionID: tuiID2, Source: "clear"}},
		{allow, 15, Event{Kind: KindSessionEnd, SessionID: tuiID2, Reason: "prompt_input_exit"}},
	}
	for _, tt := range tests {
		r := call(t, runs, tt.run, tt.i)
		e, err := Qwen.Decode(r.Stdin, r.Event, envOf(r.Env), now)
		if err != nil {
			t.Errorf("%s call %d: Decode: %v", tt.run, tt.i, err)
			continue
		}
		name := jsonField(t, r.Stdin, "hook_event_name")
		if e.Agent != "qwen" || !e.Time.Equal(now) || e.HookEvent != name || e.HookEvent != r.Event ||
			e.Cwd != "/home/user/project" || e.ProjectDir != "/home/user/project" {
			t.Errorf("%s call %d = agent %q time %v hook %q cwd %q project %q", tt.run, tt.i, e.Agent, e.Time, e.HookEvent, e.Cwd, e.ProjectDir)
		}
		isTool := e.ToolName != "" && e.Kind != KindToolBatch
		if isTool != (e.InputHash != "") {
			t.Errorf("%s call %d: input hash = %q, want one exactly for tool events", tt.run, tt.i, e.InputHash)
		}
		checkAppendJSON(t, tt.run, e)
		if want := "/home/user/.qwen/projects/-home-user-project/chats/" + e.SessionID + ".jsonl"; e.Transcript != want {
			t.Errorf("%s call %d: transcript = %q, want %q", tt.run, tt.i, e.Transcript, want)
		}
		got := e
		got.Agent, got.Time, got.HookEvent, got.Cwd, got.ProjectDir, got.AgentPID, got.PermissionMode, got.InputHash =
			"", time.Time{}, "", "", "", 0, "", ""
		got.Transcript = ""
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s call %d (%s) = %+v, want %+v", tt.run, tt.i, r.Event, got, tt.want)
		}
	}
}

// jsonField returns the string field name of a payload.
func jsonField(t *testing.T, payload []byte, name string) string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(payload, &m); err != nil {
		t.Fatal(err)
	}
	s, _ := m[name].(string)
	return s
}

// TestDecodeQwenEnv: the launcher's pid (it runs the session as its child)
// is the agent's pid, the project folder and the permission mode come
// along, and the session variable stands in for a payload without one.
func TestDecodeQwenEnv(t *testing.T) {
	runs := qwenRuns(t)
	for run, seq := range runs {
		for i, r := range seq {
			e, err := Qwen.Decode(r.Stdin, r.Event, envOf(r.Env), now)
			if err != nil {
				t.Fatal(err)
			}
			wantPID := 0
			if p := r.Env["QWEN_CODE_LAUNCHER_PID"]; p != "" {
				wantPID = atoi(t, p)
			}
			if e.AgentPID != wantPID || e.Headless {
				t.Errorf("%s call %d: pid %d headless %v, want pid %d, never headless", run, i, e.AgentPID, e.Headless, wantPID)
			}
			if mode := jsonField(t, r.Stdin, "permission_mode"); e.PermissionMode != mode {
				t.Errorf("%s call %d: permission mode %q, want %q", run, i, e.PermissionMode, mode)
			}
		}
	}
	// The HTTP-hook run has no environment: no pid.
	if e, _ := Qwen.Decode(call(t, runs, "headless-http-hooks", 0).Stdin, "", noEnv, now); e.AgentPID != 0 {
		t.Errorf("pid without QWEN_CODE_LAUNCHER_PID = %d, want 0", e.AgentPID)
	}
	e, err := Qwen.Decode([]byte(`{"hook_event_name":"Stop","cwd":"/p"}`), "Stop",
		envOf(map[string]string{"QWEN_CODE_SESSION_ID": "s-env", "QWEN_CODE_LAUNCHER_PID": "x12"}), now)
	if err != nil || e.SessionID != "s-env" || e.AgentPID != 0 {
		t.Errorf("Decode(no session_id, env QWEN_CODE_SESSION_ID) = %+v, %v; want session s-env, no pid", e, err)
	}
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	var n int
	if err := json.Unmarshal([]byte(s), &n); err != nil {
		t.Fatalf("not a number: %q", s)
	}
	return n
}

// TestDecodeQwenTime: Qwen's own ISO time stamp is the event's time when
// it is within a day of the hook's clock.
func TestDecodeQwenTime(t *testing.T) {
	stamp := func(ts string) []byte {
		return []byte(`{"session_id":"s","hook_event_name":"Stop","timestamp":"` + ts + `"}`)
	}
	for ts, want := range map[string]time.Time{
		"2026-05-01T11:59:58.250Z":      time.Date(2026, 5, 1, 11, 59, 58, 250e6, time.UTC),
		"2026-05-01T13:59:58.25+02:00":  time.Date(2026, 5, 1, 11, 59, 58, 250e6, time.UTC),
		"2026-11-30T03:21:52.214Z":      now, // months off: the hook's clock
		"yesterday":                     now,
		"2026-05-01T11:59:58.250Z junk": now,
	} {
		e, err := Qwen.Decode(stamp(ts), "", noEnv, now)
		if err != nil || !e.Time.Equal(want) || e.Time.Location() != time.UTC {
			t.Errorf("Decode(timestamp %q).Time = %v, %v; want %v UTC", ts, e.Time, err, want)
		}
	}
}

// TestDecodeQwenPrompts: a prompt the person sent is a turn and names the
// session; the empty one that takes the tool results back to the model is
// not.
func TestDecodeQwenPrompts(t *testing.T) {
	tests := []struct {
		fields string
		kind   Kind
		title  string
	}{
		{`"prompt":"fix the build","submitted_prompt":"fix the build"`, KindPromptSubmit, "fix the build"},
		// The submitted text names the session, not what Qwen made of it.
		{`"prompt":"fix @src/a.go\n<file contents>","submitted_prompt":"fix @src/a.go"`, KindPromptSubmit, "fix @src/a.go"},
		{`"prompt":"queued message"`, KindPromptSubmit, "queued message"},
		{`"prompt":""`, KindPromptContinue, ""},
		{`"prompt":"","submitted_prompt":""`, KindPromptSubmit, ""},
		{`"prompt":"my token is sk-abcdefghijkl","submitted_prompt":"my token is sk-abcdefghijkl"`, KindPromptSubmit, ""},
		// A subagent's prompt was written by the parent's model.
		{`"prompt":"look around","agent_id":"a1"`, KindPromptSubmit, ""},
		{`"prompt":"","agent_id":"a1"`, KindPromptContinue, ""},
	}
	for _, tt := range tests {
		payload := `{"session_id":"s","hook_event_name":"UserPromptSubmit",` + tt.fields + `}`
		e, err := Qwen.Decode([]byte(payload), "UserPromptSubmit", noEnv, now)
		if err != nil || e.Kind != tt.kind || e.Title != tt.title {
			t.Errorf("Decode(%s) = kind %s title %q, %v; want %s %q", tt.fields, e.Kind, e.Title, err, tt.kind, tt.title)
		}
		if e.Title == "" && e.TitleSource != "" || e.Title != "" && e.TitleSource != TitleFromPrompt {
			t.Errorf("Decode(%s) title source %q for title %q", tt.fields, e.TitleSource, e.Title)
		}
	}
}

// TestDecodeQwenSubagents decodes payloads of the shape Qwen Code 0.24.4's
// code builds for subagents (hookEventHandler: agent_id, agent_type,
// background_tasks), which the recorded runs do not have.
func TestDecodeQwenSubagents(t *testing.T) {
	tests := []struct {
		payload string
		want    Event
	}{
		{`{"session_id":"s","hook_event_name":"SubagentStart","agent_id":"a1","agent_type":"general-purpose"}`,
			Event{Kind: KindSubagentStart, SubagentID: "a1", SubagentType: "general-purpose"}},
		{`{"session_id":"s","hook_event_name":"SubagentStop","agent_id":"a1","agent_type":"general-purpose","background_tasks":[{"id":"a1","status":"running"},{"id":"b2","status":"running"},{"id":"c3","status":"done"}]}`,
			Event{Kind: KindSubagentStop, SubagentID: "a1", SubagentType: "general-purpose", BackgroundTasks: 1}},
		{`{"session_id":"s","hook_event_name":"PreToolUse","agent_id":"a1","tool_name":"read_file","tool_use_id":"toolu_1"}`,
			Event{Kind: KindToolStart, SubagentID: "a1", ToolName: "read_file", ToolUseID: "toolu_1"}},
		{`{"session_id":"s","hook_event_name":"PreCompact","trigger":"auto"}`, Event{Kind: KindCompactStart, Source: "auto"}},
		{`{"session_id":"s","hook_event_name":"PostCompact","trigger":"manual"}`, Event{Kind: KindCompactEnd, Source: "manual"}},
		{`{"session_id":"s","hook_event_name":"PermissionDenied","tool_name":"run_shell_command","tool_use_id":"toolu_2","reason":"classifier"}`,
			Event{Kind: KindPermissionDenied, ToolName: "run_shell_command", ToolUseID: "toolu_2"}},
		{`{"session_id":"s","hook_event_name":"PostToolUseFailure","tool_name":"run_shell_command","tool_use_id":"toolu_3","is_interrupt":true}`,
			Event{Kind: KindToolFailure, ToolName: "run_shell_command", ToolUseID: "toolu_3", Interrupt: true}},
		{`{"session_id":"s","hook_event_name":"PermissionRequest","tool_name":"ask_user_question","tool_input":{"questions":[]}}`,
			Event{Kind: KindQuestion, ToolName: "ask_user_question"}},
	}
	for _, tt := range tests {
		e, err := Qwen.Decode([]byte(tt.payload), "", noEnv, now)
		if err != nil {
			t.Errorf("Decode(%s): %v", tt.payload, err)
			continue
		}
		e.Agent, e.Time, e.HookEvent, e.InputHash, e.SessionID = "", time.Time{}, "", "", ""
		if !reflect.DeepEqual(e, tt.want) {
			t.Errorf("Decode(%s) = %+v, want %+v", tt.payload, e, tt.want)
		}
	}
}

// TestQwenPermissionRequestMatchesCall: Qwen's PermissionRequest has no
// tool_use_id and comes before the call's PreToolUse; it fingerprints its
// input as the PreToolUse and PostToolUse of the call do, so the call's
// start settles the request.
func TestQwenPermissionRequestMatchesCall(t *testing.T) {
	runs := qwenRuns(t)
	checked := 0
	for _, run := range []string{"interactive-permissionrequest-allow", "interactive-default-permission-dialog",
		"interactive-auto-mode-classifier-unavailable"} {
		var req Event
		for i, r := range runs[run] {
			e, err := Qwen.Decode(r.Stdin, r.Event, noEnv, now)
			if err != nil {
				t.Fatal(err)
			}
			switch e.Kind {
			case KindPermissionRequest:
				req = e
				if e.InputHash == "" || e.ToolUseID != "" {
					t.Errorf("%s call %d: request hash %q tool_use_id %q, want a hash and no id", run, i, e.InputHash, e.ToolUseID)
				}
			case KindToolStart, KindToolEnd:
				if req.InputHash == "" {
					t.Fatalf("%s call %d: %s before the PermissionRequest", run, i, e.HookEvent)
				}
				if e.InputHash != req.InputHash {
					t.Errorf("%s call %d: %s hash %q, request %q; want equal", run, i, e.HookEvent, e.InputHash, req.InputHash)
				}
				checked++
			}
		}
	}
	if checked != 6 {
		t.Errorf("checked %d calls against their request, want 6", checked)
	}
}

// TestQwenRender checks the answers against the forms Qwen Code 0.24.4
// acted on: allow ran the tool without a dialog, deny gave the model the
// message as the tool's result.
func TestQwenRender(t *testing.T) {
	allow := compactLine(t, readQwenOutput(t, "PermissionRequest.allow.json"))
	deny := compactLine(t, readQwenOutput(t, "PermissionRequest.deny.json"))
	denyDefault := strings.Replace(deny, "denied by test hook", "Denied from clawd", 1)
	cases := []struct {
		name  string
		event string
		d     *Decision
		want  string
	}{
		{"allow", "PermissionRequest", &Decision{Allow: true}, allow},
		{"deny with the verified message", "PermissionRequest", &Decision{Message: "denied by test hook"}, deny},
		{"deny without a message", "PermissionRequest", &Decision{}, denyDefault},
		{"deny with a blank message", "PermissionRequest", &Decision{Message: "\t "}, denyDefault},
		// Qwen has no "always" rules for hooks; interrupt it ignores.
		{"always allow", "PermissionRequest", &Decision{Allow: true,
			UpdatedPermissions: []json.RawMessage{json.RawMessage(`{"type":"addRules"}`)}}, allow},
		{"deny and interrupt", "PermissionRequest", &Decision{Message: "denied by test hook", Interrupt: true}, deny},
		{"no decision", "PermissionRequest", nil, ""},
		{"not a blocking event", "PreToolUse", &Decision{Allow: true}, ""},
		{"never a Stop block", "Stop", &Decision{Message: "go on"}, ""},
	}
	for _, c := range cases {
		if got := string(Qwen.Render(c.event, c.d)); got != c.want {
			t.Errorf("Render(%s) = %q, want %q", c.name, got, c.want)
		}
	}
	got := Qwen.Render("PermissionRequest", &Decision{Message: "no\n\"quotes\" <b>&"})
	var v struct {
		HookSpecificOutput struct {
			HookEventName string
			Decision      struct{ Behavior, Message string }
		}
	}
	if err := json.Unmarshal(got, &v); err != nil || bytes.Count(got, []byte("\n")) != 1 ||
		v.HookSpecificOutput.HookEventName != "PermissionRequest" ||
		v.HookSpecificOutput.Decision.Message != "no\n\"quotes\" <b>&" || v.HookSpecificOutput.Decision.Behavior != "deny" {
		t.Errorf("Render(deny with a message needing escapes) = %q, %v", got, err)
	}
}

// TestQwenNoDecision: the hook prints nothing when it has no decision,
// for every event: Qwen then shows its own dialog, and text a hook prints
// would go into the conversation.
func TestQwenNoDecision(t *testing.T) {
	for event := range qwenKinds() {
		if got := Qwen.NoDecision(event); len(got) != 0 {
			t.Errorf("NoDecision(%s) = %q, want nothing", event, got)
		}
	}
}

func TestQwenRegistry(t *testing.T) {
	for _, name := range []string{"qwen", "Qwen", "qwen-code", " QWEN_CODE "} {
		if Lookup(name) != Qwen {
			t.Errorf("Lookup(%q) = %v, want Qwen", name, Lookup(name))
		}
	}
	registered := map[string]bool{}
	for _, h := range Qwen.Hooks {
		registered[h.Event] = true
		// Qwen reads 1000 and more as milliseconds.
		if h.Timeout <= 0 || h.Timeout >= 1000 {
			t.Errorf("Hook %s timeout %d, want 1..999 seconds", h.Event, h.Timeout)
		}
		if h.Blocking != (h.Event == "PermissionRequest") {
			t.Errorf("Hook %s blocking = %v", h.Event, h.Blocking)
		}
		if k, ok := Qwen.Kinds()[h.Event]; !ok || !k.Valid() {
			t.Errorf("registered hook %s is not decoded: %v, %v", h.Event, k, ok)
		}
	}
	want := []string{"SessionStart", "SessionEnd", "UserPromptSubmit", "PermissionRequest", "PreToolUse",
		"PermissionDenied", "PostToolUse", "PostToolUseFailure", "PostToolBatch", "Notification", "SubagentStart",
		"SubagentStop", "Stop", "StopFailure", "PreCompact", "PostCompact"}
	for _, ev := range want {
		if !registered[ev] {
			t.Errorf("Qwen does not register %s", ev)
		}
	}
	if len(Qwen.Hooks) != len(want) {
		t.Errorf("Qwen registers %d hooks, want %d", len(Qwen.Hooks), len(want))
	}
	for _, ev := range []string{"MessageDisplay", "InstructionsLoaded"} {
		if registered[ev] {
			t.Errorf("Qwen registers %s, which changes no state", ev)
		}
	}
	if got, w := Qwen.PermissionWait("PermissionRequest"), 570*time.Second; got != w {
		t.Errorf("Qwen.PermissionWait(PermissionRequest) = %v, want %v", got, w)
	}
	if len(Qwen.BypassModes) != 0 {
		t.Errorf("Qwen.BypassModes = %v: Qwen fires PermissionRequest only when its dialog would show", Qwen.BypassModes)
	}
	for _, tt := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"HOME": "/home/ann"}, "/home/ann/.qwen"},
		{map[string]string{"HOME": "/home/ann", "QWEN_HOME": "/srv/qwen"}, "/srv/qwen"},
	} {
		if got, err := Qwen.ConfigDir(envOf(tt.env)); err != nil || got != filepath.FromSlash(tt.want) {
			t.Errorf("ConfigDir(%v) = %q, %v; want %q", tt.env, got, err, tt.want)
		}
	}
	if _, err := Qwen.ConfigDir(noEnv); err == nil || !strings.Contains(err.Error(), "QWEN_HOME") {
		t.Errorf("ConfigDir(no HOME) error = %v, want one naming QWEN_HOME", err)
	}
}

func TestQwenDescribe(t *testing.T) {
	runs := qwenRuns(t)
	r := call(t, runs, "interactive-permissionrequest-allow", 3)
	e, err := Qwen.Decode(r.Stdin, r.Event, noEnv, now)
	if err != nil {
		t.Fatal(err)
	}
	req := Qwen.Describe(e, r.Stdin, false)
	if req.Kind != RequestPermission || req.Summary != "touch hooked.txt" || req.InputTruncated ||
		!jsonEqualBytes(req.ToolInput, []byte(`{"command":"touch hooked.txt","description":"create a file"}`)) ||
		len(req.Suggestions) != 0 {
		t.Errorf("Describe(PermissionRequest) = %+v", req)
	}
	for _, tt := range []struct{ tool, input, summary string }{
		{"write_file", `{"file_path":"/p/a.txt","content":"x"}`, "/p/a.txt"},
		{"edit", `{"file_path":"/p/b.go","old_string":"a","new_string":"b"}`, "/p/b.go"},
		{"web_fetch", `{"url":"https://example.com","prompt":"read"}`, "https://example.com"},
		{"glob", `{"pattern":"**/*.go"}`, "**/*.go"},
		{"list_directory", `{"path":"/p"}`, "/p"},
		{"some_mcp_tool", `{"x":1}`, ""},
	} {
		payload := []byte(`{"session_id":"s","hook_event_name":"PermissionRequest","tool_name":"` + tt.tool + `","tool_input":` + tt.input + `}`)
		e, err := Qwen.Decode(payload, "", noEnv, now)
		if err != nil {
			t.Fatal(err)
		}
		if got := Qwen.Describe(e, payload, false).Summary; got != tt.summary {
			t.Errorf("Describe(%s %s).Summary = %q, want %q", tt.tool, tt.input, got, tt.summary)
		}
	}
}

func jsonEqualBytes(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

func TestDecodeQwenErrors(t *testing.T) {
	tests := []struct {
		name    string
		payload string
		event   string
		want    error
	}{
		{"not JSON", `{"session_id": "s", `, "", ErrNotJSON},
		{"array", `[{"session_id":"s","hook_event_name":"Stop"}]`, "", ErrNotJSON},
		{"unknown event", `{"session_id":"s","hook_event_name":"PreModelRequest"}`, "", ErrUnknownEvent},
		{"a session deleted from the history", `{"session_id":"s","hook_event_name":"SessionDelete"}`, "", ErrUnknownEvent},
		{"a Copilot event", `{"session_id":"s"}`, "preToolUse", ErrUnknownEvent},
		{"no session", `{"hook_event_name":"Stop"}`, "", ErrNoSession},
	}
	for _, tt := range tests {
		if _, err := Qwen.Decode([]byte(tt.payload), tt.event, noEnv, now); !errors.Is(err, tt.want) {
			t.Errorf("Decode(%s) error = %v, want %v", tt.name, err, tt.want)
		}
	}
	// The event on the command line stands in for a missing one.
	e, err := Qwen.Decode([]byte(`{"session_id":"s","reason":"clear"}`), "SessionEnd", noEnv, now)
	if err != nil || e.Kind != KindSessionEnd || e.Reason != "clear" {
		t.Errorf("Decode(no hook_event_name, arg SessionEnd) = %+v, %v", e, err)
	}
}

func TestDecodeQwenTruncated(t *testing.T) {
	r := call(t, qwenRuns(t), "interactive-permissionrequest-allow", 5) // PostToolUse
	full := string(r.Stdin)
	cut := full[:strings.Index(full, `"tool_input":`)+len(`"tool_input":{"command":"tou`)]
	e, err := Qwen.DecodeTruncated([]byte(cut), r.Event, envOf(r.Env), now)
	if err != nil {
		t.Fatal(err)
	}
	if e.SessionID != qwenFixtureSID || e.Kind != KindToolEnd || e.ToolName != "run_shell_command" || !e.Truncated ||
		e.InputHash != "" || e.ToolUseID != "" || e.AgentPID == 0 {
		t.Errorf("Qwen.DecodeTruncated(cut in tool_input) = %+v", e)
	}
	if _, err := Qwen.Decode([]byte(cut), r.Event, noEnv, now); !errors.Is(err, ErrNotJSON) {
		t.Errorf("Decode(cut payload) error = %v, want ErrNotJSON", err)
	}
	req := Qwen.Describe(Event{Kind: KindPermissionRequest}, []byte(cut), true)
	if !req.InputTruncated {
		t.Errorf("Describe(cut payload) = %+v, want a truncated preview", req)
	}
}

// TestDecodeQwenKeepsContentOut checks that no decoded event carries what
// people typed or tools saw: prompts (other than the derived title), tool
// input and output, assistant messages.
func TestDecodeQwenKeepsContentOut(t *testing.T) {
	checked := 0
	for _, seq := range qwenRuns(t) {
		for _, r := range seq {
			e, err := Qwen.Decode(r.Stdin, r.Event, envOf(r.Env), now)
			if err != nil {
				t.Fatal(err)
			}
			// A failed turn's reason is the one error text an event
			// carries on purpose: the person sees why the turn failed.
			if e.ErrorText != "" && (e.Kind != KindTurnFailure || e.ErrorText != payloadField(r.Stdin, "error_details")) {
				t.Errorf("%s carries ErrorText %q", e.HookEvent, e.ErrorText)
			}
			e.Title, e.ErrorText = "", ""
			out := marshal(t, e)
			var m map[string]any
			if err := json.Unmarshal(r.Stdin, &m); err != nil {
				t.Fatal(err)
			}
			meta := []string{e.Cwd, e.ToolName, e.ToolUseID, e.SessionID}
			for _, k := range []string{"prompt", "submitted_prompt", "tool_input", "tool_response", "tool_calls",
				"last_assistant_message", "displayed_text", "message", "error_details", "model"} {
				for _, s := range leaves(m[k]) {
					if slices.Contains(meta, s) || slices.Contains(e.ToolUseIDs, s) || len(s) < 4 {
						continue
					}
					checked++
					if strings.Contains(out, jsonText(t, s)) {
						t.Errorf("%s event carries %s text %q: %s", e.HookEvent, k, s, out)
					}
				}
			}
		}
	}
	if checked < 100 {
		t.Errorf("only %d content strings checked; the fixtures changed?", checked)
	}
}

// TestQwenTitleLine reads chat-file lines in the shape Qwen Code 0.24.4
// writes a session's title (ChatRecordingService.persistCustomTitle and
// SessionService.renameSession: the base record, then type, subtype and
// systemPayload): /rename's is the person's, a generated one the agent's.
func TestQwenTitleLine(t *testing.T) {
	const sid = "5c144e2f-6d65-4e8e-9c3b-c2c0eeb5deaa"
	rec := func(session, payload string) string {
		return `{"uuid":"0b6f3c1e-6a4e-4c57-9d7a-2f0e8f1b9a01","parentUuid":"7d1c2b3a-0000-4000-8000-000000000001","sessionId":"` + session +
			`","timestamp":"2026-12-01T14:50:00.000Z","type":"system","subtype":"custom_title","cwd":"/home/user/project","version":"0.24.4","systemPayload":` + payload + `}`
	}
	tests := []struct {
		line         string
		title        string
		named, found bool
	}{
		{rec(sid, `{"customTitle":"Shop refactor","titleSource":"manual"}`), "Shop refactor", true, true},
		{rec(sid, `{"customTitle":"Fix login redirect","titleSource":"auto"}`), "Fix login redirect", false, true},
		// Records written before titleSource existed: Qwen reads them as
		// manual.
		{rec(sid, `{"customTitle":"Old rename"}`), "Old rename", true, true},
		// A name the person gave holds for the session it was given in
		// and those resumed from it; a generated one of another session
		// is not this one's.
		{rec("c1694035-943b-41a7-810f-322b05ae0421", `{"customTitle":"Given before","titleSource":"manual"}`), "Given before", true, true},
		{rec("c1694035-943b-41a7-810f-322b05ae0421", `{"customTitle":"Someone else's","titleSource":"auto"}`), "", false, false},
		{rec(sid, `{"customTitle":42,"titleSource":"manual"}`), "", false, false},
		// Other system records, and a message whose text only mentions one.
		{`{"uuid":"1","sessionId":"` + sid + `","type":"system","subtype":"ui_telemetry","systemPayload":{"uiEvent":{}}}`, "", false, false},
		{`{"uuid":"2","sessionId":"` + sid + `","type":"user","message":{"role":"user","parts":[{"text":"{\"type\":\"system\",\"subtype\":\"custom_title\"}"}]}}`, "", false, false},
		{`{"uuid":"3","type":"user","subtype":"custom_title","systemPayload":{"customTitle":"not a system record"}}`, "", false, false},
		{rec(sid, `{"customTitle":"cut`)[:150], "", false, false},
		{``, "", false, false},
	}
	for _, tt := range tests {
		title, named, found := Qwen.TitleFile.Line([]byte(tt.line), sid)
		if title != tt.title || named != tt.named || found != tt.found {
			t.Errorf("Qwen.TitleFile.Line(%s) = %q, %v, %v; want %q, %v, %v", tt.line, title, named, found, tt.title, tt.named, tt.found)
		}
	}
}

// TestQwenQuestion: Qwen Code 0.24.4's ask_user_question comes as a
// PermissionRequest with Claude's question shape: a question request
// whose questions clawd shows; Qwen takes no answer from a hook (its
// dialog answers), so there is no Answer.
func TestQwenQuestion(t *testing.T) {
	payload, e := decodeFile(t, Qwen, "../testdata/qwen/hooks/PermissionRequest.ask_user_question.json", "PermissionRequest")
	if e.Kind != KindQuestion || e.ToolName != "ask_user_question" {
		t.Errorf("Decode(ask_user_question) = kind %v tool %q, want question.asked ask_user_question", e.Kind, e.ToolName)
	}
	r := Qwen.Describe(e, payload, false)
	want := []Question{{Header: "Database", Text: "Which database should we use?", Custom: true,
		Options: []QuestionOption{{"Postgres", "Relational"}, {"SQLite", "Embedded"}}}}
	if r.Kind != RequestQuestion || r.Summary != "Which database should we use?" || !reflect.DeepEqual(r.Questions, want) {
		t.Errorf("Describe(ask_user_question) = %+v, want a question request with %+v", r, want)
	}
	if Qwen.Answer != nil || Qwen.Supports.AnswersQuestions {
		t.Error("Qwen ignores a hook's answer to ask_user_question: want no Answer")
	}
}
