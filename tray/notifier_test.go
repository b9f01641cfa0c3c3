package tray

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/internal/config"
	"github.com/clawdhq/clawd/internal/i18n"
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

// fakeClock is the notifier's clock and timer in a test: time moves only
// when the test advances it, and every timer the notifier arms is
// reported, so a test knows what the notifier decided (a Done held until
// its grace ends, or nothing held) before it looks at the notes.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Time
	timers []fakeTimer
	armed  chan time.Time // when each timer armed falls due, in order
}

type fakeTimer struct {
	at time.Time
	ch chan time.Time
}

func newFakeClock(now time.Time) *fakeClock {
	return &fakeClock{now: now, armed: make(chan time.Time, 4096)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := fakeTimer{at: c.now.Add(d), ch: make(chan time.Time, 1)}
	if d <= 0 {
		t.ch <- c.now
	} else {
		c.timers = append(c.timers, t)
	}
	select {
	case c.armed <- t.at:
	default:
	}
	return t.ch
}

// Advance moves the clock on by d and fires the timers that fall due.
func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	kept := c.timers[:0]
	for _, t := range c.timers {
		if t.at.After(c.now) {
			kept = append(kept, t)
			continue
		}
		t.ch <- c.now
	}
	c.timers = kept
}

// waitArmed waits until the notifier arms a timer falling due at at: it
// has taken in everything before and decided what to hold.
func (c *fakeClock) waitArmed(t *testing.T, at time.Time) {
	t.Helper()
	deadline := time.After(5 * time.Second)
	for {
		select {
		case got := <-c.armed:
			if got.Equal(at) {
				return
			}
		case <-deadline:
			t.Fatalf("the notifier armed no timer for %v", at)
		}
	}
}

// watchedFeed is the runtime as the notifier sees it, telling the test
// each View the notifier takes: the notifier takes one per occurrence,
// and the gate it applies is the one in that View.
type watchedFeed struct {
	Feed
	views chan client.View
}

func (w watchedFeed) View() client.View {
	v := w.Feed.View()
	w.views <- v
	return v
}

// notifierEnv is a runtime and a notifier following it.
type notifierEnv struct {
	srv   *runtime.Server
	rec   *recordSender
	views <-chan client.View
}

// nextView returns the next View the notifier took.
func (env *notifierEnv) nextView(t *testing.T) client.View {
	t.Helper()
	select {
	case v := <-env.views:
		return v
	case <-time.After(5 * time.Second):
		t.Fatal("the notifier took no View")
		return client.View{}
	}
}

// startNotifier runs a runtime and a notifier following it, on clock when
// it is not nil.
func startNotifier(t *testing.T, mod func(*config.Notifications), clock *fakeClock) *notifierEnv {
	t.Helper()
	srv := runtime.New(runtime.Config{Home: t.TempDir(), Alive: func(int) bool { return true }})
	cfg := config.DefaultNotifications()
	cfg.DoneGrace = 0
	if mod != nil {
		mod(&cfg)
	}
	env := &notifierEnv{srv: srv, rec: &recordSender{got: make(chan struct{}, 1)}}
	views := make(chan client.View, 256)
	env.views = views
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	o := NotifierOptions{Runtime: watchedFeed{srv, views}, Config: cfg, Sender: env.rec}
	if clock != nil {
		o.Now, o.After = clock.Now, clock.After
	}
	n := NewNotifier(o)
	wg.Go(func() { n.Run(ctx) })
	t.Cleanup(func() {
		cancel()
		wg.Wait()
	})
	return env
}

func ev(kind agents.Kind, sid string, mod ...func(*agents.Event)) agents.Event {
	e := agents.Event{Agent: "claude", Kind: kind, SessionID: sid, Cwd: "/w/" + sid, Time: time.Now()}
	for _, f := range mod {
		f(&e)
	}
	return e
}

