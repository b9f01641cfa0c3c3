package agents

import (
	"path/filepath"
	"time"
)

// WorkBuddy (Tencent's desktop agent; documented format: settings.json in
// $WORKBUDDY_CONFIG_DIR or ~/.workbuddy-ai, Claude Code's nested hooks and
// payloads). No runnable client here.
//
// Hook events and what they become (the display state is the state
// machine's):
//
//	SessionStart      session.start    idle
//	UserPromptSubmit  prompt.submit    thinking; title from the prompt
//	PreToolUse        tool.start       working
//	PostToolUse       tool.end         working
//	Notification      notification     permission_prompt: waiting (WorkBuddy asks
//	                                   in its own window), as Claude Code's
//	PreCompact        compact.start    sweeping
//	Stop              turn.end         attention flash, then idle
//	SessionEnd        session.end      removed
//
// WorkBuddy settles permissions in its own sandbox and window, so clawd
// registers no blocking event: state and notifications only.
var WorkBuddy = &Agent{
	ID:       workBuddyID,
	Name:     "WorkBuddy",
	Command:  "workbuddy",
	Supports: Supports{States: true, Titles: true},
	Verified: VerifiedDocumented,
	Notes: []string{
		"tested from WorkBuddy's documented hook format (Claude Code's): there is no WorkBuddy CLI to run here",
		"WorkBuddy settles permissions in its own window: clawd shows the session waiting and answers nothing",
	},
	Settings: "settings.json in $WORKBUDDY_CONFIG_DIR or ~/.workbuddy-ai",
	ConfigDir: func(getenv Env) (string, error) {
		if d := getenv("WORKBUDDY_CONFIG_DIR"); filepath.IsAbs(d) {
			return d, nil
		}
		return homeFolder(getenv, "WorkBuddy", ".workbuddy-ai")
	},
	Hooks: []HookSpec{
		{Event: "SessionStart", Timeout: claudeStateTimeout},
		{Event: "SessionEnd", Timeout: claudeStateTimeout},
		{Event: "UserPromptSubmit", Timeout: claudeStateTimeout},
		{Event: "PreToolUse", Timeout: claudeStateTimeout},
		{Event: "PostToolUse", Timeout: claudeStateTimeout},
		{Event: "Notification", Timeout: claudeStateTimeout},
		{Event: "PreCompact", Timeout: claudeStateTimeout},
		{Event: "Stop", Timeout: claudeStateTimeout},
	},
	Kinds: workBuddyKinds,
	Decode: func(b []byte, ev string, env Env, now time.Time) (Event, error) {
		e, _, err := claudeShape(workBuddyID, workBuddyKinds).decode(b, ev, env, now, false)
		return e, err
	},
	DecodeTruncated: func(b []byte, ev string, env Env, now time.Time) (Event, error) {
		e, _, err := claudeShape(workBuddyID, workBuddyKinds).decode(b, ev, env, now, true)
		return e, err
	},
	NoDecision: emptyObject,
	Render:     stateOnlyRender(emptyObject),
}

const workBuddyID = "workbuddy"

var workBuddyKinds = map[string]Kind{
	"SessionStart":     KindSessionStart,
	"SessionEnd":       KindSessionEnd,
	"UserPromptSubmit": KindPromptSubmit,
	"PreToolUse":       KindToolStart,
	"PostToolUse":      KindToolEnd,
	"Notification":     KindNotification,
	"PreCompact":       KindCompactStart,
	"Stop":             KindTurnEnd,
}
