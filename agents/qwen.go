package agents

import (
	"bytes"
	"cmp"
	"encoding/json"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tidwall/gjson"
)

// Qwen Code (npm @qwen-code/qwen-code, verified against 0.24.4).
//
// Hook events and what they become (the display state is the state
// machine's):
//
//	SessionStart        session.start       idle
//	SessionEnd          session.end         removed; sweeping when reason is "clear"
//	                                        (/clear ends the session, a new id starts)
//	UserPromptSubmit    prompt.submit       thinking; title from the prompt
//	                    prompt.continue     the same event with an empty prompt and no
//	                                        submitted_prompt: the tool results go back to
//	                                        the model, the turn goes on; no title
//	PermissionRequest   permission.request  waiting, answered through clawd (question.asked
//	                                        for ask_user_question). Qwen fires it only in the
//	                                        TUI, before its own dialog, which waits for the hook
//	PreToolUse          tool.start          working; fires after the call was allowed, so it
//	                                        settles the request
//	PermissionDenied    permission.denied   working (auto mode's classifier said no)
//	PostToolUse         tool.end            working
//	PostToolUseFailure  tool.failure        error flash, then working; idle when interrupted
//	PostToolBatch       tool.batch          thinking
//	Notification        notification        permission_prompt → waiting, idle_prompt → idle
//	                    session.setup       auth_success, at every start of qwen -p: no change
//	SubagentStart       subagent.start      juggling
//	SubagentStop        subagent.stop       working when the last subagent stops
//	Stop                turn.end            attention flash, then idle
//	StopFailure         turn.failure        error flash, then idle (the TUI's API errors;
//	                                        qwen -p fires neither Stop nor StopFailure then)
//	PreCompact          compact.start       sweeping
//	PostCompact         compact.end         back to what it was
//	InstructionsLoaded, MessageDisplay, UserPromptExpansion, TodoCreated,
//	TodoCompleted: decoded, not registered. They change no state, and
//	MessageDisplay fires for every stretch of streamed text. SessionDelete
//	(a session deleted from the history, not necessarily the one running)
//	is not decoded.
//
// There is no SessionEnd in qwen -p: the session goes when Qwen's
// launcher process (the pid its hooks get) is gone.
var Qwen = &Agent{
	ID:       qwenID,
	Name:     "Qwen Code",
	Aliases:  []string{"qwen-code", "qwen_code", "qwencode"},
	Command:  "qwen",
	Package:  "@qwen-code/qwen-code",
	Supports: Supports{States: true, Permissions: true, Titles: true, Subagents: true, QuestionsInTerminal: qwenQuestions},
	Verified: VerifiedRealCLI,
	Tested:   []string{"0.24.4"},
	Notes: []string{
		"Qwen asks for permission through clawd only in its TUI, and shows its own dialog only once clawd's hook returns: answer in clawd, or hand the request back to the terminal",
		"disableAllHooks, --safe-mode or --bare turn Qwen's hooks off: clawd then sees nothing of those sessions",
		"qwen -p sessions show like interactive ones: Qwen's hooks do not tell them apart",
	},
	Settings: "settings.json in $QWEN_HOME or ~/.qwen",
	// $QWEN_HOME, else ~/.qwen; settings.json in it.
	ConfigDir: func(getenv Env) (string, error) {
		return configDir(getenv, "QWEN_HOME", ".qwen", "Qwen Code")
	},
	Hooks: []HookSpec{
		{Event: "SessionStart", Timeout: qwenStateTimeout},
		{Event: "SessionEnd", Timeout: qwenStateTimeout},
		{Event: "UserPromptSubmit", Timeout: qwenStateTimeout},
		{Event: "PermissionRequest", Timeout: QwenPermissionTimeout, Blocking: true},
		{Event: "PreToolUse", Timeout: qwenStateTimeout},
		{Event: "PermissionDenied", Timeout: qwenStateTimeout},
		{Event: "PostToolUse", Timeout: qwenStateTimeout},
		{Event: "PostToolUseFailure", Timeout: qwenStateTimeout},
		{Event: "PostToolBatch", Timeout: qwenStateTimeout},
		{Event: "Notification", Timeout: qwenStateTimeout},
		{Event: "SubagentStart", Timeout: qwenStateTimeout},
		{Event: "SubagentStop", Timeout: qwenStateTimeout},
		{Event: "Stop", Timeout: qwenStateTimeout},
		{Event: "StopFailure", Timeout: qwenStateTimeout},
		{Event: "PreCompact", Timeout: qwenStateTimeout},
		{Event: "PostCompact", Timeout: qwenStateTimeout},
	},
	kinds:           qwenKinds,
	Decode:          decodeQwen,
	DecodeTruncated: decodeQwenTruncated,
	Describe:        qwenDescribe,
	NoDecision:      qwenNoDecision,
	Render:          qwenRender,
	// --resume takes a session's id; Qwen looks for it among the chats of
	// the project it runs in.
	Resume:    func(id string) []string { return []string{"--resume", id} },
	TitleFile: &TitleFile{Path: func(e *Event) string { return e.Transcript }, Line: qwenTitleLine},
}

