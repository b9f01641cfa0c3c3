package notify

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/clawdhq/clawd/internal/config"
	"github.com/clawdhq/clawd/internal/i18n"
)

// noon is the fake clock's start: 12:00 local to the test, away from any
// quiet hours the tests set.
var noon = time.Date(2026, 3, 14, 12, 0, 0, 0, time.UTC)

func occ(kind Kind, session string) Occurrence {
	return Occurrence{Kind: kind, Agent: "claude", AgentName: "Claude Code", SessionID: session, Title: "fix the tests"}
}

// step is one call on a Policy at noon+at. do is "observe", "activity"
// or "due"; want lists the notes as "<session key> <kind> <what>", what
// being popup, sound or popup+sound.
type step struct {
	at   time.Duration
	do   string
	o    Occurrence
	gate Gate
	want []string
}

func observe(at time.Duration, o Occurrence, want ...string) step {
	return step{at: at, do: "observe", o: o, want: want}
}

func due(at time.Duration, want ...string) step { return step{at: at, do: "due", want: want} }

func activity(at time.Duration, session string) step {
	return step{at: at, do: "activity", o: occ("", session)}
}

// gated returns s with the gate g.
func gated(g Gate, s step) step {
	s.gate = g
	return s
}

func describe(notes []Note) []string {
	var out []string
	for _, n := range notes {
		var what []string
		if n.Popup {
			what = append(what, "popup")
		}
		if n.Sound {
			what = append(what, "sound")
		}
		out = append(out, fmt.Sprintf("%s %s %s", n.SessionKey, n.Kind, strings.Join(what, "+")))
	}
	return out
}

