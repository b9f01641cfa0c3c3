package statemachine

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/clawdhq/clawd/agents"
)

func errText(s string) func(*agents.Event) { return func(e *agents.Event) { e.ErrorText = s } }
func errKind(s string) func(*agents.Event) { return func(e *agents.Event) { e.ErrorKind = s } }

// TestOutcome: a session keeps how its last turn ended past the one-shot
// that showed it, until its next prompt.
func TestOutcome(t *testing.T) {
	type want struct {
		state   State
		outcome Outcome
		at      time.Duration // OutcomeAt, from t0; checked when outcome is set
		reason  string
	}
	type step struct {
		at   time.Duration
		e    *agents.Event // nil: a Tick
		want want
	}
	e := func(k agents.Kind, opts ...func(*agents.Event)) *agents.Event {
		x := ev(k, opts...)
		return &x
	}
	const apiError = "API Error: 429 rate limit"
	tests := []struct {
		name  string
		steps []step
	}{
		{"done outlasts its one-shot, the next prompt clears it", []step{
			{0, e(agents.KindPromptSubmit), want{Thinking, "", 0, ""}},
			{2 * sec, e(agents.KindTurnEnd), want{Attention, OutcomeDone, 2 * sec, ""}},
			{6 * sec, nil, want{Idle, OutcomeDone, 2 * sec, ""}},
			{3 * time.Minute, nil, want{Idle, OutcomeDone, 2 * sec, ""}},
			{4 * time.Minute, e(agents.KindPromptSubmit), want{Thinking, "", 0, ""}},
		}},
		{"failed keeps its reason past its one-shot", []step{
			{0, e(agents.KindPromptSubmit), want{Thinking, "", 0, ""}},
			{1 * sec, e(agents.KindTurnFailure, errKind("rate_limit"), errText(apiError)), want{Error, OutcomeFailed, sec, apiError}},
			{6 * sec, nil, want{Idle, OutcomeFailed, sec, apiError}},
			{10 * time.Minute, e(agents.KindNotification, notif(agents.NoticeIdle)), want{Idle, OutcomeFailed, sec, apiError}},
			{11 * time.Minute, e(agents.KindPromptSubmit), want{Thinking, "", 0, ""}},
		}},
		{"the error kind stands in for a missing text, unless it says nothing", []step{
			{0, e(agents.KindTurnFailure, errKind("rate_limit")), want{Error, OutcomeFailed, 0, "rate_limit"}},
			{1 * sec, e(agents.KindTurnFailure, errKind("unknown")), want{Error, OutcomeFailed, sec, ""}},
			{2 * sec, e(agents.KindTurnFailure, errKind("error")), want{Error, OutcomeFailed, 2 * sec, ""}},
		}},
		{"a turn that fails after one that succeeded", []step{
			{0, e(agents.KindTurnEnd), want{Attention, OutcomeDone, 0, ""}},
			{1 * sec, e(agents.KindPromptSubmit), want{Thinking, "", 0, ""}},
			{2 * sec, e(agents.KindTurnFailure, errText(apiError)), want{Error, OutcomeFailed, 2 * sec, apiError}},
		}},
		{"work without a prompt clears it", []step{
			{0, e(agents.KindTurnFailure, errText(apiError)), want{Error, OutcomeFailed, 0, apiError}},
			{10 * sec, e(agents.KindToolStart, tool("Bash", "c1", "h1")), want{Working, "", 0, ""}},
		}},
		{"a tool failure is no outcome: the turn goes on", []step{
			{0, e(agents.KindPromptSubmit), want{Thinking, "", 0, ""}},
			{1 * sec, e(agents.KindToolFailure, tool("Bash", "c1", "h1")), want{Error, "", 0, ""}},
		}},
		{"an interrupted turn and background work are no outcome", []step{
			{0, e(agents.KindPromptSubmit), want{Thinking, "", 0, ""}},
			{1 * sec, e(agents.KindTurnEnd, reason(agents.ReasonInterrupt)), want{Idle, "", 0, ""}},
			{2 * sec, e(agents.KindPromptSubmit), want{Thinking, "", 0, ""}},
			{3 * sec, e(agents.KindTurnEnd, background(1)), want{Juggling, "", 0, ""}},
		}},
		{"a new start clears it, a compaction's does not", []step{
			{0, e(agents.KindTurnEnd), want{Attention, OutcomeDone, 0, ""}},
			{1 * sec, e(agents.KindSessionStart, source("compact")), want{Attention, OutcomeDone, 0, ""}},
			{2 * sec, e(agents.KindSessionStart, source("clear")), want{Attention, "", 0, ""}},
		}},
		{"a subagent's prompt leaves the parent's", []step{
			{0, e(agents.KindTurnEnd), want{Attention, OutcomeDone, 0, ""}},
			{1 * sec, e(agents.KindSubagentStart, subagent("a1", "Explore")), want{Juggling, "", 0, ""}},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := New(Options{})
			for i, st := range tt.steps {
				now := t0.Add(st.at)
				var s Session
				if st.e == nil {
					m.Tick(now, nil)
					s, _ = m.Session(Key{"claude", sid})
				} else {
					s = m.Apply(*st.e, now).Session
				}
				w := st.want
				if s.State != w.state || s.Outcome != w.outcome || s.FailReason != w.reason {
					t.Errorf("step %d (+%v): state %v outcome %q reason %q, want %v %q %q",
						i, st.at, s.State, s.Outcome, s.FailReason, w.state, w.outcome, w.reason)
				}
				wantAt := time.Time{}
				if w.outcome != "" {
					wantAt = t0.Add(w.at)
				}
				if !s.OutcomeAt.Equal(wantAt) {
					t.Errorf("step %d (+%v): OutcomeAt = %v, want %v", i, st.at, s.OutcomeAt, wantAt)
				}
			}
		})
	}
}

