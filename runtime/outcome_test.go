package runtime

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/runtime/client"
)

// TestFailReasonReachesSnapshot: Claude Code's recorded StopFailure, sent
// the way `clawd hook` sends it, leaves its session failed with the
// agent's own reason in GET /api/v1/sessions, as one safe line.
func TestFailReasonReachesSnapshot(t *testing.T) {
	_, _, sock := startServer(t)
	c := client.NewSocket(sock, client.Options{})
	ctx := context.Background()

	payload, err := os.ReadFile(filepath.Join("..", "testdata", "claude", "hooks", "StopFailure.json"))
	if err != nil {
		t.Fatal(err)
	}
	e, err := agents.Claude.Decode(payload, "StopFailure", func(string) string { return "" }, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if err := c.PostEvent(ctx, e); err != nil {
		t.Fatal(err)
	}
	// Another agent's failure whose text would repaint a terminal.
	hostile := agents.Event{Agent: "codex", Kind: agents.KindTurnFailure, SessionID: "s2", Time: time.Now(),
		ErrorKind: "rate_limit", ErrorText: "429\x1b[2J\u202e too many\nrequests"}
	if err := c.PostEvent(ctx, hostile); err != nil {
		t.Fatal(err)
	}

	snap, err := c.Sessions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		e.SessionID: "API Error: 400 fake invalid request for StopFailure",
		"s2":        "429[2J too many requests",
	}
	if len(snap.Sessions) != len(want) {
		t.Fatalf("Sessions() = %d sessions, want %d: %+v", len(snap.Sessions), len(want), snap.Sessions)
	}
	for _, s := range snap.Sessions {
		if s.Outcome != "failed" || s.FailReason != want[s.SessionID] || s.OutcomeAt.IsZero() {
			t.Errorf("session %s: outcome %q at %v, reason %q; want failed, a time, %q",
				s.SessionID, s.Outcome, s.OutcomeAt, s.FailReason, want[s.SessionID])
		}
	}
}
