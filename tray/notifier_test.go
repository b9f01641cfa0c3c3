package tray

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/internal/config"
	"github.com/clawdhq/clawd/runtime"
	"github.com/clawdhq/clawd/runtime/client"
	"github.com/clawdhq/clawd/tray/notify"
)

// recordSender is a desktop that records the notes it is given.
type recordSender struct {
	mu    sync.Mutex
	notes []notify.Note
	got   chan struct{}
}

func (r *recordSender) Send(ctx context.Context, n notify.Note) error {
	r.mu.Lock()
	r.notes = append(r.notes, n)
	r.mu.Unlock()
	select {
	case r.got <- struct{}{}:
	default:
	}
	return nil
}

func (r *recordSender) all() []notify.Note {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]notify.Note(nil), r.notes...)
}

// wait waits for n notes in all.
func (r *recordSender) wait(t *testing.T, n int) []notify.Note {
	t.Helper()
	deadline := time.After(5 * time.Second)
	for {
		if got := r.all(); len(got) >= n {
			return got
		}
		select {
		case <-r.got:
		case <-deadline:
			t.Fatalf("got %d notes, want %d: %+v", len(r.all()), n, r.all())
		}
	}
}

func startNotifier(t *testing.T, mod func(*config.Notifications)) (*runtime.Server, *recordSender) {
	t.Helper()
	srv := runtime.New(runtime.Config{Home: t.TempDir(), Alive: func(int) bool { return true }})
	cfg := config.DefaultNotifications()
	cfg.DoneGrace = 0
	if mod != nil {
		mod(&cfg)
	}
	rec := &recordSender{got: make(chan struct{}, 1)}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	n := NewNotifier(NotifierOptions{Runtime: srv, Config: cfg, Sender: rec})
	wg.Go(func() { n.Run(ctx) })
	t.Cleanup(func() {
		cancel()
		wg.Wait()
	})
	return srv, rec
}

func ev(kind agents.Kind, sid string, mod ...func(*agents.Event)) agents.Event {
	e := agents.Event{Agent: "claude", Kind: kind, SessionID: sid, Cwd: "/w/" + sid, Time: time.Now()}
	for _, f := range mod {
		f(&e)
	}
	return e
}

// settle gives the notifier time to act on what it was fed, for the
// cases where the test asserts that nothing came.
func settleNotes() { time.Sleep(200 * time.Millisecond) }

func TestNotifierTurnsEventsIntoNotes(t *testing.T) {
	srv, rec := startNotifier(t, nil)
	srv.Ingest(ev(agents.KindPromptSubmit, "s1", func(e *agents.Event) { e.Title = "fix the login" }))
	srv.Ingest(ev(agents.KindTurnEnd, "s1"))
	notes := rec.wait(t, 1)
	if n := notes[0]; n.Kind != notify.Done || !strings.Contains(n.Summary, "Claude Code") || !strings.Contains(n.Body, "fix the login") {
		t.Errorf("note for a finished turn = %+v, want Done naming Claude Code and the session title", n)
	}
	srv.Ingest(ev(agents.KindTurnFailure, "s1", func(e *agents.Event) { e.ErrorKind = "rate_limit" }))
	notes = rec.wait(t, 2)
	if n := notes[1]; n.Kind != notify.Failure || !strings.Contains(n.Body, "rate_limit") {
		t.Errorf("note for a failed turn = %+v, want Failure with the error kind", n)
	}

	// Headless sessions and subagents stay quiet; so does everything
	// while notifications are paused.
	srv.Ingest(ev(agents.KindTurnEnd, "ci", func(e *agents.Event) { e.Headless = true }))
	srv.Ingest(ev(agents.KindTurnEnd, "s2", func(e *agents.Event) { e.SubagentID = "a1" }))
	srv.PauseNotifications(time.Now().Add(time.Hour))
	srv.Ingest(ev(agents.KindTurnEnd, "s3"))
	settleNotes()
	if got := rec.all(); len(got) != 2 {
		t.Errorf("notes after headless, subagent and paused events = %+v, want none new", got[2:])
	}
}

func TestNotifierHoldsDoneForTheGrace(t *testing.T) {
	srv, rec := startNotifier(t, func(c *config.Notifications) { c.DoneGrace = 300 * time.Millisecond })
	// The person is right there: a new prompt within the grace cancels
	// the finished-turn note.
	srv.Ingest(ev(agents.KindTurnEnd, "s1"))
	srv.Ingest(ev(agents.KindPromptSubmit, "s1"))
	time.Sleep(600 * time.Millisecond)
	if got := rec.all(); len(got) != 0 {
		t.Fatalf("notes after a turn end followed by a prompt = %+v, want none", got)
	}
	// Nobody comes back: the note goes out after the grace.
	start := time.Now()
	srv.Ingest(ev(agents.KindTurnEnd, "s1"))
	notes := rec.wait(t, 1)
	if d := time.Since(start); d < 250*time.Millisecond || notes[0].Kind != notify.Done {
		t.Errorf("note %+v came after %v, want Done after the 300ms grace", notes[0], d)
	}
}

func TestOccurrenceFromPermission(t *testing.T) {
	srv := runtime.New(runtime.Config{Home: t.TempDir()})
	tests := []struct {
		kind string
		want notify.Kind
	}{{"permission", notify.Permission}, {"question", notify.Question}, {"plan", notify.Permission}}
	for _, tt := range tests {
		c := runtime.Change{Permission: permChange("added", tt.kind)}
		oc, ok := occurrence(c, srv)
		if !ok || oc.Kind != tt.want || oc.AgentName != "Claude Code" || oc.Cwd != "/w/s" {
			t.Errorf("occurrence(added %s) = %+v, %v, want kind %s for Claude Code in /w/s", tt.kind, oc, ok, tt.want)
		}
	}
	if oc, ok := occurrence(runtime.Change{Permission: permChange(runtime.TypeUnshown, "permission")}, srv); !ok || oc.Kind != notify.Permission {
		t.Errorf("occurrence(unshown permission) = %+v, %v, want a Permission: the agent's terminal waits", oc, ok)
	}
	if _, ok := occurrence(runtime.Change{Permission: permChange("closed", "permission")}, srv); ok {
		t.Error("a closed request made an occurrence")
	}
	interrupted := agents.Event{Agent: "codex", Kind: agents.KindTurnEnd, SessionID: "s", Reason: agents.ReasonInterrupt}
	if _, ok := occurrence(runtime.Change{Event: &client.EventRecord{Event: interrupted}}, srv); ok {
		t.Error("an interrupted turn made an occurrence: the person pressed Esc, they know")
	}
	if _, ok := occurrence(runtime.Change{Settings: true}, srv); ok {
		t.Error("a settings change made an occurrence")
	}
}

func permChange(typ, kind string) *client.PermissionChange {
	return &client.PermissionChange{Type: typ, Permission: client.PermissionView{
		ID: "p1", Kind: client.RequestKind(kind), Agent: "claude", SessionID: "s", Cwd: "/w/s",
		Tool: "Bash", Summary: "Bash: ls", State: "pending",
	}}
}
