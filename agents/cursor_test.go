package agents

import (
	"testing"
	"time"
)

// TestCursorSessionID: a Cursor session is its conversation_id; a payload
// without one (older hooks, cursor-agent) is keyed by its session_id, and
// one with neither is refused.
func TestCursorSessionID(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	env := func(string) string { return "" }
	for _, c := range []struct {
		name, payload, want string
	}{
		{"conversation", `{"conversation_id":"conv-1","hook_event_name":"stop","status":"completed"}`, "conv-1"},
		{"both", `{"conversation_id":"conv-1","session_id":"sess-1","hook_event_name":"stop","status":"completed"}`, "conv-1"},
		{"session only", `{"session_id":"sess-1","hook_event_name":"stop","status":"completed"}`, "sess-1"},
		{"empty conversation", `{"conversation_id":"","session_id":"sess-1","hook_event_name":"stop","status":"completed"}`, "sess-1"},
	} {
		e, err := Cursor.Decode([]byte(c.payload), "stop", env, now)
		if err != nil || e.SessionID != c.want {
			t.Errorf("%s: Decode(%s) = session %q, %v; want %q", c.name, c.payload, e.SessionID, err, c.want)
		}
	}
	if e, err := Cursor.Decode([]byte(`{"hook_event_name":"stop"}`), "stop", env, now); err == nil {
		t.Errorf("Decode without a conversation or session id = %+v, want an error", e)
	}
}
