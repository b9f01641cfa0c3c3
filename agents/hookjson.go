package agents

import (
	"cmp"
	"fmt"
	"strings"
	"time"
)

// hookShape says where an agent whose command hooks get a JSON payload
// shaped like Claude Code's (one object, the event's fields at the top)
// keeps what clawd reads. Most agents that took Claude Code's hook system
// over (CodeBuddy, Qoder, WorkBuddy, QwenWork, ...) keep its snake_case
// names; others renamed a few (Cursor's conversation_id, Grok's camelCase).
// Each list is tried in order; the first string found wins.
type hookShape struct {
	agent string
	kinds func() map[string]Kind
	// event names the event; the command line's event comes first when
	// eventFirst is set, else it is the fallback.
	event      []string
	eventFirst bool
	// rename maps an event name as the payload spells it to the name in
	// kinds (Grok's snake_case hookEventName values).
	rename map[string]string
	// session holds the session id; sessionEnv is the environment
	// variable that does when the payload has none, and defaultSession
	// the id when neither does (Kiro's payloads carry none).
	session        []string
	sessionEnv     string
	defaultSession string
	cwd            []string
	tool           []string
	toolUse        []string
	prompt         []string
	transcript     []string
	notification   []string
}

// claudeShape is hookShape with Claude Code's field names, for agent.
func claudeShape(agent string, kinds func() map[string]Kind) hookShape {
	return hookShape{
		agent:        agent,
		kinds:        kinds,
		event:        []string{"hook_event_name"},
		session:      []string{"session_id"},
		cwd:          []string{"cwd"},
		tool:         []string{"tool_name"},
		toolUse:      []string{"tool_use_id"},
		prompt:       []string{"prompt"},
		transcript:   []string{"transcript_path"},
		notification: []string{"notification_type"},
	}
}

// first is the first of names that holds a string, clipped to max.
func (p payload) first(names []string, max int) string {
	for _, n := range names {
		if s := p.str(n, max); s != "" {
			return s
		}
	}
	return ""
}

// decode reads one hook payload of the shape: the event, the session and
// the fields every event may carry; a prompt's title; a tool call's
// fingerprint (tool_input); why a session started or ended; a
// notification's type (mapped as Claude Code's, anything else "other").
// The agent's own decoder adds what is its own.
func (h hookShape) decode(b []byte, hookEvent string, env Env, now time.Time, truncated bool) (Event, payload, error) {
	p, err := openPayload(b, truncated)
	if err != nil {
		return Event{}, payload{}, err
	}
	name := p.first(h.event, MaxWordLen)
	if h.eventFirst || name == "" {
		name = cmp.Or(hookEvent, name)
	}
	if r, ok := h.rename[name]; ok {
		name = r
	}
	kind, ok := h.kinds()[name]
	if !ok {
		return Event{}, p, fmt.Errorf("%w %q", ErrUnknownEvent, clip(name, MaxWordLen))
	}
	sid := p.first(h.session, MaxIDLen)
	if sid == "" && h.sessionEnv != "" {
		sid = clip(env(h.sessionEnv), MaxIDLen)
	}
	if sid = cmp.Or(sid, h.defaultSession); sid == "" {
		return Event{}, p, ErrNoSession
	}
	e := Event{
		Agent:      h.agent,
		Kind:       kind,
		SessionID:  sid,
		Time:       now.UTC(),
		HookEvent:  name,
		Cwd:        p.first(h.cwd, MaxPathLen),
		ToolName:   p.first(h.tool, MaxIDLen),
		ToolUseID:  p.first(h.toolUse, MaxIDLen),
		Transcript: p.first(h.transcript, MaxPathLen),
		Truncated:  truncated,
	}
	switch kind {
	case KindSessionStart:
		e.Source = p.str("source", MaxWordLen)
	case KindSessionEnd:
		e.Reason = p.str("reason", MaxWordLen)
	case KindPromptSubmit:
		for _, n := range h.prompt {
			if t := PromptTitle(p.get(n).String()); t != "" {
				e.Title, e.TitleSource = t, TitleFromPrompt
				break
			}
		}
	case KindToolStart, KindToolEnd, KindToolFailure, KindPermissionRequest, KindPermissionDenied:
		if in := p.get("tool_input"); in.Exists() && !truncated {
			e.InputHash = Fingerprint(h.agent, e.ToolName, []byte(in.Raw))
		}
	case KindNotification:
		e.NotificationType = p.first(h.notification, MaxWordLen)
		e.Notice = cmp.Or(claudeNotices[e.NotificationType], NoticeOther)
	}
	return e, p, nil
}

// emptyObject is the "no decision" of the agents whose hooks always print
// a JSON object: `{}`, which asks nothing of the agent.
func emptyObject(string) []byte { return []byte("{}\n") }

// noOutput is the "no decision" of the agents that read nothing from a
// state hook's output.
func noOutput(string) []byte { return nil }

// stateOnlyRender is Render for an agent clawd answers nothing for: the
// no-decision answer, whatever d says.
func stateOnlyRender(noDecision func(string) []byte) func(string, *Decision) []byte {
	return func(hookEvent string, _ *Decision) []byte { return noDecision(hookEvent) }
}

// containsAny reports whether s, in lower case, holds one of words.
func containsAny(s string, words ...string) bool {
	s = strings.ToLower(s)
	for _, w := range words {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}