// qwenQuestions says why Qwen Code's questions are answered in its
// terminal. ask_user_question fires PermissionRequest (the questions in
// tool_input, as Claude's AskUserQuestion has them) before Qwen's
// dialog, and Qwen 0.24.4 ignores a hook's allow for it, updatedInput
// and all: its answers come only from the dialog (its scheduler keeps a
// hook's decision for a tool that requiresUserInteraction only when it
// denies; testdata/qwen/hooks/PermissionRequest.ask_user_question.json).
const qwenQuestions = "Qwen Code takes the answers to its questions (ask_user_question) from its own dialog only: it ignores a hook's allow"

// qwenTitleLine reads one line of a Qwen Code (0.24.4) chat file, the
// transcript its hooks name: a session's title is a system record,
// {"type":"system","subtype":"custom_title","systemPayload":{"customTitle":
// ...,"titleSource":...}}, that /rename appends ("manual", as Qwen reads a
// record without a source) and that Qwen appends when it generates one
// ("auto", only with a fast model set, in its TUI).
func qwenTitleLine(line []byte, sessionID string) (string, bool, bool) {
	if !bytes.Contains(line, []byte(`"subtype":"custom_title"`)) || !gjson.ValidBytes(line) {
		return "", false, false
	}
	r := gjson.ParseBytes(line)
	if r.Get("type").String() != "system" || r.Get("subtype").String() != "custom_title" {
		return "", false, false
	}
	t := r.Get("systemPayload.customTitle")
	if t.Type != gjson.String {
		return "", false, false
	}
	named := r.Get("systemPayload.titleSource").String() != "auto"
	// A generated title of another session (a fork's copied records keep
	// their own) is not this one's.
	if sid := r.Get("sessionId"); !named && sid.Exists() && sid.String() != sessionID {
		return "", false, false
	}
	return t.String(), named, true
}

// qwenStateTimeout bounds a non-blocking hook on Qwen's side, in seconds
// (Qwen reads a timeout of 1000 or more as milliseconds). The hook bounds
// itself far tighter; this is only the backstop.
const qwenStateTimeout = 10

// QwenPermissionTimeout is the agent-side timeout of Qwen's
// PermissionRequest hook in seconds: what Qwen gives an HTTP hook by
// default, and below the 1000 that Qwen would read as milliseconds. The
// hook waits this minus PermissionWaitMargin.
const QwenPermissionTimeout = 600

// qwenKinds maps Qwen Code's hook_event_name to a kind.
var qwenKinds = sync.OnceValue(func() map[string]Kind {
	return map[string]Kind{
		"SessionStart":        KindSessionStart,
		"SessionEnd":          KindSessionEnd,
		"InstructionsLoaded":  KindInstructionsLoad,
		"UserPromptSubmit":    KindPromptSubmit,
		"UserPromptExpansion": KindPromptExpansion,
		"PermissionRequest":   KindPermissionRequest,
		"PreToolUse":          KindToolStart,
		"PermissionDenied":    KindPermissionDenied,
		"PostToolUse":         KindToolEnd,
		"PostToolUseFailure":  KindToolFailure,
		"PostToolBatch":       KindToolBatch,
		"Notification":        KindNotification,
		"MessageDisplay":      KindMessage,
		"SubagentStart":       KindSubagentStart,
		"SubagentStop":        KindSubagentStop,
		"Stop":                KindTurnEnd,
		"StopFailure":         KindTurnFailure,
		"PreCompact":          KindCompactStart,
		"PostCompact":         KindCompactEnd,
		"TodoCreated":         KindTaskCreate,
		"TodoCompleted":       KindTaskComplete,
	}
})

