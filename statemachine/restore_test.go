package statemachine

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/clawdhq/clawd/agents"
)

// TestSaveRestore: a session saved by one machine and restored into a new
// one (the runtime's restart) looks the same, and the next event does to
// it what it does to the original: its open requests, subagents, ledger
// of turns, outcome and titles came along.
func TestSaveRestore(t *testing.T) {
	type timed struct {
		at time.Duration
		e  agents.Event
	}
	tests := []struct {
		name   string
		before []timed
		// after is applied to both machines once the restart is over.
		after agents.Event
		want  State // the session's state after `after`, in both
	}{
		{"a request waits across the restart, the tool's end closes it", []timed{
			{0, ev(agents.KindPromptSubmit, turn("p1"), title("fix the lexer", agents.TitleFromPrompt))},
			{sec, ev(agents.KindToolStart, turn("p1"), tool("Bash", "tu1", "h1"))},
			{2 * sec, ev(agents.KindPermissionRequest, turn("p1"), tool("Bash", "tu1", "h1"))},
		}, ev(agents.KindToolEnd, turn("p1"), tool("Bash", "tu1", "h1")), Working},
		{"a question stays a question", []timed{
			{0, ev(agents.KindPromptSubmit, turn("p1"))},
			{sec, ev(agents.KindQuestion, turn("p1"), tool("AskUserQuestion", "tu9", ""))},
		}, ev(agents.KindToolEnd, turn("p1"), tool("AskUserQuestion", "tu9", "")), Working},
		{"subagents keep it juggling until the last stops", []timed{
			{0, ev(agents.KindPromptSubmit, turn("p1"))},
			{sec, ev(agents.KindSubagentStart, turn("p1"), subagent("a1", "general"))},
		}, ev(agents.KindSubagentStop, turn("p1"), subagent("a1", "general")), Working},
		{"a late hook of a turn that ended before the restart stays late", []timed{
			{0, ev(agents.KindPromptSubmit, turn("p1"))},
			{sec, ev(agents.KindTurnEnd, turn("p1"))},
			{2 * sec, ev(agents.KindPromptSubmit, turn("p2"))},
			{3 * sec, ev(agents.KindTurnEnd, turn("p2"))},
		}, ev(agents.KindToolBatch, turn("p1"), batch("tu1")), Idle},
		{"a failed turn keeps its reason", []timed{
			{0, ev(agents.KindPromptSubmit, turn("p1"), pid(4242))},
			{sec, ev(agents.KindTurnFailure, turn("p1"), errText("API Error: 429"))},
		}, ev(agents.KindNotification, notif(agents.NoticeIdle)), Idle},
		{"a thinking session goes on thinking", []timed{
			{0, ev(agents.KindSessionStart, headless)},
			{sec, ev(agents.KindPromptSubmit, turn("p1"), title("write docs", agents.TitleFromPrompt))},
			{2 * sec, ev(agents.KindPromptSubmit, turn("p2"), title("ignored", agents.TitleFromPrompt))},
		}, ev(agents.KindToolStart, turn("p2"), tool("Read", "tu2", "")), Working},
	}
	restart := 30 * sec
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := New(Options{})
			for _, x := range tt.before {
				a.Apply(x.e, t0.Add(x.at))
			}
			a.Retitle(Key{"claude", sid}, "Shop refactor", agents.TitleFromPerson)
			a.Retitle(Key{"claude", sid}, "Lexer work", agents.TitleFromAgent)
			a.Tick(t0.Add(restart), nil) // one-shots over, as after any restart
			saved := a.Save()
			if len(saved) != 1 {
				t.Fatalf("Save() = %d sessions, want 1", len(saved))
			}

			b := New(Options{})
			res := b.Restore(saved, t0.Add(restart))
			if len(res.Sessions) != 1 || len(res.Dropped) != 0 || res.Invalid != 0 {
				t.Fatalf("Restore = %+v, want the one session", res)
			}
			ga, _ := a.Session(Key{"claude", sid})
			gb, _ := b.Session(Key{"claude", sid})
			if !reflect.DeepEqual(ga, gb) {
				t.Errorf("Restore(Save()) = %+v,\nwant %+v", gb, ga)
			}
			if gb.Titles.Person != "Shop refactor" || gb.Titles.Agent != "Lexer work" || gb.Title != "Shop refactor" {
				t.Errorf("restored titles = %+v (%q), want every source kept, the person's shown", gb.Titles, gb.Title)
			}
			if a.Display() != b.Display() {
				t.Errorf("display after Restore = %s, want %s", b.Display(), a.Display())
			}

			at := t0.Add(restart + sec)
			ra, rb := a.Apply(tt.after, at), b.Apply(tt.after, at)
			if ra.Late != rb.Late || ra.Ignored != rb.Ignored || ra.Session.State != rb.Session.State || rb.Session.State != tt.want {
				t.Errorf("Apply(%s) after Restore = %s (late %v, ignored %v), in the original %s (late %v, ignored %v); want %s",
					desc(tt.after), rb.Session.State, rb.Late, rb.Ignored, ra.Session.State, ra.Late, ra.Ignored, tt.want)
			}
			if !reflect.DeepEqual(ra.Session, rb.Session) {
				t.Errorf("after Apply(%s): restored %+v,\noriginal %+v", desc(tt.after), rb.Session, ra.Session)
			}
		})
	}
}

