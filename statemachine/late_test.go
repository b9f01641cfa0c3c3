package statemachine

import (
	"testing"
	"time"

	"github.com/clawdhq/clawd/agents"
)

func turn(id string) func(*agents.Event) { return func(e *agents.Event) { e.TurnID = id } }

// TestLateEvents checks the rules for the hooks of a turn that already
// ended (seed 000 §1.2): they may name the session, never change its
// phase, liveness or pending requests; an unseen turn id while a turn is
// open turns off the batch's inference, not the turn.
func TestLateEvents(t *testing.T) {
	const t1, t2, t3 = "p1", "p2", "p3"
	tests := []struct {
		name  string
		steps []step
	}{
		{"a retired turn's batch does not reopen thinking", []step{
			at(0, ev(agents.KindPromptSubmit, turn(t1)), Thinking),
			at(1*sec, ev(agents.KindToolStart, turn(t1), tool("Bash", "c1", "h1")), Working),
			at(2*sec, ev(agents.KindToolEnd, turn(t1), tool("Bash", "c1", "h1")), Working),
			at(3*sec, ev(agents.KindToolBatch, turn(t1), batch("c1")), Thinking),
			at(4*sec, ev(agents.KindTurnEnd, turn(t1)), Attention).baseIs(Idle),
			at(20*sec, ev(agents.KindToolEnd, turn(t1), tool("Bash", "c1", "h1")), Idle).baseIs(Idle).ignoredStep(),
			at(21*sec, ev(agents.KindToolBatch, turn(t1), batch("c1")), Idle).baseIs(Idle).disp(Idle).ignoredStep(),
		}},
		{"a retired turn's dialog adds no request", []step{
			at(0, ev(agents.KindPromptSubmit, turn(t1)), Thinking),
			at(1*sec, ev(agents.KindTurnEnd, turn(t1)), Attention),
			at(20*sec, ev(agents.KindNotification, turn(t1), notif(agents.NoticeDialog)), Idle).pend(0).ignoredStep(),
			at(21*sec, ev(agents.KindTurnFailure, turn(t1)), Idle).ignoredStep(),
			at(22*sec, ev(agents.KindNotification, turn(t1), notif(agents.NoticeOther)), Idle).ignoredStep(),
		}},
		{"a retired turn's idle notice leaves the next turn's request", []step{
			at(0, ev(agents.KindPromptSubmit, turn(t1)), Thinking),
			at(1*sec, ev(agents.KindTurnEnd, turn(t1)), Attention),
			at(2*sec, ev(agents.KindPromptSubmit, turn(t2)), Thinking),
			at(3*sec, ev(agents.KindToolStart, turn(t2), tool("Bash", "c2", "h1")), Working),
			at(4*sec, ev(agents.KindPermissionRequest, turn(t2), tool("Bash", "", "h1")), Waiting).pend(1),
			at(5*sec, ev(agents.KindToolEnd, turn(t1), tool("Bash", "c1", "h1")), Waiting).pend(1).baseIs(Working).ignoredStep(),
			at(6*sec, ev(agents.KindToolBatch, turn(t1), batch("c1")), Waiting).pend(1).baseIs(Working).ignoredStep(),
			at(7*sec, ev(agents.KindNotification, turn(t1), notif(agents.NoticeIdle)), Waiting).pend(1).baseIs(Working).ignoredStep(),
			at(8*sec, ev(agents.KindToolEnd, turn(t2), tool("Bash", "c2", "h1")), Working).pend(0),
		}},
		{"a new prompt retires the open one", []step{
			at(0, ev(agents.KindPromptSubmit, turn(t1)), Thinking),
			// Esc while the model thinks: no hook at all.
			at(1*sec, ev(agents.KindPromptSubmit, turn(t2)), Thinking),
			at(2*sec, ev(agents.KindTurnEnd, turn(t2)), Attention),
			at(20*sec, ev(agents.KindToolStart, turn(t1), tool("Bash", "c1", "h1")), Idle).ignoredStep(),
		}},
		{"an unseen id while a turn is open turns off the batch's inference", []step{
			at(0, ev(agents.KindPromptSubmit, turn(t1)), Thinking),
			at(1*sec, ev(agents.KindToolStart, turn(t1), tool("Bash", "c1", "h1")), Working),
			at(2*sec, ev(agents.KindToolEnd, turn(t1), tool("Bash", "c1", "h1")), Working),
			at(3*sec, ev(agents.KindToolBatch, turn(t2), batch("c1")), Working).baseIs(Working),
			// The open turn goes on, and so do its own batches' other
			// effects: the calls they close are closed.
			at(4*sec, ev(agents.KindToolStart, turn(t1), tool("Bash", "c3", "h3")), Working),
			at(5*sec, ev(agents.KindPermissionRequest, turn(t1), tool("Bash", "c3", "h3")), Waiting).pend(1),
			at(6*sec, ev(agents.KindToolBatch, turn(t1), batch("c3")), Working).pend(0).baseIs(Working),
			// The unseen id's own Stop ends the turn, and retires both.
			at(7*sec, ev(agents.KindTurnEnd, turn(t2)), Attention).baseIs(Idle),
			at(20*sec, ev(agents.KindToolBatch, turn(t1), batch("c1")), Idle).ignoredStep(),
			at(21*sec, ev(agents.KindToolBatch, turn(t2), batch("c1")), Idle).ignoredStep(),
		}},
		{"the inference comes back with the next prompt", []step{
			at(0, ev(agents.KindPromptSubmit, turn(t1)), Thinking),
			at(1*sec, ev(agents.KindToolStart, turn(t2), tool("Bash", "c1", "h1")), Working),
			at(2*sec, ev(agents.KindTurnEnd, turn(t1)), Attention),
			at(3*sec, ev(agents.KindPromptSubmit, turn(t3)), Thinking),
			at(4*sec, ev(agents.KindToolStart, turn(t3), tool("Bash", "c2", "h2")), Working),
			at(5*sec, ev(agents.KindToolBatch, turn(t3), batch("c2")), Thinking),
		}},
		{"a tool hook of an unseen id opens a queued turn, a batch does not", []step{
			at(0, ev(agents.KindPromptSubmit, turn(t1)), Thinking),
			at(1*sec, ev(agents.KindTurnEnd, turn(t1)), Attention),
			at(20*sec, ev(agents.KindToolBatch, turn(t2), batch("c9")), Idle).baseIs(Idle),
			at(21*sec, ev(agents.KindToolStart, turn(t3), tool("Bash", "c3", "h3")), Working),
			at(22*sec, ev(agents.KindToolBatch, turn(t3), batch("c3")), Thinking),
			at(23*sec, ev(agents.KindTurnEnd, turn(t3)), Attention),
		}},
		{"a retired turn's request still waits: the agent blocks on it", []step{
			at(0, ev(agents.KindPromptSubmit, turn(t1)), Thinking),
			at(1*sec, ev(agents.KindTurnEnd, turn(t1)), Attention),
			at(20*sec, ev(agents.KindPermissionRequest, turn(t1), tool("Bash", "c1", "h1")), Waiting).pend(1),
		}},
		{"a live subagent's hooks count after its turn's Stop", []step{
			at(0, ev(agents.KindPromptSubmit, turn(t1)), Thinking),
			at(1*sec, ev(agents.KindSubagentStart, turn(t1), subagent("a1", "Explore")), Juggling),
			at(2*sec, ev(agents.KindTurnEnd, turn(t1), background(1)), Juggling),
			at(3*sec, ev(agents.KindToolStart, turn(t1), subagent("a1", ""), tool("Bash", "c1", "h1")), Juggling),
			at(4*sec, ev(agents.KindToolBatch, turn(t1)), Juggling).ignoredStep(),
			at(5*sec, ev(agents.KindSubagentStop, turn(t1), subagent("a1", "Explore")), Working),
		}},
		{"the hooks of a subagent that is gone are late", []step{
			at(0, ev(agents.KindPromptSubmit, turn(t1)), Thinking),
			at(1*sec, ev(agents.KindSubagentStart, turn(t1), subagent("a1", "Explore")), Juggling),
			at(2*sec, ev(agents.KindTurnEnd, turn(t1)), Attention),
			at(20*sec, ev(agents.KindToolStart, turn(t1), subagent("a1", ""), tool("Bash", "c1", "h1")), Idle).ignoredStep(),
		}},
		{"events without a turn id work as before", []step{
			at(0, ev(agents.KindPromptSubmit), Thinking),
			at(1*sec, ev(agents.KindTurnEnd), Attention),
			at(20*sec, ev(agents.KindToolBatch), Thinking),
		}},
		{"a prompt reopens its id: agents that keep one id", []step{
			at(0, ev(agents.KindPromptSubmit, turn(t1)), Thinking),
			at(1*sec, ev(agents.KindTurnEnd, turn(t1)), Attention),
			at(20*sec, ev(agents.KindPromptSubmit, turn(t1)), Thinking),
			at(21*sec, ev(agents.KindToolStart, turn(t1), tool("Bash", "c1", "h1")), Working),
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			runSteps(t, New(Options{}), tt.steps)
		})
	}
}

