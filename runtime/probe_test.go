package runtime

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/clawdhq/clawd/runtime/client"
)

// TestProbes: doctor's connection test is kept for doctor to ask about,
// never becomes a session or an event, and the runtime remembers only the
// last maxProbes.
func TestProbes(t *testing.T) {
	now := time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)
	s := New(Config{Home: t.TempDir(), Now: func() time.Time { return now }})
	h := s.SocketHandler()
	events, cancel := s.Subscribe(8)
	defer cancel()
	do := func(method, path, body string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(method, path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		return w
	}
	for _, bad := range []string{`{"agent": "claude"}`, `{"id": "x", "agent": "kodex"}`, `{"id": "` + strings.Repeat("x", 65) + `", "agent": "claude"}`} {
		if w := do("POST", "/api/v1/probes", bad); w.Code != http.StatusBadRequest {
			t.Errorf("POST %s = %d, want 400", bad, w.Code)
		}
	}
	if w := do("POST", "/api/v1/probes", `{"id": "p1", "agent": "claude-code", "hook_event": "Stop"}`); w.Code != http.StatusNoContent {
		t.Fatalf("POST a probe = %d %s", w.Code, w.Body)
	}
	w := do("GET", "/api/v1/probes/p1", "")
	var p client.Probe
	if w.Code != http.StatusOK || json.Unmarshal(w.Body.Bytes(), &p) != nil || p != (client.Probe{ID: "p1", Agent: "claude-code", HookEvent: "Stop", ReceivedAt: now}) {
		t.Errorf("GET the probe = %d %s", w.Code, w.Body)
	}
	if snap := s.Snapshot(); len(snap.Sessions) != 0 {
		t.Errorf("a probe made sessions: %+v", snap.Sessions)
	}
	select {
	case c := <-events:
		t.Errorf("a probe was published: %+v", c)
	default:
	}
	for i := range maxProbes {
		do("POST", "/api/v1/probes", fmt.Sprintf(`{"id": "n%d", "agent": "codex"}`, i))
	}
	if w := do("GET", "/api/v1/probes/p1", ""); w.Code != http.StatusNotFound {
		t.Errorf("the oldest of %d+1 probes is still there: %d", maxProbes, w.Code)
	}
	if w := do("GET", "/api/v1/probes/n0", ""); w.Code != http.StatusOK {
		t.Errorf("a recent probe is gone: %d", w.Code)
	}
}
