package agents

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Factory Droid (npm @factory/cli, verified against 0.225.2 in `droid
// exec` against a bring-your-own-key model; its TUI needs a Factory login
// and does not run offline). Hooks in Claude Code's nested shape, keyed by
// event at the top level of ~/.factory/hooks.json (FACTORY_HOME_OVERRIDE
// replaces the home), payloads with Claude Code's field names and no
// tool_use_id.
//
// Hook events and what they become (the display state is the state
// machine's):
//
//	SessionStart      session.start       idle
//	UserPromptSubmit  prompt.submit       thinking; title from the prompt (the TUI's:
//	                                      droid exec fires none)
//	PreToolUse        permission.request  waiting, answered through clawd, when Droid
//	                                      would ask first (see droidAsks): its allow
//	                                      runs the call without Droid's own check, its
//	                                      deny gives the model the reason
//	                  tool.start          working, for every other call
//	PostToolUse       tool.end            working
//	Notification      notification        as Claude Code's notification types
//	SubagentStop      subagent.stop       working when the last subagent stops
//	PreCompact        compact.start       sweeping
//	Stop              turn.end            attention flash, then idle
//	SessionEnd        session.end         removed
//
// Droid fires PreToolUse for every call before its own permission check,
// with the session's autonomy (permission_mode) and, for Execute, the
// model's own riskLevel of the command: clawd asks the person only for the
// calls Droid would not run on its own at that autonomy, and answers the
// rest "no decision" at once.
var Droid = &Agent{
	ID:       droidID,
	Name:     "Factory Droid",
	Aliases:  []string{"factory-droid", "factory"},
	Command:  "droid",
	Package:  "@factory/cli",
	Supports: Supports{States: true, Permissions: true, Titles: true},
	Verified: VerifiedRealCLI,
	Tested:   []string{"0.225.1"},
	Notes: []string{
		"clawd asks you for the calls Droid would not run on its own at the session's autonomy (a command riskier than it allows, an edit at autonomy off): Droid's command allowlist and --skip-permissions-unsafe are not in its hooks, so clawd asks for those calls too; answer no decision to leave them to Droid",
		"verified with droid exec against a local model: Droid's TUI needs a Factory login, which does not run offline here",
		"droid exec sends no prompt hook: its sessions have no title; its sessions are not marked headless either (the hooks do not tell exec from the TUI)",
	},
	Settings: "hooks.json in $FACTORY_HOME_OVERRIDE/.factory or ~/.factory (hooks keyed by event at its top level)",
	ConfigDir: func(getenv Env) (string, error) {
		if h := getenv("FACTORY_HOME_OVERRIDE"); h != "" {
			return filepath.Join(h, ".factory"), nil
		}
		return homeFolder(getenv, "Factory Droid", ".factory")
	},
	Hooks: []HookSpec{
		{Event: "SessionStart", Timeout: claudeStateTimeout},
		{Event: "UserPromptSubmit", Timeout: claudeStateTimeout},
		{Event: "PreToolUse", Timeout: DroidPermissionTimeout, Blocking: true},
		{Event: "PostToolUse", Timeout: claudeStateTimeout},
		{Event: "Notification", Timeout: claudeStateTimeout},
		{Event: "SubagentStop", Timeout: claudeStateTimeout},
		{Event: "PreCompact", Timeout: claudeStateTimeout},
		{Event: "Stop", Timeout: claudeStateTimeout},
		{Event: "SessionEnd", Timeout: claudeStateTimeout},
	},
	kinds: droidKinds,
	Decode: func(b []byte, ev string, env Env, now time.Time) (Event, error) {
		return decodeDroid(b, ev, env, now, false)
	},
	DecodeTruncated: func(b []byte, ev string, env Env, now time.Time) (Event, error) {
		return decodeDroid(b, ev, env, now, true)
	},
	Describe:   toolRequest,
	NoDecision: noOutput,
	Render:     droidRender,
	// -r, --resume [sessionId], as droid --help says.
	Resume: func(id string) []string { return []string{"--resume", id} },
}

const droidID = "droid"

// DroidPermissionTimeout is the agent-side timeout of Droid's PreToolUse
// hook, in seconds; the hook waits this minus PermissionWaitMargin.
const DroidPermissionTimeout = 600

var droidKinds = sync.OnceValue(func() map[string]Kind {
	return map[string]Kind{
		"SessionStart":     KindSessionStart,
		"UserPromptSubmit": KindPromptSubmit,
		"PreToolUse":       KindToolStart,
		"PostToolUse":      KindToolEnd,
		"Notification":     KindNotification,
		"SubagentStop":     KindSubagentStop,
		"PreCompact":       KindCompactStart,
		"Stop":             KindTurnEnd,
		"SessionEnd":       KindSessionEnd,
	}
})

// droidLevels ranks Droid's autonomy modes (permission_mode) by what
// they let run without asking: off (normal) and spec run nothing that
// changes anything, auto-low file edits and low-risk commands, and so on.
var droidLevels = map[string]int{"off": 0, "normal": 0, "spec": 0, "auto-low": 1, "auto-medium": 2, "auto-high": 3}

// droidRisks ranks an Execute call's riskLevel.
var droidRisks = map[string]int{"low": 1, "medium": 2, "high": 3}

// droidReadOnly are Droid's tools that never ask: they read, search or
// manage Droid's own work.
var droidReadOnly = map[string]bool{
	"Read": true, "LS": true, "Grep": true, "Glob": true, "ToolSearch": true, "Skill": true,
	"TaskOutput": true, "TaskStop": true, "ConnectorSearch": true, "WebSearch": true, "TodoWrite": true,
}

// droidAsks says whether Droid would ask the person before it runs the
// call tool with input in a session of autonomy mode: never for its
// read-only tools; a command when its riskLevel is above what the mode
// allows (any command of an unknown risk, short of auto-high); any other
// tool (edits, a fetch, MCP tools) when the mode is off or spec. A mode
// Droid has not reported (or one this file does not know) asks for every
// call that changes something.
func droidAsks(mode, tool string, input []byte) bool {
	if droidReadOnly[tool] {
		return false
	}
	level := droidLevels[mode]
	if tool == "Execute" {
		risk, ok := droidRisks[strings.ToLower(inputString(input, "riskLevel"))]
		if !ok {
			risk = 3
		}
		return risk > level
	}
	return level == 0
}

func decodeDroid(b []byte, hookEvent string, env Env, now time.Time, truncated bool) (Event, error) {
	e, p, err := claudeShape(droidID, droidKinds).decode(b, hookEvent, env, now, truncated)
	if err != nil {
		return Event{}, err
	}
	e.PermissionMode = p.str("permission_mode", MaxWordLen)
	e.ProjectDir = clip(env("FACTORY_PROJECT_DIR"), MaxPathLen)
	if e.Kind == KindToolStart && !truncated && droidAsks(e.PermissionMode, e.ToolName, []byte(p.get("tool_input").Raw)) {
		e.Kind = KindPermissionRequest
	}
	return e, nil
}

// toolRequest says what a PreToolUse that asks wants (Droid's, Crush's):
// the tool input, summed up by the field a person decides on (a command,
// a file).
func toolRequest(ev Event, payload []byte, cut bool) Request {
	r := hookRequest(ev, payload, cut)
	r.Summary = inputSummary(r.ToolInput)
	return r
}

// droidDenyMessage is what the model is told when the person denied a
// call without saying why; Droid passes it on as "Error: <reason>".
const droidDenyMessage = "Denied from clawd"

// droidRender prints d as Droid's PreToolUse answer, one line, in the
// forms verified against Droid 0.225.2 (testdata/droid/outputs): allow
// runs the call past Droid's own check, deny gives the model the reason.
// Droid's hooks take no "always" rule: one is a plain allow. A nil
// decision or another event prints nothing, after which Droid decides as
// without the hook.
func droidRender(hookEvent string, d *Decision) []byte {
	if d == nil || hookEvent != "PreToolUse" {
		return noOutput(hookEvent)
	}
	type output struct {
		HookEventName            string `json:"hookEventName"`
		PermissionDecision       string `json:"permissionDecision"`
		PermissionDecisionReason string `json:"permissionDecisionReason"`
	}
	out := output{HookEventName: hookEvent, PermissionDecision: "allow", PermissionDecisionReason: "Allowed from clawd"}
	if !d.Allow {
		out.PermissionDecision, out.PermissionDecisionReason = "deny", d.Message
		if strings.TrimSpace(d.Message) == "" {
			out.PermissionDecisionReason = droidDenyMessage
		}
	}
	b, err := json.Marshal(struct {
		HookSpecificOutput output `json:"hookSpecificOutput"`
	}{out})
	if err != nil {
		return noOutput(hookEvent)
	}
	return append(b, '\n')
}