func TestPolicy(t *testing.T) {
	def := config.DefaultNotifications()
	with := func(change func(c *config.Notifications)) config.Notifications {
		c := config.DefaultNotifications()
		change(&c)
		return c
	}
	dnd := Gate{DND: true}
	const s, m, h = time.Second, time.Minute, time.Hour
	tests := []struct {
		name  string
		cfg   config.Notifications
		start time.Time // noon when zero
		steps []step
	}{
		{"each kind notifies once", def, time.Time{}, []step{
			observe(0, occ(Permission, "a"), "claude/a permission popup+sound"),
			observe(0, occ(Question, "b"), "claude/b question popup+sound"),
			observe(0, occ(Failure, "c"), "claude/c error popup+sound"),
			observe(0, occ(Done, "d")),
			due(3*s, "claude/d done popup+sound"),
			due(10 * s),
		}},
		{"unknown kind notifies nothing", def, time.Time{}, []step{
			observe(0, occ("compacted", "a")),
		}},
		{"popup cooldown per session and kind", def, time.Time{}, []step{
			observe(0, occ(Permission, "a"), "claude/a permission popup+sound"),
			observe(10*s, occ(Permission, "a")),
			observe(10*s, occ(Permission, "b"), "claude/b permission popup+sound"),
			observe(10*s, occ(Question, "a"), "claude/a question popup+sound"),
			observe(59*s, occ(Permission, "a"), "claude/a permission sound"),
			observe(60*s, occ(Permission, "a"), "claude/a permission popup"),
			observe(61*s, occ(Permission, "a")),
		}},
		{"same session id, other agent", def, time.Time{}, []step{
			observe(0, occ(Permission, "a"), "claude/a permission popup+sound"),
			observe(time.Second, Occurrence{Kind: Permission, Agent: "codex", SessionID: "a"}, "codex/a permission popup+sound"),
		}},
		{"a suppressed event does not restart the cooldown", def, time.Time{}, []step{
			observe(0, occ(Failure, "a"), "claude/a error popup+sound"),
			observe(50*s, occ(Failure, "a"), "claude/a error sound"),
			observe(60*s, occ(Failure, "a"), "claude/a error popup"),
		}},
		{"sound cooldown longer than the popup's", with(func(c *config.Notifications) { c.Cooldown, c.SoundCooldown = 10*s, 5*m }), time.Time{}, []step{
			observe(0, occ(Question, "a"), "claude/a question popup+sound"),
			observe(10*s, occ(Question, "a"), "claude/a question popup"),
			observe(5*m, occ(Question, "a"), "claude/a question popup+sound"),
		}},
		{"zero cooldowns: every event", with(func(c *config.Notifications) { c.Cooldown, c.SoundCooldown = 0, 0 }), time.Time{}, []step{
			observe(0, occ(Question, "a"), "claude/a question popup+sound"),
			observe(0, occ(Question, "a"), "claude/a question popup+sound"),
		}},
		{"headless and subagents are silent", def, time.Time{}, []step{
			observe(0, Occurrence{Kind: Permission, Agent: "claude", SessionID: "a", Headless: true}),
			observe(0, Occurrence{Kind: Failure, Agent: "claude", SessionID: "a", Subagent: true}),
			observe(0, Occurrence{Kind: Done, Agent: "claude", SessionID: "a", Headless: true}),
			due(time.Hour),
			// And they start no cooldown.
			observe(time.Hour, occ(Permission, "a"), "claude/a permission popup+sound"),
		}},
		{"a subagent's event keeps the held Done", def, time.Time{}, []step{
			observe(0, occ(Done, "a")),
			observe(time.Second, Occurrence{Kind: Failure, Agent: "claude", SessionID: "a", Subagent: true}),
			due(3*s, "claude/a done popup+sound"),
		}},
		{"DND suppresses and starts no cooldown", def, time.Time{}, []step{
			gated(dnd, observe(0, occ(Permission, "a"))),
			observe(s, occ(Permission, "a"), "claude/a permission popup+sound"),
		}},
		{"paused until an instant", def, time.Time{}, []step{
			gated(Gate{PausedUntil: noon.Add(h)}, observe(0, occ(Question, "a"))),
			gated(Gate{PausedUntil: noon.Add(h)}, observe(59*m, occ(Question, "a"))),
			gated(Gate{PausedUntil: noon.Add(h)}, observe(h, occ(Question, "a"), "claude/a question popup+sound")),
		}},
		{"a Done held during DND is dropped", def, time.Time{}, []step{
			observe(0, occ(Done, "a")),
			gated(dnd, due(3*s)),
			due(4 * s),
		}},
		{"DND seen by Due drops the Dones not yet due too", def, time.Time{}, []step{
			observe(0, occ(Done, "a")),
			observe(2*s, occ(Done, "b")),
			gated(dnd, due(3*s)),
			due(5 * s),
		}},
		{"DND seen by Observe drops every held Done", def, time.Time{}, []step{
			observe(0, occ(Done, "a")),
			gated(dnd, observe(s, occ(Permission, "b"))),
			due(3 * s),
		}},
		{"a Done observed in DND is not held", def, time.Time{}, []step{
			gated(dnd, observe(0, occ(Done, "a"))),
			due(3 * s),
		}},
		{"a Done observed while paused is not held", def, time.Time{}, []step{
			gated(Gate{PausedUntil: noon.Add(2 * s)}, observe(0, occ(Done, "a"))),
			due(3 * s),
		}},
		{"quiet hours", with(func(c *config.Notifications) { c.QuietHours = config.QuietHours{Start: 13 * 60, End: 14 * 60} }), time.Time{}, []step{
			observe(59*m, occ(Permission, "a"), "claude/a permission popup+sound"),
			observe(h, occ(Permission, "b")),
			observe(h+59*m, occ(Question, "b")),
			observe(2*h, occ(Question, "b"), "claude/b question popup+sound"),
		}},
		{"quiet hours across midnight", with(func(c *config.Notifications) { c.QuietHours = config.QuietHours{Start: 22 * 60, End: 7 * 60} }),
			time.Date(2026, 3, 14, 21, 59, 0, 0, time.FixedZone("CET", 3600)), []step{
				observe(0, occ(Permission, "a"), "claude/a permission popup+sound"),
				observe(m, occ(Permission, "b")),
				observe(2*h+m, occ(Permission, "c")),
				observe(9*h, occ(Permission, "d")),
				observe(9*h+m, occ(Permission, "e"), "claude/e permission popup+sound"),
			}},
		{"a Done falling due in quiet hours is dropped", with(func(c *config.Notifications) { c.QuietHours = config.QuietHours{Start: 22 * 60, End: 7 * 60} }),
			time.Date(2026, 3, 14, 21, 59, 58, 0, time.FixedZone("CET", 3600)), []step{
				observe(0, occ(Done, "a")),
				due(3 * s),
			}},
		{"per-kind switch", with(func(c *config.Notifications) { c.Question, c.Done = false, false }), time.Time{}, []step{
			observe(0, occ(Question, "a")),
			observe(0, occ(Done, "a")),
			due(time.Hour),
			observe(time.Hour, occ(Permission, "a"), "claude/a permission popup+sound"),
		}},
		{"error switch", with(func(c *config.Notifications) { c.Error = false }), time.Time{}, []step{
			observe(0, occ(Failure, "a")),
			observe(0, occ(Permission, "a"), "claude/a permission popup+sound"),
		}},
		{"popups off: sound only", with(func(c *config.Notifications) { c.Enabled = false }), time.Time{}, []step{
			observe(0, occ(Permission, "a"), "claude/a permission sound"),
			observe(0, occ(Done, "b")),
			due(3*s, "claude/b done sound"),
		}},
		{"sound off: popups only", with(func(c *config.Notifications) { c.Sound = false }), time.Time{}, []step{
			observe(0, occ(Permission, "a"), "claude/a permission popup"),
		}},
		{"popups and sound off: nothing, nothing held", with(func(c *config.Notifications) { c.Enabled, c.Sound = false, false }), time.Time{}, []step{
			observe(0, occ(Permission, "a")),
			observe(0, occ(Done, "a")),
			due(h),
		}},
		{"Done waits for its grace", def, time.Time{}, []step{
			observe(0, occ(Done, "a")),
			due(2*s + 999*time.Millisecond),
			due(3*s, "claude/a done popup+sound"),
			due(4 * s),
		}},
		{"activity cancels a held Done", def, time.Time{}, []step{
			observe(0, occ(Done, "a")),
			observe(0, occ(Done, "b")),
			activity(2*s, "a"),
			due(3*s, "claude/b done popup+sound"),
		}},
		{"activity after the grace is too late", def, time.Time{}, []step{
			observe(0, occ(Done, "a")),
			due(3*s, "claude/a done popup+sound"),
			activity(4*s, "a"),
			observe(5*s, occ(Question, "a"), "claude/a question popup+sound"),
		}},
		{"another kind in the session drops its held Done", def, time.Time{}, []step{
			observe(0, occ(Done, "a")),
			observe(s, occ(Failure, "a"), "claude/a error popup+sound"),
			due(4 * s),
		}},
		{"a second Done restarts the grace", def, time.Time{}, []step{
			observe(0, occ(Done, "a")),
			observe(2*s, occ(Done, "a")),
			due(3 * s),
			due(5*s, "claude/a done popup+sound"),
		}},
		{"Dones due together come in due order", def, time.Time{}, []step{
			observe(s, occ(Done, "a")),
			observe(0, occ(Done, "b")),
			observe(s, occ(Done, "c")),
			due(10*s, "claude/b done popup+sound", "claude/a done popup+sound", "claude/c done popup+sound"),
		}},
		{"the Done popup cooldown", def, time.Time{}, []step{
			observe(0, occ(Done, "a")),
			due(3*s, "claude/a done popup+sound"),
			observe(10*s, occ(Done, "a")),
			due(13 * s),
			observe(40*s, occ(Done, "a")),
			due(43*s, "claude/a done sound"),
		}},
		{"zero grace: Done at once", with(func(c *config.Notifications) { c.DoneGrace = 0 }), time.Time{}, []step{
			observe(0, occ(Done, "a"), "claude/a done popup+sound"),
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := tt.start
			if start.IsZero() {
				start = noon
			}
			p := NewPolicy(tt.cfg, i18n.Printer{})
			for i, st := range tt.steps {
				now := start.Add(st.at)
				var got []Note
				switch st.do {
				case "observe":
					got = p.Observe(st.o, st.gate, now)
				case "due":
					got = p.Due(st.gate, now)
				case "activity":
					p.Activity(st.o.Agent, st.o.SessionID, now)
				}
				if d := describe(got); !reflect.DeepEqual(d, st.want) {
					t.Errorf("step %d: %s(%+v, %+v, +%v) = %q, want %q", i, st.do, st.o, st.gate, st.at, d, st.want)
				}
			}
		})
	}
}