// TestLateEventsAnnotate: a retired turn's hook may still name the
// session, and is no activity of it: its age and staleness stay.
func TestLateEventsAnnotate(t *testing.T) {
	m := New(Options{})
	m.Apply(ev(agents.KindPromptSubmit, turn("p1")), t0)
	m.Apply(ev(agents.KindTurnEnd, turn("p1")), t0.Add(sec))
	r := m.Apply(ev(agents.KindToolEnd, turn("p1"), title("Parser rewrite", agents.TitleFromAgent),
		func(e *agents.Event) { e.Cwd = "/p/sub" }), t0.Add(30*sec))
	if r.Ignored || !r.Late {
		t.Errorf("Apply(late titled tool.end) ignored %v late %v, want late, not ignored (it named the session)", r.Ignored, r.Late)
	}
	s := r.Session
	if s.Title != "Parser rewrite" || s.Cwd != "/p/sub" {
		t.Errorf("late event: title %q cwd %q, want the late event's", s.Title, s.Cwd)
	}
	if !s.UpdatedAt.Equal(t0.Add(sec)) || s.LastKind != agents.KindTurnEnd || s.BaseState != Idle {
		t.Errorf("late event: updated %v last %v base %v, want +1s turn.end idle (no activity)",
			s.UpdatedAt.Sub(t0), s.LastKind, s.BaseState)
	}
}

