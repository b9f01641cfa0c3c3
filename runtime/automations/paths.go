package automations

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/clawdhq/clawd/internal/lazy"
)

// A path reads a field of the envelope: dot-separated names, where a
// numeric segment indexes an array (workspaces.0.name). It must match
// pathSyntax and be one a person may read for the event (allowedPath).
var pathSyntax = lazy.Regexp(`^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z0-9_]+)*$`)

// commonPaths are readable for every event.
var commonPaths = map[string]bool{
	"schemaVersion": true, "eventId": true, "eventName": true, "occurredAt": true, "source": true,
	"session": true, "session.id": true, "session.title": true,
	"turn": true, "turn.id": true,
	"agent": true, "agent.id": true, "agent.name": true,
	"workspaces": true, "primaryWorkspaceId": true,
}

// indexedPaths are readable for every event whatever the index.
var indexedPaths = lazy.Regexp(`^workspaces\.[0-9]+(\.(id|name))?$`)

// payloadPaths are each event's payload fields. turn.started has none.
var payloadPaths = map[EventName][]string{
	TurnStarted:       {},
	TurnCompleted:     {"durationMs"},
	TurnFailed:        {"message", "durationMs"},
	TurnCancelled:     {"reason", "durationMs"},
	ResponseCommitted: {"text", "messageId"},
	PermissionRequest: {"requestId", "tool", "summary", "kind"},
	QuestionRequested: {"requestId", "tool", "summary", "options"},
}

// payloadIndexed are array payload paths, per event.
var payloadIndexed = map[EventName]func() *regexp.Regexp{
	QuestionRequested: lazy.Regexp(`^payload\.options\.[0-9]+$`),
}

// checkPath says why path cannot be read for event, or nil.
func checkPath(path string, event EventName) error {
	if !pathSyntax().MatchString(path) {
		return fmt.Errorf("path %q is not a path (names joined by dots, numbers index arrays)", path)
	}
	if commonPaths[path] || indexedPaths().MatchString(path) {
		return nil
	}
	fields := payloadPaths[event]
	if path == "payload" && len(fields) > 0 {
		return nil
	}
	if rest, ok := strings.CutPrefix(path, "payload."); ok {
		for _, f := range fields {
			if rest == f {
				return nil
			}
		}
		if re := payloadIndexed[event]; re != nil && re().MatchString(path) {
			return nil
		}
	}
	var known []string
	for _, f := range fields {
		known = append(known, "payload."+f)
	}
	hint := "no payload fields"
	if len(known) > 0 {
		hint = "payload fields: " + strings.Join(known, ", ")
	}
	return fmt.Errorf("path %q cannot be read for %s (common fields: session.id, session.title, turn.id, agent.id, agent.name, workspaces.N.id, workspaces.N.name, primaryWorkspaceId, eventId, eventName, occurredAt; %s)", path, event, hint)
}

// resolve reads path from a decoded envelope (JSON's shapes: objects,
// arrays, strings, float64, bools, nil); ok is false when it leads nowhere
// (a missing field, an index out of range).
func resolve(doc any, path string) (v any, ok bool) {
	v = doc
	for _, seg := range strings.Split(path, ".") {
		switch cur := v.(type) {
		case map[string]any:
			v, ok = cur[seg]
			if !ok {
				return nil, false
			}
		case []any:
			i, err := strconv.Atoi(seg)
			if err != nil || i < 0 || i >= len(cur) {
				return nil, false
			}
			v = cur[i]
		default:
			return nil, false
		}
	}
	return v, true
}

// document is the envelope as paths read it.
func document(env *Envelope) (any, error) {
	b, err := json.Marshal(env)
	if err != nil {
		return nil, err
	}
	var doc any
	return doc, json.Unmarshal(b, &doc)
}
