package agents

import (
	"fmt"
	"time"

	"github.com/tidwall/gjson"
)

// payload is one hook payload as the decoders read it: gjson lookups,
// strings clipped to the Event limits.
type payload []byte

// openPayload checks that b is a JSON object. A truncated payload (a
// prefix cut at the hook's stdin cap) is not valid JSON by nature; gjson
// reads the fields that precede the cut.
func openPayload(b []byte, truncated bool) (payload, error) {
	if !truncated {
		if !gjson.ValidBytes(b) {
			return nil, ErrNotJSON
		}
		if r := gjson.ParseBytes(b); !r.IsObject() {
			return nil, ErrNotJSON
		}
	}
	return payload(b), nil
}

func (p payload) get(path string) gjson.Result { return gjson.GetBytes(p, path) }

// str is the string at path, clipped to max bytes; "" for a missing or
// non-string value.
func (p payload) str(path string, max int) string {
	r := p.get(path)
	if r.Type != gjson.String {
		return ""
	}
	return clip(r.String(), max)
}

// common decodes what the agents' hook payloads share: the event name
// (hook_event_name, else the one given on the command line) mapped
// through kinds, the session id (else fallbackSID), and the fields every
// event may carry.
func (p payload) common(agent string, kinds map[string]Kind, hookEvent, fallbackSID string, now time.Time, truncated bool) (Event, error) {
	name := p.str("hook_event_name", MaxWordLen)
	if name == "" {
		name = hookEvent
	}
	kind, ok := kinds[name]
	if !ok {
		return Event{}, fmt.Errorf("%w %q", ErrUnknownEvent, clip(name, MaxWordLen))
	}
	sid := p.str("session_id", MaxIDLen)
	if sid == "" {
		sid = clip(fallbackSID, MaxIDLen)
	}
	if sid == "" {
		return Event{}, ErrNoSession
	}
	return Event{
		Agent:          agent,
		Kind:           kind,
		SessionID:      sid,
		Time:           now.UTC(),
		HookEvent:      name,
		Cwd:            p.str("cwd", MaxPathLen),
		ToolName:       p.str("tool_name", MaxIDLen),
		ToolUseID:      p.str("tool_use_id", MaxIDLen),
		SubagentID:     p.str("agent_id", MaxIDLen),
		SubagentType:   p.str("agent_type", MaxIDLen),
		PermissionMode: p.str("permission_mode", MaxWordLen),
		Truncated:      truncated,
	}, nil
}
