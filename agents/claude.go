package agents

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tidwall/gjson"
)

// Claude Code (npm @anthropic-ai/claude-code, verified against 2.1.328;
// the end-to-end tests run the release Tested names).
//
// Hook events and what they become (the display state is the state
// machine's; corrections to the original app are marked *):
//
//	SessionStart        session.start       idle
//	SessionEnd          session.end         removed; sweeping when reason is "clear"
//	Setup               session.setup       (no change)
//	InstructionsLoaded  instructions.load   (no change)
//	UserPromptSubmit    prompt.submit       thinking; title from the prompt
//	UserPromptExpansion prompt.expansion    thinking
//	PreToolUse          tool.start          working
//	PermissionRequest   permission.request  waiting (question.asked for AskUserQuestion,
//	                                        whose answers clawd gives back in the
//	                                        allow's updatedInput; a plan to review
//	                                        for ExitPlanMode)
//	PermissionDenied    permission.denied   working
//	PostToolUse         tool.end            working
//	PostToolUseFailure  tool.failure        error flash, then working
//	PostToolBatch       tool.batch          working; closes the batch's pending requests *
//	PreSkillShellCommand tool.start         working: a skill's shell command (2.1.332);
//	                                        never answered, it waits for nobody
//	Notification        notification        by type: permission_prompt → waiting,
//	                                        idle_prompt → idle without a flash *,
//	                                        elicitation_dialog → waiting, other → notification flash
//	SubagentStart       subagent.start      juggling
//	SubagentStop        subagent.stop       working when the last subagent stops;
//	                                        internal agents (agent_type "") ignored *
//	Stop                turn.end            attention flash, then idle; juggling while
//	                                        background tasks still run *
//	StopFailure         turn.failure        error flash, then idle
//	PreCompact          compact.start       sweeping
//	PostCompact         compact.end         back to what it was, not "done" *
//	CwdChanged          cwd.change          (cwd follows)
//	Elicitation         question.asked      waiting
//	ElicitationResult   question.answered   working
//	Pre/PostModelSwitch, ConfigChange, FileChanged, DirectoryAdded,
//	MessageDisplay, TaskCreated, TaskCompleted, TeammateIdle: no state change.
//	WorktreeCreate/WorktreeRemove: decoded, never registered — a
//	WorktreeCreate hook's stdout is taken as the worktree path.
var Claude = &Agent{
	ID:       claudeID,
	Name:     "Claude Code",
	Aliases:  []string{"claude-code", "claude_code", "claudecode"},
	Command:  "claude",
	Package:  "@anthropic-ai/claude-code",
	Supports: Supports{States: true, Permissions: true, Titles: true, Subagents: true, AnswersQuestions: true},
	Verified: VerifiedRealCLI,
	Tested:   []string{"2.1.332"},
	Settings: "settings.json in $CLAUDE_CONFIG_DIR or ~/.claude",
	// $CLAUDE_CONFIG_DIR, else ~/.claude; settings.json in it.
	ConfigDir: func(getenv Env) (string, error) {
		return configDir(getenv, "CLAUDE_CONFIG_DIR", ".claude", "Claude Code")
	},
	Hooks: []HookSpec{
		{Event: "SessionStart", Timeout: claudeStateTimeout},
		// SessionEnd hooks share a budget of max(1.5 s, largest timeout):
		// keep it small so quitting Claude is never slowed by clawd.
		{Event: "SessionEnd", Timeout: 2},
		{Event: "Setup", Timeout: claudeStateTimeout},
		{Event: "InstructionsLoaded", Timeout: claudeStateTimeout},
		{Event: "UserPromptSubmit", Timeout: claudeStateTimeout},
		{Event: "UserPromptExpansion", Timeout: claudeStateTimeout},
		{Event: "PreToolUse", Timeout: claudeStateTimeout},
		// A skill's or command's own shell command (its !`...` lines),
		// run as it loads, since 2.1.332. Not blocking: clawd never
		// answers it (allow adds nothing; deny or ask would keep the
		// command from running), it only shows the work. Older releases
		// stop their TUI at a Settings Warning for an event they do not
		// know: registered only where 2.1.332 or later is installed.
		{Event: claudeSkillShell, Timeout: claudeStateTimeout, Since: "2.1.332"},
		{Event: "PermissionRequest", Timeout: ClaudePermissionTimeout, Blocking: true},
		{Event: "PermissionDenied", Timeout: claudeStateTimeout},
		{Event: "PostToolUse", Timeout: claudeStateTimeout},
		{Event: "PostToolUseFailure", Timeout: claudeStateTimeout},
		{Event: "PostToolBatch", Timeout: claudeStateTimeout},
		{Event: "Notification", Timeout: claudeStateTimeout},
		{Event: "SubagentStart", Timeout: claudeStateTimeout},
		{Event: "SubagentStop", Timeout: claudeStateTimeout},
		{Event: "Stop", Timeout: claudeStateTimeout},
		{Event: "StopFailure", Timeout: claudeStateTimeout},
		{Event: "PreCompact", Timeout: claudeStateTimeout},
		{Event: "PostCompact", Timeout: claudeStateTimeout},
		{Event: "PreModelSwitch", Timeout: claudeStateTimeout},
		{Event: "PostModelSwitch", Timeout: claudeStateTimeout},
		{Event: "ConfigChange", Timeout: claudeStateTimeout},
		{Event: "CwdChanged", Timeout: claudeStateTimeout},
		{Event: "DirectoryAdded", Timeout: claudeStateTimeout},
		{Event: "Elicitation", Timeout: claudeStateTimeout},
		{Event: "ElicitationResult", Timeout: claudeStateTimeout},
		// Not registered: WorktreeCreate/WorktreeRemove (stdout is the
		// worktree path), MessageDisplay (fires per batch of output lines,
		// would spawn a process per line and says nothing about state),
		// FileChanged (fires only for file names listed in its matcher),
		// TaskCreated/TaskCompleted/TeammateIdle (agent teams; not fired by
		// 2.1.328's default tools, shapes unverified).
	},
	kinds:           claudeKinds,
	Decode:          decodeClaude,
	DecodeTruncated: decodeClaudeTruncated,
	Describe:        claudeRequest,
	BypassModes:     claudeBypassModes,
	NoDecision:      claudeNoDecision,
	Render:          claudeRender,
	Answer:          claudeAnswer,
	Approve:         claudeApprove,
	Resume:          func(id string) []string { return []string{"--resume", id} },
	TitleFile:       &TitleFile{Path: func(e *Event) string { return e.Transcript }, Line: claudeTitleRecords.line},
}