// qwenNotices maps Qwen Code's notification_type words to clawd's.
var qwenNotices = map[string]Notice{
	"permission_prompt": NoticeDialog,
	"idle_prompt":       NoticeIdle,
}

// qwenAuthSuccess is the notification qwen -p sends as it starts: the
// model provider took its credentials. Part of starting up, not news.
const qwenAuthSuccess = "auth_success"

// qwenQuestionTool asks the person through a tool call; Qwen ignores a
// hook's allow for it (it needs the person), so it is a question.
const qwenQuestionTool = "ask_user_question"

func decodeQwen(payload []byte, hookEvent string, env Env, now time.Time) (Event, error) {
	return decodeQwenOpts(payload, hookEvent, env, now, false)
}

// decodeQwenTruncated decodes the start of a payload cut at the hook's
// stdin cap. Qwen writes session_id, cwd, hook_event_name, the mode and
// tool_name before the bulky tool_input, tool_response or prompt.
func decodeQwenTruncated(prefix []byte, hookEvent string, env Env, now time.Time) (Event, error) {
	return decodeQwenOpts(prefix, hookEvent, env, now, true)
}

func decodeQwenOpts(b []byte, hookEvent string, env Env, now time.Time, truncated bool) (Event, error) {
	p, err := openPayload(b, truncated)
	if err != nil {
		return Event{}, err
	}
	get, str := p.get, p.str
	e, err := p.common(qwenID, qwenKinds, hookEvent, env("QWEN_CODE_SESSION_ID"), now, truncated)
	if err != nil {
		return Event{}, err
	}
	if t, err := time.Parse(time.RFC3339Nano, str("timestamp", MaxWordLen)); err == nil {
		e.Time = agentTime(t, now)
	}
	e.ProjectDir = clip(env("QWEN_PROJECT_DIR"), MaxPathLen)
	e.Transcript = str("transcript_path", MaxPathLen)
	// The launcher (cli-entry.js) runs the CLI as its child and waits for
	// it: it lives exactly as long as the session.
	if pid, err := strconv.Atoi(env("QWEN_CODE_LAUNCHER_PID")); err == nil && pid > 0 {
		e.AgentPID = pid
	}

	switch e.Kind {
	case KindSessionStart:
		e.Source = str("source", MaxWordLen)
	case KindCompactStart, KindCompactEnd:
		e.Source = str("trigger", MaxWordLen)
	case KindSessionEnd:
		e.Reason = str("reason", MaxWordLen)
	case KindPromptSubmit:
		prompt := get("prompt")
		submitted := get("submitted_prompt")
		if !submitted.Exists() && prompt.Type == gjson.String && prompt.Str == "" {
			e.Kind = KindPromptContinue
			break
		}
		if e.SubagentID != "" {
			break // written by the parent's model, not the person
		}
		text := prompt.String()
		if submitted.Type == gjson.String {
			text = submitted.Str
		}
		if t := PromptTitle(text); t != "" {
			e.Title, e.TitleSource = t, TitleFromPrompt
		}
	case KindToolStart, KindToolEnd, KindToolFailure, KindPermissionRequest, KindPermissionDenied:
		if in := get("tool_input"); in.Exists() && !truncated {
			e.InputHash = Fingerprint(qwenID, e.ToolName, []byte(in.Raw))
		}
		if e.Kind == KindToolFailure {
			e.Interrupt = get("is_interrupt").Bool()
		}
		if e.Kind == KindPermissionRequest && e.ToolName == qwenQuestionTool {
			e.Kind = KindQuestion
		}
	case KindToolBatch:
		// The batch's tool_use_id is the model's call id, not the
		// toolu_ id of PreToolUse and PostToolUse: it closes nothing by
		// id, the batch as a whole sends the session back to thinking.
		get("tool_calls").ForEach(func(_, c gjson.Result) bool {
			if id := c.Get("tool_use_id").String(); id != "" && len(e.ToolUseIDs) < MaxBatchIDs {
				e.ToolUseIDs = append(e.ToolUseIDs, clip(id, MaxIDLen))
			}
			return true
		})
	case KindNotification:
		e.NotificationType = str("notification_type", MaxWordLen)
		if e.NotificationType == qwenAuthSuccess {
			e.Kind = KindSetup
			break
		}
		e.Notice = cmp.Or(qwenNotices[e.NotificationType], NoticeOther)
	case KindTurnEnd, KindSubagentStop:
		get("background_tasks").ForEach(func(_, t gjson.Result) bool {
			if t.Get("status").String() == "running" && t.Get("id").String() != e.SubagentID {
				e.BackgroundTasks++
			}
			return true
		})
	case KindTurnFailure:
		e.ErrorKind = str("error", MaxWordLen)
		e.ErrorText = stopFailureText(p)
	}
	return e, nil
}

