package agents

import (
	"sync"
	"time"
)

// CodeBuddy Code (Tencent; documented format: ~/.codebuddy/settings.json
// with Claude Code's nested hooks and its payloads, PascalCase events).
// No runnable client here.
//
// Hook events and what they become (the display state is the state
// machine's):
//
//	SessionStart       session.start       idle
//	UserPromptSubmit   prompt.submit       thinking; title from the prompt
//	PreToolUse         tool.start          working
//	PermissionRequest  permission.request  waiting; answered through clawd's
//	                                       broker in Claude Code's format
//	PostToolUse        tool.end            working
//	Notification       notification        as Claude Code's notification types
//	PreCompact         compact.start       sweeping
//	Stop               turn.end            attention flash, then idle
//	SessionEnd         session.end         removed
//
// A PermissionRequest is answered as Claude Code's is: allow (with the
// offered "always" rules), deny with a message, or no decision (`{}`),
// after which CodeBuddy asks in its own dialog.
var CodeBuddy = &Agent{
	ID:       codeBuddyID,
	Name:     "CodeBuddy",
	Aliases:  []string{"codebuddy-code"},
	Command:  "codebuddy",
	Supports: Supports{States: true, Permissions: true, Titles: true},
	Verified: VerifiedDocumented,
	Notes: []string{
		"tested from CodeBuddy's documented hook format (Claude Code's): there is no CodeBuddy CLI to run here",
	},
	Settings: "settings.json in ~/.codebuddy",
	ConfigDir: func(getenv Env) (string, error) {
		return homeFolder(getenv, "CodeBuddy", ".codebuddy")
	},
	Hooks: []HookSpec{
		{Event: "SessionStart", Timeout: claudeStateTimeout},
		{Event: "SessionEnd", Timeout: claudeStateTimeout},
		{Event: "UserPromptSubmit", Timeout: claudeStateTimeout},
		{Event: "PreToolUse", Timeout: claudeStateTimeout},
		{Event: "PermissionRequest", Timeout: CodeBuddyPermissionTimeout, Blocking: true},
		{Event: "PostToolUse", Timeout: claudeStateTimeout},
		{Event: "Notification", Timeout: claudeStateTimeout},
		{Event: "PreCompact", Timeout: claudeStateTimeout},
		{Event: "Stop", Timeout: claudeStateTimeout},
	},
	kinds: codeBuddyKinds,
	Decode: func(b []byte, ev string, env Env, now time.Time) (Event, error) {
		return decodeCodeBuddy(b, ev, env, now, false)
	},
	DecodeTruncated: func(b []byte, ev string, env Env, now time.Time) (Event, error) {
		return decodeCodeBuddy(b, ev, env, now, true)
	},
	Describe:   claudeDescribe,
	NoDecision: claudeNoDecision,
	Render:     claudeRender,
}

const codeBuddyID = "codebuddy"

// CodeBuddyPermissionTimeout is the agent-side timeout of CodeBuddy's
// PermissionRequest hook, in seconds: the original's 600 s.
const CodeBuddyPermissionTimeout = 600

var codeBuddyKinds = sync.OnceValue(func() map[string]Kind {
	return map[string]Kind{
		"SessionStart":      KindSessionStart,
		"SessionEnd":        KindSessionEnd,
		"UserPromptSubmit":  KindPromptSubmit,
		"PreToolUse":        KindToolStart,
		"PermissionRequest": KindPermissionRequest,
		"PostToolUse":       KindToolEnd,
		"Notification":      KindNotification,
		"PreCompact":        KindCompactStart,
		"Stop":              KindTurnEnd,
	}
})

func decodeCodeBuddy(b []byte, hookEvent string, env Env, now time.Time, truncated bool) (Event, error) {
	e, p, err := claudeShape(codeBuddyID, codeBuddyKinds).decode(b, hookEvent, env, now, truncated)
	if err != nil {
		return Event{}, err
	}
	e.PermissionMode = p.str("permission_mode", MaxWordLen)
	if e.Kind == KindCompactStart {
		e.Source = p.str("trigger", MaxWordLen)
	}
	return e, nil
}