// claudeStateTimeout bounds a non-blocking hook on Claude's side. The hook
// bounds itself far tighter; this is only the backstop.
const claudeStateTimeout = 10

// ClaudePermissionTimeout is the agent-side timeout of the PermissionRequest
// hook in seconds. The hook's own wait is this minus a margin, so the hook
// always answers before Claude Code kills it.
const ClaudePermissionTimeout = 3600

// claudeKinds maps Claude Code's hook_event_name to a kind.
var claudeKinds = sync.OnceValue(func() map[string]Kind {
	return map[string]Kind{
		"SessionStart":        KindSessionStart,
		"SessionEnd":          KindSessionEnd,
		"Setup":               KindSetup,
		"InstructionsLoaded":  KindInstructionsLoad,
		"UserPromptSubmit":    KindPromptSubmit,
		"UserPromptExpansion": KindPromptExpansion,
		"PreToolUse":          KindToolStart,
		claudeSkillShell:      KindToolStart,
		"PermissionRequest":   KindPermissionRequest,
		"PermissionDenied":    KindPermissionDenied,
		"PostToolUse":         KindToolEnd,
		"PostToolUseFailure":  KindToolFailure,
		"PostToolBatch":       KindToolBatch,
		"Notification":        KindNotification,
		"SubagentStart":       KindSubagentStart,
		"SubagentStop":        KindSubagentStop,
		"Stop":                KindTurnEnd,
		"StopFailure":         KindTurnFailure,
		"PreCompact":          KindCompactStart,
		"PostCompact":         KindCompactEnd,
		"PreModelSwitch":      KindModelSwitch,
		"PostModelSwitch":     KindModelSwitched,
		"ConfigChange":        KindConfigChange,
		"FileChanged":         KindFileChange,
		"CwdChanged":          KindCwdChange,
		"DirectoryAdded":      KindDirectoryAdd,
		"WorktreeCreate":      KindWorktreeCreate,
		"WorktreeRemove":      KindWorktreeRemove,
		"Elicitation":         KindQuestion,
		"ElicitationResult":   KindQuestionAnswered,
		"MessageDisplay":      KindMessage,
		"TaskCreated":         KindTaskCreate,
		"TaskCompleted":       KindTaskComplete,
		"TeammateIdle":        KindTeammateIdle,
	}
})

