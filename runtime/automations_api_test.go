package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clawdhq/clawd/runtime/automations"
)

// getAutomations asks s's socket API for the automations' state.
func getAutomations(t *testing.T, s *Server) (int, string) {
	t.Helper()
	w := httptest.NewRecorder()
	s.SocketHandler().ServeHTTP(w, httptest.NewRequest("GET", "/api/v1/automations", nil))
	return w.Code, w.Body.String()
}

// TestAutomationsOffSaysWhy: when the engine does not open, the
// automations API says why, where it only said "off".
func TestAutomationsOffSaysWhy(t *testing.T) {
	s := New(Config{Home: t.TempDir(), OpenAutomations: func(context.Context) (*automations.Engine, error) {
		return nil, errors.New("open the automations store: permission denied (automations are off until it opens)")
	}})
	if stop := s.openAutomations(context.Background()); stop != nil {
		stop()
		t.Fatal("openAutomations ran an engine that failed to open")
	}
	code, body := getAutomations(t, s)
	if code != http.StatusServiceUnavailable || !strings.Contains(body, "automations are off in this clawd serve: open the automations store: permission denied") {
		t.Errorf("GET /api/v1/automations = %d %s, want 503 with the reason", code, body)
	}
}

// TestAutomationsStateSaysRecovered: a store found unreadable and moved
// aside is in the automations' state, with the backlog.
func TestAutomationsStateSaysRecovered(t *testing.T) {
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, automations.StoreFile), []byte("garbage, not SQLite"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := New(Config{Home: home, OpenAutomations: func(ctx context.Context) (*automations.Engine, error) {
		return automations.Open(ctx, automations.Options{Home: home})
	}})
	stop := s.openAutomations(context.Background())
	if stop == nil {
		t.Fatal("automations did not open over an unreadable store")
	}
	defer stop()
	code, body := getAutomations(t, s)
	var st AutomationsState
	if code != http.StatusOK || json.Unmarshal([]byte(body), &st) != nil {
		t.Fatalf("GET /api/v1/automations = %d %s", code, body)
	}
	if !strings.Contains(st.Recovered, "automations.db was unreadable") || !strings.Contains(st.Recovered, ".corrupt-") {
		t.Errorf("recovered = %q, want the note of the store moved aside", st.Recovered)
	}
	if !strings.Contains(body, `"backlog":{"queued":0}`) {
		t.Errorf("state %s lacks the backlog", body)
	}
}
