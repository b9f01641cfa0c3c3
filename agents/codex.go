package agents

import (
	"strings"
	"sync"
	"time"

	"github.com/tidwall/gjson"
)

// Codex CLI (npm @openai/codex, verified against 0.169.0; the end-to-end
// tests run the release Tested names).
//
// Hook events and what they become (the display state is the state
// machine's):
//
//	SessionStart      session.start       idle; source "compact" carries on as before
//	UserPromptSubmit  prompt.submit       thinking; title from the prompt
//	                                      (a sub-agent's prompt: juggling, no title)
//	PreToolUse        tool.start          working
//	PermissionRequest permission.request  waiting
//	PostToolUse       tool.end            working
//	PreCompact        compact.start       sweeping
//	PostCompact       compact.end         back to what it was
//	Stop              turn.end            attention flash, then idle
//	Interrupt         turn.end            idle, no flash (reason "interrupt")
//	SubagentStart     subagent.start      juggling
//	SubagentStop      subagent.stop       working when the last sub-agent stops
//	SessionEnd        session.end         removed
//
// A sub-agent's hooks carry the root thread's session_id plus agent_id
// and agent_type: they become events of the parent session with
// SubagentID set. A sub-agent's turn ends with SubagentStop, never Stop.
var Codex = &Agent{
	ID:       codexID,
	Name:     "Codex",
	Command:  "codex",
	Package:  "@openai/codex",
	Supports: Supports{States: true, Permissions: true, Titles: true, Subagents: true, QuestionsInTerminal: codexQuestions},
	Verified: VerifiedRealCLI,
	Tested:   []string{"0.171.0"},
	Notes: []string{
		"Codex runs only hooks it trusts: clawd install writes the trust entries; after editing hooks.json by hand, run clawd install codex again",
		"without hooks (untrusted, or turned off) clawd still follows sessions from Codex's rollout files, without permission requests",
	},
	Settings: "hooks.json in $CODEX_HOME or ~/.codex, and in config.toml next to it the trust entries without which Codex skips them",
	// $CODEX_HOME, else ~/.codex: hooks.json, config.toml, sessions/.
	ConfigDir: func(getenv Env) (string, error) {
		return configDir(getenv, "CODEX_HOME", ".codex", "Codex")
	},
	Hooks: []HookSpec{
		{Event: "SessionStart", Timeout: codexStateTimeout},
		{Event: "UserPromptSubmit", Timeout: codexStateTimeout},
		{Event: "PreToolUse", Timeout: codexStateTimeout},
		{Event: "PermissionRequest", Timeout: CodexPermissionTimeout, Blocking: true},
		{Event: "PostToolUse", Timeout: codexStateTimeout},
		{Event: "PreCompact", Timeout: codexStateTimeout},
		{Event: "PostCompact", Timeout: codexStateTimeout},
		{Event: "Stop", Timeout: codexStateTimeout},
		{Event: "SubagentStart", Timeout: codexStateTimeout},
		{Event: "SubagentStop", Timeout: codexStateTimeout},
		// Codex clamps these two to at most 3 s (and warns when the
		// configured value is larger): the hook posts within 0.4 s.
		{Event: "SessionEnd", Timeout: codexEndTimeout},
		{Event: "Interrupt", Timeout: codexEndTimeout},
	},
	kinds:           codexKinds,
	Decode:          decodeCodex,
	DecodeTruncated: decodeCodexTruncated,
	Describe:        codexDescribe,
	NoDecision:      codexNoDecision,
	Render:          codexRender,
	Resume:          func(id string) []string { return []string{"resume", id} },
}

// codexQuestions says why Codex's questions are answered in its
// terminal. request_user_input (offered in Plan mode, or everywhere with
// [features] default_mode_request_user_input) fires PreToolUse and no
// PermissionRequest, in 0.169.0: a PreToolUse deny with a reason blocks
// the question (the model reads "Tool call blocked by PreToolUse hook:
// <reason>. Tool: request_user_input"), an allow with updatedInput
// leaves it on the screen; the answers come only from Codex's own dialog
// (testdata/codex/hooks/PreToolUse.request_user_input.json).
const codexQuestions = "Codex runs no permission hook for its questions (request_user_input): its PreToolUse hook can block one, not answer it"

// codexStateTimeout bounds a non-blocking hook on Codex's side. The hook
// bounds itself far tighter; this is only the backstop.
const codexStateTimeout = 10

// codexEndTimeout is the most Codex allows for SessionEnd and Interrupt.
const codexEndTimeout = 3

// CodexPermissionTimeout is the agent-side timeout of Codex's
// PermissionRequest hook in seconds: Codex's own default, the longest
// seen accepted. The hook waits this minus PermissionWaitMargin.
const CodexPermissionTimeout = 600

// ReasonInterrupt is the Reason of a turn.end the person cut short
// (Codex's Interrupt: Esc during a turn, or the approval prompt
// cancelled). No Stop follows, and the turn is not "done" news.
const ReasonInterrupt = "interrupt"

// codexKinds maps Codex's hook_event_name to a kind.
var codexKinds = sync.OnceValue(func() map[string]Kind {
	return map[string]Kind{
		"SessionStart":      KindSessionStart,
		"UserPromptSubmit":  KindPromptSubmit,
		"PreToolUse":        KindToolStart,
		"PermissionRequest": KindPermissionRequest,
		"PostToolUse":       KindToolEnd,
		"PreCompact":        KindCompactStart,
		"PostCompact":       KindCompactEnd,
		"Stop":              KindTurnEnd,
		"Interrupt":         KindTurnEnd,
		"SubagentStart":     KindSubagentStart,
		"SubagentStop":      KindSubagentStop,
		"SessionEnd":        KindSessionEnd,
	}
})

