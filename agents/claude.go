package agents

import (
	"errors"
	"strconv"
	"time"

	"github.com/tidwall/gjson"
)

// Claude Code (npm @anthropic-ai/claude-code, verified against 2.1.328).
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
//	PermissionRequest   permission.request  waiting (question.asked for AskUserQuestion)
//	PermissionDenied    permission.denied   working
//	PostToolUse         tool.end            working
//	PostToolUseFailure  tool.failure        error flash, then working
//	PostToolBatch       tool.batch          working; closes the batch's pending requests *
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
	Supports: Supports{States: true, Permissions: true, Titles: true, Subagents: true},
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
	Decode:     decodeClaude,
	NoDecision: claudeNoDecision,
	Render:     claudeRender,
}

// claudeStateTimeout bounds a non-blocking hook on Claude's side. The hook
// bounds itself far tighter; this is only the backstop.
const claudeStateTimeout = 10

// ClaudePermissionTimeout is the agent-side timeout of the PermissionRequest
// hook in seconds. The hook's own wait is this minus a margin, so the hook
// always answers before Claude Code kills it.
const ClaudePermissionTimeout = 3600

// claudeKinds maps Claude Code's hook_event_name to a kind.
var claudeKinds = map[string]Kind{
	"SessionStart":        KindSessionStart,
	"SessionEnd":          KindSessionEnd,
	"Setup":               KindSetup,
	"InstructionsLoaded":  KindInstructionsLoad,
	"UserPromptSubmit":    KindPromptSubmit,
	"UserPromptExpansion": KindPromptExpansion,
	"PreToolUse":          KindToolStart,
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

// ClaudeKind returns the kind of a Claude Code hook event name.
func ClaudeKind(hookEvent string) (Kind, bool) {
	k, ok := claudeKinds[hookEvent]
	return k, ok
}

// ClaudeEvents lists every hook event name Claude Code fires that clawd
// decodes.
func ClaudeEvents() []string {
	out := make([]string, 0, len(claudeKinds))
	for name := range claudeKinds {
		out = append(out, name)
	}
	return out
}

// Errors of the decoders.
var (
	ErrNotJSON      = errors.New("payload is not a JSON object")
	ErrUnknownEvent = errors.New("unknown hook event")
	ErrNoSession    = errors.New("payload has no session_id")
)

// Questions Claude asks the person through a tool call rather than a
// permission: never answered with a permission decision by default.
const claudeQuestionTool = "AskUserQuestion"

func decodeClaude(payload []byte, hookEvent string, env Env, now time.Time) (Event, error) {
	return decodeClaudeOpts(payload, hookEvent, env, now, false)
}

// DecodeClaudeTruncated decodes the start of a payload that was cut at the
// hook's stdin cap. gjson reads the fields that precede the cut (Claude
// writes session_id, cwd, hook_event_name and tool_name before the bulky
// tool_input), so the session still shows what is happening.
func DecodeClaudeTruncated(prefix []byte, hookEvent string, env Env, now time.Time) (Event, error) {
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
		if in := get("tool_input"); in.Exists() && !truncated {
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
	case KindTurnEnd, KindSubagentStop:
		get("background_tasks").ForEach(func(_, t gjson.Result) bool {
			// A stopping subagent lists itself as still running.
			if t.Get("status").String() == "running" && t.Get("id").String() != e.SubagentID {
				e.BackgroundTasks++
			}
			return true
		})
	case KindTurnFailure:
		e.ErrorKind = str("error", MaxWordLen)
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
