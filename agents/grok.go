package agents

import (
	"fmt"
	"sync"
	"time"
)

// Grok Build (xAI; documented format: a hooks file of clawd's own,
// <GROK_HOME or ~/.grok>/hooks/clawd.json, with Claude Code's nested
// shape and event names, timeouts in seconds; the payload's fields are
// camelCase, hookEventName's value snake_case, and Grok sets
// GROK_HOOK_EVENT in every hook it runs). No runnable client here.
//
// Hook events and what they become (the display state is the state
// machine's):
//
//	SessionStart        session.start    idle
//	UserPromptSubmit    prompt.submit    thinking; title from the prompt
//	PreToolUse          tool.start       working
//	PostToolUse         tool.end         working
//	PostToolUseFailure  tool.failure     error flash, then working
//	PermissionDenied    permission.denied working
//	Notification        notification     as Claude Code's notification types
//	PreCompact          compact.start    sweeping
//	PostCompact         compact.end      back to what it was
//	Stop                turn.end         attention flash, then idle; only for
//	                                     reason "end_turn" (another reason, or
//	                                     background work still running, is no end)
//	StopFailure         turn.failure     error flash, then idle
//	StopCancelled       turn.end         idle, no flash (reason interrupt)
//	SessionEnd          session.end      removed
//
// A subagent's events (subagentType set) are dropped. Grok keeps every
// permission decision: each hook answers `{}`.
//
// Grok also scans Claude Code's settings (and Cursor's hooks) and runs
// the hooks there, clawd's included, with GROK_HOOK_EVENT set: a
// `clawd hook claude` run that way is Grok's, not Claude Code's, and
// answers `{}` at once, recording nothing (Agent.ForeignCaller).
var Grok = &Agent{
	ID:          grokID,
	Name:        "Grok Build",
	Aliases:     []string{"grok-build"},
	Command:     "grok",
	Supports:    Supports{States: true, Titles: true},
	Verified:    VerifiedDocumented,
	HookEnv:     "GROK_HOOK_EVENT",
	RunsHooksOf: []string{claudeID, cursorID},
	Notes: []string{
		"tested from Grok Build's documented hook format: there is no Grok CLI to run here",
		"Grok keeps every permission decision: clawd shows the session and answers nothing",
		"Grok also runs the hooks in Claude Code's settings: clawd's Claude hook knows Grok by GROK_HOOK_EVENT and records nothing then",
	},
	Settings: "hooks/clawd.json in $GROK_HOME or ~/.grok (a file of clawd's own)",
	ConfigDir: func(getenv Env) (string, error) {
		return configDir(getenv, "GROK_HOME", ".grok", "Grok Build")
	},
	Hooks: []HookSpec{
		{Event: "SessionStart", Timeout: grokTimeout},
		{Event: "UserPromptSubmit", Timeout: grokTimeout},
		{Event: "PreToolUse", Timeout: grokTimeout},
		{Event: "PostToolUse", Timeout: grokTimeout},
		{Event: "PostToolUseFailure", Timeout: grokTimeout},
		{Event: "PermissionDenied", Timeout: grokTimeout},
		{Event: "Notification", Timeout: grokTimeout},
		{Event: "PreCompact", Timeout: grokTimeout},
		{Event: "PostCompact", Timeout: grokTimeout},
		{Event: "Stop", Timeout: grokTimeout},
		{Event: "StopFailure", Timeout: grokTimeout},
		{Event: "StopCancelled", Timeout: grokTimeout},
		// Grok gives SessionEnd hooks 1.5 s in all; the hook posts within
		// 0.4 s.
		{Event: "SessionEnd", Timeout: grokTimeout},
	},
	kinds: grokKinds,
	Decode: func(b []byte, ev string, env Env, now time.Time) (Event, error) {
		return decodeGrok(b, ev, env, now, false)
	},
	DecodeTruncated: func(b []byte, ev string, env Env, now time.Time) (Event, error) {
		return decodeGrok(b, ev, env, now, true)
	},
	NoDecision: emptyObject,
	Render:     stateOnlyRender(emptyObject),
}

const grokID = "grok"

// grokTimeout bounds a hook on Grok's side, in seconds: the original's 5.
const grokTimeout = 5

var grokKinds = sync.OnceValue(func() map[string]Kind {
	return map[string]Kind{
		"SessionStart":       KindSessionStart,
		"UserPromptSubmit":   KindPromptSubmit,
		"PreToolUse":         KindToolStart,
		"PostToolUse":        KindToolEnd,
		"PostToolUseFailure": KindToolFailure,
		"PermissionDenied":   KindPermissionDenied,
		"Notification":       KindNotification,
		"PreCompact":         KindCompactStart,
		"PostCompact":        KindCompactEnd,
		"Stop":               KindTurnEnd,
		"StopFailure":        KindTurnFailure,
		"StopCancelled":      KindTurnEnd,
		"SessionEnd":         KindSessionEnd,
	}
})

// grokShape reads Grok's payloads: hook_event_name carries the
// PascalCase name, hookEventName (and GROK_HOOK_EVENT) the snake_case one.
var grokShape = hookShape{
	agent: grokID,
	kinds: grokKinds,
	event: []string{"hook_event_name", "hookEventName"},
	rename: map[string]string{
		"session_start": "SessionStart", "user_prompt_submit": "UserPromptSubmit", "pre_tool_use": "PreToolUse",
		"post_tool_use": "PostToolUse", "post_tool_use_failure": "PostToolUseFailure",
		"permission_denied": "PermissionDenied", "notification": "Notification", "pre_compact": "PreCompact",
		"post_compact": "PostCompact", "stop": "Stop", "stop_failure": "StopFailure",
		"stop_cancelled": "StopCancelled", "session_end": "SessionEnd",
	},
	session:      []string{"sessionId", "session_id"},
	sessionEnv:   "GROK_SESSION_ID",
	cwd:          []string{"cwd"},
	tool:         []string{"toolName", "tool_name"},
	toolUse:      []string{"toolUseId", "tool_use_id"},
	prompt:       []string{"prompt"},
	notification: []string{"notificationType", "notification_type"},
}

func decodeGrok(b []byte, hookEvent string, env Env, now time.Time, truncated bool) (Event, error) {
	e, p, err := grokShape.decode(b, hookEvent, env, now, truncated)
	if err != nil {
		return Event{}, err
	}
	if p.first([]string{"subagentType", "subagent_type"}, MaxIDLen) != "" {
		return Event{}, fmt.Errorf("%w: a subagent's event", ErrNothingToShow)
	}
	e.TurnID = p.first([]string{"promptId", "prompt_id"}, MaxIDLen)
	switch e.HookEvent {
	case "Stop":
		if r := p.str("reason", MaxWordLen); r != "end_turn" {
			return Event{}, fmt.Errorf("%w: stop reason %q", ErrNothingToShow, r)
		}
		if p.get("stopHookActive").Bool() || len(p.get("backgroundTasks").Array()) > 0 || len(p.get("sessionCrons").Array()) > 0 {
			return Event{}, fmt.Errorf("%w: the turn goes on in the background", ErrNothingToShow)
		}
	case "StopCancelled":
		e.Reason = ReasonInterrupt
	case "StopFailure":
		e.ErrorKind = "error"
	}
	return e, nil
}
