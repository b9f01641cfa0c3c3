package runtime

import (
	"errors"
	"testing"
	"time"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/runtime/client"
)

func nextChange(t *testing.T, changes <-chan client.Change) client.Change {
	t.Helper()
	select {
	case c := <-changes:
		return c
	case <-time.After(5 * time.Second):
		t.Fatal("no change on the feed within 5s")
		return client.Change{}
	}
}

func TestFeedCarriesEveryKindOfChange(t *testing.T) {
	now := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	s := New(Config{Home: t.TempDir(), Now: clock, Alive: func(int) bool { return true }})
	f, cancel := s.Subscribe(16)
	defer cancel()

	s.Ingest(agents.Event{Agent: "claude", Kind: agents.KindTurnEnd, SessionID: "s1", Time: now})
	c := nextChange(t, f)
	if c.Event == nil || c.Event.SessionID != "s1" || c.Event.State != "attention" {
		t.Fatalf("after a turn end: change = %+v, want the event record in state attention", c)
	}

	// The one-shot "attention" runs out: the clock, not an event, changes
	// the display, and the feed says so.
	now = now.Add(time.Minute)
	s.tick(nil)
	if c := nextChange(t, f); !c.Display {
		t.Fatalf("after the one-shot ran out: change = %+v, want Display", c)
	}

	s.SetDND(true)
	if c := nextChange(t, f); !c.Settings {
		t.Fatalf("after SetDND: change = %+v, want Settings", c)
	}
	until := now.Add(time.Hour)
	s.PauseNotifications(until)
	if c := nextChange(t, f); !c.Settings || !s.NotificationsPausedUntil().Equal(until) {
		t.Fatalf("after PauseNotifications: change = %+v, paused until %v, want Settings and %v", c, s.NotificationsPausedUntil(), until)
	}

	// Nothing else happened: no stray change is queued.
	select {
	case c := <-f:
		t.Fatalf("unexpected change %+v", c)
	default:
	}
}

func TestFeedPermissionChangesAndDecide(t *testing.T) {
	env := startPerm(t, nil)
	f, cancel := env.s.Subscribe(64)
	defer cancel()
	res := env.hook(bashRequest("s1", "h1", "npm test"))

	var added client.PermissionView
	for added.ID == "" {
		c := nextChange(t, f)
		if c.Permission != nil && c.Permission.Type == client.ChangeAdded {
			added = c.Permission.Permission
		}
	}
	if got := env.s.Permissions(); len(got) != 1 || got[0].ID != added.ID {
		t.Fatalf("Permissions() = %+v, want the one added request %s", got, added.ID)
	}
	if _, err := env.s.Decide(added.ID, client.DecisionBody{Behavior: "maybe"}); !errors.Is(err, ErrBadDecision) {
		t.Fatalf("Decide(maybe) error = %v, want ErrBadDecision", err)
	}
	if _, err := env.s.Decide("nope", client.DecisionBody{Behavior: "allow"}); !errors.Is(err, ErrNoRequest) {
		t.Fatalf("Decide(unknown id) error = %v, want ErrNoRequest", err)
	}
	v, err := env.s.Decide(added.ID, client.DecisionBody{Behavior: "allow", Via: "tray"})
	if err != nil || v.State != "answered" {
		t.Fatalf("Decide(allow) = %+v, %v", v, err)
	}
	r := wait(t, res)
	if r.ans.Decision == nil || !r.ans.Decision.Allow {
		t.Fatalf("hook got %+v, want allow", r.ans)
	}
	if _, err := env.s.Decide(added.ID, client.DecisionBody{Behavior: "deny"}); !errors.Is(err, ErrClosed) {
		t.Fatalf("second Decide error = %v, want ErrClosed", err)
	}
	for {
		c := nextChange(t, f)
		if c.Permission != nil && c.Permission.Type == client.ChangeClosed {
			if c.Permission.Permission.ID != added.ID || c.Permission.Reason != "answered" {
				t.Fatalf("closed change = %+v, want %s answered", c.Permission, added.ID)
			}
			break
		}
	}
}

func TestFeedDropsAndCounts(t *testing.T) {
	s := New(Config{Home: t.TempDir(), Alive: func(int) bool { return true }})
	f, cancel := s.Subscribe(1)
	defer cancel()
	for i := range 4 {
		s.Ingest(agents.Event{Agent: "claude", Kind: agents.KindPromptSubmit, SessionID: "s", Time: time.Unix(int64(i), 0)})
	}
	if c := nextChange(t, f); c.Event == nil || c.Dropped != 0 {
		t.Fatalf("first change = %+v, want an event with nothing dropped", c)
	}
	s.Ingest(agents.Event{Agent: "claude", Kind: agents.KindTurnEnd, SessionID: "s", Time: time.Unix(9, 0)})
	if c := nextChange(t, f); c.Event == nil || c.Dropped != 3 {
		t.Fatalf("after a full buffer: change = %+v, want Dropped 3", c)
	}
	cancel()
	s.Ingest(agents.Event{Agent: "claude", Kind: agents.KindPromptSubmit, SessionID: "s", Time: time.Unix(10, 0)})
	select {
	case c := <-f:
		t.Fatalf("closed feed got %+v", c)
	default:
	}
}

func TestFeedUnshownRequest(t *testing.T) {
	env := startPerm(t, func(c *Config) { c.PermissionsDisabled = map[string]bool{"claude": true} })
	f, cancel := env.s.Subscribe(64)
	defer cancel()
	r := wait(t, env.hook(bashRequest("s1", "h1", "npm test")))
	if r.ans.Decision != nil || r.ans.Reason != client.ReasonDisabled {
		t.Fatalf("answer with permissions off = %+v, want no decision (disabled)", r.ans)
	}
	var sawEvent bool
	for {
		c := nextChange(t, f)
		if c.Event != nil && c.Event.Kind == agents.KindPermissionRequest {
			sawEvent = true
			continue
		}
		if c.Permission == nil {
			continue
		}
		if c.Permission.Type != client.ChangeUnshown || c.Permission.Reason != client.ReasonDisabled ||
			c.Permission.Permission.Summary != "npm test" || !sawEvent {
			t.Fatalf("change = %+v (event before it: %v), want the event, then unshown/disabled for npm test", c.Permission, sawEvent)
		}
		break
	}
	if got := env.s.Permissions(); len(got) != 0 {
		t.Errorf("Permissions() = %+v, want none: the request was never shown", got)
	}
}