// TestFailReasonSafe: the reason is one line that cannot repaint a
// terminal or read backwards, and bounded.
func TestFailReasonSafe(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"  API Error: 500\n\tserver  error \x1b[2J\x1b[31m", "API Error: 500 server error [2J[31m"},
		{"API \u202eError\u202c: 429", "API Error: 429"},
		{"\xff\xfeoverloaded", "overloaded"},
	} {
		e := ev(agents.KindTurnFailure, errText(tt.in))
		if got := FailReason(&e); got != tt.want {
			t.Errorf("FailReason(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	long := ev(agents.KindTurnFailure, errText("API Error: "+strings.Repeat("é", 3*MaxFailReason)))
	got := FailReason(&long)
	if n := utf8.RuneCountInString(got); n != MaxFailReason || !strings.HasSuffix(got, "…") {
		t.Errorf("FailReason(long) = %d runes ending %q, want %d ending …", n, got[len(got)-4:], MaxFailReason)
	}
}

// TestWaitingOutranksFailure: while requests wait, a failure, here or in
// another session, never takes the display.
func TestWaitingOutranksFailure(t *testing.T) {
	m := New(Options{})
	check := func(what string, r Result) {
		t.Helper()
		if r.Display != Waiting || m.Display() != Waiting {
			t.Errorf("%s: display %v, want waiting", what, r.Display)
		}
	}
	m.Apply(ev(agents.KindPromptSubmit, inSession("b")), t0)
	// A failure shows first; the requests that follow do not wait for
	// its minimum display time.
	m.Apply(ev(agents.KindTurnFailure, inSession("b"), errText("API Error: 529 overloaded")), t0.Add(sec))
	for i, id := range []string{"c1", "c2", "c3"} {
		at := t0.Add(time.Duration(1500+100*i) * time.Millisecond)
		m.Apply(ev(agents.KindToolStart, tool("Bash", id, "h"+id)), at)
		check("request "+id, m.Apply(ev(agents.KindPermissionRequest, tool("Bash", id, "h"+id)), at))
	}
	// A tool beside them fails; another session's turn fails.
	r := m.Apply(ev(agents.KindToolFailure, tool("Read", "c4", "h4")), t0.Add(2*sec))
	if r.Session.State != Waiting {
		t.Errorf("the waiting session after a tool failure = %v, want waiting", r.Session.State)
	}
	check("tool failure", r)
	check("another failure", m.Apply(ev(agents.KindTurnFailure, inSession("b"), errText("API Error: 500")), t0.Add(3*sec)))
	for at := 3 * sec; at <= 12*sec; at += 500 * time.Millisecond {
		m.Tick(t0.Add(at), nil)
		if m.Display() != Waiting {
			t.Fatalf("Tick(+%v) display %v, want waiting", at, m.Display())
		}
	}
	s, _ := m.Session(Key{"claude", "b"})
	if s.Outcome != OutcomeFailed || s.FailReason != "API Error: 500" || s.State != Idle {
		t.Errorf("the failed session = %v %q %q, want idle, failed, its reason", s.State, s.Outcome, s.FailReason)
	}
}

// TestQuestions counts the pending entries that are questions.
func TestQuestions(t *testing.T) {
	m := New(Options{})
	m.Apply(ev(agents.KindToolStart, tool("AskUserQuestion", "q1", "hq")), t0)
	r := m.Apply(ev(agents.KindQuestion, tool("AskUserQuestion", "", "hq")), t0)
	if r.Session.Pending != 1 || r.Session.Questions != 1 {
		t.Errorf("after a question: pending %d questions %d, want 1 1", r.Session.Pending, r.Session.Questions)
	}
	m.Apply(ev(agents.KindToolStart, tool("Bash", "c1", "h1")), t0)
	r = m.Apply(ev(agents.KindPermissionRequest, tool("Bash", "", "h1")), t0)
	if r.Session.Pending != 2 || r.Session.Questions != 1 {
		t.Errorf("and a request: pending %d questions %d, want 2 1", r.Session.Pending, r.Session.Questions)
	}
	r = m.Apply(ev(agents.KindNotification, notif(agents.NoticeQuestion)), t0)
	if r.Session.Questions != 2 {
		t.Errorf("and an elicitation dialog: questions %d, want 2", r.Session.Questions)
	}
	r = m.Apply(ev(agents.KindToolEnd, tool("AskUserQuestion", "q1", "hq")), t0)
	if r.Session.Pending != 2 || r.Session.Questions != 1 {
		t.Errorf("the question answered: pending %d questions %d, want 2 1", r.Session.Pending, r.Session.Questions)
	}
	r = m.Apply(ev(agents.KindTurnEnd), t0)
	if r.Session.Pending != 0 || r.Session.Questions != 0 {
		t.Errorf("the turn over: pending %d questions %d, want 0 0", r.Session.Pending, r.Session.Questions)
	}
}
