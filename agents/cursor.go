package agents

import (
	"sync"
	"time"
)

// Cursor's agent (the editor's and cursor-agent's hooks; documented
// format: ~/.cursor/hooks.json, `"version": 1`, each event a list of
// `{"command": ...}`, the event's name in the payload's hook_event_name,
// the conversation in conversation_id). No runnable client here: Cursor
// ships no npm package of its CLI.
//
// Hook events and what they become (the display state is the state
// machine's):
//
//	sessionStart         session.start    idle
//	beforeSubmitPrompt   prompt.submit    thinking; title from the prompt
//	preToolUse           tool.start       working
//	postToolUse          tool.end         working
//	postToolUseFailure   tool.end         working (as the original: a failed tool
//	                                      does not end Cursor's turn)
//	preCompact           compact.start    sweeping
//	stop                 turn.end         attention flash, then idle;
//	                     turn.failure     status "error": error flash
//	sessionEnd           session.end      removed
//
// Not registered: afterAgentThought (fires on every thought, says nothing
// a state needs) and subagentStart/subagentStop (their payloads' fields
// are not documented). clawd never answers a permission for Cursor:
// Cursor's own permission system stays in charge, and every hook answers
// `{}` (beforeSubmitPrompt `{"continue":true}`, which lets the prompt go).
var Cursor = &Agent{
	ID:       cursorID,
	Name:     "Cursor",
	Aliases:  []string{"cursor-agent"},
	Command:  "cursor-agent",
	Supports: Supports{States: true, Titles: true},
	Verified: VerifiedDocumented,
	Notes: []string{
		"tested from Cursor's documented hook format: there is no Cursor CLI to run here",
		"Cursor's own permission system stays in charge: clawd shows the session and answers nothing",
	},
	Settings: "hooks.json in ~/.cursor",
	ConfigDir: func(getenv Env) (string, error) {
		return homeFolder(getenv, "Cursor", ".cursor")
	},
	Hooks: []HookSpec{
		{Event: "sessionStart"},
		{Event: "beforeSubmitPrompt"},
		{Event: "preToolUse"},
		{Event: "postToolUse"},
		{Event: "postToolUseFailure"},
		{Event: "preCompact"},
		{Event: "stop"},
		{Event: "sessionEnd"},
	},
	kinds: cursorKinds,
	Decode: func(b []byte, ev string, env Env, now time.Time) (Event, error) {
		return decodeCursor(b, ev, env, now, false)
	},
	DecodeTruncated: func(b []byte, ev string, env Env, now time.Time) (Event, error) {
		return decodeCursor(b, ev, env, now, true)
	},
	NoDecision: cursorNoDecision,
	Render:     stateOnlyRender(cursorNoDecision),
}

const cursorID = "cursor"

var cursorKinds = sync.OnceValue(func() map[string]Kind {
	return map[string]Kind{
		"sessionStart":       KindSessionStart,
		"beforeSubmitPrompt": KindPromptSubmit,
		"preToolUse":         KindToolStart,
		"postToolUse":        KindToolEnd,
		"postToolUseFailure": KindToolEnd,
		"preCompact":         KindCompactStart,
		"stop":               KindTurnEnd,
		"sessionEnd":         KindSessionEnd,
	}
})

var cursorShape = sync.OnceValue(func() hookShape {
	h := claudeShape(cursorID, cursorKinds)
	h.eventFirst = true
	h.session = []string{"conversation_id", "session_id"}
	return h
})

func decodeCursor(b []byte, hookEvent string, env Env, now time.Time, truncated bool) (Event, error) {
	e, p, err := cursorShape().decode(b, hookEvent, env, now, truncated)
	if err != nil {
		return Event{}, err
	}
	if e.Cwd == "" {
		e.Cwd = clip(p.get("workspace_roots").Get("0").String(), MaxPathLen)
	}
	if e.Kind == KindTurnEnd && p.str("status", MaxWordLen) == "error" {
		e.Kind, e.ErrorKind = KindTurnFailure, "error"
	}
	return e, nil
}

// cursorNoDecision lets a prompt go on, and asks nothing of any other
// event.
func cursorNoDecision(hookEvent string) []byte {
	if hookEvent == "beforeSubmitPrompt" {
		return []byte(`{"continue":true}` + "\n")
	}
	return emptyObject(hookEvent)
}
