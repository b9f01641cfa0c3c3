package agents

import (
	"path/filepath"
	"sync"
	"time"
)

// Reasonix (a Go coding agent; format from the original app's installer
// and hook: settings.json in $REASONIX_HOME or ~/.reasonix, each event a
// list of `{"match": "*", "command": ...}` without timeout; the payload
// names its event in "event", the session in "sessionId", the tool in
// "toolName"). No runnable client here.
//
// Hook events and what they become (the display state is the state
// machine's):
//
//	SessionStart      session.start    idle
//	UserPromptSubmit  prompt.submit    thinking; title from the prompt
//	PreToolUse        tool.start       working
//	PostToolUse       tool.end         working
//	SubagentStop      tool.end         working (the subagent's work is done)
//	Notification      notification     as Claude Code's notification types
//	PreCompact        compact.start    sweeping
//	Stop              turn.end         attention flash, then idle
//	SessionEnd        session.end      removed
//
// Reasonix waits for UserPromptSubmit and PreToolUse hooks (5 s, after
// which it aborts the turn) and reads PreCompact's output as text: the
// hook prints nothing and answers within its 0.4 s bound.
var Reasonix = &Agent{
	ID:       reasonixID,
	Name:     "Reasonix",
	Command:  "reasonix",
	Supports: Supports{States: true, Titles: true},
	Verified: VerifiedDocumented,
	Notes: []string{
		"tested from Reasonix's documented hook format: there is no Reasonix CLI to run here",
		"Reasonix keeps its own permission prompt: clawd shows the session and answers nothing",
	},
	Settings: "settings.json in $REASONIX_HOME or ~/.reasonix",
	ConfigDir: func(getenv Env) (string, error) {
		if d := getenv("REASONIX_HOME"); filepath.IsAbs(d) {
			return d, nil
		}
		return homeFolder(getenv, "Reasonix", ".reasonix")
	},
	Hooks: []HookSpec{
		{Event: "SessionStart"},
		{Event: "SessionEnd"},
		{Event: "UserPromptSubmit"},
		{Event: "PreToolUse"},
		{Event: "PostToolUse"},
		{Event: "Stop"},
		{Event: "SubagentStop"},
		{Event: "Notification"},
		{Event: "PreCompact"},
	},
	kinds: reasonixKinds,
	Decode: func(b []byte, ev string, env Env, now time.Time) (Event, error) {
		e, _, err := reasonixShape().decode(b, ev, env, now, false)
		return e, err
	},
	DecodeTruncated: func(b []byte, ev string, env Env, now time.Time) (Event, error) {
		e, _, err := reasonixShape().decode(b, ev, env, now, true)
		return e, err
	},
	NoDecision: noOutput,
	Render:     stateOnlyRender(noOutput),
}

const reasonixID = "reasonix"

var reasonixKinds = sync.OnceValue(func() map[string]Kind {
	return map[string]Kind{
		"SessionStart":     KindSessionStart,
		"SessionEnd":       KindSessionEnd,
		"UserPromptSubmit": KindPromptSubmit,
		"PreToolUse":       KindToolStart,
		"PostToolUse":      KindToolEnd,
		"SubagentStop":     KindToolEnd,
		"Notification":     KindNotification,
		"PreCompact":       KindCompactStart,
		"Stop":             KindTurnEnd,
	}
})

var reasonixShape = sync.OnceValue(func() hookShape {
	h := claudeShape(reasonixID, reasonixKinds)
	h.event = []string{"event", "hook_event_name"}
	h.session = []string{"session_id", "sessionId"}
	h.tool = []string{"toolName", "tool_name"}
	return h
})