// Errors of the decoders.
var (
	ErrNotJSON      = errors.New("payload is not a JSON object")
	ErrUnknownEvent = errors.New("unknown hook event")
	ErrNoSession    = errors.New("payload has no session_id")
)

// claudeQuestionTool is the tool through which Claude asks the person
// questions: a PermissionRequest for it is a question, answered with the
// answers (claudeAnswer), not with a plain allow or deny.
const claudeQuestionTool = "AskUserQuestion"

func decodeClaude(payload []byte, hookEvent string, env Env, now time.Time) (Event, error) {
	return decodeClaudeOpts(payload, hookEvent, env, now, false)
}

// decodeClaudeTruncated decodes the start of a payload that was cut at the
// hook's stdin cap. gjson reads the fields that precede the cut (Claude
// writes session_id, cwd, hook_event_name and tool_name before the bulky
// tool_input), so the session still shows what is happening.
func decodeClaudeTruncated(prefix []byte, hookEvent string, env Env, now time.Time) (Event, error) {
	return decodeClaudeOpts(prefix, hookEvent, env, now, true)
}

func decodeClaudeOpts(b []byte, hookEvent string, env Env, now time.Time, truncated bool) (Event, error) {
	p, err := openPayload(b, truncated)
	if err != nil {
		return Event{}, err
	}
	get, str := p.get, p.str
	e, err := p.common(claudeID, claudeKinds, hookEvent, env("CLAUDE_CODE_SESSION_ID"), now, truncated)
	if err != nil {
		return Event{}, err
	}
	kind := e.Kind
	e.TurnID = str("prompt_id", MaxIDLen)
	e.Transcript = str("transcript_path", MaxPathLen)
	e.ProjectDir = clip(env("CLAUDE_PROJECT_DIR"), MaxPathLen)
	e.Headless = claudeHeadless(env)
	if pid, err := strconv.Atoi(env("CLAUDE_PID")); err == nil && pid > 0 {
		e.AgentPID = pid
	}
	if t := AgentTitle(str("session_title", 1024)); t != "" {
		e.Title, e.TitleSource = t, TitleFromAgent
	}

	switch kind {
	case KindSessionStart, KindConfigChange, KindDirectoryAdd:
		e.Source = str("source", MaxWordLen)
	case KindSetup, KindCompactStart, KindCompactEnd:
		e.Source = str("trigger", MaxWordLen)
	case KindModelSwitch, KindModelSwitched:
		e.Source = str("source", MaxWordLen)
	case KindSessionEnd:
		e.Reason = str("reason", MaxWordLen)
	case KindPromptSubmit:
		if e.Title == "" {
			if t := PromptTitle(get("prompt").String()); t != "" {
				e.Title, e.TitleSource = t, TitleFromPrompt
			}
		}
	case KindToolStart, KindToolEnd, KindToolFailure, KindPermissionRequest, KindPermissionDenied:
		// A skill's shell command is no tool call of the model's: no
		// permission request is about it by its input.
		if in := get("tool_input"); in.Exists() && !truncated && e.HookEvent != claudeSkillShell {
			e.InputHash = Fingerprint(claudeID, e.ToolName, []byte(in.Raw))
		}
		if kind == KindToolFailure {
			e.Interrupt = get("is_interrupt").Bool()
		}
		if kind == KindPermissionRequest && e.ToolName == claudeQuestionTool {
			e.Kind = KindQuestion
		}
	case KindToolBatch:
		get("tool_calls").ForEach(func(_, c gjson.Result) bool {
			if id := c.Get("tool_use_id").String(); id != "" && len(e.ToolUseIDs) < MaxBatchIDs {
				e.ToolUseIDs = append(e.ToolUseIDs, clip(id, MaxIDLen))
			}
			return true
		})
	case KindNotification:
		e.NotificationType = str("notification_type", MaxWordLen)
		e.Notice = cmp.Or(claudeNotices[e.NotificationType], NoticeOther)
	case KindTurnEnd, KindSubagentStop:
		if kind == KindTurnEnd && e.SubagentID == "" {
			e.Response = clipUTF8(get("last_assistant_message").String(), MaxResponseLen)
		}
		get("background_tasks").ForEach(func(_, t gjson.Result) bool {
			// A stopping subagent lists itself as still running.
			if t.Get("status").String() == "running" && t.Get("id").String() != e.SubagentID {
				e.BackgroundTasks++
			}
			return true
		})
	case KindTurnFailure:
		e.ErrorKind = str("error", MaxWordLen)
		e.ErrorText = stopFailureText(p)
	case KindCwdChange:
		if c := str("new_cwd", MaxPathLen); c != "" {
			e.Cwd = c
		}
	case KindQuestion:
		e.ToolName = str("mcp_server_name", MaxIDLen)
	case KindQuestionAnswered:
		e.Action = str("action", MaxWordLen)
		e.ToolName = str("mcp_server_name", MaxIDLen)
	}
	return e, nil
}