func TestPolicyNoteText(t *testing.T) {
	p := NewPolicy(config.DefaultNotifications(), i18n.Printer{})
	o := Occurrence{Kind: Permission, Agent: "claude", AgentName: "Claude Code", SessionID: "s1",
		Cwd: "/home/ann/src/clawd", Detail: "Bash: npm test"}
	got := p.Observe(o, Gate{}, noon)
	want := []Note{{Kind: Permission, Summary: "Claude Code needs you", Body: "clawd — Bash: npm test",
		Popup: true, Sound: true, SessionKey: "claude/s1"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Observe(%+v) = %+v, want %+v", o, got, want)
	}
}

func TestPolicyNextWake(t *testing.T) {
	p := NewPolicy(config.DefaultNotifications(), i18n.Printer{})
	check := func(step string, want time.Time) {
		t.Helper()
		if got := p.NextWake(); !got.Equal(want) {
			t.Errorf("after %s: NextWake() = %v, want %v", step, got, want)
		}
	}
	check("nothing", time.Time{})
	p.Observe(occ(Permission, "a"), Gate{}, noon)
	check("a permission", time.Time{})
	p.Observe(occ(Done, "a"), Gate{}, noon)
	p.Observe(occ(Done, "b"), Gate{}, noon.Add(time.Second))
	check("two Dones", noon.Add(3*time.Second))
	p.Due(Gate{}, noon.Add(3*time.Second))
	check("the first is due", noon.Add(4*time.Second))
	p.Activity("claude", "b", noon.Add(3500*time.Millisecond))
	check("activity in the second", time.Time{})
}

func TestPolicyMemoryBound(t *testing.T) {
	cfg := config.DefaultNotifications()
	p := NewPolicy(cfg, i18n.Printer{})
	const n = 3000
	var now time.Time
	for i := range n {
		now = noon.Add(time.Duration(i) * time.Millisecond)
		o := occ(Permission, fmt.Sprint("s", i))
		if got := p.Observe(o, Gate{}, now); len(got) != 1 {
			t.Fatalf("Observe(session %d) = %v, want one note", i, got)
		}
		p.Observe(occ(Done, fmt.Sprint("s", i)), Gate{}, now)
	}
	if len(p.popups) > maxEntries || len(p.sounds) > maxEntries || len(p.held) > maxHeld {
		t.Errorf("after %d sessions: %d popup, %d sound cooldowns, %d held, want at most %d, %d, %d",
			n, len(p.popups), len(p.sounds), len(p.held), maxEntries, maxEntries, maxHeld)
	}
	// The newest session's cooldown and Done survived the trimming.
	last := occ(Permission, fmt.Sprint("s", n-1))
	if got := p.Observe(last, Gate{}, now); got != nil {
		t.Errorf("Observe(newest session again) = %v, want nil: its cooldown was forgotten", got)
	}
	if got := p.NextWake(); got.IsZero() {
		t.Errorf("NextWake() = zero, want the newest held Dones")
	}
	// Once the cooldowns have passed, nothing is remembered.
	later := now.Add(cfg.Cooldown + cfg.SoundCooldown)
	p.Due(Gate{DND: true}, later) // drops the held Dones
	p.Activity("claude", "other", later)
	if len(p.popups)+len(p.sounds)+len(p.held) != 0 {
		t.Errorf("after the cooldowns: %d popup, %d sound cooldowns, %d held, want none", len(p.popups), len(p.sounds), len(p.held))
	}
}

func TestText(t *testing.T) {
	long := strings.Repeat("word ", 100)
	tests := []struct {
		o             Occurrence
		summary, body string
	}{
		{Occurrence{Kind: Done, AgentName: "Claude Code", Title: "Fix login", Cwd: "/src/app"}, "Claude Code finished", "Fix login"},
		{Occurrence{Kind: Failure, AgentName: "Claude Code", Cwd: "/src/app/", Detail: "rate_limit"}, "Claude Code failed", "app — rate_limit"},
		{Occurrence{Kind: Question, Agent: "codex", Cwd: `C:\Users\ann\proj`, Detail: "Which branch?"}, "codex has a question", "proj — Which branch?"},
		{Occurrence{Kind: Permission, Detail: "Bash: npm test"}, "An agent needs you", "Bash: npm test"},
		{Occurrence{Kind: Permission, AgentName: "Claude\nCode", Title: "two\nlines\tand  spaces", Detail: " x \r\n y "}, "Claude Code needs you", "two lines and spaces — x y"},
		{Occurrence{Kind: Done, AgentName: "Claude Code", Cwd: "/"}, "Claude Code finished", "/"},
		// Nothing in a payload reorders or hides the popup's text.
		{Occurrence{Kind: Permission, AgentName: "Claude\u202eCode", Title: "\u202eevil\u200b.exe\u2066", Detail: "Bash\x1b[2J: rm"},
			"ClaudeCode needs you", "evil.exe — Bash[2J: rm"},
		{Occurrence{Kind: Done, AgentName: "Claude Code", Cwd: "/tmp/\u2067dir\u2069"}, "Claude Code finished", "dir"},
		{Occurrence{Kind: Done, AgentName: "Claude Code"}, "Claude Code finished", ""},
		{Occurrence{Kind: Permission, AgentName: "Claude Code", Title: long, Detail: "Bash: ls"},
			"Claude Code needs you", strings.TrimSpace(long[:79]) + "… — Bash: ls"},
	}
	for _, tt := range tests {
		if got := summary(i18n.Printer{}, tt.o); got != tt.summary {
			t.Errorf("summary(%+v) = %q, want %q", tt.o, got, tt.summary)
		}
		if got := body(tt.o); got != tt.body {
			t.Errorf("body(%+v) = %q, want %q", tt.o, got, tt.body)
		}
	}
}

func TestBodyLength(t *testing.T) {
	for _, o := range []Occurrence{
		{Title: strings.Repeat("é", 500), Detail: strings.Repeat("ü", 500)},
		{Cwd: "/" + strings.Repeat("x", 500), Detail: strings.Repeat("y ", 500)},
		{Detail: strings.Repeat("z", 500)},
		{Title: strings.Repeat("t", 500)},
	} {
		b := body(o)
		if n := len([]rune(b)); n > maxBody || n < maxPlace {
			t.Errorf("body(%.20q...) has %d characters, want %d to %d", o.Title+o.Cwd+o.Detail, n, maxPlace, maxBody)
		}
		if !strings.Contains(b, "…") {
			t.Errorf("body(%.20q...) = %q, want the cut marked with …", o.Title+o.Cwd+o.Detail, b)
		}
	}
}
