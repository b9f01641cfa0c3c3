package agents

import (
	"cmp"
	"fmt"
	"sync"
	"time"

	"github.com/tidwall/gjson"
)

// Cline CLI (npm cline, verified against 3.0.65 with `cline "<prompt>"`
// against a local OpenAI-compatible model). Cline runs every file in its
// hooks folders whose name is a hook's ($CLINE_DIR/hooks, default
// ~/.cline/hooks, and ~/Documents/Cline/Hooks; any of the extensions
// "", .sh, .bash, .js, .py, ...), through its shebang or bash, with one JSON
// payload on stdin: hookName (snake_case), taskId, sessionContext
// {rootSessionId}, workspaceRoots, agent_id, parent_agent_id and the
// event's own object. clawd's files are <Event>.bash, one a hook.
//
// Hook events (the file names) and what they become (the display state is
// the state machine's):
//
//	TaskStart         session.start   idle (agent_start: every run of a prompt)
//	TaskResume        session.start   idle (agent_resume)
//	UserPromptSubmit  prompt.submit   thinking; title from the prompt
//	PreToolUse        tool.start      working (tool_call)
//	PostToolUse       tool.end        working; tool.failure when it did not succeed
//	TaskComplete      turn.end        attention flash, then idle (agent_end)
//	TaskError         turn.failure    error flash, then idle (agent_error)
//	TaskCancel        turn.end        idle, no flash (agent_abort)
//	SessionShutdown   session.end     removed
//
// Not registered: PreCompact (Cline maps the file to no event: it never
// runs). A subagent's events (parent_agent_id set) are dropped.
//
// Cline's PreToolUse can cancel a call or force a review, never approve
// one: clawd answers no permission of Cline's, and every hook prints
// nothing (Cline reads an empty output as no control).
var Cline = &Agent{
	ID:       clineID,
	Name:     "Cline",
	Aliases:  []string{"cline-cli"},
	Command:  "cline",
	Package:  "cline",
	Supports: Supports{States: true, Titles: true},
	Verified: VerifiedRealCLI,
	Tested:   []string{"3.0.65"},
	Notes: []string{
		"Cline's hooks can cancel a call but not approve one: clawd shows the session and answers no permission of Cline's",
		"subagents (spawn_agent, teams) are not followed: their events are dropped",
		`clawd's hooks are files of its own, <Event>.bash in $CLINE_DIR/hooks (~/.cline/hooks): a file of yours with that name is left alone, and install says so`,
	},
	Settings: "hooks/<Event>.bash, files of clawd's own, in $CLINE_DIR or ~/.cline",
	ConfigDir: func(getenv Env) (string, error) {
		return configDir(getenv, "CLINE_DIR", ".cline", "Cline")
	},
	Hooks: []HookSpec{
		{Event: "TaskStart", Timeout: clineTimeout},
		{Event: "TaskResume", Timeout: clineTimeout},
		{Event: "UserPromptSubmit", Timeout: clineTimeout},
		{Event: "PreToolUse", Timeout: clineTimeout},
		{Event: "PostToolUse", Timeout: clineTimeout},
		{Event: "TaskComplete", Timeout: clineTimeout},
		{Event: "TaskError", Timeout: clineTimeout},
		{Event: "TaskCancel", Timeout: clineTimeout},
		{Event: "SessionShutdown", Timeout: clineTimeout},
	},
	kinds: clineKinds,
	Decode: func(b []byte, ev string, env Env, now time.Time) (Event, error) {
		return decodeCline(b, ev, env, now, false)
	},
	DecodeTruncated: func(b []byte, ev string, env Env, now time.Time) (Event, error) {
		return decodeCline(b, ev, env, now, true)
	},
	NoDecision: noOutput,
	Render:     stateOnlyRender(noOutput),
}

const clineID = "cline"

// clineTimeout is Cline's own for a hook, in seconds (30 000 ms); it is
// not written anywhere: Cline's hook files carry none.
const clineTimeout = 30

var clineKinds = sync.OnceValue(func() map[string]Kind {
	return map[string]Kind{
		"TaskStart":        KindSessionStart,
		"TaskResume":       KindSessionStart,
		"UserPromptSubmit": KindPromptSubmit,
		"PreToolUse":       KindToolStart,
		"PostToolUse":      KindToolEnd,
		"TaskComplete":     KindTurnEnd,
		"TaskError":        KindTurnFailure,
		"TaskCancel":       KindTurnEnd,
		"SessionShutdown":  KindSessionEnd,
	}
})

// clineEvents maps the payload's hookName to the hook's file name.
var clineEvents = map[string]string{
	"agent_start": "TaskStart", "agent_resume": "TaskResume", "prompt_submit": "UserPromptSubmit",
	"tool_call": "PreToolUse", "tool_result": "PostToolUse", "agent_end": "TaskComplete",
	"agent_error": "TaskError", "agent_abort": "TaskCancel", "session_shutdown": "SessionShutdown",
}

func decodeCline(b []byte, hookEvent string, _ Env, now time.Time, truncated bool) (Event, error) {
	p, err := openPayload(b, truncated)
	if err != nil {
		return Event{}, err
	}
	name := cmp.Or(hookEvent, clineEvents[p.str("hookName", MaxWordLen)])
	kind, ok := clineKinds()[name]
	if !ok {
		return Event{}, fmt.Errorf("%w %q", ErrUnknownEvent, clip(name, MaxWordLen))
	}
	if parent := p.get("parent_agent_id"); parent.Type == gjson.String && parent.Str != "" {
		return Event{}, fmt.Errorf("%w: a subagent's event", ErrNothingToShow)
	}
	sid := clip(p.get("sessionContext").Get("rootSessionId").String(), MaxIDLen)
	if sid = cmp.Or(sid, p.str("taskId", MaxIDLen)); sid == "" {
		return Event{}, ErrNoSession
	}
	e := Event{
		Agent:     clineID,
		Kind:      kind,
		SessionID: sid,
		Time:      now.UTC(),
		HookEvent: name,
		TurnID:    p.str("taskId", MaxIDLen),
		Cwd:       clip(cmp.Or(p.get("workspaceInfo").Get("rootPath").String(), p.get("workspaceRoots").Get("0").String()), MaxPathLen),
		Truncated: truncated,
	}
	if t, err := time.Parse(time.RFC3339Nano, p.str("timestamp", MaxWordLen)); err == nil {
		e.Time = agentTime(t, now)
	}
	switch name {
	case "TaskResume":
		e.Source = "resume"
	case "UserPromptSubmit":
		if t := PromptTitle(p.get("userPromptSubmit").Get("prompt").String()); t != "" {
			e.Title, e.TitleSource = t, TitleFromPrompt
		}
	case "PreToolUse", "PostToolUse":
		call := p.get("tool_call")
		if name == "PostToolUse" {
			call = p.get("tool_result")
		}
		e.ToolName = clip(call.Get("name").String(), MaxIDLen)
		e.ToolUseID = clip(call.Get("id").String(), MaxIDLen)
		if in := call.Get("input"); in.Exists() && !truncated {
			e.InputHash = Fingerprint(clineID, e.ToolName, []byte(in.Raw))
		}
		if ok := p.get("postToolUse").Get("success"); name == "PostToolUse" && ok.Type == gjson.False {
			e.Kind = KindToolFailure
		}
	case "TaskError":
		e.ErrorKind = "error"
		e.ErrorText = clip(p.get("error").Get("message").String(), MaxErrorLen)
	case "TaskCancel":
		e.Reason = ReasonInterrupt
	case "SessionShutdown":
		e.Reason = p.str("reason", MaxWordLen)
	}
	return e, nil
}