// claudeHeadless tells claude -p and SDK hosts from an interactive session
// by the environment Claude Code gives its hooks.
func claudeHeadless(env Env) bool {
	switch env("CLAUDE_CODE_SESSION_ATTENDED") {
	case "0":
		return true
	case "1":
		return false
	}
	ep := env("CLAUDE_CODE_ENTRYPOINT")
	return len(ep) >= 3 && ep[:3] == "sdk"
}

// claudeNoDecision: `{}` is Claude Code's verified "no decision" for a
// PermissionRequest (the dialog stays, or -p denies on its own). Every
// other event gets no output at all: PreCompact/PostCompact would even show
// a printed `{}` in the transcript.
func claudeNoDecision(hookEvent string) []byte {
	if hookEvent == "PermissionRequest" {
		return []byte("{}\n")
	}
	return nil
}

const claudeID = "claude"

// claudeSkillShell is the event of a skill's shell command: the shell
// tool (tool_name Bash or PowerShell) and its command (tool_input), the
// skill it belongs to (command_name), and who loaded it (invoked_by).
const claudeSkillShell = "PreSkillShellCommand"

// claudePlanTool is the tool through which Claude asks to leave plan
// mode: a plan to approve, not a permission.
const claudePlanTool = "ExitPlanMode"

// claudeBypassModes are the permission modes in which Claude Code fires
// PermissionRequest and then proceeds by itself (the original's PR #865).
var claudeBypassModes = []string{"bypassPermissions", "auto"}

// claudeDescribe says what a Claude Code PermissionRequest or elicitation
// asks: AskUserQuestion and elicitations are questions, ExitPlanMode is a
// plan; the summary is the part of the tool input a person decides on.
func claudeDescribe(ev Event, payload []byte, cut bool) Request {
	r := hookRequest(ev, payload, cut)
	if ev.ToolName == claudePlanTool {
		r.Kind = RequestPlan
	}
	r.Summary = claudeSummary(ev.ToolName, r.ToolInput)
	claudeCard(&r, ev.ToolName, payload, cut)
	switch {
	case ev.ToolName == claudeQuestionTool:
		r.Options = claudeQuestionOptions(r.ToolInput)
		if !r.InputTruncated {
			r.Questions = readQuestions(gjson.GetBytes(r.ToolInput, "questions"), claudeQuestionFields)
		}
	case r.Kind == RequestPlan:
		r.Plan = inputString(r.ToolInput, "plan")
	}
	for _, s := range r.Suggestions {
		r.SuggestionLabels = append(r.SuggestionLabels, claudeSuggestionLabel(s))
	}
	return r
}

