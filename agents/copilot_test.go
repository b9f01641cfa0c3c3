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
	copilotRunsDir    = "../testdata/copilot/sequences"
	copilotOutputsDir = "../testdata/copilot/outputs"
)

// copilotRuns returns the recorded runs in Copilot's native format, and
// those of its Claude-style PascalCase format apart.
func copilotRuns(t *testing.T) (native, pascal map[string][]recorded) {
	t.Helper()
	native, pascal = map[string][]recorded{}, map[string][]recorded{}
	for run, seq := range runsOf(t, copilotRunsDir) {
		if strings.Contains(run, "pascal") {
			pascal[run] = seq
		} else {
			native[run] = seq
		}
	}
	return native, pascal
}

func readCopilotOutput(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(copilotOutputsDir, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestDecodeCopilotRuns decodes every hook call Copilot CLI 1.0.102 made
// in the recorded runs of its native format (../shared/fixtures/copilot),
// each with its command-line event and environment.
func TestDecodeCopilotRuns(t *testing.T) {
	const (
		start  = KindPromptExpansion
		prompt = KindPromptSubmit
		pre    = KindToolStart
		perm   = KindPermissionRequest
		post   = KindToolEnd
		notif  = KindNotification
		stop   = KindTurnEnd
		fail   = KindTurnFailure
		end    = KindSessionEnd
	)
	native, _ := copilotRuns(t)
	// sessionStart comes with the first prompt and means the same,
	// thinking, without counting the turn again. It and
	// userPromptSubmitted come in either order.
	checkRunKinds(t, Copilot, native, map[string][]Kind{
		"interactive-permissionrequest-allow-after-5s":  {start, prompt, pre, perm, post, stop, end},
		"interactive-user-approves-dialog":              {start, prompt, pre, perm, notif, post, stop, end},
		"prompt-api-error-400":                          {start, prompt, fail, end},
		"prompt-camel-allow-all":                        {start, prompt, pre, perm, post, stop, end},
		"prompt-camel-no-allow-denied":                  {start, prompt, pre, perm, notif, stop, end},
		"prompt-permissionrequest-allow-flat":           {start, prompt, pre, perm, post, stop, end},
		"prompt-permissionrequest-claude-style-ignored": {start, prompt, pre, perm, notif, stop, end},
		"prompt-permissionrequest-deny-flat":            {prompt, start, pre, perm, stop, end},
		// The notification ran after agentStop, though Copilot stamped it
		// before: its hooks run side by side.
		"prompt-permissionrequest-timeout":          {start, prompt, pre, perm, stop, notif, end},
		"prompt-pretooluse-allow-without-allow-all": {start, prompt, pre, post, stop, end},
		"prompt-pretooluse-deny":                    {start, prompt, pre, stop, end},
		"prompt-pretooluse-exit2":                   {start, prompt, pre, stop, end},
		"prompt-pretooluse-timeout-fails-open":      {start, prompt, pre, perm, post, stop, end},
	})
}

// TestDecodeCopilotPascal: Copilot's Claude-style PascalCase hooks, which
// clawd does not install, are not taken for its own.
func TestDecodeCopilotPascal(t *testing.T) {
	_, pascal := copilotRuns(t)
	if len(pascal) != 3 {
		t.Fatalf("%d PascalCase runs recorded, want 3", len(pascal))
	}
	for run, seq := range pascal {
		for i, r := range seq {
			if _, err := Copilot.Decode(r.Stdin, r.Event, envOf(r.Env), now); !errors.Is(err, ErrUnknownEvent) {
				t.Errorf("%s call %d (%s): Decode error = %v, want ErrUnknownEvent", run, i, r.Event, err)
			}
		}
	}
}

// TestDecodeCopilotFields pins what one call of each event contributes.
// The projection leaves out what every event has (agent, time, cwd,
// project dir, pid, headless, input hash), which is checked on its own.
func TestDecodeCopilotFields(t *testing.T) {
	native, _ := copilotRuns(t)
	const (
		tui   = "interactive-user-approves-dialog"
		tuiID = "5212f4ca-69d3-43ef-bc91-3b4436fe0c41"
		errID = "db8931ae-7c20-4ba2-8aa1-a3bfa084ba72"
		title = "say hello using the shell"
	)
	tests := []struct {
		run  string
		i    int
		want Event
	}{
		{tui, 0, Event{Kind: KindPromptExpansion, SessionID: tuiID, Source: "new", Title: title, TitleSource: TitleFromPrompt}},
		{tui, 1, Event{Kind: KindPromptSubmit, SessionID: tuiID, Title: title, TitleSource: TitleFromPrompt}},
		{tui, 2, Event{Kind: KindToolStart, SessionID: tuiID, ToolName: "bash"}},
		{tui, 3, Event{Kind: KindPermissionRequest, SessionID: tuiID, ToolName: "bash"}},
		{tui, 4, Event{Kind: KindNotification, SessionID: tuiID, NotificationType: "permission_prompt", Notice: NoticeDialog}},
		{tui, 5, Event{Kind: KindToolEnd, SessionID: tuiID, ToolName: "bash"}},
		{tui, 6, Event{Kind: KindTurnEnd, SessionID: tuiID}},
		{tui, 7, Event{Kind: KindSessionEnd, SessionID: tuiID, Reason: "user_exit"}},
		{"prompt-api-error-400", 2, Event{Kind: KindTurnFailure, SessionID: errID, ErrorKind: "model_call",
			ErrorText: "fake upstream error for hook testing"}},
		{"prompt-api-error-400", 3, Event{Kind: KindSessionEnd, SessionID: errID, Reason: "error"}},
	}
	for _, tt := range tests {
		r := call(t, native, tt.run, tt.i)
		e, err := Copilot.Decode(r.Stdin, r.Event, envOf(r.Env), now)
		if err != nil {
			t.Errorf("%s call %d: Decode: %v", tt.run, tt.i, err)
			continue
		}
		if e.Agent != "copilot" || e.HookEvent != r.Event || e.Cwd != "/home/user/project" || e.ProjectDir != "/home/user/project" {
			t.Errorf("%s call %d = agent %q hook %q cwd %q project %q", tt.run, tt.i, e.Agent, e.HookEvent, e.Cwd, e.ProjectDir)
		}
		isTool := e.ToolName != ""
		if isTool != (e.InputHash != "") {
			t.Errorf("%s call %d: input hash = %q, want one exactly for tool events", tt.run, tt.i, e.InputHash)
		}
		checkAppendJSON(t, tt.run, e)
		got := e
		got.Agent, got.Time, got.HookEvent, got.Cwd, got.ProjectDir, got.AgentPID, got.Headless, got.InputHash =
			"", time.Time{}, "", "", "", 0, false, ""
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s call %d (%s) = %+v, want %+v", tt.run, tt.i, r.Event, got, tt.want)
		}
	}
}

// TestDecodeCopilotEnv: an interactive Copilot gives its hooks
// COPILOT_LOADER_PID (its own process, or the one supervising it), which
// copilot -p does not: that tells the TUI's sessions from headless ones,
// and is the agent's pid.
func TestDecodeCopilotEnv(t *testing.T) {
	native, _ := copilotRuns(t)
	sessions := 0
	for run, seq := range native {
		interactive := strings.HasPrefix(run, "interactive-")
		for i, r := range seq {
			e, err := Copilot.Decode(r.Stdin, r.Event, envOf(r.Env), now)
			if err != nil {
				t.Fatal(err)
			}
			if e.Headless == interactive || interactive != (e.AgentPID > 0) {
				t.Errorf("%s call %d: headless %v pid %d, want headless %v", run, i, e.Headless, e.AgentPID, !interactive)
			}
			if interactive && e.AgentPID != atoi(t, r.Env["COPILOT_LOADER_PID"]) {
				t.Errorf("%s call %d: pid %d, want COPILOT_LOADER_PID %s", run, i, e.AgentPID, r.Env["COPILOT_LOADER_PID"])
			}
			if e.PermissionMode != "" {
				t.Errorf("%s call %d: permission mode %q without COPILOT_ALLOW_ALL", run, i, e.PermissionMode)
			}
		}
		sessions++
	}
	if sessions != 13 {
		t.Errorf("%d native runs, want 13", sessions)
	}
	r := call(t, native, "interactive-user-approves-dialog", 3)
	for v, want := range map[string]string{"true": CopilotAllowAll, " Yes ": CopilotAllowAll, "1": CopilotAllowAll,
		"y": CopilotAllowAll, "ON": CopilotAllowAll, "false": "", "0": "", "": "", "maybe": ""} {
		env := map[string]string{"COPILOT_ALLOW_ALL": v, "COPILOT_LOADER_PID": "42"}
		e, err := Copilot.Decode(r.Stdin, r.Event, envOf(env), now)
		if err != nil || e.PermissionMode != want {
			t.Errorf("Decode(COPILOT_ALLOW_ALL=%q) permission mode = %q, %v; want %q", v, e.PermissionMode, err, want)
		}
	}
	if !slices.Contains(Copilot.BypassModes, CopilotAllowAll) {
		t.Errorf("Copilot.BypassModes = %v, want %q: Copilot asks its hook, then runs the call anyway", Copilot.BypassModes, CopilotAllowAll)
	}
}

// TestDecodeCopilotTime: Copilot's time stamps are epoch milliseconds.
func TestDecodeCopilotTime(t *testing.T) {
	for ts, want := range map[string]time.Time{
		"1777636798250":     time.Date(2026, 5, 1, 11, 59, 58, 250e6, time.UTC),
		"1796010082188":     now, // months off: the hook's clock
		"\"1777636798250\"": now,
		"-5":                now,
		"1e300":             now,
	} {
		payload := `{"sessionId":"s","timestamp":` + ts + `}`
		e, err := Copilot.Decode([]byte(payload), "agentStop", noEnv, now)
		if err != nil || !e.Time.Equal(want) || e.Time.Location() != time.UTC {
			t.Errorf("Decode(timestamp %s).Time = %v, %v; want %v UTC", ts, e.Time, err, want)
		}
	}
}

// TestCopilotPermissionRequestMatchesCall: Copilot's calls have no id, and
// its permissionRequest carries the shell command without the model's
// description; the request still fingerprints as its call's preToolUse
// and postToolUse.
func TestCopilotPermissionRequestMatchesCall(t *testing.T) {
	native, _ := copilotRuns(t)
	checked := 0
	for run, seq := range native {
		var pre, req Event
		for i, r := range seq {
			e, err := Copilot.Decode(r.Stdin, r.Event, noEnv, now)
			if err != nil {
				t.Fatal(err)
			}
			switch e.Kind {
			case KindToolStart:
				pre = e
			case KindPermissionRequest:
				req = e
				if e.InputHash == "" || e.InputHash != pre.InputHash {
					t.Errorf("%s call %d: request hash %q, preToolUse %q; want equal", run, i, e.InputHash, pre.InputHash)
				}
				checked++
			case KindToolEnd:
				if e.InputHash != pre.InputHash || req.Kind != "" && e.InputHash != req.InputHash {
					t.Errorf("%s call %d: postToolUse hash %q, preToolUse %q; want equal", run, i, e.InputHash, pre.InputHash)
				}
			}
		}
	}
	if checked != 9 {
		t.Errorf("checked %d requests against their call, want 9", checked)
	}
	if a, b := CopilotFingerprint("bash", []byte(`{"command":"touch a"}`)), CopilotFingerprint("bash", []byte(`{"command":"touch b"}`)); a == b {
		t.Errorf("CopilotFingerprint of two commands is the same: %s", a)
	}
	if a, b := CopilotFingerprint("view", []byte(`{"path":"/a"}`)), CopilotFingerprint("view", []byte(`{"path":"/b"}`)); a == b {
		t.Errorf("CopilotFingerprint of two inputs without a command is the same: %s", a)
	}
}

// TestCopilotRender checks the answers against the forms Copilot CLI
// 1.0.102 acted on: the flat allow ran the tool without
// --allow-all-tools, the flat deny told the model "Permission denied by a
// PermissionRequest hook: <message>"; the nested form was ignored.
func TestCopilotRender(t *testing.T) {
	allow := compactLine(t, readCopilotOutput(t, "permissionRequest.allow.json"))
	deny := compactLine(t, readCopilotOutput(t, "permissionRequest.deny.json"))
	ignored := compactLine(t, readCopilotOutput(t, "permissionRequest.claude-style.IGNORED.json"))
	denyDefault := strings.Replace(deny, "denied by test hook", "Denied from clawd", 1)
	cases := []struct {
		name  string
		event string
		d     *Decision
		want  string
	}{
		{"allow", "permissionRequest", &Decision{Allow: true}, allow},
		{"deny with the verified message", "permissionRequest", &Decision{Message: "denied by test hook"}, deny},
		{"deny without a message", "permissionRequest", &Decision{}, denyDefault},
		{"deny with a blank message", "permissionRequest", &Decision{Message: " "}, denyDefault},
		{"always allow", "permissionRequest", &Decision{Allow: true,
			UpdatedPermissions: []json.RawMessage{json.RawMessage(`{"type":"addRules"}`)}}, allow},
		{"deny and interrupt", "permissionRequest", &Decision{Message: "denied by test hook", Interrupt: true}, deny},
		{"no decision", "permissionRequest", nil, ""},
		// The Claude-style name is not Copilot's native event.
		{"PascalCase event", "PermissionRequest", &Decision{Allow: true}, ""},
		{"not a blocking event", "preToolUse", &Decision{Allow: true}, ""},
	}
	for _, c := range cases {
		got := string(Copilot.Render(c.event, c.d))
		if got != c.want {
			t.Errorf("Render(%s) = %q, want %q", c.name, got, c.want)
		}
		if got == ignored || strings.Contains(got, "hookSpecificOutput") {
			t.Errorf("Render(%s) = %q, the nested form Copilot ignores", c.name, got)
		}
	}
	got := Copilot.Render("permissionRequest", &Decision{Message: "no\n\"quotes\" <b>&"})
	var v struct{ Behavior, Message string }
	if err := json.Unmarshal(got, &v); err != nil || bytes.Count(got, []byte("\n")) != 1 ||
		v.Message != "no\n\"quotes\" <b>&" || v.Behavior != "deny" {
		t.Errorf("Render(deny with a message needing escapes) = %q, %v", got, err)
	}
}

// TestCopilotNoDecision: the hook prints nothing when it has no decision:
// Copilot then goes on as without it.
func TestCopilotNoDecision(t *testing.T) {
	for event := range copilotKinds() {
		if got := Copilot.NoDecision(event); len(got) != 0 {
			t.Errorf("NoDecision(%s) = %q, want nothing", event, got)
		}
	}
}

func TestCopilotRegistry(t *testing.T) {
	for _, name := range []string{"copilot", "Copilot", "copilot-cli", "github-copilot"} {
		if Lookup(name) != Copilot {
			t.Errorf("Lookup(%q) = %v, want Copilot", name, Lookup(name))
		}
	}
	if all := All(); !slices.Contains(all, Copilot) || !slices.Contains(all, Qwen) {
		t.Errorf("All() lacks Qwen or Copilot")
	}
	want := []string{"sessionStart", "userPromptSubmitted", "preToolUse", "permissionRequest", "postToolUse",
		"postToolUseFailure", "agentStop", "errorOccurred", "sessionEnd"}
	var got []string
	for _, h := range Copilot.Hooks {
		got = append(got, h.Event)
		if h.Blocking != (h.Event == "permissionRequest") {
			t.Errorf("Hook %s blocking = %v", h.Event, h.Blocking)
		}
		if k, ok := Copilot.Kinds()[h.Event]; !ok || !k.Valid() {
			t.Errorf("registered hook %s is not decoded: %v, %v", h.Event, k, ok)
		}
		if h.Timeout <= 0 {
			t.Errorf("Hook %s timeout %d", h.Event, h.Timeout)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("Copilot registers %v, want %v", got, want)
	}
	if got, w := Copilot.PermissionWait("permissionRequest"), 570*time.Second; got != w {
		t.Errorf("Copilot.PermissionWait(permissionRequest) = %v, want %v", got, w)
	}
	for _, tt := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"HOME": "/home/ann"}, "/home/ann/.copilot"},
		{map[string]string{"HOME": "/home/ann", "COPILOT_HOME": "/srv/copilot"}, "/srv/copilot"},
	} {
		if got, err := Copilot.ConfigDir(envOf(tt.env)); err != nil || got != filepath.FromSlash(tt.want) {
			t.Errorf("ConfigDir(%v) = %q, %v; want %q", tt.env, got, err, tt.want)
		}
	}
	if Copilot.Supports.Subagents || !Copilot.Supports.Permissions || !Copilot.Supports.States || !Copilot.Supports.Titles {
		t.Errorf("Copilot.Supports = %+v", Copilot.Supports)
	}
}

