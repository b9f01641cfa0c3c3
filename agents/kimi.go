package agents

import (
	"sync"
	"time"
)

// Kimi Code CLI (Moonshot; documented format: `[[hooks]]` tables in
// ~/.kimi/config.toml, each with event, command, matcher and timeout in
// seconds; the payloads have Claude Code's names, the event in
// hook_event_name). No runnable client here: Kimi's CLI is not on npm.
//
// Hook events and what they become (the display state is the state
// machine's):
//
//	SessionStart        session.start    idle
//	UserPromptSubmit    prompt.submit    thinking; title from the prompt
//	PreToolUse          tool.start       working
//	PostToolUse         tool.end         working
//	PostToolUseFailure  tool.failure     error flash, then working
//	Notification        notification     as Claude Code's notification types
//	PreCompact          compact.start    sweeping
//	PostCompact         compact.end      back to what it was
//	Stop                turn.end         attention flash, then idle
//	StopFailure         turn.failure     error flash, then idle
//	SessionEnd          session.end      removed
//
// Not registered: SubagentStart and SubagentStop (their payloads' fields
// are not documented). Kimi asks for approvals in its own terminal, and
// no hook says that it does: clawd shows the tool working meanwhile.
var Kimi = &Agent{
	ID:       kimiID,
	Name:     "Kimi Code CLI",
	Aliases:  []string{"kimi-cli", "kimi-code"},
	Command:  "kimi",
	Supports: Supports{States: true, Titles: true},
	Verified: VerifiedDocumented,
	Notes: []string{
		"tested from Kimi's documented hook format: Kimi's CLI is not on npm, so it does not run here",
		"Kimi asks for approvals in its own terminal and no hook says so: clawd shows the tool working meanwhile",
	},
	Settings: "[[hooks]] tables in config.toml in ~/.kimi",
	ConfigDir: func(getenv Env) (string, error) {
		return homeFolder(getenv, "Kimi Code CLI", ".kimi")
	},
	Hooks: []HookSpec{
		{Event: "SessionStart", Timeout: kimiTimeout},
		{Event: "SessionEnd", Timeout: kimiTimeout},
		{Event: "UserPromptSubmit", Timeout: kimiTimeout},
		{Event: "PreToolUse", Timeout: kimiTimeout},
		{Event: "PostToolUse", Timeout: kimiTimeout},
		{Event: "PostToolUseFailure", Timeout: kimiTimeout},
		{Event: "Stop", Timeout: kimiTimeout},
		{Event: "StopFailure", Timeout: kimiTimeout},
		{Event: "PreCompact", Timeout: kimiTimeout},
		{Event: "PostCompact", Timeout: kimiTimeout},
		{Event: "Notification", Timeout: kimiTimeout},
	},
	kinds: kimiKinds,
	Decode: func(b []byte, ev string, env Env, now time.Time) (Event, error) {
		e, _, err := claudeShape(kimiID, kimiKinds).decode(b, ev, env, now, false)
		return e, err
	},
	DecodeTruncated: func(b []byte, ev string, env Env, now time.Time) (Event, error) {
		e, _, err := claudeShape(kimiID, kimiKinds).decode(b, ev, env, now, true)
		return e, err
	},
	NoDecision: noOutput,
	Render:     stateOnlyRender(noOutput),
}

const kimiID = "kimi"

// kimiTimeout bounds a hook on Kimi's side, in seconds (Kimi goes on
// without it after that); the hook bounds itself far tighter.
const kimiTimeout = 10

var kimiKinds = sync.OnceValue(func() map[string]Kind {
	return map[string]Kind{
		"SessionStart":       KindSessionStart,
		"SessionEnd":         KindSessionEnd,
		"UserPromptSubmit":   KindPromptSubmit,
		"PreToolUse":         KindToolStart,
		"PostToolUse":        KindToolEnd,
		"PostToolUseFailure": KindToolFailure,
		"Stop":               KindTurnEnd,
		"StopFailure":        KindTurnFailure,
		"PreCompact":         KindCompactStart,
		"PostCompact":        KindCompactEnd,
		"Notification":       KindNotification,
	}
})