// TestLateEventsDoNotRevive: once a session ended, its retired turns'
// hooks do not bring it back; a hook of a new turn, or one without a
// turn id, does (a resumed session).
func TestLateEventsDoNotRevive(t *testing.T) {
	m := New(Options{})
	m.Apply(ev(agents.KindPromptSubmit, turn("p1")), t0)
	m.Apply(ev(agents.KindTurnEnd, turn("p1")), t0.Add(sec))
	// The end's own id (Claude's /exit is a prompt of its own) stays
	// unretired: Qwen Code starts the next session with it.
	if r := m.Apply(ev(agents.KindSessionEnd, turn("p2")), t0.Add(2*sec)); !r.Removed {
		t.Fatalf("Apply(session.end) removed = false")
	}
	for _, e := range []agents.Event{
		ev(agents.KindToolEnd, turn("p1"), tool("Bash", "c1", "h1")),
		ev(agents.KindToolBatch, turn("p1"), batch("c1")),
		ev(agents.KindNotification, turn("p1"), notif(agents.NoticeDialog)),
	} {
		if r := m.Apply(e, t0.Add(3*sec)); !r.Ignored || m.Len() != 0 {
			t.Errorf("Apply(%s turn %s) after the end: ignored %v, %d sessions; want ignored, none", desc(e), e.TurnID, r.Ignored, m.Len())
		}
	}
	// A title the agent finished naming the session with as it exited.
	if r := m.Apply(ev(agents.KindSessionUpdate), t0.Add(3*sec)); !r.Ignored || m.Len() != 0 {
		t.Errorf("Apply(session.update) after the end: ignored %v, %d sessions; want ignored, none", r.Ignored, m.Len())
	}
	r := m.Apply(ev(agents.KindSessionStart, source("resume")), t0.Add(4*sec))
	if r.Ignored || m.Len() != 1 || r.Session.State != Idle {
		t.Fatalf("Apply(session.start resume) = %v ignored %v, want the session back, idle", r.Session.State, r.Ignored)
	}
	// The revived session still knows the old turns for late.
	if r := m.Apply(ev(agents.KindToolBatch, turn("p1")), t0.Add(5*sec)); !r.Ignored || r.Session.State != Idle {
		t.Errorf("Apply(tool.batch of p1) after resume = %v ignored %v, want idle, ignored", r.Session.State, r.Ignored)
	}
}

