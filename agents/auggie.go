package agents

import (
	"cmp"
	"sync"
	"time"
)

// Auggie, Augment Code's CLI (npm @augmentcode/auggie 0.36.0; documented
// format, read in the shipped augment.mjs: it needs an Augment login to
// answer anything, so it does not run here). Hooks in Claude Code's nested
// shape under "hooks" in ~/.augment/settings.json, each handler
// {"type": "command", "command": ..., "timeout": <milliseconds, default
// 60000>}, run without a shell with one JSON payload on stdin and
// AUGMENT_HOOK_EVENT, AUGMENT_CONVERSATION_ID and AUGMENT_PROJECT_DIR set.
// The payloads carry hook_event_name, conversation_id (the session) and
// workspace_roots; tool events tool_name, tool_input, tool_output and
// tool_error; Stop agent_stop_cause; PromptSubmit user_prompt.
//
// Hook events and what they become (the display state is the state
// machine's):
//
//	SessionStart   session.start   idle
//	PromptSubmit   prompt.submit   thinking; title from the prompt
//	PreToolUse     tool.start      working
//	PostToolUse    tool.end        working; tool.failure when tool_error is set
//	Notification   notification    as Claude Code's notification types
//	Stop           turn.end        attention flash, then idle; interrupted: no
//	                               flash; error: turn.failure
//	SessionEnd     session.end     removed
//
// Auggie reads a PreToolUse answer's permissionDecision only from a hook
// that stops the call (deny): an allow changes nothing, so clawd answers
// no permission of Auggie's and every hook prints nothing.
var Auggie = &Agent{
	ID:       auggieID,
	Name:     "Auggie",
	Aliases:  []string{"augment", "augment-code"},
	Command:  "auggie",
	Package:  "@augmentcode/auggie",
	Supports: Supports{States: true, Titles: true},
	Verified: VerifiedDocumented,
	Notes: []string{
		"tested from Auggie's hook format as its shipped code reads it: Auggie needs an Augment login to run, which it cannot have offline here",
		"Auggie takes a hook's deny but not its allow: clawd shows the session and answers no permission of Auggie's",
	},
	Settings: "settings.json in ~/.augment, under hooks",
	ConfigDir: func(getenv Env) (string, error) {
		return homeFolder(getenv, "Auggie", ".augment")
	},
	Hooks: []HookSpec{
		{Event: "SessionStart", Timeout: claudeStateTimeout},
		{Event: "PromptSubmit", Timeout: claudeStateTimeout},
		{Event: "PreToolUse", Timeout: claudeStateTimeout},
		{Event: "PostToolUse", Timeout: claudeStateTimeout},
		{Event: "Notification", Timeout: claudeStateTimeout},
		{Event: "Stop", Timeout: claudeStateTimeout},
		{Event: "SessionEnd", Timeout: claudeStateTimeout},
	},
	kinds: auggieKinds,
	Decode: func(b []byte, ev string, env Env, now time.Time) (Event, error) {
		return decodeAuggie(b, ev, env, now, false)
	},
	DecodeTruncated: func(b []byte, ev string, env Env, now time.Time) (Event, error) {
		return decodeAuggie(b, ev, env, now, true)
	},
	HookEnv:    "AUGMENT_HOOK_EVENT",
	NoDecision: noOutput,
	Render:     stateOnlyRender(noOutput),
}

const auggieID = "auggie"

var auggieKinds = sync.OnceValue(func() map[string]Kind {
	return map[string]Kind{
		"SessionStart": KindSessionStart,
		"PromptSubmit": KindPromptSubmit,
		"PreToolUse":   KindToolStart,
		"PostToolUse":  KindToolEnd,
		"Notification": KindNotification,
		"Stop":         KindTurnEnd,
		"SessionEnd":   KindSessionEnd,
	}
})

var auggieShape = sync.OnceValue(func() hookShape {
	h := claudeShape(auggieID, auggieKinds)
	h.session = []string{"conversation_id"}
	h.sessionEnv = "AUGMENT_CONVERSATION_ID"
	h.prompt = []string{"user_prompt"}
	return h
})

func decodeAuggie(b []byte, hookEvent string, env Env, now time.Time, truncated bool) (Event, error) {
	e, p, err := auggieShape().decode(b, hookEvent, env, now, truncated)
	if err != nil {
		return Event{}, err
	}
	e.Cwd = clip(cmp.Or(p.get("workspace_roots").Get("0").String(), env("AUGMENT_PROJECT_DIR")), MaxPathLen)
	e.ProjectDir = clip(env("AUGMENT_PROJECT_DIR"), MaxPathLen)
	switch e.Kind {
	case KindToolEnd:
		if p.get("tool_error").String() != "" {
			e.Kind = KindToolFailure
		}
	case KindTurnEnd:
		switch p.str("agent_stop_cause", MaxWordLen) {
		case "interrupted":
			e.Reason = ReasonInterrupt
		case "error":
			e.Kind, e.ErrorKind = KindTurnFailure, "error"
		}
	}
	return e, nil
}
