package agents

import (
	"path/filepath"
	"sync"
	"time"

	"github.com/tidwall/gjson"
)

// Antigravity CLI (Google's agy; documented format: a hook group named
// "clawd" in ~/.gemini/config/hooks.json, each event a list of
// {"type": "command", "command": ..., "timeout": 10} handlers (PostToolUse
// a group matching "*"); the payload's fields are camelCase:
// hookEventName, conversationId, transcriptPath, workspacePaths,
// toolCall {name, args}). No runnable client here.
//
// Hook events and what they become (the display state is the state
// machine's):
//
//	PreInvocation   prompt.submit     thinking
//	PostToolUse     tool.end          working (tool.failure, an error flash,
//	                                  when it reports an error)
//	PostInvocation  model.response    no change: its place beside Stop is not
//	                                  documented, Stop ends the turn
//	Stop            turn.end          attention flash, then idle; with an error
//	                                  turn.failure; not fully idle: tool.end
//
// State only: PreToolUse is deliberately not registered. agy's model asks
// for permission through its own ask_permission tool, whose five-option
// menu no hook can suppress, so a second dialog of clawd's would only add
// confirmations. Stop answers {"decision":"allow"} (the agent may stop),
// every other event `{}`.
var Antigravity = &Agent{
	ID:       antigravityID,
	Name:     "Antigravity CLI",
	Aliases:  []string{"agy", "antigravity-cli"},
	Command:  "agy",
	Supports: Supports{States: true},
	Verified: VerifiedDocumented,
	Notes: []string{
		"tested from Antigravity's documented hook format: there is no agy to run here",
		"permissions stay in agy's own menu: clawd registers no PreToolUse and answers nothing",
		"agy's sessions have no title clawd can read: they are named by their folder",
	},
	Settings: `the "clawd" hook group in ~/.gemini/config/hooks.json`,
	ConfigDir: func(getenv Env) (string, error) {
		return homeFolder(getenv, "Antigravity CLI", ".gemini", "config")
	},
	Hooks: []HookSpec{
		{Event: "PreInvocation", Timeout: antigravityTimeout},
		{Event: "PostToolUse", Timeout: antigravityTimeout},
		{Event: "PostInvocation", Timeout: antigravityTimeout},
		{Event: "Stop", Timeout: antigravityTimeout},
	},
	kinds: antigravityKinds,
	Decode: func(b []byte, ev string, env Env, now time.Time) (Event, error) {
		return decodeAntigravity(b, ev, env, now, false)
	},
	DecodeTruncated: func(b []byte, ev string, env Env, now time.Time) (Event, error) {
		return decodeAntigravity(b, ev, env, now, true)
	},
	NoDecision: antigravityNoDecision,
	Render:     stateOnlyRender(antigravityNoDecision),
}

const antigravityID = "antigravity"

// antigravityTimeout bounds a hook on agy's side, in seconds: the
// original's 10.
const antigravityTimeout = 10

var antigravityKinds = sync.OnceValue(func() map[string]Kind {
	return map[string]Kind{
		"PreInvocation":  KindPromptSubmit,
		"PostToolUse":    KindToolEnd,
		"PostInvocation": KindModelResponse,
		"Stop":           KindTurnEnd,
	}
})

var antigravityShape = hookShape{
	agent:      antigravityID,
	kinds:      antigravityKinds,
	event:      []string{"hookEventName", "hook_event_name"},
	session:    []string{"conversationId"},
	tool:       []string{"toolName", "tool_name"},
	transcript: []string{"transcriptPath"},
}

func decodeAntigravity(b []byte, hookEvent string, env Env, now time.Time, truncated bool) (Event, error) {
	e, p, err := antigravityShape.decode(b, hookEvent, env, now, truncated)
	if err != nil {
		return Event{}, err
	}
	e.Cwd = clip(p.get("workspacePaths").Get("0").String(), MaxPathLen)
	if c := p.get("toolCall"); c.IsObject() {
		e.ToolName = clip(c.Get("name").String(), MaxIDLen)
		if d := c.Get("args.Cwd").String(); d != "" && filepath.IsAbs(d) {
			e.Cwd = clip(d, MaxPathLen)
		}
	}
	er := p.get("error")
	failed := er.Exists() && er.Type != gjson.Null && er.Type != gjson.False && er.String() != ""
	switch e.HookEvent {
	case "PostToolUse":
		if failed {
			e.Kind = KindToolFailure
		}
	case "Stop":
		switch {
		case failed || containsAny(p.str("terminationReason", MaxWordLen), "error", "fail"):
			e.Kind, e.ErrorKind = KindTurnFailure, "error"
		case p.get("fullyIdle").Exists() && !p.get("fullyIdle").Bool():
			e.Kind = KindToolEnd
		}
	}
	return e, nil
}

// antigravityNoDecision lets agy stop at Stop, and asks nothing else.
func antigravityNoDecision(hookEvent string) []byte {
	if hookEvent == "Stop" {
		return []byte(`{"decision":"allow"}` + "\n")
	}
	return emptyObject(hookEvent)
}