// TestRestoreChecks: a record is checked as an event would be; what is
// wrong in it is made safe or refused, never taken as it is.
func TestRestoreChecks(t *testing.T) {
	now := t0.Add(time.Hour)
	ok := func(mod func(*Saved)) Saved {
		sv := Saved{Session: Session{Agent: "claude", ID: sid, BaseState: Thinking, Cwd: "/home/u/shop",
			StartedAt: t0, UpdatedAt: t0.Add(time.Minute)}}
		if mod != nil {
			mod(&sv)
		}
		return sv
	}
	tests := []struct {
		name    string
		saved   []Saved
		invalid int
		check   func(Session) string // "" when right
	}{
		{"a whole record", []Saved{ok(nil)}, 0, func(s Session) string {
			if s.State != Thinking || s.Cwd != "/home/u/shop" || !s.StartedAt.Equal(t0) || !s.UpdatedAt.Equal(t0.Add(time.Minute)) {
				return "fields not kept"
			}
			return ""
		}},
		{"no id", []Saved{ok(func(s *Saved) { s.Session.ID = "" })}, 1, nil},
		{"no agent", []Saved{ok(func(s *Saved) { s.Session.Agent = "" })}, 1, nil},
		{"an id longer than events carry", []Saved{ok(func(s *Saved) { s.Session.ID = strings.Repeat("x", agents.MaxIDLen+1) })}, 1, nil},
		{"a folder longer than events carry", []Saved{ok(func(s *Saved) { s.Session.Cwd = "/" + strings.Repeat("x", agents.MaxPathLen) })}, 1, nil},
		{"an empty request key", []Saved{ok(func(s *Saved) { s.Pending = []string{""} })}, 1, nil},
		{"a one-shot is no base state", []Saved{ok(func(s *Saved) { s.Session.BaseState = Attention })}, 0, func(s Session) string {
			if s.State != Idle {
				return "state " + string(s.State)
			}
			return ""
		}},
		{"an unknown state", []Saved{ok(func(s *Saved) { s.Session.BaseState = "dancing" })}, 0, func(s Session) string {
			if s.State != Idle {
				return "state " + string(s.State)
			}
			return ""
		}},
		{"juggling without subagents", []Saved{ok(func(s *Saved) { s.Session.BaseState = Juggling })}, 0, func(s Session) string {
			if s.State != Working {
				return "state " + string(s.State)
			}
			return ""
		}},
		{"times after now are now", []Saved{ok(func(s *Saved) {
			s.Session.StartedAt, s.Session.UpdatedAt = now.Add(time.Hour), now.Add(2*time.Hour)
		})}, 0, func(s Session) string {
			if !s.UpdatedAt.Equal(now) || !s.StartedAt.Equal(now) {
				return "times " + s.StartedAt.String() + " " + s.UpdatedAt.String()
			}
			return ""
		}},
		{"titles and the reason are safe lines again", []Saved{ok(func(s *Saved) {
			s.Session.Titles = agents.Titles{Agent: "evil\x1b[2Jtitle", Prompt: strings.Repeat("long ", 40)}
			s.Session.Outcome, s.Session.FailReason = OutcomeFailed, "bad\nnews\x1b]0;x\x07"
		})}, 0, func(s Session) string {
			if s.Title != "evil[2Jtitle" || s.TitleSource != agents.TitleFromAgent || len([]rune(s.Titles.Prompt)) > agents.MaxTitleLen ||
				strings.ContainsAny(s.FailReason, "\x1b\n\x07") {
				return "titles " + s.Title + " / " + s.Titles.Prompt + " / " + s.FailReason
			}
			return ""
		}},
		{"an unknown outcome goes", []Saved{ok(func(s *Saved) { s.Session.Outcome, s.Session.FailReason = "maybe", "x" })}, 0, func(s Session) string {
			if s.Outcome != "" || s.FailReason != "" {
				return "outcome " + string(s.Outcome)
			}
			return ""
		}},
		{"questions only among the requests", []Saved{ok(func(s *Saved) { s.Pending, s.Asks = []string{"tu1"}, []string{"tu1", "tu2"} })}, 0, func(s Session) string {
			if s.Pending != 1 || s.Questions != 1 || s.State != Waiting {
				return "pending/questions/state " + string(s.State)
			}
			return ""
		}},
		{"keys past the cap", []Saved{ok(func(s *Saved) {
			for i := range 3 * MaxSavedKeys {
				s.Pending = append(s.Pending, "tu"+strings.Repeat("x", i+1))
			}
		})}, 0, func(s Session) string {
			if s.Pending != MaxSavedKeys {
				return "pending " + string(rune('0'+s.Pending))
			}
			return ""
		}},
		{"the same session twice: the newer wins", []Saved{
			ok(func(s *Saved) { s.Session.Cwd = "/new"; s.Session.UpdatedAt = t0.Add(2 * time.Minute) }),
			ok(func(s *Saved) { s.Session.Cwd = "/old" }),
		}, 1, func(s Session) string {
			if s.Cwd != "/new" {
				return "cwd " + s.Cwd
			}
			return ""
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := New(Options{})
			res := m.Restore(tt.saved, now)
			if res.Invalid != tt.invalid {
				t.Errorf("Restore(%s).Invalid = %d, want %d", tt.name, res.Invalid, tt.invalid)
			}
			got, found := m.Session(Key{"claude", sid})
			switch {
			case tt.check == nil && found:
				t.Errorf("Restore(%s) tracks %+v, want it refused", tt.name, got)
			case tt.check != nil && !found:
				t.Errorf("Restore(%s) tracks nothing, want the session", tt.name)
			case tt.check != nil:
				if why := tt.check(got); why != "" {
					t.Errorf("Restore(%s) = %+v: %s", tt.name, got, why)
				}
			}
		})
	}
}