// claudeRequest describes what a Claude Code PermissionRequest asks
// (claudeDescribe), and names the ask before an MCP server's skill loads
// for what it is: the Skill tool's input alone reads as any skill's.
func claudeRequest(ev Event, payload []byte, cut bool) Request {
	r := claudeDescribe(ev, payload, cut)
	if s := claudeSkillAsk(payload); s != "" {
		r.Summary = s
	}
	return r
}

// claudeSkillAsk sums up the ask before the Skill tool loads a skill an
// MCP server serves (2.1.332): tool_kind "mcp_skill", mcp_server the
// server, mcp_skill the skill, its name written "<server>:<skill>" as
// Skill rules write it. It reads "load MCP skill <skill> from <server>";
// "" for every other request.
func claudeSkillAsk(payload []byte) string {
	f := gjson.GetManyBytes(payload, "tool_kind", "mcp_skill.name", "mcp_server.name")
	if f[0].String() != "mcp_skill" && !f[1].Exists() {
		return ""
	}
	skill, server := f[1].String(), f[2].String()
	if s, name, ok := strings.Cut(skill, ":"); ok && name != "" && (server == "" || s == server) {
		server, skill = s, name
	}
	switch {
	case skill == "" && server == "":
		return "load a skill from an MCP server"
	case skill == "":
		return "load a skill from MCP server " + server
	case server == "":
		return "load MCP skill " + skill
	}
	return "load MCP skill " + skill + " from " + server
}

// claudeSummary is the field of a Claude tool's input a person decides
// on; "" for other tools (MCP ones included), which the runtime sums up by
// their first string.
func claudeSummary(tool string, in json.RawMessage) string {
	switch tool {
	case "Bash":
		return inputString(in, "command")
	case "Edit", "Write", "Read", "NotebookEdit", "MultiEdit":
		if s := inputString(in, "file_path"); s != "" {
			return s
		}
		return inputString(in, "notebook_path")
	case "Glob", "Grep":
		return inputString(in, "pattern")
	case "WebFetch":
		return inputString(in, "url")
	case "WebSearch":
		return inputString(in, "query")
	case claudeQuestionTool:
		return gjson.GetBytes(in, "questions.0.question").String()
	case claudePlanTool:
		return inputString(in, "plan")
	}
	return ""
}

// claudeCard adds to r what a person reads beside the summary: Bash's
// description, a file tool's change, a fetch's address and prompt, an MCP
// tool's server and name. It reads the payload's tool_input itself, not
// r.ToolInput, which is only a preview of a large input: a big Write still
// shows its file and its first lines.
func claudeCard(r *Request, tool string, payload []byte, cut bool) {
	in := gjson.GetBytes(payload, "tool_input")
	switch tool {
	case "Bash":
		r.Description = inputText(in, "description", maxDescription)
	case "Edit":
		r.Change = editChange(in, cut)
	case "MultiEdit":
		r.Change = multiEditChange(in, cut)
	case "Write":
		r.Change = writeChange(in, cut)
	case "WebFetch":
		r.URL = inputText(in, "url", maxURL)
		r.Prompt = inputText(in, "prompt", maxPrompt)
	}
	if r.Summary == "" && r.Change != nil {
		r.Summary = r.Change.Path
	}
	r.MCPServer, r.MCPTool = claudeMCPTool(tool, gjson.GetBytes(payload, "mcp_server.name").String())
}