func TestNotifierTurnsEventsIntoNotes(t *testing.T) {
	env := startNotifier(t, nil, nil)
	srv, rec := env.srv, env.rec
	srv.Ingest(ev(agents.KindPromptSubmit, "s1", func(e *agents.Event) { e.Title = "fix the login" }))
	srv.Ingest(ev(agents.KindTurnEnd, "s1"))
	notes := rec.wait(t, 1)
	if n := notes[0]; n.Kind != notify.Done || !strings.Contains(n.Summary, "Claude Code") || !strings.Contains(n.Body, "fix the login") {
		t.Errorf("note for a finished turn = %+v, want Done naming Claude Code and the session title", n)
	}
	srv.Ingest(ev(agents.KindTurnFailure, "s1", func(e *agents.Event) {
		e.ErrorKind, e.ErrorText = "rate_limit", "API Error: 429 rate limited"
	}))
	notes = rec.wait(t, 2)
	if n := notes[1]; n.Kind != notify.Failure || !strings.Contains(n.Body, "API Error: 429 rate limited") {
		t.Errorf("note for a failed turn = %+v, want Failure with the agent's reason", n)
	}

	// Headless sessions and subagents stay quiet; so does everything
	// while notifications are paused. The notifier takes the changes in
	// order: the next note, once the pause is over, is the one after them.
	srv.Ingest(ev(agents.KindTurnEnd, "ci", func(e *agents.Event) { e.Headless = true }))
	srv.Ingest(ev(agents.KindTurnEnd, "s2", func(e *agents.Event) { e.SubagentID = "a1" }))
	srv.PauseNotifications(time.Now().Add(time.Hour))
	srv.Ingest(ev(agents.KindTurnEnd, "s3"))
	// Resume once the notifier has seen s3's turn end in the pause: its
	// fifth View, after s1's two, ci's and s2's.
	for range 4 {
		env.nextView(t)
	}
	if v := env.nextView(t); !v.NotificationsPausedUntil.After(time.Now()) {
		t.Fatalf("the notifier took s3's turn end with notifications paused until %v, want the pause on", v.NotificationsPausedUntil)
	}
	srv.PauseNotifications(time.Time{})
	srv.Ingest(ev(agents.KindTurnEnd, "s4"))
	notes = rec.wait(t, 3)
	if n := notes[2]; n.Kind != notify.Done || !strings.Contains(n.Body, "s4") {
		t.Errorf("notes after headless, subagent and paused events, then one of s4 = %+v, want only s4's", notes[2:])
	}
}

func TestNotifierHoldsDoneForTheGrace(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	clock := newFakeClock(t0)
	env := startNotifier(t, func(c *config.Notifications) { c.DoneGrace = 300 * time.Millisecond }, clock)
	srv, rec := env.srv, env.rec
	// The person is right there: a new prompt within the grace cancels
	// the finished-turn note.
	srv.Ingest(ev(agents.KindTurnEnd, "s1"))
	clock.waitArmed(t, t0.Add(300*time.Millisecond)) // held for the grace
	srv.Ingest(ev(agents.KindPromptSubmit, "s1"))
	clock.waitArmed(t, t0.Add(time.Hour)) // nothing held any more
	clock.Advance(time.Second)

	// Nobody comes back: the note goes out when the grace ends, not
	// before.
	srv.Ingest(ev(agents.KindTurnEnd, "s1"))
	t1 := t0.Add(time.Second)
	clock.waitArmed(t, t1.Add(300*time.Millisecond))
	if got := rec.all(); len(got) != 0 {
		t.Fatalf("notes within the grace = %+v, want none", got)
	}
	clock.Advance(300 * time.Millisecond)
	if notes := rec.wait(t, 1); len(notes) != 1 || notes[0].Kind != notify.Done {
		t.Errorf("notes after the grace = %+v, want one Done", notes)
	}
}

