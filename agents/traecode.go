package agents

import (
	"sync"
	"time"
)

// TraeCode (ByteDance's Trae IDE, China edition; documented format:
// ~/.trae-cn/hooks.json, Claude Code's nested hooks without timeouts,
// Claude Code's payloads). No runnable client here.
//
// Hook events and what they become (the display state is the state
// machine's):
//
//	SessionStart      session.start    idle
//	UserPromptSubmit  prompt.submit    thinking; title from the prompt
//	PreToolUse        tool.start       working
//	PostToolUse       tool.end         working
//	Notification      notification     as Claude Code's notification types
//	Stop              turn.end         attention flash, then idle
//
// TraeCode fires no SessionEnd: its sessions end by the state machine's
// stale rules. It has no title of its own: the first prompt names the
// session, and later prompts do not rename it.
var TraeCode = &Agent{
	ID:       traeCodeID,
	Name:     "TraeCode",
	Aliases:  []string{"trae", "trae-cn"},
	Command:  "trae",
	Supports: Supports{States: true, Titles: true},
	Verified: VerifiedDocumented,
	Notes: []string{
		"tested from TraeCode's documented hook format: there is no TraeCode CLI to run here",
		"TraeCode fires no session end: its sessions go when they have been idle long enough (clawd's stale rules)",
	},
	Settings: "hooks.json in ~/.trae-cn",
	ConfigDir: func(getenv Env) (string, error) {
		return homeFolder(getenv, "TraeCode", ".trae-cn")
	},
	Hooks: []HookSpec{
		{Event: "SessionStart"},
		{Event: "UserPromptSubmit"},
		{Event: "PreToolUse"},
		{Event: "PostToolUse"},
		{Event: "Stop"},
		{Event: "Notification"},
	},
	kinds: traeCodeKinds,
	Decode: func(b []byte, ev string, env Env, now time.Time) (Event, error) {
		e, _, err := claudeShape(traeCodeID, traeCodeKinds).decode(b, ev, env, now, false)
		return e, err
	},
	DecodeTruncated: func(b []byte, ev string, env Env, now time.Time) (Event, error) {
		e, _, err := claudeShape(traeCodeID, traeCodeKinds).decode(b, ev, env, now, true)
		return e, err
	},
	NoDecision: emptyObject,
	Render:     stateOnlyRender(emptyObject),
}

const traeCodeID = "traecode"

var traeCodeKinds = sync.OnceValue(func() map[string]Kind {
	return map[string]Kind{
		"SessionStart":     KindSessionStart,
		"UserPromptSubmit": KindPromptSubmit,
		"PreToolUse":       KindToolStart,
		"PostToolUse":      KindToolEnd,
		"Notification":     KindNotification,
		"Stop":             KindTurnEnd,
	}
})