// claudeMCPTool splits an MCP tool's name, mcp__<server>__<tool>, by the
// server its payload names (mcp_server.name: a server's own name may hold
// "__"), else at the first "__" after the prefix; "", "" for Claude's own
// tools.
func claudeMCPTool(tool, server string) (string, string) {
	rest, ok := strings.CutPrefix(tool, "mcp__")
	if !ok {
		return "", ""
	}
	if server != "" {
		if name, ok := strings.CutPrefix(rest, server+"__"); ok && name != "" {
			return clipUTF8(server, MaxIDLen), clipUTF8(name, MaxIDLen)
		}
	}
	server, name, ok := strings.Cut(rest, "__")
	if !ok || server == "" || name == "" {
		return "", ""
	}
	return clipUTF8(server, MaxIDLen), clipUTF8(name, MaxIDLen)
}

// claudeQuestionOptions lists the option labels of an AskUserQuestion
// call, each prefixed with its question's header when it asks several.
func claudeQuestionOptions(in json.RawMessage) []string {
	var q struct {
		Questions []struct {
			Header  string `json:"header"`
			Options []struct {
				Label string `json:"label"`
			} `json:"options"`
		} `json:"questions"`
	}
	if json.Unmarshal(in, &q) != nil {
		return nil
	}
	var out []string
	for _, qq := range q.Questions {
		for _, o := range qq.Options {
			label := o.Label
			if len(q.Questions) > 1 && qq.Header != "" {
				label = qq.Header + ": " + label
			}
			if label != "" && len(out) < maxOptions {
				out = append(out, label)
			}
		}
	}
	return out
}

// claudeQuestionFields are AskUserQuestion's: multiSelect, and an answer
// of one's own always allowed (its dialog's "Type something").
var claudeQuestionFields = questionFields{multi: "multiSelect"}