// CodexFingerprint is Fingerprint for a Codex tool call, given the
// call's tool_input. Codex's PermissionRequest has no tool_use_id, and
// for a shell command its input adds the model's justification
// ("description") that the PreToolUse of the same call did not carry. So
// an input with a string "command" (Bash, apply_patch) is identified by
// that command alone, trimmed of surrounding whitespace; any other input
// is hashed whole. The rollout monitor hashes {"command": cmd} of an
// exec_command call the same way.
func CodexFingerprint(tool string, input []byte) string {
	if c := gjson.GetBytes(input, "command"); c.Type == gjson.String {
		return Fingerprint(codexID, tool, appendJSONString(nil, strings.TrimSpace(c.String())))
	}
	return Fingerprint(codexID, tool, input)
}

func decodeCodex(payload []byte, hookEvent string, env Env, now time.Time) (Event, error) {
	return decodeCodexOpts(payload, hookEvent, now, false)
}

// decodeCodexTruncated decodes the start of a payload that was cut at the
// hook's stdin cap. Codex writes session_id, agent_id, transcript_path,
// cwd, hook_event_name and tool_name before the bulky tool_input and
// tool_response, so the session still shows what is happening; the
// tool_use_id, written last, is lost.
func decodeCodexTruncated(prefix []byte, hookEvent string, env Env, now time.Time) (Event, error) {
	return decodeCodexOpts(prefix, hookEvent, now, true)
}

func decodeCodexOpts(b []byte, hookEvent string, now time.Time, truncated bool) (Event, error) {
	p, err := openPayload(b, truncated)
	if err != nil {
		return Event{}, err
	}
	get, str := p.get, p.str
	// Codex sets no environment variable of its own for hooks: the
	// session id comes from the payload only. For a sub-agent it is the
	// root thread's, which is what ties the sub-agent to its session.
	e, err := p.common(codexID, codexKinds, hookEvent, "", now, truncated)
	if err != nil {
		return Event{}, err
	}
	name := e.HookEvent
	e.Transcript = str("transcript_path", MaxPathLen)
	e.TurnID = str("turn_id", MaxIDLen)

	switch name {
	case "SessionStart":
		e.Source = str("source", MaxWordLen)
	case "PreCompact", "PostCompact":
		e.Source = str("trigger", MaxWordLen)
	case "SessionEnd":
		e.Reason = str("reason", MaxWordLen)
	case "Interrupt":
		e.Reason = ReasonInterrupt
	case "UserPromptSubmit":
		// A sub-agent's prompt was written by the parent's model, not
		// the person: it does not name the session.
		if e.SubagentID == "" {
			if t := PromptTitle(get("prompt").String()); t != "" {
				e.Title, e.TitleSource = t, TitleFromPrompt
			}
		}
	case "PreToolUse", "PostToolUse", "PermissionRequest":
		if in := get("tool_input"); in.Exists() && !truncated {
			e.InputHash = CodexFingerprint(e.ToolName, []byte(in.Raw))
		}
	case "Stop":
		if e.SubagentID == "" {
			e.Response = clipUTF8(get("last_assistant_message").String(), MaxResponseLen)
		}
	case "SubagentStop":
		// transcript_path is the parent's rollout here; the one that
		// belongs to the stopping sub-agent is agent_transcript_path.
		if p := str("agent_transcript_path", MaxPathLen); p != "" {
			e.Transcript = p
		}
	}
	return e, nil
}

// codexDescribe says what a Codex PermissionRequest asks: a shell command
// with the model's description of it, or a patch (apply_patch), both in
// the input's "command": a patch reads as the files it changes, and its
// text is the request's change.
func codexDescribe(ev Event, payload []byte, cut bool) Request {
	r := hookRequest(ev, payload, cut)
	r.Summary = inputString(r.ToolInput, "command")
	in := gjson.GetBytes(payload, "tool_input")
	switch ev.ToolName {
	case "Bash":
		r.Description = inputText(in, "description", maxDescription)
	case "apply_patch":
		if patch := in.Get("command"); patch.Type == gjson.String {
			files := codexPatchFiles(patch.String())
			if len(files) > 0 {
				r.Summary = strings.Join(files, ", ")
				r.Change = patchChange(files[0], patch.String())
			}
		} else if cut {
			r.Change = &FileChange{Cut: true}
		}
	}
	return r
}

// codexNoDecision prints `{}` for every event. Codex takes `{}` and empty
// stdout alike as "no output" for most events, but Interrupt reports
// non-JSON stdout as a hook failure, and `{}` is what the fixtures were
// captured with: the harness's hook printed `{}` on every one of the 12
// events through a whole TUI session and a `codex exec` run, with no
// warning. For PermissionRequest it means no decision: Codex shows its
// own approval prompt.
func codexNoDecision(string) []byte { return []byte("{}\n") }

// codexDenyMessage is what the model is told when the person denied a call
// without saying why: Codex passes the message on as Rejected("…").
const codexDenyMessage = "Denied from clawd"

// codexRender prints d as Codex's PermissionRequest answer, one line, in
// the two forms verified against Codex 0.169.0
// (testdata/codex/hook-replies/PermissionRequest.allow.json, .deny.json).
// Codex fails the hook, and shows its prompt, on interrupt, updatedInput
// or updatedPermissions, so they are never sent: an "always allow" is a
// plain allow, a deny that would interrupt is a plain deny. A nil
// decision or another event gives the no-decision answer.
func codexRender(hookEvent string, d *Decision) []byte {
	if d == nil || hookEvent != "PermissionRequest" {
		return codexNoDecision(hookEvent)
	}
	b, err := minimalDecision(hookEvent, d, codexDenyMessage)
	if err != nil {
		return codexNoDecision(hookEvent)
	}
	return b
}

const codexID = "codex"
