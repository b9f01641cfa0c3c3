package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/internal/intrudertest"
	"github.com/clawdhq/clawd/runtime/automations"
	"github.com/clawdhq/clawd/runtime/client"
)

// TestIntruderPostState: another user's POST /state (nobody, through
// setpriv) reaches nothing of the person's. 200 Stop and SessionEnd posts
// with attacker-chosen data run none of the person's trusted automations,
// write nothing to the history, make no session (so none of the person's
// is evicted), and each gets a 403. This user's own post, without a
// token, still sets a state; a sentinel Stop of the person's own session,
// posted after the flood, proves the automation and the history were
// listening all along.
func TestIntruderPostState(t *testing.T) {
	if why := intrudertest.Available(); why != "" {
		t.Skip(why)
	}
	ctx := context.Background()
	home := t.TempDir()
	out := filepath.Join(t.TempDir(), "runs.log")
	def := `[[automation]]
id = "on-stop"
event = "turn.completed"
action = { type = "command", argv = ["/bin/sh", "-c", "cat >> ` + out + `; echo >> ` + out + `"] }
policy = { concurrency = "parallel" }
`
	if err := os.WriteFile(filepath.Join(home, automations.File), []byte(def), 0o600); err != nil {
		t.Fatal(err)
	}
	s, c, _ := runWithHistory(t, home, func(cfg *Config) {
		cfg.OpenAutomations = func(ctx context.Context) (*automations.Engine, error) {
			return automations.Open(ctx, automations.Options{Home: home})
		}
	})
	e := s.auto.Load()
	d, ok := e.Definition("on-stop")
	if !ok {
		t.Fatal("automations.toml not loaded")
	}
	if err := e.Trust(ctx, "on-stop", d.Hash()); err != nil {
		t.Fatal(err)
	}
	s.Ingest(agents.Event{Agent: "claude", Kind: agents.KindPromptSubmit, SessionID: "real-1", Time: time.Now(), Cwd: "/home/u/shop"})

	base := fmt.Sprintf("http://127.0.0.1:%d", s.tcpPort())
	for _, body := range []string{
		`{"state":"working","event":"Stop","session_id":"evil-1","cwd":"/home/victim/shop"}`,
		`{"state":"sleeping","event":"SessionEnd","session_id":"evil-2","cwd":"/home/victim/shop"}`,
		`{"state":"idle","event":"UserPromptSubmit","session_id":"real-1"}`,
	} {
		r := intrudertest.Run(t, "flood", "100", "POST", base+"/state", body)
		// Refused: a 403, or, when nobody's 16 connection slots are all
		// taken at that moment, the connection closed at once.
		counts := r["counts"].(map[string]any)
		refused, _ := counts["403"].(float64)
		closed, _ := counts["error"].(float64)
		if refused+closed != 100 || refused < 50 {
			t.Errorf("nobody's 100 POST /state %s: %v, want each refused (403, or the connection closed)", body, counts)
		}
	}

	// The person's own, after the flood: its automation run and its
	// history entry come through the same pipes.
	for _, k := range []agents.Kind{agents.KindPromptSubmit, agents.KindTurnEnd, agents.KindSessionEnd} {
		s.Ingest(agents.Event{Agent: "claude", Kind: k, SessionID: "mine", Time: time.Now(), Cwd: "/home/u/shop"})
	}
	eventually(t, "the person's own run", func() bool {
		b, _ := os.ReadFile(out)
		return strings.Contains(string(b), `"mine"`)
	})
	eventually(t, "the person's own session in the history", func() bool {
		h, err := c.History(ctx, client.HistoryQuery{})
		return err == nil && len(h.Sessions) == 1
	})
	if b, _ := os.ReadFile(out); strings.Contains(string(b), "evil") || strings.Count(string(b), `"session"`) != 1 {
		t.Errorf("the automation ran for the intruder: %d runs for evil sessions", strings.Count(string(b), "evil-"))
	}
	h, _ := c.History(ctx, client.HistoryQuery{})
	for _, en := range h.Sessions {
		if en.SessionID != "mine" {
			t.Errorf("history holds %+v, which nobody's posts made", en)
		}
	}
	found := false
	for _, ss := range s.Snapshot().Sessions {
		if strings.HasPrefix(ss.SessionID, "evil") {
			t.Errorf("nobody made session %+v", ss)
		}
		if ss.SessionID == "real-1" {
			found = true
			if ss.State != "thinking" {
				t.Errorf("nobody changed the person's session: %+v", ss)
			}
		}
	}
	if !found {
		t.Error("the person's session real-1 is gone")
	}
	// This user's script, without a token, on TCP: taken.
	resp, err := http.Post(base+"/state", "application/json", strings.NewReader(`{"state":"working","session_id":"script-1"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("this user's POST /state = %d, want 200", resp.StatusCode)
	}
}

// TestIntruderCannotHoldConnections: nobody's 200 keep-alive connections
// to the runtime's port (each with a GET /state, the one route it is
// answered) are each closed after the answer, and of 200 more that send
// half a request and wait, the runtime keeps at most the foreign share;
// meanwhile the person's token API and dashboard login answer at once.
func TestIntruderCannotHoldConnections(t *testing.T) {
	if why := intrudertest.Available(); why != "" {
		t.Skip(why)
	}
	s, port, _ := startServer(t)
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	cmd := intrudertest.Command(t, "hold", "200", base+"/state")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { stdin.Close(); cmd.Wait() }()
	var r struct {
		Answered int `json:"answered"`
		Closed   int `json:"closed_by_server"`
		Held     int `json:"held"`
	}
	if err := json.NewDecoder(stdout).Decode(&r); err != nil {
		t.Fatalf("the intruder's report: %v", err)
	}
	t.Logf("nobody's connections: %+v", r)
	if r.Answered == 0 || r.Closed != r.Answered {
		t.Errorf("nobody's 200 keep-alive requests: %d answered, %d of those connections closed by the runtime; want every one closed",
			r.Answered, r.Closed)
	}
	if r.Held > maxForeignConns {
		t.Errorf("nobody's 200 half requests: the runtime waits on %d, want at most %d", r.Held, maxForeignConns)
	}
	// The person, while nobody holds whatever it could: 64 token requests
	// at once, and a dashboard login.
	hc := &http.Client{Timeout: 20 * time.Second}
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for range 64 {
		wg.Go(func() {
			req, _ := http.NewRequest("GET", base+"/api/v1/health", nil)
			req.Header.Set("Authorization", "Bearer "+s.Token())
			resp, err := hc.Do(req)
			if err != nil {
				errs <- err
				return
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 {
				errs <- fmt.Errorf("status %d", resp.StatusCode)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("the person's request while nobody holds connections: %v", err)
	}
	resp, err := hc.Get(s.DashboardLogin().URL)
	if err != nil {
		t.Fatalf("dashboard login while nobody holds connections: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("dashboard login = %d, want 200", resp.StatusCode)
	}
}
