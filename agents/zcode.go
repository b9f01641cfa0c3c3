package agents

import (
	"sync"
	"time"
)

// ZCode (Z.ai's desktop agent; documented format: ~/.zcode/cli/config.json
// with the hooks under "hooks": {"enabled": true, "events": {...}} in
// Claude Code's nested shape, timeouts in seconds, and no key besides
// type, command, timeout on a handler; Claude Code's payload fields).
// No runnable client here.
//
// ZCode fires exactly seven events, all registered; what they become (the
// display state is the state machine's):
//
//	SessionStart        session.start       idle
//	UserPromptSubmit    prompt.submit       thinking; title from the prompt
//	PreToolUse          tool.start          working
//	PermissionRequest   permission.request  waiting; answered through clawd's
//	                                        broker (allow, or deny with a message)
//	PostToolUse         tool.end            working
//	PostToolUseFailure  tool.failure        error flash, then working
//	Stop                turn.end            attention flash, then idle
//
// ZCode validates a hook's answer strictly: clawd's is the minimal
// hookSpecificOutput (behavior, and a deny's message), never updated
// permissions or an interrupt, so an "always" is a plain allow. No
// decision is `{}`, after which ZCode asks in its own dialog. ZCode fires
// no SessionEnd: its sessions end by the state machine's stale rules.
var ZCode = &Agent{
	ID:       zcodeID,
	Name:     "ZCode",
	Aliases:  []string{"zcode-cli"},
	Command:  "zcode-cli",
	Supports: Supports{States: true, Permissions: true, Titles: true},
	Verified: VerifiedDocumented,
	Notes: []string{
		"tested from ZCode's documented hook format: there is no ZCode to run here",
		`ZCode runs hooks only with "enabled": true beside them: install adds it, and leaves an "enabled": false of yours as it is (then clawd's hooks do not run)`,
		"an \"always\" answer from clawd reaches ZCode as a plain allow: its hook answers take no permission rules",
		"ZCode fires no session end: its sessions go when they have been idle long enough (clawd's stale rules)",
	},
	Settings: "cli/config.json in ~/.zcode, under hooks.events",
	ConfigDir: func(getenv Env) (string, error) {
		return homeFolder(getenv, "ZCode", ".zcode", "cli")
	},
	Hooks: []HookSpec{
		{Event: "SessionStart", Timeout: claudeStateTimeout},
		{Event: "UserPromptSubmit", Timeout: claudeStateTimeout},
		{Event: "PreToolUse", Timeout: claudeStateTimeout},
		{Event: "PermissionRequest", Timeout: ZCodePermissionTimeout, Blocking: true},
		{Event: "PostToolUse", Timeout: claudeStateTimeout},
		{Event: "PostToolUseFailure", Timeout: claudeStateTimeout},
		{Event: "Stop", Timeout: claudeStateTimeout},
	},
	kinds: zcodeKinds,
	Decode: func(b []byte, ev string, env Env, now time.Time) (Event, error) {
		return decodeZCode(b, ev, env, now, false)
	},
	DecodeTruncated: func(b []byte, ev string, env Env, now time.Time) (Event, error) {
		return decodeZCode(b, ev, env, now, true)
	},
	Describe:   claudeDescribe,
	NoDecision: emptyObject,
	Render:     zcodeRender,
}

const zcodeID = "zcode"

// ZCodePermissionTimeout is the agent-side timeout of ZCode's
// PermissionRequest hook, in seconds: the original's 600 s.
const ZCodePermissionTimeout = 600

var zcodeKinds = sync.OnceValue(func() map[string]Kind {
	return map[string]Kind{
		"SessionStart":       KindSessionStart,
		"UserPromptSubmit":   KindPromptSubmit,
		"PreToolUse":         KindToolStart,
		"PermissionRequest":  KindPermissionRequest,
		"PostToolUse":        KindToolEnd,
		"PostToolUseFailure": KindToolFailure,
		"Stop":               KindTurnEnd,
	}
})

func decodeZCode(b []byte, hookEvent string, env Env, now time.Time, truncated bool) (Event, error) {
	e, p, err := claudeShape(zcodeID, zcodeKinds).decode(b, hookEvent, env, now, truncated)
	if err != nil {
		return Event{}, err
	}
	e.PermissionMode = p.str("permission_mode", MaxWordLen)
	return e, nil
}

// zcodeRender prints d as ZCode's PermissionRequest answer (see
// minimalDecision); anything else gets `{}`.
func zcodeRender(hookEvent string, d *Decision) []byte {
	if d == nil || hookEvent != "PermissionRequest" {
		return emptyObject(hookEvent)
	}
	b, err := minimalDecision(hookEvent, d, "")
	if err != nil {
		return emptyObject(hookEvent)
	}
	return b
}
