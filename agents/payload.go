package agents

import (
	"fmt"
	"strings"
	"time"

	"github.com/tidwall/gjson"
)

// payload is one hook payload as the decoders read it: its top-level
// fields, indexed in one pass, strings clipped to the Event limits.
//
// The index matters for big payloads: a gjson lookup scans the object from
// its start, so each of the dozen fields a decoder asks for (most of them
// absent) would scan again past a multi-megabyte prompt or tool input.
type payload struct {
	fields map[string]gjson.Result
}

// openPayload checks that b is a JSON object and indexes its fields. A
// truncated payload (a prefix cut at the hook's stdin cap) is not valid
// JSON by nature; the fields that precede the cut are read.
func openPayload(b []byte, truncated bool) (payload, error) {
	// One copy, which the fields' strings share: gjson.ParseBytes would
	// copy b for every call.
	s := string(b)
	if !truncated {
		if !gjson.ValidBytes(b) {
			return payload{}, ErrNotJSON
		}
		if r := gjson.Parse(s); !r.IsObject() {
			return payload{}, ErrNotJSON
		}
	}
	p := payload{fields: make(map[string]gjson.Result, 16)}
	gjson.Parse(s).ForEach(func(k, v gjson.Result) bool {
		// gjson.Get answers the first of duplicate keys: so does the index.
		if _, dup := p.fields[k.Str]; !dup {
			p.fields[k.Str] = v
		}
		return true
	})
	return p, nil
}

// get returns the top-level field name.
func (p payload) get(name string) gjson.Result { return p.fields[name] }

// str is the string field name, clipped to max bytes; "" for a missing
// or non-string value.
func (p payload) str(name string, max int) string {
	r := p.get(name)
	if r.Type != gjson.String {
		return ""
	}
	return clip(r.String(), max)
}

// common decodes what the agents' hook payloads share: the event name
// (hook_event_name, else the one given on the command line) mapped
// through kinds, the session id (else fallbackSID), and the fields every
// event may carry.
func (p payload) common(agent string, kinds func() map[string]Kind, hookEvent, fallbackSID string, now time.Time, truncated bool) (Event, error) {
	name := p.str("hook_event_name", MaxWordLen)
	if name == "" {
		name = hookEvent
	}
	kind, ok := kinds()[name]
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

// stopFailureText is why a turn failed in the words of a Claude-style
// StopFailure payload (Claude Code, Qwen Code): error_details where it
// has them, else its last_assistant_message when that is the agent's own
// report of an API failure ("API Error: 400 …", which Claude Code shows
// as the turn's last message). Any other last message may be the model's
// partial answer (max_output_tokens), which no Event carries.
func stopFailureText(p payload) string {
	if d := strings.TrimSpace(p.str("error_details", MaxErrorLen)); d != "" {
		return d
	}
	m := strings.TrimSpace(p.str("last_assistant_message", MaxErrorLen))
	if strings.HasPrefix(strings.TrimPrefix(m, "["), "API Error") {
		return m
	}
	return ""
}
