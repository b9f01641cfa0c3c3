package agents

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/tidwall/gjson"
)

// Decision is the person's answer to a blocking event, in agent-neutral
// form: what the runtime sends the hook, and what each agent's Render
// turns into that agent's exact output. It lives here rather than in
// runtime/client because runtime/client imports agents. On the wire it is
//
//	{"behavior": "allow"|"deny", "updated_permissions": [...], "updated_input": {...},
//	 "answers": [["label", ...], ...], "message": "...", "interrupt": true}
type Decision struct {
	// Allow runs the call; false denies it.
	Allow bool
	// UpdatedPermissions are permission updates applied with an allow
	// (the agent's own suggestions, verbatim: "always allow").
	UpdatedPermissions []json.RawMessage
	// UpdatedInput, with an allow, is the tool input the agent runs the
	// call with instead of its own (a JSON object): Claude Code's
	// AskUserQuestion takes the person's answers in it, its ExitPlanMode
	// an approval. Agent.Answer and Agent.Approve make it; the agents
	// whose Render does not print it never get one.
	UpdatedInput json.RawMessage
	// Answers, with an allow, answer a question tool whose agent takes
	// the answers themselves (opencode): per question, in order, the
	// labels picked and the person's own text. Agent.Answer makes them.
	Answers [][]string
	// Message tells the model why a call was denied.
	Message string
	// Interrupt ends the turn on a deny.
	Interrupt bool
}

// decisionWire is Decision on the wire: the verdict is a word, so that a
// hook never takes a verdict it does not know for one it does.
type decisionWire struct {
	Behavior           string            `json:"behavior"`
	UpdatedPermissions []json.RawMessage `json:"updated_permissions,omitempty"`
	UpdatedInput       json.RawMessage   `json:"updated_input,omitempty"`
	Answers            [][]string        `json:"answers,omitempty"`
	Message            string            `json:"message,omitempty"`
	Interrupt          bool              `json:"interrupt,omitempty"`
}

// Verdicts of a Decision on the wire.
const (
	behaviorAllow = "allow"
	behaviorDeny  = "deny"
)

// MarshalJSON writes d in its wire form.
func (d Decision) MarshalJSON() ([]byte, error) {
	w := decisionWire{Behavior: behaviorDeny, UpdatedPermissions: d.UpdatedPermissions, UpdatedInput: d.UpdatedInput,
		Answers: d.Answers, Message: d.Message, Interrupt: d.Interrupt}
	if d.Allow {
		w.Behavior = behaviorAllow
	}
	return json.Marshal(w)
}

// UnmarshalJSON reads d's wire form. A verdict other than "allow" or
// "deny", or an updated input that is not a JSON object, is an error: the
// hook answers no decision rather than guess.
func (d *Decision) UnmarshalJSON(b []byte) error {
	var w decisionWire
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	switch w.Behavior {
	case behaviorAllow, behaviorDeny:
	default:
		return fmt.Errorf("decision behavior %q: want %q or %q", w.Behavior, behaviorAllow, behaviorDeny)
	}
	if w.UpdatedInput != nil && !gjson.ParseBytes(w.UpdatedInput).IsObject() {
		return fmt.Errorf("decision updated_input %.40s: want a JSON object", w.UpdatedInput)
	}
	*d = Decision{Allow: w.Behavior == behaviorAllow, UpdatedPermissions: w.UpdatedPermissions, UpdatedInput: w.UpdatedInput,
		Answers: w.Answers, Message: w.Message, Interrupt: w.Interrupt}
	return nil
}

// PermissionWaitMargin is how much sooner than the agent's own timeout
// the hook gives up waiting for a decision: enough for a loaded machine to
// still print the no-decision answer and exit before the agent kills the
// hook.
const PermissionWaitMargin = 30 * time.Second

// PermissionWait returns how long the hook waits for a decision on
// hookEvent: the agent-side timeout the installer writes for it minus
// PermissionWaitMargin. It is 0 for an event that is not blocking.
func (a *Agent) PermissionWait(hookEvent string) time.Duration {
	spec, ok := a.Hook(hookEvent)
	if !ok || !spec.Blocking {
		return 0
	}
	w := time.Duration(spec.Timeout)*time.Second - PermissionWaitMargin
	if w < 0 {
		return 0
	}
	return w
}

// claudeRender prints d as Claude Code's PermissionRequest answer, one
// line. Every form it produces was verified against Claude Code 2.1.328
// (testdata/claude/outputs/PermissionRequest.*.json): an allow with the
// updates and the updated input it carries (the answers of an
// AskUserQuestion, an ExitPlanMode's approval), a deny with its message.
// A nil decision, an event other than PermissionRequest, or updates or an
// input that are not valid JSON give the no-decision answer: the dialog
// stays, as if clawd were absent.
func claudeRender(hookEvent string, d *Decision) []byte {
	if d == nil || hookEvent != "PermissionRequest" {
		return claudeNoDecision(hookEvent)
	}
	type decision struct {
		Behavior           string            `json:"behavior"`
		UpdatedInput       json.RawMessage   `json:"updatedInput,omitempty"`
		UpdatedPermissions []json.RawMessage `json:"updatedPermissions,omitempty"`
		Message            string            `json:"message,omitempty"`
		Interrupt          bool              `json:"interrupt,omitempty"`
	}
	out := decision{Behavior: "deny", Message: d.Message, Interrupt: d.Interrupt}
	if d.Allow {
		out = decision{Behavior: "allow", UpdatedInput: d.UpdatedInput, UpdatedPermissions: d.UpdatedPermissions}
	}
	b, err := permissionAnswer(hookEvent, out)
	if err != nil {
		return claudeNoDecision(hookEvent)
	}
	return b
}

// minimalDecision renders d as the smallest PermissionRequest answer of
// Claude Code's shape, one line: {"hookSpecificOutput": {"hookEventName":
// hookEvent, "decision": {"behavior": "allow"}}}, or "deny" with a
// message (defaultDeny when the person gave none; "" for none at all).
// No updatedPermissions, updatedInput or interrupt: the agents that
// validate the answer strictly (Codex, ZCode) fail the hook on them, so an
// "always allow" is a plain allow, a deny that would interrupt a plain
// deny.
func minimalDecision(hookEvent string, d *Decision, defaultDeny string) ([]byte, error) {
	type decision struct {
		Behavior string `json:"behavior"`
		Message  string `json:"message,omitempty"`
	}
	if d.Allow {
		return permissionAnswer(hookEvent, decision{Behavior: "allow"})
	}
	msg := d.Message
	if strings.TrimSpace(msg) == "" {
		msg = defaultDeny
	}
	return permissionAnswer(hookEvent, decision{Behavior: "deny", Message: msg})
}

// permissionAnswer is Claude Code's PermissionRequest answer envelope
// around decision, one line: {"hookSpecificOutput": {"hookEventName":
// hookEvent, "decision": decision}}. The agents that took Claude Code's
// hooks as their model (Codex, Qwen, ZCode) read the same envelope.
func permissionAnswer[D any](hookEvent string, decision D) ([]byte, error) {
	var out struct {
		HookSpecificOutput struct {
			HookEventName string `json:"hookEventName"`
			Decision      D      `json:"decision"`
		} `json:"hookSpecificOutput"`
	}
	out.HookSpecificOutput.HookEventName = hookEvent
	out.HookSpecificOutput.Decision = decision
	b, err := json.Marshal(out)
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}