func TestOccurrenceFromPermission(t *testing.T) {
	tests := []struct {
		kind string
		want notify.Kind
	}{{"permission", notify.Permission}, {"question", notify.Question}, {"plan", notify.Permission}}
	for _, tt := range tests {
		c := client.Change{Permission: permChange(client.ChangeAdded, tt.kind)}
		oc, ok := occurrence(i18n.Printer{}, c)
		if !ok || oc.Kind != tt.want || oc.AgentName != "Claude Code" || oc.Cwd != "/w/s" {
			t.Errorf("occurrence(added %s) = %+v, %v, want kind %s for Claude Code in /w/s", tt.kind, oc, ok, tt.want)
		}
	}
	if oc, ok := occurrence(i18n.Printer{}, client.Change{Permission: permChange(client.ChangeUnshown, "permission")}); !ok || oc.Kind != notify.Permission {
		t.Errorf("occurrence(unshown permission) = %+v, %v, want a Permission: the agent's terminal waits", oc, ok)
	}
	if _, ok := occurrence(i18n.Printer{}, client.Change{Permission: permChange(client.ChangeClosed, "permission")}); ok {
		t.Error("a closed request made an occurrence")
	}
	interrupted := agents.Event{Agent: "codex", Kind: agents.KindTurnEnd, SessionID: "s", Reason: agents.ReasonInterrupt}
	if _, ok := occurrence(i18n.Printer{}, client.Change{Event: &client.EventRecord{Event: interrupted}}); ok {
		t.Error("an interrupted turn made an occurrence: the person pressed Esc, they know")
	}
	if _, ok := occurrence(i18n.Printer{}, client.Change{Settings: true}); ok {
		t.Error("a settings change made an occurrence")
	}
}

// TestNotificationMarksSubagent: a subagent's request notifies (it is no
// subagent's turn end, which stays quiet) and the heading says which
// subagent asks, in the person's language; shown or left to the terminal
// alike.
func TestNotificationMarksSubagent(t *testing.T) {
	tests := []struct {
		lang       i18n.Lang
		typ, want  string
		changeType string
	}{
		{i18n.English, "Explore", "Claude Code (subagent: Explore) needs you", client.ChangeAdded},
		{i18n.English, "Explore", "Claude Code (subagent: Explore) needs you", client.ChangeUnshown},
		{i18n.English, "", "Claude Code (subagent: afc7f71e) needs you", client.ChangeAdded},
		{i18n.Chinese, "Explore", "Claude Code（子智能体：Explore） 需要你处理", client.ChangeAdded},
	}
	for _, tt := range tests {
		p := i18n.For(tt.lang)
		c := client.Change{Permission: &client.PermissionChange{Type: tt.changeType, Permission: client.PermissionView{
			ID: "p1", Kind: client.KindPermission, Agent: "claude", SessionID: "s1", Tool: "Bash", Summary: "npm test",
			Cwd: "/home/u/shop", SubagentID: "afc7f71e", SubagentType: tt.typ,
		}}}
		oc, ok := occurrence(p, c)
		if !ok {
			t.Fatalf("occurrence(%s subagent request) = false", tt.changeType)
		}
		notes := notify.NewPolicy(config.DefaultNotifications(), p).Observe(oc, notify.Gate{}, t0)
		if len(notes) != 1 || notes[0].Summary != tt.want {
			t.Errorf("%s %s subagent %q: notes = %+v, want one headed %q", tt.lang, tt.changeType, tt.typ, notes, tt.want)
		}
	}
}

// TestOccurrenceFromSession: an event's note names what its session
// knows, not only what the event's payload had.
func TestOccurrenceFromSession(t *testing.T) {
	e := agents.Event{Agent: "claude", Kind: agents.KindTurnEnd, SessionID: "s"}
	oc, ok := occurrence(i18n.Printer{}, client.Change{Event: &client.EventRecord{Event: e}})
	if !ok {
		t.Fatal("a turn end made no occurrence")
	}
	v := client.View{Snapshot: client.Snapshot{Sessions: []client.SessionView{
		{Agent: "codex", SessionID: "s", Title: "another agent's"},
		{Agent: "claude", SessionID: "s", Title: "fix the login", Cwd: "/w/s", Headless: true},
	}}}
	fromSession(&oc, v)
	if oc.Title != "fix the login" || oc.Cwd != "/w/s" || !oc.Headless {
		t.Errorf("occurrence completed from its session = %+v, want its title, folder and headless", oc)
	}
}

func permChange(typ, kind string) *client.PermissionChange {
	return &client.PermissionChange{Type: typ, Permission: client.PermissionView{
		ID: "p1", Kind: client.RequestKind(kind), Agent: "claude", SessionID: "s", Cwd: "/w/s",
		Tool: "Bash", Summary: "Bash: ls", State: "pending",
	}}
}