func TestCopilotDescribe(t *testing.T) {
	native, _ := copilotRuns(t)
	r := call(t, native, "prompt-camel-no-allow-denied", 3)
	e, err := Copilot.Decode(r.Stdin, r.Event, envOf(r.Env), now)
	if err != nil {
		t.Fatal(err)
	}
	req := Copilot.Describe(e, r.Stdin, false)
	if req.Kind != RequestPermission || req.Summary != "touch hooked.txt" || req.InputTruncated ||
		!jsonEqualBytes(req.ToolInput, []byte(`{"command":"touch hooked.txt"}`)) || len(req.Suggestions) != 0 {
		t.Errorf("Describe(permissionRequest) = %+v", req)
	}
	payload := []byte(`{"hookName":"permissionRequest","sessionId":"s","toolName":"create","toolInput":{"path":"/p/new.txt","file_text":"x"}}`)
	if e, err := Copilot.Decode(payload, "permissionRequest", noEnv, now); err != nil || Copilot.Describe(e, payload, false).Summary != "/p/new.txt" {
		t.Errorf("Describe(create) = %+v, %v", Copilot.Describe(e, payload, false), err)
	}
}

func TestDecodeCopilotErrors(t *testing.T) {
	tests := []struct {
		name    string
		payload string
		event   string
		want    error
	}{
		{"not JSON", `{"sessionId": "s", `, "agentStop", ErrNotJSON},
		{"no event anywhere", `{"sessionId":"s"}`, "", ErrUnknownEvent},
		{"unregistered event", `{"sessionId":"s"}`, "preCompact", ErrUnknownEvent},
		{"Claude-style name", `{"session_id":"s","hook_event_name":"Stop"}`, "Stop", ErrUnknownEvent},
		{"snake_case session id", `{"session_id":"s"}`, "agentStop", ErrNoSession},
		{"session id not a string", `{"sessionId":7}`, "agentStop", ErrNoSession},
	}
	for _, tt := range tests {
		if _, err := Copilot.Decode([]byte(tt.payload), tt.event, noEnv, now); !errors.Is(err, tt.want) {
			t.Errorf("Decode(%s) error = %v, want %v", tt.name, err, tt.want)
		}
	}
	// Without the command line's event: a permissionRequest names itself,
	// a notification carries Claude's name.
	for payload, want := range map[string]string{
		`{"hookName":"permissionRequest","sessionId":"s","toolName":"bash","toolInput":{"command":"ls"}}`: "permissionRequest",
		`{"sessionId":"s","hook_event_name":"Notification","notification_type":"permission_prompt"}`:      "notification",
	} {
		if e, err := Copilot.Decode([]byte(payload), "", noEnv, now); err != nil || e.HookEvent != want {
			t.Errorf("Decode(%s, no event) = %q, %v; want %s", payload, e.HookEvent, err, want)
		}
	}
	// A sessionStart without a prompt (a resume, where Copilot fires one)
	// is a session start.
	e, err := Copilot.Decode([]byte(`{"sessionId":"s","source":"resume"}`), "sessionStart", noEnv, now)
	if err != nil || e.Kind != KindSessionStart || e.Source != "resume" || e.Title != "" {
		t.Errorf("Decode(sessionStart without initialPrompt) = %+v, %v; want a session.start", e, err)
	}
	// A first prompt the title filter refuses still means "thinking".
	e, err = Copilot.Decode([]byte(`{"sessionId":"s","source":"new","initialPrompt":"use token sk-abcdef123456"}`), "sessionStart", noEnv, now)
	if err != nil || e.Kind != KindPromptExpansion || e.Title != "" {
		t.Errorf("Decode(sessionStart with a secret-like initialPrompt) = %+v, %v; want a prompt.expansion without a title", e, err)
	}
}

