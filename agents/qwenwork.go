package agents

import (
	"sync"
	"time"
)

// QwenWork (Alibaba's desktop agent; documented format:
// ~/.QwenWorkCN/settings.json, Claude Code's nested hooks with a
// "matcher": "*" group and a handler named "clawd", Claude Code's
// payloads). No runnable client here.
//
// Hook events and what they become (the display state is the state
// machine's):
//
//	SessionStart        session.start     idle
//	UserPromptSubmit    prompt.submit     thinking; title from the prompt
//	PreToolUse          tool.start        working
//	PermissionRequest   tool.start        working: observed, never answered
//	PermissionDenied    tool.end          working: observed
//	PostToolUse         tool.end          working
//	PostToolUseFailure  tool.failure      error flash, then working
//	Notification        notification      as Claude Code's notification types
//	Stop                turn.end          attention flash, then idle
//	SessionEnd          session.end       removed
//
// QwenWork fires PermissionRequest and PermissionDenied dozens of times a
// task as part of its own tool flow, and answers them itself: clawd takes
// them as work going on, registers no blocking event, answers `{}`.
var QwenWork = &Agent{
	ID:       qwenWorkID,
	Name:     "QwenWork",
	Command:  "qwenwork",
	Supports: Supports{States: true, Titles: true},
	Verified: VerifiedDocumented,
	Notes: []string{
		"tested from QwenWork's documented hook format: there is no QwenWork CLI to run here",
		"QwenWork's permission requests are observed as work going on, never answered: QwenWork settles them itself",
	},
	Settings: "settings.json in ~/.QwenWorkCN",
	ConfigDir: func(getenv Env) (string, error) {
		return homeFolder(getenv, "QwenWork", ".QwenWorkCN")
	},
	Hooks: []HookSpec{
		{Event: "SessionStart", Timeout: claudeStateTimeout},
		{Event: "UserPromptSubmit", Timeout: claudeStateTimeout},
		{Event: "PreToolUse", Timeout: claudeStateTimeout},
		{Event: "PostToolUse", Timeout: claudeStateTimeout},
		{Event: "PostToolUseFailure", Timeout: claudeStateTimeout},
		{Event: "Stop", Timeout: claudeStateTimeout},
		{Event: "Notification", Timeout: claudeStateTimeout},
		{Event: "PermissionRequest", Timeout: claudeStateTimeout},
		{Event: "PermissionDenied", Timeout: claudeStateTimeout},
		{Event: "SessionEnd", Timeout: claudeStateTimeout},
	},
	kinds: qwenWorkKinds,
	Decode: func(b []byte, ev string, env Env, now time.Time) (Event, error) {
		e, _, err := claudeShape(qwenWorkID, qwenWorkKinds).decode(b, ev, env, now, false)
		return e, err
	},
	DecodeTruncated: func(b []byte, ev string, env Env, now time.Time) (Event, error) {
		e, _, err := claudeShape(qwenWorkID, qwenWorkKinds).decode(b, ev, env, now, true)
		return e, err
	},
	NoDecision: emptyObject,
	Render:     stateOnlyRender(emptyObject),
}

const qwenWorkID = "qwenwork"

var qwenWorkKinds = sync.OnceValue(func() map[string]Kind {
	return map[string]Kind{
		"SessionStart":       KindSessionStart,
		"UserPromptSubmit":   KindPromptSubmit,
		"PreToolUse":         KindToolStart,
		"PermissionRequest":  KindToolStart,
		"PermissionDenied":   KindToolEnd,
		"PostToolUse":        KindToolEnd,
		"PostToolUseFailure": KindToolFailure,
		"Notification":       KindNotification,
		"Stop":               KindTurnEnd,
		"SessionEnd":         KindSessionEnd,
	}
})