// TestRestoreKeepsLive: a session the machine already tracks is the live
// one; a saved copy of it is refused.
func TestRestoreKeepsLive(t *testing.T) {
	m := New(Options{})
	m.Apply(ev(agents.KindPromptSubmit, title("live", agents.TitleFromPrompt)), t0)
	res := m.Restore([]Saved{{Session: Session{Agent: "claude", ID: sid, BaseState: Idle, Titles: agents.Titles{Prompt: "saved"}}}}, t0.Add(sec))
	if res.Invalid != 1 || len(res.Sessions) != 0 {
		t.Errorf("Restore over a live session = %+v, want it refused", res)
	}
	if s, _ := m.Session(Key{"claude", sid}); s.Title != "live" || s.State != Thinking {
		t.Errorf("the live session after Restore = %+v, want it untouched", s)
	}
}

// TestRestoreRoom: past MaxSessions the most recently active are restored
// and the rest handed back, headless ones first to go.
func TestRestoreRoom(t *testing.T) {
	m := New(Options{MaxSessions: 2})
	sv := func(id string, ago time.Duration, headless bool) Saved {
		return Saved{Session: Session{Agent: "claude", ID: id, BaseState: Idle, Headless: headless, UpdatedAt: t0.Add(-ago)}}
	}
	res := m.Restore([]Saved{sv("old", time.Hour, false), sv("new", time.Minute, false), sv("mid", 10*time.Minute, false),
		sv("headless-newest", 0, true)}, t0)
	var restored, dropped []string
	for _, s := range res.Sessions {
		restored = append(restored, s.ID)
	}
	for _, s := range res.Dropped {
		dropped = append(dropped, s.ID)
	}
	if strings.Join(restored, ",") != "new,mid" || strings.Join(dropped, ",") != "old,headless-newest" || m.Len() != 2 {
		t.Errorf("Restore with room for 2 restored %v and dropped %v, want [new mid] and [old headless-newest]", restored, dropped)
	}
}

// TestRestoreDisplay: what the restored sessions do is what the display
// shows at once.
func TestRestoreDisplay(t *testing.T) {
	m := New(Options{})
	before := m.Changes()
	m.Restore([]Saved{{Session: Session{Agent: "claude", ID: sid, BaseState: Working}, Pending: []string{"tu1"}}}, t0)
	if m.Display() != Waiting {
		t.Errorf("Display() after restoring a waiting session = %s, want waiting", m.Display())
	}
	if m.Changes() == before {
		t.Errorf("Changes() did not move with a restored session")
	}
}

// TestChanges: Changes moves with every change to what Save returns, and
// not with what changes nothing.
func TestChanges(t *testing.T) {
	m := New(Options{})
	k := Key{"claude", sid}
	steps := []struct {
		name  string
		do    func()
		moves bool
	}{
		{"an event", func() { m.Apply(ev(agents.KindPromptSubmit, turn("p1")), t0) }, true},
		{"an end of a session nobody tracks", func() { m.Apply(ev(agents.KindSessionEnd, inSession("nobody")), t0) }, false},
		{"a title not shown", func() {
			m.Retitle(k, "person's", agents.TitleFromPerson)
			m.Retitle(k, "agent's", agents.TitleFromAgent)
		}, true},
		{"the same title again", func() { m.Retitle(k, "agent's", agents.TitleFromAgent) }, false},
		{"a request", func() { m.Apply(ev(agents.KindPermissionRequest, turn("p1"), tool("Bash", "tu1", "")), t0) }, true},
		{"its answer in clawd", func() { m.Resolve(k, "tu1", t0) }, true},
		{"a tick that changes nothing", func() { m.Tick(t0.Add(sec), nil) }, false},
		{"a tick that ends the working", func() { m.Tick(t0.Add(6*time.Minute), nil) }, true},
	}
	for _, st := range steps {
		before := m.Changes()
		st.do()
		if moved := m.Changes() != before; moved != st.moves {
			t.Errorf("%s: Changes moved = %v, want %v", st.name, moved, st.moves)
		}
	}
}