func TestDecodeCopilotTruncated(t *testing.T) {
	native, _ := copilotRuns(t)
	r := call(t, native, "interactive-user-approves-dialog", 5) // postToolUse
	full := string(r.Stdin)
	cut := full[:strings.Index(full, `"toolArgs":`)+len(`"toolArgs":{"command":"tou`)]
	e, err := Copilot.DecodeTruncated([]byte(cut), r.Event, envOf(r.Env), now)
	if err != nil {
		t.Fatal(err)
	}
	if e.SessionID != "5212f4ca-69d3-43ef-bc91-3b4436fe0c41" || e.Kind != KindToolEnd || e.ToolName != "bash" ||
		!e.Truncated || e.InputHash != "" || e.Headless {
		t.Errorf("Copilot.DecodeTruncated(cut in toolArgs) = %+v", e)
	}
	if _, err := Copilot.Decode([]byte(cut), r.Event, noEnv, now); !errors.Is(err, ErrNotJSON) {
		t.Errorf("Decode(cut payload) error = %v, want ErrNotJSON", err)
	}
}

// TestDecodeCopilotKeepsContentOut checks that no decoded event carries
// prompts (other than the derived title), tool input or output, or error
// texts other than a failed turn's reason.
func TestDecodeCopilotKeepsContentOut(t *testing.T) {
	native, _ := copilotRuns(t)
	checked := 0
	for _, seq := range native {
		for _, r := range seq {
			e, err := Copilot.Decode(r.Stdin, r.Event, envOf(r.Env), now)
			if err != nil {
				t.Fatal(err)
			}
			// A failed turn's reason is the one error text an event
			// carries on purpose: the person sees why the turn failed.
			if e.ErrorText != "" && e.Kind != KindTurnFailure {
				t.Errorf("%s carries ErrorText %q", e.HookEvent, e.ErrorText)
			}
			e.Title, e.ErrorText = "", ""
			out := marshal(t, e)
			var m map[string]any
			if err := json.Unmarshal(r.Stdin, &m); err != nil {
				t.Fatal(err)
			}
			for _, k := range []string{"prompt", "initialPrompt", "toolArgs", "toolInput", "toolResult", "error", "message"} {
				for _, s := range leaves(m[k]) {
					if len(s) < 4 || s == e.ToolName {
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
	if checked < 60 {
		t.Errorf("only %d content strings checked; the fixtures changed?", checked)
	}
}

// TestCopilotWorkspace: the hook's environment names the session's
// workspace.yaml, under $COPILOT_HOME or ~/.copilot; an id that is no
// folder's name names nothing.
func TestCopilotWorkspace(t *testing.T) {
	native, _ := copilotRuns(t)
	r := call(t, native, "interactive-user-approves-dialog", 0)
	id := jsonField(t, r.Stdin, "sessionId")
	for _, tt := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"HOME": "/home/user"}, "/home/user/.copilot/session-state/" + id + "/workspace.yaml"},
		{map[string]string{"HOME": "/home/user", "COPILOT_HOME": "/srv/cop"}, "/srv/cop/session-state/" + id + "/workspace.yaml"},
		{map[string]string{}, ""},
	} {
		e, err := Copilot.Decode(r.Stdin, r.Event, envOf(tt.env), now)
		if err != nil || e.Transcript != tt.want {
			t.Errorf("Decode with %v: transcript %q, %v; want %q", tt.env, e.Transcript, err, tt.want)
		}
	}
	for _, bad := range []string{"../../etc", "a/b", ".hidden", ""} {
		if got := copilotWorkspace(envOf(map[string]string{"HOME": "/home/user"}), bad); got != "" {
			t.Errorf("copilotWorkspace(%q) = %q, want none", bad, got)
		}
	}
}

// TestCopilotWorkspaceTitle reads workspace.yaml as Copilot CLI 1.0.102
// writes it: the names are those real runs wrote (`copilot -p --name`,
// `/rename` in the TUI, and the first prompts Copilot names sessions by
// itself offline), quoted as its yaml writer quotes them.
func TestCopilotWorkspaceTitle(t *testing.T) {
	const sid = "a5929913-eae9-4e0a-8dc9-6f7dc3ac4477"
	file := func(name, userNamed string) string {
		return "id: " + sid + "\ncwd: /home/user/project\nclient_name: github/cli\n" + name + userNamed +
			"summary_count: 0\nfork_count: 0\ncreated_at: 2026-12-01T15:10:02.116Z\nupdated_at: 2026-12-01T15:10:02.175Z\n"
	}
	tests := []struct {
		data         string
		title        string
		named, found bool
	}{
		{file("name: Shop refactor\n", "user_named: true\n"), "Shop refactor", true, true},
		// /rename New name in the TUI.
		{file("name: New name\n", "user_named: true\n"), "New name", true, true},
		// Copilot's own name offline: the first prompt, word for word.
		{file("name: fix the login redirect E2E_COPILOT_FIRST\n", "user_named: false\n"), "fix the login redirect E2E_COPILOT_FIRST", false, true},
		{file("name: Fix the login redirect\n", "user_named: false\n"), "Fix the login redirect", false, true},
		{file("name: "+strings.Repeat("word ", 60)+"end\n", "user_named: false\n"), strings.Repeat("word ", 60) + "end", false, true},
		{file(`name: 'Fix: the "login" bug''s # hash - and ''quotes'' ok'`+"\n", "user_named: false\n"), `Fix: the "login" bug's # hash - and 'quotes' ok`, false, true},
		{file("name: '''single first'\n", "user_named: false\n"), "'single first", false, true},
		{file("name: '123'\n", "user_named: false\n"), "123", false, true},
		{file("name: '#hash first'\n", "user_named: false\n"), "#hash first", false, true},
		{file(`name: "tab\there"`+"\n", "user_named: false\n"), "tab\there", false, true},
		{file(`name: back\slash path C:\x`+"\n", "user_named: false\n"), `back\slash path C:\x`, false, true},
		{file("name: Ünïcödé 日本語 prompt\n", "user_named: false\n"), "Ünïcödé 日本語 prompt", false, true},
		// A first prompt of several lines is the whole prompt, in a block
		// scalar: it says nothing, and the session keeps its first
		// prompt's first line rather than the rest of the prompt.
		{file("name: |-\n  first line of it\n  second line here\n", "user_named: false\n"), "", false, false},
		{file("name: Fix the login redirect\n", ""), "Fix the login redirect", false, true},
		{file(`name: "fix: the #1 bug \"now\""`+"\n", "user_named: true\n"), `fix: the #1 bug "now"`, true, true},
		{file("name: 'it''s done'\n", "user_named: true\n"), "it's done", true, true},
		{file("name: a plain name # a comment\n", "user_named: true\n"), "a plain name", true, true},
		// Folded onto the next line, as YAML allows (1.0.102 wrote 300
		// characters on one line).
		{file("name: a name long enough that the yaml package folds it onto the line after\n  this one\n", "user_named: true\n"),
			"a name long enough that the yaml package folds it onto the line after this one", true, true},
		// No name yet; a block scalar; another session's file.
		{file("", "user_named: false\n"), "", false, false},
		{file("name: |\n  x\n", "user_named: true\n"), "", false, false},
		{strings.Replace(file("name: Other\n", "user_named: true\n"), sid, "00000000-0000-4000-8000-000000000001", 1), "", false, false},
		{"", "", false, false},
		{"\x00\xff binary", "", false, false},
	}
	for _, tt := range tests {
		title, named, found := Copilot.TitleFile.Whole([]byte(tt.data), sid)
		if title != tt.title || named != tt.named || found != tt.found {
			t.Errorf("Copilot.TitleFile.Whole(%q) = %q, %v, %v; want %q, %v, %v", tt.data, title, named, found, tt.title, tt.named, tt.found)
		}
	}
}

// TestCopilotAskUser: Copilot CLI 1.0.102's ask_user fires only
// preToolUse (testdata/copilot/hooks), which clawd shows as the tool
// running; no hook of Copilot's can answer it.
func TestCopilotAskUser(t *testing.T) {
	_, e := decodeFile(t, Copilot, "../testdata/copilot/hooks/preToolUse.ask_user.json", "preToolUse")
	if e.Kind != KindToolStart || e.ToolName != "ask_user" || e.SessionID != "2f7ed7d5-06fb-4a17-ae15-c95fcacb4d17" {
		t.Errorf("Decode(preToolUse ask_user) = %+v, want tool.start ask_user of its session", e)
	}
	if Copilot.Answer != nil || Copilot.Supports.AnswersQuestions {
		t.Error("no hook of Copilot's answers ask_user: want no Answer")
	}
}
