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

// TestIngressProbes: a remote machine's doctor posts its probe through
// the profile's ingress and asks there whether it arrived; it is kept as
// that profile's, out of reach of the socket and of another profile, and
// the ingress takes none without the profile's token.
func TestIngressProbes(t *testing.T) {
	s, _, sock := startServer(t)
	box := &Ingress{Label: "box"}
	box.SetCredentials("tok-box", 1)
	boxPort := startIngress(t, s, box)
	other := &Ingress{Label: "other"}
	other.SetCredentials("tok-other", 1)
	otherPort := startIngress(t, s, other)
	boxHost, otherHost := fmt.Sprintf("127.0.0.1:%d", boxPort), fmt.Sprintf("127.0.0.1:%d", otherPort)
	get := func(id, host string, headers []string) string {
		req := "GET /api/v1/probes/" + id + " HTTP/1.1\r\nHost: " + host + "\r\n"
		for _, h := range headers {
			req += h + "\r\n"
		}
		return req + "\r\n"
	}
	const probe = `{"id": "p1", "agent": "claude", "hook_event": "Stop"}`

	if code, _, _ := rawRequest(t, boxPort, post("/api/v1/probes", boxHost, authHeaders("tok-other", 1), probe)); code != http.StatusForbidden {
		t.Errorf("a probe with another profile's token: %d, want 403", code)
	}
	if code, _, body := rawRequest(t, boxPort, post("/api/v1/probes", boxHost, authHeaders("tok-box", 1), probe)); code != http.StatusNoContent {
		t.Fatalf("a probe with the profile's token: %d %s, want 204", code, body)
	}
	code, _, body := rawRequest(t, boxPort, get("p1", boxHost, authHeaders("tok-box", 1)))
	var pr client.Probe
	if code != http.StatusOK || json.Unmarshal([]byte(body), &pr) != nil || pr.ID != "p1" || pr.Host != "box" || pr.Agent != "claude" {
		t.Errorf("GET the probe through its ingress: %d %s, want 200 with host box", code, body)
	}
	if code, _, _ := rawRequest(t, boxPort, get("p1", boxHost, nil)); code != http.StatusForbidden {
		t.Errorf("GET the probe without the token: %d, want 403", code)
	}
	if code, _, _ := rawRequest(t, otherPort, get("p1", otherHost, authHeaders("tok-other", 1))); code != http.StatusNotFound {
		t.Errorf("GET box's probe through another profile's ingress: %d, want 404", code)
	}
	if code, _, _ := rawSocketRequest(t, sock, get("p1", "clawd", nil)); code != http.StatusNotFound {
		t.Errorf("GET box's probe on the socket: %d, want 404", code)
	}
	if snap := s.Snapshot(); len(snap.Sessions) != 0 {
		t.Errorf("a remote probe made sessions: %+v", snap.Sessions)
	}
}