// TestLateTitleDoesNotRevive: a session that ended, with or without the
// agent's turn ids, does not come back for a title the agent gives it
// afterwards (Kilo Code names a session as it exits).
func TestLateTitleDoesNotRevive(t *testing.T) {
	m := New(Options{})
	m.Apply(ev(agents.KindSessionStart), t0)
	m.Apply(ev(agents.KindPromptSubmit), t0.Add(sec))
	m.Apply(ev(agents.KindTurnEnd), t0.Add(2*sec))
	if r := m.Apply(ev(agents.KindSessionEnd), t0.Add(3*sec)); !r.Removed {
		t.Fatalf("Apply(session.end) removed = false")
	}
	if r := m.Apply(ev(agents.KindSessionUpdate), t0.Add(4*sec)); !r.Ignored || m.Len() != 0 {
		t.Errorf("Apply(session.update) after the end: ignored %v, %d sessions; want ignored, none", r.Ignored, m.Len())
	}
	if r := m.Apply(ev(agents.KindPromptSubmit), t0.Add(5*sec)); r.Ignored || m.Len() != 1 {
		t.Errorf("Apply(prompt.submit) after the end: ignored %v, %d sessions; want the session back", r.Ignored, m.Len())
	}
}

// TestTurnLedgerBounded: the ledger keeps the last turns only.
func TestTurnLedgerBounded(t *testing.T) {
	m := New(Options{})
	at := t0
	for i := range 17 {
		id := string(rune('a'+i%26)) + string(rune('a'+i/26))
		m.Apply(ev(agents.KindPromptSubmit, turn(id)), at)
		at = at.Add(time.Second)
		m.Apply(ev(agents.KindTurnEnd, turn(id)), at)
		at = at.Add(time.Second)
	}
	// The first turn fell out of the ledger: its hook is unknown, with
	// no turn open, so a tool hook opens a turn.
	if r := m.Apply(ev(agents.KindToolStart, turn("aa"), tool("Bash", "c1", "h1")), at.Add(10*sec)); r.Session.State != Working {
		t.Errorf("Apply(tool.start of the first turn) = %v, want working (forgotten)", r.Session.State)
	}
	// It took the place of the second; the third is still known.
	m.Apply(ev(agents.KindTurnEnd, turn("aa")), at.Add(11*sec))
	if r := m.Apply(ev(agents.KindToolStart, turn("ca"), tool("Bash", "c2", "h2")), at.Add(20*sec)); !r.Ignored {
		t.Errorf("Apply(tool.start of the third turn) ignored = %v, want ignored (still known)", r.Ignored)
	}
}