// agentTime returns t, an agent's own time stamp of an event, when it is
// within a day of now (the hook's clock), else now: a stamp that far off
// says more about the stamp than about the event.
func agentTime(t, now time.Time) time.Time {
	if d := t.Sub(now); d > 24*time.Hour || d < -24*time.Hour {
		return now.UTC()
	}
	return t.UTC()
}

// qwenDescribe says what a Qwen PermissionRequest asks: the tool's input,
// summed up by the field a person decides on.
func qwenDescribe(ev Event, payload []byte, cut bool) Request {
	r := hookRequest(ev, payload, cut)
	r.Summary = inputSummary(r.ToolInput)
	qwenCard(&r, ev.ToolName, payload, cut)
	if ev.ToolName == qwenQuestionTool && !r.InputTruncated {
		r.Questions = readQuestions(gjson.GetBytes(r.ToolInput, "questions"), qwenQuestionFields)
		if len(r.Questions) > 0 {
			r.Summary = r.Questions[0].Text
		}
	}
	return r
}

// qwenCard adds to r what a person reads beside the summary, from Qwen
// Code 0.24.4's tools (their schemas in its bundle; run_shell_command's
// description as the fixtures have it): the command's description, the
// change of edit and write_file, web_fetch's address and prompt.
func qwenCard(r *Request, tool string, payload []byte, cut bool) {
	in := gjson.GetBytes(payload, "tool_input")
	switch tool {
	case "run_shell_command":
		r.Description = inputText(in, "description", maxDescription)
	case "edit":
		r.Change = editChange(in, cut)
	case "write_file":
		r.Change = writeChange(in, cut)
	case "web_fetch":
		r.URL = inputText(in, "url", maxURL)
		r.Prompt = inputText(in, "prompt", maxPrompt)
	}
	if r.Summary == "" && r.Change != nil {
		r.Summary = r.Change.Path
	}
}

// qwenQuestionFields are ask_user_question's, which are Claude's
// AskUserQuestion's: multiSelect, and "Other" always offered. Qwen's
// dialog answers them (Supports.QuestionsInTerminal): clawd shows them.
var qwenQuestionFields = questionFields{multi: "multiSelect"}

// summaryFields are the input fields that say what a tool call does, in
// the order they are looked for: the command of a shell, the file of an
// edit, the URL of a fetch, the pattern of a search. Qwen's and Copilot's
// tools name them alike.
var summaryFields = []string{"command", "file_path", "path", "url", "pattern", "query"}

// inputSummary is the first of summaryFields the input has, "" when none
// (the runtime then shows the input's first string).
func inputSummary(in json.RawMessage) string {
	for _, f := range summaryFields {
		if s := strings.TrimSpace(inputString(in, f)); s != "" {
			return s
		}
	}
	return ""
}

// qwenNoDecision prints nothing for every event: with empty stdout Qwen
// carries on as without the hook, and for PermissionRequest shows its own
// dialog (the fixtures were captured with a hook that printed nothing).
// Qwen adds any other text a hook prints to the conversation.
func qwenNoDecision(string) []byte { return nil }

// qwenDenyMessage is what the model is told when the person denied a call
// without saying why.
const qwenDenyMessage = "Denied from clawd"

// qwenRender prints d as Qwen's PermissionRequest answer, one line, in the
// two forms verified against Qwen Code 0.24.4
// (testdata/qwen/outputs/PermissionRequest.allow.json, .deny.json): an
// allow runs the call without a dialog, a deny gives the model the
// message as the tool's result. Qwen reads interrupt but does nothing with
// it, and has no "always" rules for hooks: neither is sent. A nil decision
// or another event gives the no-decision answer.
func qwenRender(hookEvent string, d *Decision) []byte {
	if d == nil || hookEvent != "PermissionRequest" {
		return qwenNoDecision(hookEvent)
	}
	b, err := minimalDecision(hookEvent, d, qwenDenyMessage)
	if err != nil {
		return qwenNoDecision(hookEvent)
	}
	return b
}

const qwenID = "qwen"
