package agents

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// geminiDir holds the payloads captured from the real Gemini CLI 0.61.0:
// one folder per scenario, NN-<Event>.json in firing order, and env.json,
// the GEMINI_* variables each hook process saw.
const geminiDir = "../testdata/gemini"

// geminiCall is one captured hook call.
type geminiCall struct {
	file  string // scenario/NN-Event.json
	event string // from the file name, as the command line names it
	stdin []byte
	env   map[string]string
}

func (c geminiCall) getenv(k string) string { return c.env[k] }

// geminiScenarios lists the scenario folders.
func geminiScenarios(t *testing.T) []string {
	t.Helper()
	entries, err := os.ReadDir(geminiDir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if e.IsDir() {
			out = append(out, e.Name())
		}
	}
	if len(out) < 9 {
		t.Fatalf("found %d Gemini scenarios in %s, want the 9 captured ones", len(out), geminiDir)
	}
	return out
}

// readGeminiScenario returns a scenario's hook calls in firing order.
func readGeminiScenario(t *testing.T, scenario string) []geminiCall {
	t.Helper()
	dir := filepath.Join(geminiDir, scenario)
	envs := map[string]map[string]any{}
	b, err := os.ReadFile(filepath.Join(dir, "env.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &envs); err != nil {
		t.Fatalf("%s/env.json: %v", scenario, err)
	}
	files, err := filepath.Glob(filepath.Join(dir, "[0-9][0-9]-*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no payloads in %s (%v)", dir, err)
	}
	slices.Sort(files)
	var out []geminiCall
	for _, f := range files {
		name := filepath.Base(f)
		stdin, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		c := geminiCall{file: scenario + "/" + name, stdin: stdin, env: map[string]string{}}
		c.event = strings.TrimSuffix(name[3:], ".json")
		for k, v := range envs[name] {
			if s, ok := v.(string); ok {
				c.env[k] = s
			}
		}
		if argv, _ := envs[name]["__argv"].([]any); len(argv) != 2 || argv[0] != "gemini" || argv[1] != c.event {
			t.Fatalf("%s: the hook's argv was %v, want [gemini %s]", c.file, argv, c.event)
		}
		out = append(out, c)
	}
	return out
}

func allGeminiCalls(t *testing.T) []geminiCall {
	t.Helper()
	var out []geminiCall
	for _, s := range geminiScenarios(t) {
		out = append(out, readGeminiScenario(t, s)...)
	}
	return out
}

// TestDecodeGeminiFixtures decodes every captured payload with the
// environment its hook saw and the event name the installer puts on the
// command line, and checks what every event carries and what each kind
// adds.
func TestDecodeGeminiFixtures(t *testing.T) {
	wantKind := map[string]Kind{
		"SessionStart": KindSessionStart, "SessionEnd": KindSessionEnd,
		"BeforeAgent": KindPromptSubmit, "AfterAgent": KindTurnEnd,
		"BeforeModel": KindModelRequest, "BeforeToolSelection": KindModelRequest, "AfterModel": KindModelResponse,
		"BeforeTool": KindToolStart, "AfterTool": KindToolEnd,
		"Notification": KindNotification, "PreCompress": KindCompactCheck,
	}
	seen := map[string]bool{}
	for _, c := range allGeminiCalls(t) {
		e, err := Gemini.Decode(c.stdin, c.event, c.getenv, now)
		if err != nil {
			t.Errorf("Decode(%s) error: %v", c.file, err)
			continue
		}
		seen[c.event] = true
		if e.Kind != wantKind[c.event] || e.HookEvent != c.event {
			t.Errorf("Decode(%s) kind %q hook %q, want %q %s", c.file, e.Kind, e.HookEvent, wantKind[c.event], c.event)
		}
		if e.Agent != "gemini" || !e.Time.Equal(now) || e.SessionID != c.env["GEMINI_SESSION_ID"] ||
			e.Cwd != "/home/user/project" || e.ProjectDir != "/home/user/project" || e.Truncated || e.Headless {
			t.Errorf("Decode(%s) = agent %q time %v session %q (env %q) cwd %q project %q truncated %v headless %v",
				c.file, e.Agent, e.Time, e.SessionID, c.env["GEMINI_SESSION_ID"], e.Cwd, e.ProjectDir, e.Truncated, e.Headless)
		}
		if !strings.HasPrefix(e.Transcript, "/home/user/.gemini/tmp/project/chats/session-") || !strings.HasSuffix(e.Transcript, ".jsonl") {
			t.Errorf("Decode(%s) transcript = %q, want the chat file", c.file, e.Transcript)
		}
		isTool := e.Kind == KindToolStart || e.Kind == KindToolEnd
		if isTool != (e.InputHash != "") || isTool != (e.ToolName != "") {
			t.Errorf("Decode(%s) tool %q input hash %q, want both exactly for tool events", c.file, e.ToolName, e.InputHash)
		}
		if e.ToolUseID != "" || e.AgentPID != 0 || e.SubagentID != "" || e.PermissionMode != "" {
			t.Errorf("Decode(%s) = %+v: Gemini sends no call id, pid, sub-agent or permission mode", c.file, e)
		}
		if (e.Title != "") != (e.Kind == KindPromptSubmit) {
			t.Errorf("Decode(%s) title %q, want one from a prompt only", c.file, e.Title)
		}
		switch c.event {
		case "SessionStart":
			if e.Source != "startup" && e.Source != "clear" {
				t.Errorf("Decode(%s) source = %q", c.file, e.Source)
			}
		case "SessionEnd":
			if e.Reason != "exit" && e.Reason != "clear" {
				t.Errorf("Decode(%s) reason = %q", c.file, e.Reason)
			}
		case "PreCompress":
			if e.Source != "auto" {
				t.Errorf("Decode(%s) trigger = %q, want auto", c.file, e.Source)
			}
		case "Notification":
			if e.NotificationType != "ToolPermission" || e.Notice != NoticeDialog {
				t.Errorf("Decode(%s) notification %q notice %q, want ToolPermission, dialog", c.file, e.NotificationType, e.Notice)
			}
		}
		if err := e.Validate(); err != nil {
			t.Errorf("Decode(%s).Validate() = %v", c.file, err)
		}
		checkAppendJSON(t, c.file, e)
	}
	for ev := range wantKind {
		if !seen[ev] {
			t.Errorf("no fixture of %s", ev)
		}
	}
	for ev := range Gemini.Kinds() {
		if _, ok := wantKind[ev]; !ok {
			t.Errorf("Gemini.Kinds has %s, which the test does not know", ev)
		}
	}
}

// TestDecodeGeminiFields pins what single captured events decode to.
func TestDecodeGeminiFields(t *testing.T) {
	decode := func(scenario, file string) Event {
		t.Helper()
		for _, c := range readGeminiScenario(t, scenario) {
			if strings.HasSuffix(c.file, "/"+file) {
				e, err := Gemini.Decode(c.stdin, c.event, c.getenv, now)
				if err != nil {
					t.Fatalf("Decode(%s): %v", c.file, err)
				}
				return e
			}
		}
		t.Fatalf("no %s in %s", file, scenario)
		return Event{}
	}
	if e := decode("headless-yolo-shell", "02-BeforeAgent.json"); e.Title != "say hello using the shell" || e.TitleSource != TitleFromPrompt {
		t.Errorf("BeforeAgent title %q (%s), want the prompt's", e.Title, e.TitleSource)
	}
	start := decode("headless-yolo-shell", "07-BeforeTool.json")
	end := decode("headless-yolo-shell", "08-AfterTool.json")
	want := Fingerprint("gemini", "run_shell_command", []byte(`{"command":"echo hello-from-tool","description":"print a greeting"}`))
	if start.ToolName != "run_shell_command" || start.InputHash != want || end.InputHash != want || end.Kind != KindToolEnd {
		t.Errorf("BeforeTool %s %s, AfterTool %s %s; want run_shell_command with hash %s on both",
			start.ToolName, start.InputHash, end.Kind, end.InputHash, want)
	}
	write := decode("interactive-write-confirm", "07-BeforeTool.json")
	if write.ToolName != "write_file" || write.InputHash == want {
		t.Errorf("write_file BeforeTool = %s %s, want its own hash", write.ToolName, write.InputHash)
	}
	if e := decode("interactive-shell-confirm", "16-SessionStart.json"); e.Source != "clear" || e.SessionID != "1da5eef5-228e-4867-8ce7-072d3a405fce" {
		t.Errorf("SessionStart after /clear = source %q session %q, want clear with the new id", e.Source, e.SessionID)
	}
}

// TestGeminiToolPairs: in every captured run each AfterTool fingerprints
// its call as the BeforeTool that announced it, and a refused call (a
// hook's deny) has no AfterTool.
func TestGeminiToolPairs(t *testing.T) {
	pairs := 0
	for _, s := range geminiScenarios(t) {
		var open []string
		for _, c := range readGeminiScenario(t, s) {
			e, err := Gemini.Decode(c.stdin, c.event, c.getenv, now)
			if err != nil {
				t.Fatal(err)
			}
			switch e.Kind {
			case KindToolStart:
				open = append(open, e.InputHash)
			case KindToolEnd, KindToolFailure:
				i := slices.Index(open, e.InputHash)
				if i < 0 {
					t.Errorf("%s: %s ends a call no BeforeTool started (hash %s, open %v)", c.file, e.ToolName, e.InputHash, open)
					continue
				}
				open = slices.Delete(open, i, i+1)
				pairs++
			}
		}
		blocked := strings.Contains(s, "deny") || strings.Contains(s, "exit2") || strings.Contains(s, "ask")
		if blocked != (len(open) == 1) || len(open) > 1 {
			t.Errorf("%s: calls left open %v, want one exactly when a hook blocked the call", s, open)
		}
	}
	if pairs != 4 {
		t.Errorf("%d tool pairs checked, want the 4 captured", pairs)
	}
}

// geminiCompact returns a fixture as Gemini writes it to the hook's
// stdin: compact JSON (JSON.stringify), the captured key order.
func geminiCompact(t *testing.T, c geminiCall) string {
	t.Helper()
	var buf bytes.Buffer
	if err := json.Compact(&buf, c.stdin); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

func geminiFixture(t *testing.T, scenario, file string) geminiCall {
	t.Helper()
	for _, c := range readGeminiScenario(t, scenario) {
		if strings.HasSuffix(c.file, "/"+file) {
			return c
		}
	}
	t.Fatalf("no %s in %s", file, scenario)
	return geminiCall{}
}

// TestDecodeGeminiTruncated cuts payloads where the hook's stdin cap
// would: the fields before the cut still place the event, a tool input
// complete before the cut is still fingerprinted, and a cut one is not.
func TestDecodeGeminiTruncated(t *testing.T) {
	after := geminiFixture(t, "headless-yolo-shell", "08-AfterTool.json")
	whole, err := Gemini.Decode(after.stdin, after.event, after.getenv, now)
	if err != nil {
		t.Fatal(err)
	}
	full := geminiCompact(t, after)

	// Cut inside tool_response (a big read_file or shell output): the
	// input is whole, so the pair still matches.
	cut := full[:strings.Index(full, `"tool_response":`)+len(`"tool_response":{"llmContent":"<untr`)]
	e, err := Gemini.DecodeTruncated([]byte(cut), after.event, after.getenv, now)
	if err != nil {
		t.Fatal(err)
	}
	if e.Kind != KindToolEnd || e.SessionID != whole.SessionID || e.ToolName != "run_shell_command" ||
		e.InputHash != whole.InputHash || !e.Truncated || e.Cwd != whole.Cwd {
		t.Errorf("DecodeTruncated(cut in tool_response) = %+v, want the whole event's kind, session, tool and hash %s, truncated",
			e, whole.InputHash)
	}
	if _, err := Gemini.Decode([]byte(cut), after.event, after.getenv, now); !errors.Is(err, ErrNotJSON) {
		t.Errorf("Decode(cut payload) error = %v, want ErrNotJSON", err)
	}

	// Cut inside tool_input (a write_file of a big file): no hash of half
	// an input.
	for _, c := range []geminiCall{after, geminiFixture(t, "interactive-write-confirm", "07-BeforeTool.json")} {
		full := geminiCompact(t, c)
		cut := full[:strings.Index(full, `"tool_input":`)+len(`"tool_input":{"`)+3]
		e, err := Gemini.DecodeTruncated([]byte(cut), c.event, c.getenv, now)
		if err != nil {
			t.Fatal(err)
		}
		if e.ToolName == "" || e.InputHash != "" || !e.Truncated || (e.Kind != KindToolStart && e.Kind != KindToolEnd) {
			t.Errorf("DecodeTruncated(%s cut in tool_input) = %+v, want the tool, no hash", c.file, e)
		}
	}

	// A Notification cut in its details (an edit's diff and contents):
	// still the dialog.
	n := geminiFixture(t, "interactive-write-confirm", "08-Notification.json")
	nfull := geminiCompact(t, n)
	ncut := nfull[:strings.Index(nfull, `"details":`)+len(`"details":{"type":"edit","tit`)]
	if e, err := Gemini.DecodeTruncated([]byte(ncut), n.event, n.getenv, now); err != nil || e.Notice != NoticeDialog || e.Kind != KindNotification {
		t.Errorf("DecodeTruncated(Notification cut in details) = %+v, %v; want the dialog", e, err)
	}

	// Cut before hook_event_name and session_id were whole: the command
	// line names the event, and GEMINI_SESSION_ID the session.
	start := full[:len(`{"session_id":"cf8d`)]
	e, err = Gemini.DecodeTruncated([]byte(start), "AfterTool", after.getenv, now)
	if err != nil {
		t.Fatal(err)
	}
	if e.Kind != KindToolEnd || e.SessionID != whole.SessionID || e.ToolName != "" {
		t.Errorf("DecodeTruncated(first bytes) = %+v, want tool.end of session %s from the command line and env", e, whole.SessionID)
	}
}

// TestDecodeGeminiToolError: an AfterTool whose response reports an error
// is a failed call. (0.61.0's tool_response.error is {type, message}; the
// payload is the captured AfterTool with one added.)
func TestDecodeGeminiToolError(t *testing.T) {
	c := geminiFixture(t, "headless-yolo-shell", "08-AfterTool.json")
	var m map[string]any
	if err := json.Unmarshal(c.stdin, &m); err != nil {
		t.Fatal(err)
	}
	m["tool_response"].(map[string]any)["error"] = map[string]any{"type": "execution_failed", "message": "no such file"}
	b, _ := json.Marshal(m)
	e, err := Gemini.Decode(b, "AfterTool", c.getenv, now)
	if err != nil || e.Kind != KindToolFailure || e.InputHash == "" {
		t.Errorf("Decode(AfterTool with an error) = %+v, %v; want tool.failure with the call's hash", e, err)
	}
	// A null error is no error.
	m["tool_response"].(map[string]any)["error"] = nil
	b, _ = json.Marshal(m)
	if e, err := Gemini.Decode(b, "AfterTool", c.getenv, now); err != nil || e.Kind != KindToolEnd {
		t.Errorf("Decode(AfterTool, error null) = %v, %v; want tool.end", e.Kind, err)
	}
}

func TestDecodeGeminiErrors(t *testing.T) {
	c := geminiFixture(t, "headless-yolo-shell", "01-SessionStart.json")
	for _, tc := range []struct {
		name, payload, event string
		want                 error
	}{
		{"not JSON", `session_id=1`, "SessionStart", ErrNotJSON},
		{"array", `[{"session_id":"a"}]`, "SessionStart", ErrNotJSON},
		{"unknown event", `{"session_id":"a","hook_event_name":"AfterEverything"}`, "", ErrUnknownEvent},
		{"no event at all", `{"session_id":"a"}`, "", ErrUnknownEvent},
		{"Claude's event name", `{"session_id":"a","hook_event_name":"PreToolUse"}`, "", ErrUnknownEvent},
		{"no session", `{"hook_event_name":"SessionStart"}`, "", ErrNoSession},
	} {
		if _, err := Gemini.Decode([]byte(tc.payload), tc.event, noEnv, now); !errors.Is(err, tc.want) {
			t.Errorf("%s: Decode error = %v, want %v", tc.name, err, tc.want)
		}
	}
	// The payload's event name wins over the command line's.
	if e, err := Gemini.Decode(c.stdin, "SessionEnd", c.getenv, now); err != nil || e.Kind != KindSessionStart {
		t.Errorf("Decode(SessionStart payload, argv SessionEnd) = %v, %v; want session.start", e.Kind, err)
	}
}

// TestDecodeGeminiKeepsContentOut: no decoded event carries what people
// typed or tools and the model saw: prompts (beyond the derived title),
// tool input and output, model requests and answers, the dialog's details.
func TestDecodeGeminiKeepsContentOut(t *testing.T) {
	checked := 0
	for _, c := range allGeminiCalls(t) {
		e, err := Gemini.Decode(c.stdin, c.event, c.getenv, now)
		if err != nil {
			t.Fatal(err)
		}
		e.Title = ""
		out := marshal(t, e)
		var m map[string]any
		if err := json.Unmarshal(c.stdin, &m); err != nil {
			t.Fatal(err)
		}
		meta := []string{e.Cwd, e.ToolName, e.SessionID, e.Transcript, "exec", "edit", "model", "user"}
		for _, k := range []string{"prompt", "prompt_response", "tool_input", "tool_response", "llm_request", "llm_response", "message", "details"} {
			for _, s := range leaves(m[k]) {
				if slices.Contains(meta, s) || len(s) < 3 {
					continue
				}
				checked++
				if strings.Contains(out, jsonText(t, s)) {
					t.Errorf("%s: the event carries %s text %q: %s", c.file, k, s, out)
				}
			}
		}
	}
	if checked < 100 {
		t.Errorf("only %d content strings checked; the fixtures changed?", checked)
	}
}

func TestGeminiConfigDir(t *testing.T) {
	for _, tc := range []struct {
		env     map[string]string
		want    string
		wantErr bool
	}{
		{map[string]string{"HOME": "/home/ann"}, "/home/ann/.gemini", false},
		// GEMINI_CLI_HOME stands for the home folder, not for ~/.gemini.
		{map[string]string{"HOME": "/home/ann", "GEMINI_CLI_HOME": "/srv/gem"}, "/srv/gem/.gemini", false},
		{map[string]string{"GEMINI_CLI_HOME": "/srv/gem"}, "/srv/gem/.gemini", false},
		{map[string]string{"USERPROFILE": `/c/Users/ann`}, "/c/Users/ann/.gemini", false},
		{map[string]string{}, "", true},
	} {
		got, err := Gemini.ConfigDir(envOf(tc.env))
		if (err != nil) != tc.wantErr || got != filepath.FromSlash(tc.want) {
			t.Errorf("Gemini.ConfigDir(%v) = %q, %v; want %q (error %v)", tc.env, got, err, tc.want, tc.wantErr)
		}
		if err != nil && !strings.Contains(err.Error(), "GEMINI_CLI_HOME") {
			t.Errorf("Gemini.ConfigDir error %q does not name GEMINI_CLI_HOME", err)
		}
	}
}

// TestGeminiRegistry: the hooks clawd registers, none blocking, each with
// its kind; the model and compression events are decoded but not
// registered; no output ever, whatever the runtime says.
func TestGeminiRegistry(t *testing.T) {
	if Lookup("gemini") != Gemini || Lookup("Gemini-CLI") != Gemini {
		t.Errorf("Lookup(gemini) and Lookup(Gemini-CLI) must find Gemini")
	}
	var registered []string
	for _, h := range Gemini.Hooks {
		registered = append(registered, h.Event)
		if h.Blocking || h.Timeout != geminiStateTimeout {
			t.Errorf("hook %s: blocking %v timeout %d, want non-blocking, %d s", h.Event, h.Blocking, h.Timeout, geminiStateTimeout)
		}
		if _, ok := Gemini.Kinds()[h.Event]; !ok {
			t.Errorf("registered event %s has no kind", h.Event)
		}
	}
	want := []string{"SessionStart", "SessionEnd", "BeforeAgent", "BeforeTool", "Notification", "AfterTool", "AfterAgent"}
	if !slices.Equal(registered, want) {
		t.Errorf("registered events %v, want %v", registered, want)
	}
	for _, ev := range []string{"BeforeModel", "BeforeToolSelection", "AfterModel", "PreCompress"} {
		if _, ok := Gemini.Hook(ev); ok {
			t.Errorf("%s is registered: it fires on every model call", ev)
		}
	}
	if Gemini.Supports.Permissions || !Gemini.Supports.States || !Gemini.Supports.Titles || Gemini.Supports.Subagents {
		t.Errorf("Supports = %+v, want states and titles only", Gemini.Supports)
	}
	notes := strings.Join(Gemini.Notes, "\n")
	for _, w := range []string{"not trusted", "own dialog"} {
		if !strings.Contains(notes, w) {
			t.Errorf("Notes do not say %q:\n%s", w, notes)
		}
	}
	for _, ev := range append(want, "BeforeModel", "PreCompress", "") {
		if out := Gemini.NoDecision(ev); len(out) != 0 {
			t.Errorf("NoDecision(%q) = %q, want no output", ev, out)
		}
		for _, d := range []*Decision{nil, {Allow: true}, {Allow: false, Message: "no"}} {
			if out := Gemini.Render(ev, d); len(out) != 0 {
				t.Errorf("Render(%q, %+v) = %q, want no output: clawd never answers for Gemini", ev, d, out)
			}
		}
	}
}

// TestGeminiTitleLine reads the summary Gemini CLI 0.61 appends to a chat
// file (ChatRecordingService.saveSummary writes {"$set":{"summary":...}}),
// and nothing from its other lines.
func TestGeminiTitleLine(t *testing.T) {
	tests := []struct {
		line  string
		title string
		found bool
	}{
		{`{"$set":{"summary":"Add a health check to the API"}}`, "Add a health check to the API", true},
		{`{"$set":{"lastUpdated":"2026-11-30T03:04:57.806Z"}}`, "", false},
		{`{"$set":{"memoryScratchpad":{"summary":"not this"}}}`, "", false},
		{`{"id":"m1","type":"user","content":[{"text":"{\"$set\":{\"summary\":\"x\"}}"}]}`, "", false},
		{`{"$set":{"summary":`, "", false},
	}
	for _, tt := range tests {
		title, named, found := Gemini.TitleFile.Line([]byte(tt.line), "s1")
		if title != tt.title || named || found != tt.found {
			t.Errorf("TitleFile.Line(%s) = %q, %v, %v; want %q, false, %v", tt.line, title, named, found, tt.title, tt.found)
		}
	}
	c := geminiFixture(t, "headless-default-approval", "01-SessionStart.json")
	e, err := Gemini.Decode(c.stdin, c.event, c.getenv, now)
	if err != nil {
		t.Fatal(err)
	}
	if p := Gemini.TitleFile.Path(&e); !strings.HasSuffix(p, ".jsonl") {
		t.Errorf("TitleFile.Path(SessionStart) = %q, want its transcript_path", p)
	}
}
