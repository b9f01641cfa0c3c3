package agents

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/clawdhq/clawd/internal/golden"
)

const opencodeDir = "../testdata/opencode"

// The sessions of the recorded opencode runs.
const (
	ocOnce     = "ses_dd5818252ffefSzDzhflgZrZgl" // run-bash-ask-plugin-replies-once
	ocRejected = "ses_dd582406affeEJRwFYNzLiQJd6" // run-bash-ask-autorejected
	ocRoot     = "ses_dce5730acffeigbNypv9RdVpbu" // run-task-subagent
	ocProject  = "/home/user/project"
)

func readOpencode(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(opencodeDir, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// opencodeFixtureEvent is the event name the plugin runs the hook with
// for a recorded call (NN-event.<type>.json, NN-hook.<name>.json), or
// the call's label for what the plugin never sends.
func opencodeFixtureEvent(file string) string {
	label := strings.TrimSuffix(file[strings.IndexByte(file, '-')+1:], ".json")
	if t, ok := strings.CutPrefix(label, "event."); ok {
		return t
	}
	if h, ok := strings.CutPrefix(label, "hook."); ok && (h == "chat.message" || h == "dispose") {
		return h
	}
	return label
}

// TestDecodeOpencodeFixtures decodes every recorded opencode call under
// the name the plugin would give it and lists the outcome, one line each,
// against testdata/opencode-fixtures.golden (rewritten with -update).
// Every event decodes into a valid event or is one clawd drops on
// purpose: an event of a type it does not use, or one that carries
// nothing it shows. The captures have no "clawd" object of the plugin's:
// a child session's events other than session.created read as their own
// session's here.
func TestDecodeOpencodeFixtures(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(opencodeDir, "*-*", "[0-9]*.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 300 {
		t.Fatalf("found %d recorded opencode calls, want the 380-odd of testdata/opencode", len(files))
	}
	var b strings.Builder
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	for _, f := range files {
		rel, _ := filepath.Rel(opencodeDir, f)
		name := opencodeFixtureEvent(filepath.Base(f))
		payload, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		e, err := Opencode.Decode(payload, name, func(string) string { return "" }, now)
		switch {
		case err == nil:
			if verr := e.Validate(); verr != nil {
				t.Errorf("%s decodes to an invalid event: %v", rel, verr)
			}
			if _, ok := Opencode.Hook(name); !ok {
				t.Errorf("%s: %s decodes but is not among the events the plugin sends", rel, name)
			}
			fmt.Fprintf(&b, "%s: %s", filepath.ToSlash(rel), e.Kind)
			for _, f := range []struct{ k, v string }{
				{"session", short(e.SessionID)}, {"subagent", short(e.SubagentID)}, {"type", e.SubagentType},
				{"tool", e.ToolName}, {"id", e.ToolUseID}, {"title", e.Title}, {"from", string(e.TitleSource)},
				{"cwd", e.Cwd}, {"reason", e.Reason}, {"error", e.ErrorKind}, {"action", e.Action},
				{"notice", string(e.Notice)},
			} {
				if f.v != "" {
					fmt.Fprintf(&b, " %s=%q", f.k, f.v)
				}
			}
			b.WriteString("\n")
		case errors.Is(err, ErrUnknownEvent), errors.Is(err, ErrNothingToShow), errors.Is(err, ErrNoSession):
			if errors.Is(err, ErrNoSession) && name != "dispose" {
				t.Errorf("%s (%s): %v; only the recorder's empty dispose has no session", rel, name, err)
			}
			if errors.Is(err, ErrUnknownEvent) {
				if _, ok := Opencode.Hook(name); ok {
					t.Errorf("%s: %s is sent by the plugin but unknown to the decoder", rel, name)
				}
			}
			fmt.Fprintf(&b, "%s: dropped: %v\n", filepath.ToSlash(rel), err)
		default:
			t.Errorf("Decode(%s, %s) = %v", rel, name, err)
		}
	}
	golden.Check(t, filepath.Join("testdata", "opencode-fixtures.golden"), []byte(b.String()))
}

// short is the end of an id, enough to tell them apart in a golden file.
func short(id string) string {
	if len(id) > 6 {
		return "…" + id[len(id)-6:]
	}
	return id
}

// withContext returns payload with the plugin's "clawd" object ctx.
func withContext(t *testing.T, payload []byte, ctx string) []byte {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(payload, &m); err != nil {
		t.Fatal(err)
	}
	m["clawd"] = json.RawMessage(ctx)
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestDecodeOpencode(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	noEnv := func(string) string { return "" }
	fixture := func(name string) func(*testing.T) []byte {
		return func(t *testing.T) []byte { return readOpencode(t, name) }
	}
	ctx := func(name, c string) func(*testing.T) []byte {
		return func(t *testing.T) []byte { return withContext(t, readOpencode(t, name), c) }
	}
	raw := func(s string) func(*testing.T) []byte {
		return func(*testing.T) []byte { return []byte(s) }
	}
	const once = "run-bash-ask-plugin-replies-once/"
	const rejected = "run-bash-ask-autorejected/"
	const sub = "run-task-subagent/"
	childCtx := `{"directory":"/home/user/project","pid":4242,"root":"` + ocRoot + `","agent":"general"}`
	tests := []struct {
		name    string
		payload func(*testing.T) []byte
		event   string
		want    Event
	}{
		{"root session created, placeholder title", fixture(once + "02-event.session.created.json"), "session.created",
			Event{Kind: KindSessionStart, SessionID: ocOnce, Cwd: ocProject}},
		{"the title opencode gave", fixture(once + "10-event.session.updated.json"), "session.updated",
			Event{Kind: KindSessionUpdate, SessionID: ocOnce, Cwd: ocProject, Title: "Hello from the fake model.", TitleSource: TitleFromAgent}},
		{"opencode run's quotes are not the title", fixture(once + "04-hook.chat.message.json"), "chat.message",
			Event{Kind: KindPromptSubmit, SessionID: ocOnce, Title: "say hello using the shell", TitleSource: TitleFromPrompt}},
		{"the TUI's prompt", fixture("tui-bash-ask-user-approves/06-hook.chat.message.json"), "chat.message",
			Event{Kind: KindPromptSubmit, SessionID: "ses_dd577bf1affeTeIgaVbRciS9EB", Title: "say hello using the shell", TitleSource: TitleFromPrompt}},
		{"the recorded hook call names itself", fixture(once + "04-hook.chat.message.json"), "",
			Event{Kind: KindPromptSubmit, SessionID: ocOnce, Title: "say hello using the shell", TitleSource: TitleFromPrompt}},
		{"a running tool part", fixture(once + "23-event.message.part.updated.json"), "message.part.updated",
			Event{Kind: KindToolStart, SessionID: ocOnce, ToolName: "bash", ToolUseID: "call_fake_1"}},
		{"a completed tool part", fixture(once + "31-event.message.part.updated.json"), "message.part.updated",
			Event{Kind: KindToolEnd, SessionID: ocOnce, ToolName: "bash", ToolUseID: "call_fake_1"}},
		{"a failed tool part", fixture("run-tool-execute-before-throws/24-event.message.part.updated.json"), "message.part.updated",
			Event{Kind: KindToolFailure, SessionID: "ses_dd580de51ffekcM9SgOCueYNgV", ToolName: "bash", ToolUseID: "call_fake_1"}},
		{"a rejected tool part", fixture(rejected + "26-event.message.part.updated.json"), "message.part.updated",
			Event{Kind: KindPermissionDenied, SessionID: ocRejected, ToolName: "bash", ToolUseID: "call_fake_1"}},
		{"the permission request, keyed by its call", fixture(once + "24-event.permission.asked.json"), "permission.asked",
			Event{Kind: KindPermissionRequest, SessionID: ocOnce, ToolName: "bash", ToolUseID: "call_fake_1"}},
		{"allowed once", fixture(once + "25-event.permission.replied.json"), "permission.replied",
			Event{Kind: KindPermissionGranted, SessionID: ocOnce, ToolUseID: "per_22a7ea67b001OD1ReyAtGNkQ1N", Action: "once"}},
		{"allowed once, the plugin naming the call", ctx(once+"25-event.permission.replied.json", `{"callID":"call_fake_1"}`), "permission.replied",
			Event{Kind: KindPermissionGranted, SessionID: ocOnce, ToolUseID: "call_fake_1", Action: "once"}},
		{"rejected", fixture(rejected + "25-event.permission.replied.json"), "permission.replied",
			Event{Kind: KindPermissionDenied, SessionID: ocRejected, ToolUseID: "per_22a7de6fc001ycS4bITSDHU1MF", Action: "reject"}},
		{"idle ends the turn", fixture(once + "48-event.session.status.json"), "session.status",
			Event{Kind: KindTurnEnd, SessionID: ocOnce}},
		{"session.idle too", fixture(once + "49-event.session.idle.json"), "session.idle",
			Event{Kind: KindTurnEnd, SessionID: ocOnce}},
		{"an API error", fixture("run-api-error-400/19-event.session.error.json"), "session.error",
			Event{Kind: KindTurnFailure, SessionID: "ses_dd56712e8ffew1fmyocUh2egG0", ErrorKind: "APIError"}},
		{"the person pressing Esc", raw(`{"type":"session.error","properties":{"sessionID":"ses_1","error":{"name":"MessageAbortedError","data":{"message":"Aborted"}}}}`), "session.error",
			Event{Kind: KindTurnEnd, SessionID: "ses_1", Reason: ReasonInterrupt, ErrorKind: "MessageAbortedError"}},
		{"a retry", raw(`{"type":"session.status","properties":{"sessionID":"ses_1","status":{"type":"retry","attempt":1,"message":"overloaded","next":2000}}}`), "session.status",
			Event{Kind: KindNotification, SessionID: "ses_1", NotificationType: "retry", Notice: NoticeOther}},
		{"a child session, its parent named", fixture(sub + "23-event.session.created.json"), "session.created",
			Event{Kind: KindSubagentStart, SessionID: ocRoot, SubagentID: "ses_dce5722ebffe68XDEGVY38X4r0", SubagentType: "general", Cwd: ocProject}},
		{"the task tool in the parent", fixture(sub + "24-event.message.part.updated.json"), "message.part.updated",
			Event{Kind: KindToolStart, SessionID: ocRoot, ToolName: "task", ToolUseID: "call_fake_1"}},
		{"a subagent's prompt names no session", ctx(sub+"26-hook.chat.message.json", childCtx), "chat.message",
			Event{Kind: KindPromptSubmit, SessionID: ocRoot, SubagentID: "ses_dce5722ebffe68XDEGVY38X4r0", SubagentType: "general", Cwd: ocProject, AgentPID: 4242}},
		{"a subagent's idle stops it", ctx(sub+"44-event.session.status.json", childCtx), "session.status",
			Event{Kind: KindSubagentStop, SessionID: ocRoot, SubagentID: "ses_dce5722ebffe68XDEGVY38X4r0", SubagentType: "general", Cwd: ocProject, AgentPID: 4242}},
		{"a subagent of unknown agent is still one", raw(`{"clawd":{"root":"ses_root"},"type":"session.idle","properties":{"sessionID":"ses_kid"}}`), "session.idle",
			Event{Kind: KindSubagentStop, SessionID: "ses_root", SubagentID: "ses_kid", SubagentType: "subagent"}},
		{"the plugin's context", ctx(once+"08-event.session.status.json", `{"directory":"/p","pid":77,"headless":true}`), "session.idle",
			Event{Kind: KindTurnEnd, SessionID: ocOnce, Cwd: "/p", AgentPID: 77, Headless: true}},
		{"opencode exits", raw(`{"clawd":{"directory":"/p","pid":77},"type":"dispose","properties":{"sessionID":"ses_1"}}`), "",
			Event{Kind: KindSessionEnd, SessionID: "ses_1", Cwd: "/p", AgentPID: 77, Reason: ReasonExit}},
		{"a deleted session", raw(`{"type":"session.deleted","properties":{"sessionID":"ses_1","info":{"id":"ses_1","directory":"/p","title":"New session - 2026-11-30T03:27:42.510Z"}}}`), "session.deleted",
			Event{Kind: KindSessionEnd, SessionID: "ses_1", Cwd: "/p", Reason: "deleted"}},
		{"a deleted child session", raw(`{"type":"session.deleted","properties":{"info":{"id":"ses_kid","parentID":"ses_root","agent":"explore"}}}`), "session.deleted",
			Event{Kind: KindSubagentStop, SessionID: "ses_root", SubagentID: "ses_kid", SubagentType: "explore"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			payload := tt.payload(t)
			got, err := Opencode.Decode(payload, tt.event, noEnv, now)
			if err != nil {
				t.Fatalf("Decode(%s, %q) = %v", payload, tt.event, err)
			}
			want := tt.want
			want.Agent, want.Time = opencodeID, now
			want.HookEvent = tt.event
			if want.HookEvent == "" {
				want.HookEvent = got.HookEvent // named by the payload
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("Decode(%s, %q) =\n%+v, want\n%+v", tt.payload(t)[:min(len(payload), 160)], tt.event, got, want)
			}
			if err := got.Validate(); err != nil {
				t.Errorf("invalid event: %v", err)
			}
		})
	}
}

// TestDecodeOpencodeDropped: events clawd does not show are refused with
// a reason, never decoded into something else.
func TestDecodeOpencodeDropped(t *testing.T) {
	noEnv := func(string) string { return "" }
	for _, c := range []struct {
		payload, event string
		want           error
	}{
		{`{"type":"session.status","properties":{"sessionID":"ses_1","status":{"type":"busy"}}}`, "session.status", ErrNothingToShow},
		{`{"type":"message.part.updated","properties":{"sessionID":"ses_1","part":{"type":"text","text":"hi"}}}`, "message.part.updated", ErrNothingToShow},
		{`{"type":"message.part.updated","properties":{"sessionID":"ses_1","part":{"type":"tool","tool":"bash","callID":"c","state":{"status":"pending"}}}}`, "message.part.updated", ErrNothingToShow},
		{`{"type":"permission.replied","properties":{"sessionID":"ses_1","requestID":"per_1","reply":"maybe"}}`, "permission.replied", ErrNothingToShow},
		{`{"clawd":{"root":"ses_root"},"type":"session.error","properties":{"sessionID":"ses_kid","error":{"name":"APIError"}}}`, "session.error", ErrNothingToShow},
		{`{"type":"session.error","properties":{"error":{"name":"APIError"}}}`, "session.error", ErrNoSession},
		{`{"type":"message.updated","properties":{"sessionID":"ses_1"}}`, "message.updated", ErrUnknownEvent},
		{`{"type":"session.created"}`, "", ErrNoSession},
		{`[1,2]`, "session.created", ErrNotJSON},
		{`{"type":"session.created",`, "session.created", ErrNotJSON},
	} {
		_, err := Opencode.Decode([]byte(c.payload), c.event, noEnv, time.Now())
		if !errors.Is(err, c.want) {
			t.Errorf("Decode(%s, %q) = %v, want %v", c.payload, c.event, err, c.want)
		}
	}
}

// TestDecodeOpencodeTruncated: a permission request cut at the hook's
// stdin cap inside its metadata (an edit's diff of megabytes) still
// shows the session waiting on its call.
func TestDecodeOpencodeTruncated(t *testing.T) {
	payload := `{"clawd":{"directory":"/p","pid":7,"callID":"call_9"},"id":"evt_1","type":"permission.asked","properties":{"id":"per_1","sessionID":"ses_1","permission":"edit","patterns":["a.go"],"metadata":{"filepath":"/p/a.go","diff":"` + strings.Repeat("+x\\n", 1000)
	e, err := Opencode.DecodeTruncated([]byte(payload), "permission.asked", func(string) string { return "" }, time.Now())
	if err != nil {
		t.Fatalf("DecodeTruncated = %v", err)
	}
	if e.Kind != KindPermissionRequest || e.SessionID != "ses_1" || e.ToolName != "edit" || e.ToolUseID != "call_9" || !e.Truncated || e.Cwd != "/p" {
		t.Errorf("DecodeTruncated = %+v, want the edit request of ses_1 on call_9, truncated", e)
	}
	r := Opencode.Describe(e, []byte(payload), true)
	if r.Summary != "/p/a.go" || !r.InputTruncated || len(r.Suggestions) != 0 {
		t.Errorf("Describe of a cut request = %+v, want the file, a preview, no suggestion", r)
	}
}

func TestOpencodeDescribe(t *testing.T) {
	payload := readOpencode(t, "run-bash-ask-plugin-replies-once/24-event.permission.asked.json")
	e, err := Opencode.Decode(payload, "permission.asked", func(string) string { return "" }, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	r := Opencode.Describe(e, payload, false)
	if in := compactLine(t, r.ToolInput); in != `{"command":"echo hello-from-tool"}`+"\n" {
		t.Errorf("Describe(permission.asked).ToolInput = %s, want the request's metadata", r.ToolInput)
	}
	r.ToolInput = nil
	want := Request{
		Kind:             RequestPermission,
		Suggestions:      []json.RawMessage{json.RawMessage(`{"patterns":["echo *"],"reply":"always"}`)},
		SuggestionLabels: []string{"Always allow bash: echo *"},
		Summary:          "echo hello-from-tool",
	}
	if !reflect.DeepEqual(r, want) {
		t.Errorf("Describe(permission.asked) =\n%+v, want\n%+v", r, want)
	}

	edit := []byte(`{"type":"permission.asked","properties":{"id":"per_2","sessionID":"ses_1","permission":"edit","patterns":["src/a.go"],"metadata":{"filepath":"/p/src/a.go","diff":"..."},"always":[]}}`)
	e.ToolName = "edit"
	if r := Opencode.Describe(e, edit, false); r.Summary != "/p/src/a.go" || len(r.Suggestions) != 0 || len(r.SuggestionLabels) != 0 {
		t.Errorf("Describe(edit) = %+v, want the file, no always offer", r)
	}
	dir := []byte(`{"type":"permission.asked","properties":{"id":"per_3","sessionID":"ses_1","permission":"external_directory","patterns":["/etc/*"],"metadata":{},"always":["/etc/*"]}}`)
	e.ToolName = "external_directory"
	if r := Opencode.Describe(e, dir, false); r.Summary != "/etc/*" || len(r.Suggestions) != 1 || r.SuggestionLabels[0] != "Always allow external_directory: /etc/*" {
		t.Errorf("Describe(external_directory) = %+v, want the pattern and its always offer", r)
	}
}

func TestOpencodeRender(t *testing.T) {
	always := []json.RawMessage{json.RawMessage(`{"reply":"always","patterns":["echo *"]}`)}
	for _, c := range []struct {
		event string
		d     *Decision
		want  string
	}{
		{"permission.asked", nil, "{}\n"},
		{"permission.asked", &Decision{Allow: true}, `{"reply":"once"}` + "\n"},
		{"permission.asked", &Decision{Allow: true, UpdatedPermissions: always}, `{"reply":"always"}` + "\n"},
		{"permission.asked", &Decision{}, `{"reply":"reject"}` + "\n"},
		{"permission.asked", &Decision{Message: "  "}, `{"reply":"reject"}` + "\n"},
		{"permission.asked", &Decision{Message: "use the tests' fixture", Interrupt: true}, `{"reply":"reject","message":"use the tests' fixture"}` + "\n"},
		{"session.idle", &Decision{Allow: true}, ""},
	} {
		if got := string(Opencode.Render(c.event, c.d)); got != c.want {
			t.Errorf("Render(%q, %+v) = %q, want %q", c.event, c.d, got, c.want)
		}
	}
	for _, ev := range []string{"session.created", "chat.message", "dispose"} {
		if got := Opencode.NoDecision(ev); got != nil {
			t.Errorf("NoDecision(%q) = %q, want nothing", ev, got)
		}
	}
}

func TestOpencodeConfigDir(t *testing.T) {
	for _, c := range []struct {
		env     map[string]string
		want    string
		wantErr bool
	}{
		{map[string]string{"HOME": "/home/u"}, filepath.Join("/home/u", ".config", "opencode"), false},
		{map[string]string{"HOME": "/home/u", "XDG_CONFIG_HOME": "/xdg"}, filepath.Join("/xdg", "opencode"), false},
		{map[string]string{"HOME": "/home/u", "XDG_CONFIG_HOME": "/xdg", "OPENCODE_CONFIG_DIR": "/oc"}, "/oc", false},
		{map[string]string{"USERPROFILE": `C:\Users\u`}, filepath.Join(`C:\Users\u`, ".config", "opencode"), false},
		{map[string]string{}, "", true},
	} {
		got, err := Opencode.ConfigDir(func(k string) string { return c.env[k] })
		if got != c.want || (err != nil) != c.wantErr {
			t.Errorf("ConfigDir(%v) = %q, %v; want %q (error: %v)", c.env, got, err, c.want, c.wantErr)
		}
	}
}

func TestOpencodePrompt(t *testing.T) {
	parts := func(texts ...string) string {
		var ps []string
		for _, t := range texts {
			b, _ := json.Marshal(t)
			ps = append(ps, `{"type":"text","text":`+string(b)+`}`)
		}
		return `[` + strings.Join(ps, ",") + `]`
	}
	for _, c := range []struct{ parts, want string }{
		{parts(`"fix the build"`), "fix the build"},
		{parts(`fix the build`), "fix the build"},
		{parts(`"quoted" and not`), `"quoted" and not`},
		{parts(`""twice""`), `"twice"`},
		{parts(`"`), `"`},
		{`[{"type":"file","url":"x"},{"type":"text","text":"ctx","synthetic":true},{"type":"text","text":"the ask"}]`, "the ask"},
		{`[]`, ""},
	} {
		payload := `{"input":{"sessionID":"ses_1"},"output":{"parts":` + c.parts + `}}`
		e, err := Opencode.Decode([]byte(payload), "chat.message", func(string) string { return "" }, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		if e.Title != c.want {
			t.Errorf("title of parts %s = %q, want %q", c.parts, e.Title, c.want)
		}
	}
}

// TestOpencodeQuestion: opencode 1.18.33's question.asked (the TUI's
// question tool, captured with a plugin that answered it) decodes to a
// question of its session, tied to the tool call, with its questions; the
// person's answers render as the plugin's answer, the very answers that
// plugin posted to /question/{id}/reply and opencode handed the model
// (testdata/opencode/questions/answered).
func TestOpencodeQuestion(t *testing.T) {
	payload := withContext(t, readOpencode(t, "questions/answered/01-event.question.asked.json"), `{"directory":"/home/user/project","pid":42}`)
	e, err := Opencode.Decode(payload, "question.asked", func(string) string { return "" }, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if e.Kind != KindQuestion || e.SessionID != "ses_dcb6f98b5ffeEkA6KbJ4Gy6f7i" || e.ToolName != "question" ||
		e.ToolUseID != "call_9307c94efeedb57f353b57ec" || e.Cwd != ocProject {
		t.Errorf("Decode(question.asked) = %+v, want a question of its session, tied to its call", e)
	}
	if err := e.Validate(); err != nil {
		t.Errorf("Decode(question.asked).Validate() = %v", err)
	}
	r := Opencode.Describe(e, payload, false)
	want := []Question{
		{Header: "Database", Text: "Which database should we use?", Custom: true, Options: []QuestionOption{
			{"Postgres", "Relational"}, {"SQLite", "Embedded"}, {"Redis", "KV"}}},
		{Header: "Features", Text: "Which features do you want?", MultiSelect: true, Custom: true, Options: []QuestionOption{
			{"Auth", "Login"}, {"Search", "FTS"}, {"Export", "CSV"}}},
		{Header: "Language", Text: "Which language?", Custom: true, Options: []QuestionOption{{"Go", "Go"}, {"Rust", "Rust"}}},
	}
	if r.Kind != RequestQuestion || r.Summary != "Which database should we use?" || !reflect.DeepEqual(r.Questions, want) {
		t.Errorf("Describe(question.asked) = %+v, want a question request with %+v", r, want)
	}
	if cut := Opencode.Describe(e, payload, true); cut.Questions != nil {
		t.Errorf("Describe(cut question.asked) questions = %+v, want none", cut.Questions)
	}

	d, err := Opencode.Answer(r, []Answer{{Labels: []string{"SQLite"}}, {Labels: []string{"Auth", "Export"}}, {Text: " Zig, maybe "}})
	if err != nil {
		t.Fatal(err)
	}
	posted := gjson.GetBytes(readOpencode(t, "questions/answered/03-clawd.question-reply.json"), "request.answers").Raw
	wantOut := compactLine(t, []byte(`{"answers":`+posted+`}`))
	if got := string(Opencode.Render("question.asked", &d)); got != wantOut {
		t.Errorf("Render(question.asked, answers) = %q, want the answers opencode took %q", got, wantOut)
	}
	if _, err := Opencode.Answer(r, []Answer{{Labels: []string{"MySQL"}}, {}, {}}); !errors.Is(err, ErrBadAnswer) {
		t.Errorf("Answer(an option it does not have) = %v, want ErrBadAnswer", err)
	}
	perm := Opencode.Describe(e, readOpencode(t, "run-bash-ask-plugin-replies-once/24-event.permission.asked.json"), false)
	if _, err := Opencode.Answer(perm, []Answer{{Text: "x"}}); !errors.Is(err, ErrCannotAnswer) {
		t.Errorf("Answer(a permission request) = %v, want ErrCannotAnswer", err)
	}
	for _, c := range []struct {
		d    *Decision
		want string
	}{
		{nil, "{}\n"},
		{&Decision{Allow: true}, "{}\n"}, // an allow without answers answers nothing
		{&Decision{Message: "no"}, `{"reply":"reject"}` + "\n"},
	} {
		if got := string(Opencode.Render("question.asked", c.d)); got != c.want {
			t.Errorf("Render(question.asked, %+v) = %q, want %q", c.d, got, c.want)
		}
	}
}