// claudeAnswer gives the person's answers to an AskUserQuestion back to
// Claude Code the way its own SDK does: the PermissionRequest hook allows
// with updatedInput, the tool's input with answers set, a map from each
// question's text to its answer. An answer is the label picked, or the
// person's own text; a multi-select question's are joined by ", ", a
// label that holds ", " or a quote JSON-quoted, as Claude's own dialog
// joins them (so Claude still sees them as its options). Unanswered
// questions are left out. Verified against Claude Code 2.1.328: the
// model's next request carries `"<question>"="<answer>"` for each
// (testdata/claude/outputs/PermissionRequest.answer*.json; e2e
// TestAnswersClaude). An allow without updatedInput leaves the question
// on the screen.
func claudeAnswer(req Request, answers []Answer) (Decision, error) {
	in := gjson.ParseBytes(req.ToolInput)
	if req.Kind != RequestQuestion || req.InputTruncated || !in.IsObject() {
		return Decision{}, fmt.Errorf("%w: not a whole AskUserQuestion input", ErrCannotAnswer)
	}
	qs := readQuestions(in.Get("questions"), claudeQuestionFields)
	if err := fitAnswers(qs, answers); err != nil {
		return Decision{}, err
	}
	byText := map[string]string{}
	for i, a := range answers {
		if v := claudeAnswerText(qs[i], a); v != "" {
			byText[qs[i].Text] = v
		}
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(req.ToolInput, &fields); err != nil {
		return Decision{}, fmt.Errorf("%w: %v", ErrCannotAnswer, err)
	}
	var err error
	if fields["answers"], err = marshalJSON(byText); err != nil {
		return Decision{}, err
	}
	b, err := marshalJSON(fields)
	if err != nil {
		return Decision{}, err
	}
	return Decision{Allow: true, UpdatedInput: b}, nil
}

// claudeAnswerText is one question's answer as Claude's dialog writes it.
func claudeAnswerText(q Question, a Answer) string {
	items := append([]string(nil), a.Labels...)
	if t := strings.TrimSpace(a.Text); t != "" {
		items = append(items, t)
	}
	if len(items) == 0 {
		return ""
	}
	if !q.MultiSelect {
		return items[0]
	}
	for i, it := range items {
		if strings.Contains(it, ", ") || strings.Contains(it, `"`) {
			items[i] = jsQuote(it)
		}
	}
	return strings.Join(items, ", ")
}

// jsQuote is s as JavaScript's JSON.stringify writes a string: unlike
// encoding/json it leaves <, >, & and U+2028/U+2029 as they are.
func jsQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if r < 0x20 {
				fmt.Fprintf(&b, `\u%04x`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

// claudeApprove approves an ExitPlanMode: an allow with an empty
// updatedInput. Claude Code 2.1.328 leaves plan mode (for the mode it was
// in before) and tells the model "User has approved your plan" with the
// plan from its plan file; a bare allow leaves the plan dialog on the
// screen.
// Keep planning is a deny with the person's message, which the model gets
// as the tool's error while plan mode stays.
func claudeApprove(Request) Decision {
	return Decision{Allow: true, UpdatedInput: json.RawMessage(`{}`)}
}

// claudeSuggestion is the part of a permission_suggestions entry a label
// names.
type claudeSuggestion struct {
	Type        string   `json:"type"`
	Mode        string   `json:"mode"`
	Destination string   `json:"destination"`
	Behavior    string   `json:"behavior"`
	Directories []string `json:"directories"`
	Rules       []struct {
		ToolName    string `json:"toolName"`
		RuleContent string `json:"ruleContent"`
	} `json:"rules"`
}

// claudeSuggestionLabel names an offered permission update for a button:
// "Always allow Bash(npm test:*)", "Auto-accept edits this session".
func claudeSuggestionLabel(raw json.RawMessage) string {
	var s claudeSuggestion
	if json.Unmarshal(raw, &s) != nil {
		return "Apply suggestion"
	}
	scope := ""
	if s.Destination == "session" {
		scope = " this session"
	}
	switch s.Type {
	case "setMode":
		switch s.Mode {
		case "acceptEdits":
			return "Auto-accept edits" + scope
		case "plan":
			return "Switch to plan mode" + scope
		case "bypassPermissions":
			return "Bypass permissions" + scope
		case "default":
			return "Ask again for everything" + scope
		}
		return "Switch to " + s.Mode + " mode" + scope
	case "addRules", "replaceRules":
		verb := "Always allow"
		switch s.Behavior {
		case "deny":
			verb = "Always deny"
		case "ask":
			verb = "Always ask for"
		}
		rules := make([]string, 0, len(s.Rules))
		for _, r := range s.Rules {
			if r.RuleContent == "" {
				rules = append(rules, r.ToolName)
			} else {
				rules = append(rules, r.ToolName+"("+r.RuleContent+")")
			}
		}
		if len(rules) == 0 {
			return verb
		}
		return verb + " " + strings.Join(rules, ", ")
	case "addDirectories":
		return "Allow access to " + strings.Join(s.Directories, ", ")
	case "removeRules":
		return "Remove rules"
	case "removeDirectories":
		return "Remove access to " + strings.Join(s.Directories, ", ")
	}
	if s.Type == "" {
		return "Apply suggestion"
	}
	return "Apply " + s.Type
}

// claudeNotices maps Claude Code's notification_type words to clawd's.
var claudeNotices = map[string]Notice{
	"permission_prompt":      NoticeDialog,
	"idle_prompt":            NoticeIdle,
	"elicitation_dialog":     NoticeQuestion,
	"elicitation_url_dialog": NoticeQuestion,
	"elicitation_response":   NoticeAnswered,
	"elicitation_complete":   NoticeAnswered,
}

// claudeTitleRecords are the transcript lines of Claude Code (2.1.328)
// that name a session, by their type, with the field that holds the name
// and whether a person gave it. /rename and `claude --name` append
// {"type":"custom-title","customTitle":...,"sessionId":...} and
// {"type":"agent-name","agentName":...}; the title Claude generates for an
// interactive session is {"type":"ai-title","aiTitle":...}; older releases
// wrote {"type":"summary","summary":...}. Claude appends them again after
// turns, so the end of a transcript has the latest.
var claudeTitleRecords = titleRecords{
	"custom-title": {"customTitle", true},
	"agent-name":   {"agentName", true},
	"ai-title":     {"aiTitle", false},
	"summary":      {"summary", false},
}
