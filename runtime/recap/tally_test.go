package recap

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/statemachine"
)

// plainHash stands in for the HMAC: readable in failure messages.
func plainHash(kind, value string) string { return kind + ":" + value }

// clock drives a tally and a state machine together, the way the runtime
// does: every event applied, then Tick at the wakes due.
type clock struct {
	t   *testing.T
	now time.Time
	m   *statemachine.Machine
	y   *Tally
}

func newClock(t *testing.T, loc *time.Location, start string) *clock {
	return &clock{t: t, now: inZone(t, loc)(start), m: statemachine.New(statemachine.Options{}), y: NewTally(loc, plainHash)}
}

// at moves the clock to d after its current time, ticking on the way.
func (c *clock) after(d time.Duration) {
	end := c.now.Add(d)
	for {
		w := c.m.NextWake()
		if w.IsZero() || w.After(end) {
			break
		}
		c.now = maxT(w, c.now)
		for _, r := range c.m.Tick(c.now, nil) {
			if r.Session.ID != "" {
				c.y.Session(r.Session, r.Removed, c.now)
			}
		}
	}
	c.now = end
}

func maxT(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func (c *clock) apply(e agents.Event) {
	if e.Agent == "" {
		e.Agent = "claude"
	}
	if e.SessionID == "" {
		e.SessionID = "s1"
	}
	if e.Cwd == "" {
		e.Cwd = "/home/u/shop"
	}
	res := c.m.Apply(e, c.now)
	c.y.Apply(&e, res.Session, res.Removed, c.now)
}

// dump prints a batch in a stable order.
func dump(b Batch) string {
	var lines []string
	for sc, c := range b.Rows {
		tools := ""
		keys := make([]string, 0, len(c.Tools))
		for k := range c.Tools {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			tools += fmt.Sprintf(" %s=%d", k, c.Tools[k])
		}
		lines = append(lines, fmt.Sprintf("%s %s %s: turns=%d tools=%d perms=%d questions=%d failed=%d busy=%v waiting=%v%s",
			sc.Day, sc.Agent, sc.Folder, c.Turns, c.ToolCalls, c.Permissions, c.Questions, c.FailedTurns, c.Busy, c.Waiting, tools))
	}
	for _, s := range b.Sessions {
		lines = append(lines, fmt.Sprintf("%s %s %s: saw %s", s.Day, s.Agent, s.Folder, s.Session))
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}

func checkBatch(t *testing.T, name string, got Batch, want string) {
	t.Helper()
	if g := dump(got); g != strings.TrimSpace(want) {
		t.Errorf("%s:\n%s\nwant\n%s", name, g, strings.TrimSpace(want))
	}
}

// TestTallyMidnight: a turn that runs across midnight counts its busy time
// on both days, its turn on the day it started, and the session as seen on
// both; a Take in the middle of it counts up to then and carries on.
func TestTallyMidnight(t *testing.T) {
	c := newClock(t, zone(t, "Europe/Berlin"), "2026-06-01 23:50")
	c.apply(agents.Event{Kind: agents.KindSessionStart})
	c.apply(agents.Event{Kind: agents.KindPromptSubmit})
	c.after(2 * time.Minute)
	c.apply(agents.Event{Kind: agents.KindToolStart, ToolName: "Bash", ToolUseID: "t1"})
	c.after(4 * time.Minute) // 23:56
	checkBatch(t, "taken at 23:56", c.y.Take(c.now), `
2026-06-01 claude folder:/home/u/shop: saw session:claude`+"\x00"+`s1
2026-06-01 claude folder:/home/u/shop: turns=1 tools=1 perms=0 questions=0 failed=0 busy=6m0s waiting=0s Bash=1`)
	c.apply(agents.Event{Kind: agents.KindPermissionRequest, ToolName: "Bash"})
	c.after(10 * time.Minute) // 00:06: waited 10 minutes, 4 of them on the 1st
	c.apply(agents.Event{Kind: agents.KindToolEnd, ToolName: "Bash", ToolUseID: "t1"})
	c.after(4 * time.Minute)
	c.apply(agents.Event{Kind: agents.KindTurnEnd})
	c.after(time.Hour)
	checkBatch(t, "taken at 01:10", c.y.Take(c.now), `
2026-06-01 claude folder:/home/u/shop: saw session:claude`+"\x00"+`s1
2026-06-01 claude folder:/home/u/shop: turns=0 tools=0 perms=1 questions=0 failed=0 busy=0s waiting=4m0s
2026-06-02 claude folder:/home/u/shop: saw session:claude`+"\x00"+`s1
2026-06-02 claude folder:/home/u/shop: turns=0 tools=0 perms=0 questions=0 failed=0 busy=4m0s waiting=6m0s`)
}

// TestTallyDST: a session busy through the night daylight saving time
// starts is busy 23 hours that day, not 24; through the night it ends, 25.
func TestTallyDST(t *testing.T) {
	for _, tt := range []struct {
		start string
		day   Day
		busy  time.Duration
	}{
		{"2026-03-28 23:00", "2026-03-29", 23 * time.Hour},
		{"2026-10-24 23:00", "2026-10-25", 25 * time.Hour},
	} {
		c := newClock(t, zone(t, "Europe/Berlin"), tt.start)
		c.y = NewTally(zone(t, "Europe/Berlin"), plainHash)
		c.apply(agents.Event{Kind: agents.KindPromptSubmit, AgentPID: 7})
		// A long turn: an event every minute keeps it from going stale.
		end := tt.day.Next().Start(zone(t, "Europe/Berlin")).Add(time.Hour)
		for c.now.Before(end) {
			c.after(time.Minute)
			c.apply(agents.Event{Kind: agents.KindToolStart, ToolName: "Read", AgentPID: 7})
		}
		b := c.y.Take(c.now)
		got := b.Rows[Scope{Day: tt.day, Agent: "claude", Folder: "folder:/home/u/shop"}]
		if got == nil || got.Busy != tt.busy {
			t.Errorf("busy on %s = %v, want %v\n%s", tt.day, got, tt.busy, dump(b))
		}
	}
}

// TestTallyCounts: what each kind of event counts, subagents' prompts
// and unknown tool names included, and the cap on tool names per row.
func TestTallyCounts(t *testing.T) {
	c := newClock(t, time.UTC, "2026-06-01 10:00")
	for _, e := range []agents.Event{
		{Kind: agents.KindSessionStart},
		{Kind: agents.KindPromptSubmit},
		{Kind: agents.KindPromptSubmit, SubagentID: "a1"},
		{Kind: agents.KindToolStart},
		{Kind: agents.KindQuestion, ToolName: "AskUserQuestion"},
		{Kind: agents.KindQuestionAnswered},
		{Kind: agents.KindTurnFailure},
		{Kind: agents.KindPromptSubmit, SessionID: "s2", Agent: "codex", Cwd: "/srv/api"},
		{Kind: agents.KindSessionEnd, SessionID: "s2", Agent: "codex", Cwd: "/srv/api"},
	} {
		c.apply(e)
	}
	for i := range maxTools + 2 {
		c.apply(agents.Event{Kind: agents.KindToolStart, ToolName: fmt.Sprintf("mcp__t%02d", i)})
	}
	b := c.y.Take(c.now)
	row := b.Rows[Scope{Day: "2026-06-01", Agent: "claude", Folder: "folder:/home/u/shop"}]
	if row == nil || row.Turns != 1 || row.Questions != 1 || row.FailedTurns != 1 || row.ToolCalls != maxTools+3 {
		t.Fatalf("claude row = %+v, want 1 turn, 1 question, 1 failed turn, %d tool calls", row, maxTools+3)
	}
	// The unnamed call went under (other), which leaves room for 63 of
	// the 66 names; the other 3 join it.
	if len(row.Tools) != maxTools || row.Tools[OtherTools] != 4 {
		t.Errorf("tools = %d names, %d under %q; want %d names, 4 under it",
			len(row.Tools), row.Tools[OtherTools], OtherTools, maxTools)
	}
	if r := b.Rows[Scope{Day: "2026-06-01", Agent: "codex", Folder: "folder:/srv/api"}]; r == nil || r.Turns != 1 {
		t.Errorf("codex row = %+v, want 1 turn", r)
	}
	if len(c.y.live) != 1 {
		t.Errorf("the tally follows %d sessions, want 1: the ended one is dropped", len(c.y.live))
	}
}

// TestTallyRemoteFolder: a remote machine's session counts for its folder
// there, apart from this machine's folder of the same path.
func TestTallyRemoteFolder(t *testing.T) {
	c := newClock(t, time.UTC, "2026-06-01 10:00")
	c.apply(agents.Event{Kind: agents.KindPromptSubmit})
	c.apply(agents.Event{Kind: agents.KindPromptSubmit, SessionID: "box:s1", Host: "box"})
	c.apply(agents.Event{Kind: agents.KindPromptSubmit, SessionID: "box:s1", Host: "box"})
	b := c.y.Take(c.now)
	here := b.Rows[Scope{Day: "2026-06-01", Agent: "claude", Folder: "folder:/home/u/shop"}]
	there := b.Rows[Scope{Day: "2026-06-01", Agent: "claude", Folder: "folder:box:/home/u/shop"}]
	if here == nil || here.Turns != 1 || there == nil || there.Turns != 2 {
		t.Errorf("rows here %+v, on box %+v; want 1 turn here, 2 on box\n%s", here, there, dump(b))
	}
}
