package statemachine

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/clawdhq/clawd/agents"
)

// t0 is the fake clock's origin; steps give offsets from it.
var t0 = time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)

const sid = "s1"

// ev builds an event of session s1 of Claude; opts set the rest.
func ev(kind agents.Kind, opts ...func(*agents.Event)) agents.Event {
	e := agents.Event{Agent: "claude", SessionID: sid, Kind: kind}
	for _, o := range opts {
		o(&e)
	}
	return e
}

func inSession(id string) func(*agents.Event) { return func(e *agents.Event) { e.SessionID = id } }
func tool(name, id, hash string) func(*agents.Event) {
	return func(e *agents.Event) { e.ToolName, e.ToolUseID, e.InputHash = name, id, hash }
}
func subagent(id, typ string) func(*agents.Event) {
	return func(e *agents.Event) { e.SubagentID, e.SubagentType = id, typ }
}
func source(s string) func(*agents.Event)       { return func(e *agents.Event) { e.Source = s } }
func reason(s string) func(*agents.Event)       { return func(e *agents.Event) { e.Reason = s } }
func notif(n agents.Notice) func(*agents.Event) { return func(e *agents.Event) { e.Notice = n } }
func state(s string) func(*agents.Event)        { return func(e *agents.Event) { e.State = s } }
func batch(ids ...string) func(*agents.Event)   { return func(e *agents.Event) { e.ToolUseIDs = ids } }
func background(n int) func(*agents.Event)      { return func(e *agents.Event) { e.BackgroundTasks = n } }
func pid(n int) func(*agents.Event)             { return func(e *agents.Event) { e.AgentPID = n } }
func interrupt(e *agents.Event)                 { e.Interrupt = true }
func headless(e *agents.Event)                  { e.Headless = true }
func title(t string, src agents.TitleSource) func(*agents.Event) {
	return func(e *agents.Event) { e.Title, e.TitleSource = t, src }
}

// desc names an event in failure messages.
func desc(e agents.Event) string {
	var b strings.Builder
	b.WriteString(string(e.Kind))
	for _, f := range []struct{ k, v string }{
		{"session", e.SessionID}, {"tool", e.ToolName}, {"id", e.ToolUseID}, {"hash", e.InputHash},
		{"subagent", e.SubagentID}, {"source", e.Source}, {"reason", e.Reason},
		{"notice", string(e.Notice)}, {"state", e.State},
	} {
		if f.v != "" && (f.k != "session" || f.v != sid) {
			fmt.Fprintf(&b, " %s=%s", f.k, f.v)
		}
	}
	if len(e.ToolUseIDs) > 0 {
		fmt.Fprintf(&b, " ids=%v", e.ToolUseIDs)
	}
	if e.BackgroundTasks > 0 {
		fmt.Fprintf(&b, " background=%d", e.BackgroundTasks)
	}
	if e.Interrupt {
		b.WriteString(" interrupt")
	}
	return b.String()
}

// step is one event (or, with tick set, one Tick) at t0+at, followed by
// checks of the session the event named (s1 for a tick). Empty wants are
// not checked; pending is checked when it is not -1.
type step struct {
	at      time.Duration
	e       agents.Event
	tick    bool
	state   State
	base    State
	pending int
	display State
	removed bool
	ignored bool
}

// at builds a step; by default nothing but what the fields say is checked.
func at(d time.Duration, e agents.Event, want State) step {
	return step{at: d, e: e, state: want, pending: -1}
}

func tickAt(d time.Duration, want State) step {
	return step{at: d, tick: true, state: want, pending: -1}
}

func (s step) pend(n int) step     { s.pending = n; return s }
func (s step) disp(d State) step   { s.display = d; return s }
func (s step) baseIs(b State) step { s.base = b; return s }
func (s step) gone() step          { s.removed = true; return s }
func (s step) ignoredStep() step   { s.ignored = true; return s }

const sec = time.Second

func runSteps(t *testing.T, m *Machine, steps []step) {
	t.Helper()
	for i, st := range steps {
		now := t0.Add(st.at)
		name := desc(st.e)
		var got Session
		var removed, ignored bool
		var display State
		if st.tick {
			name = fmt.Sprintf("Tick(+%v)", st.at)
			m.Tick(now, nil)
			s, ok := m.Session(Key{"claude", sid})
			got, removed, display = s, !ok, m.Display()
		} else {
			name = fmt.Sprintf("Apply(%s) at +%v", name, st.at)
			r := m.Apply(st.e, now)
			got, removed, ignored, display = r.Session, r.Removed, r.Ignored, r.Display
			if r.Display != m.Display() {
				t.Fatalf("step %d: %s: Result.Display = %v, Display() = %v", i, name, r.Display, m.Display())
			}
		}
		if st.state != "" && got.State != st.state {
			t.Errorf("step %d: %s state = %v, want %v", i, name, got.State, st.state)
		}
		if st.base != "" && got.BaseState != st.base {
			t.Errorf("step %d: %s base = %v, want %v", i, name, got.BaseState, st.base)
		}
		if st.pending >= 0 && got.Pending != st.pending {
			t.Errorf("step %d: %s pending = %d, want %d", i, name, got.Pending, st.pending)
		}
		if st.display != "" && display != st.display {
			t.Errorf("step %d: %s display = %v, want %v", i, name, display, st.display)
		}
		if removed != st.removed {
			t.Errorf("step %d: %s removed = %v, want %v", i, name, removed, st.removed)
		}
		if ignored != st.ignored {
			t.Errorf("step %d: %s ignored = %v, want %v", i, name, ignored, st.ignored)
		}
	}
}

func TestApply(t *testing.T) {
	tests := []struct {
		name  string
		steps []step
	}{
		{"session start is idle", []step{
			at(0, ev(agents.KindSessionStart, source("startup")), Idle).pend(0).disp(Idle),
		}},
		{"session start from compaction keeps the state", []step{
			at(0, ev(agents.KindPromptSubmit), Thinking),
			at(1*sec, ev(agents.KindToolStart, tool("Bash", "t1", "h1")), Working),
			at(2*sec, ev(agents.KindSessionStart, source("compact")), Working).baseIs(Working),
		}},
		{"session start resets a revived session", []step{
			at(0, ev(agents.KindPermissionRequest, tool("Bash", "", "h1")), Waiting).pend(1),
			at(1*sec, ev(agents.KindSessionStart, source("resume")), Idle).pend(0),
		}},
		{"session end removes", []step{
			at(0, ev(agents.KindSessionStart), Idle),
			at(1*sec, ev(agents.KindSessionEnd, reason("prompt_input_exit")), Idle).gone().disp(Sleeping),
		}},
		{"session end of an unknown session is ignored", []step{
			at(0, ev(agents.KindSessionEnd, reason("other")), "").ignoredStep().disp(Sleeping),
		}},
		{"clear flashes sweeping, then the new session is idle", []step{
			at(0, ev(agents.KindSessionStart), Idle).disp(Idle),
			at(1*sec, ev(agents.KindSessionEnd, reason("clear")), Idle).gone().disp(Sweeping),
			at(1*sec+100*time.Millisecond, ev(agents.KindSessionStart, inSession("s2"), source("clear")), Idle).disp(Sweeping),
			tickAt(6*sec, "").gone().disp(Sweeping),
			tickAt(6*sec+500*time.Millisecond, "").gone().disp(Idle),
		}},
		{"clear of a headless session does not flash", []step{
			at(0, ev(agents.KindSessionStart, headless), Idle).disp(Sleeping),
			at(1*sec, ev(agents.KindSessionEnd, reason("clear"), headless), Idle).gone().disp(Sleeping),
		}},
		{"prompt thinks and clears pending", []step{
			at(0, ev(agents.KindPermissionRequest, tool("Bash", "t1", "")), Waiting).pend(1),
			at(1*sec, ev(agents.KindPromptSubmit), Thinking).pend(0),
		}},
		{"prompt expansion thinks", []step{
			at(0, ev(agents.KindPromptExpansion), Thinking),
		}},
		{"prompt while subagents run juggles", []step{
			at(0, ev(agents.KindSubagentStart, subagent("a1", "general-purpose")), Juggling),
			at(1*sec, ev(agents.KindTurnEnd, background(1)), Juggling),
			at(2*sec, ev(agents.KindPromptSubmit), Juggling),
		}},
		{"a new prompt ends the done flash", []step{
			at(0, ev(agents.KindTurnEnd), Attention).disp(Attention),
			at(1*sec, ev(agents.KindPromptSubmit), Thinking).disp(Attention),
			tickAt(4*sec, Thinking).disp(Thinking),
		}},
		{"tool start works and records the tool", []step{
			at(0, ev(agents.KindToolStart, tool("Read", "t1", "h1")), Working).baseIs(Working),
		}},
		{"tool start from a subagent juggles", []step{
			at(0, ev(agents.KindToolStart, tool("Bash", "t1", "h1"), subagent("a1", "general-purpose")), Juggling),
			at(1*sec, ev(agents.KindToolEnd, tool("Bash", "t1", "h1"), subagent("a1", "general-purpose")), Juggling),
		}},
		{"permission request keyed by its tool_use_id", []step{
			at(0, ev(agents.KindPermissionRequest, tool("Bash", "t1", "h1")), Waiting).pend(1),
			at(1*sec, ev(agents.KindToolEnd, tool("Bash", "t1", "h1")), Working).pend(0),
		}},
		{"permission request tied to its PreToolUse by input hash", []step{
			at(0, ev(agents.KindToolStart, tool("Bash", "t1", "h1")), Working),
			at(1*sec, ev(agents.KindPermissionRequest, tool("Bash", "", "h1")), Waiting).pend(1),
			// A denied call has no PostToolUse: the batch closes it by id.
			at(2*sec, ev(agents.KindToolBatch, batch("t1")), Thinking).pend(0),
		}},
		{"permission request without a PreToolUse keyed by hash", []step{
			at(0, ev(agents.KindPermissionRequest, tool("Bash", "", "h1")), Waiting).pend(1),
			at(1*sec, ev(agents.KindToolEnd, tool("Bash", "t9", "h2")), Waiting).pend(1),
			at(2*sec, ev(agents.KindToolEnd, tool("Bash", "t1", "h1")), Working).pend(0),
		}},
		{"a call started after its request settles it", []step{
			// An agent that asks before it announces the call (Qwen Code's
			// PreToolUse fires once the call was allowed).
			at(0, ev(agents.KindPermissionRequest, tool("run_shell_command", "", "h1")), Waiting).pend(1),
			at(0, ev(agents.KindPermissionRequest, tool("run_shell_command", "", "h2")), Waiting).pend(2),
			at(1*sec, ev(agents.KindToolStart, tool("run_shell_command", "t1", "h1")), Waiting).pend(1),
			at(2*sec, ev(agents.KindToolStart, tool("run_shell_command", "t2", "h2")), Working).pend(0),
		}},
		{"a call started leaves a request keyed by its own id", []step{
			at(0, ev(agents.KindPermissionRequest, tool("Bash", "t1", "h1")), Waiting).pend(1),
			at(1*sec, ev(agents.KindToolStart, tool("Bash", "t2", "h1")), Waiting).pend(1),
		}},
		{"prompt continue thinks and closes what waited", []step{
			at(0, ev(agents.KindPromptSubmit, title("Fix the tests", agents.TitleFromPrompt)), Thinking),
			at(1*sec, ev(agents.KindPermissionRequest, tool("run_shell_command", "", "h1")), Waiting).pend(1),
			at(2*sec, ev(agents.KindToolBatch), Waiting).pend(1),
			at(3*sec, ev(agents.KindPromptContinue), Thinking).pend(0).baseIs(Thinking),
		}},
		{"prompt continue of a subagent juggles and keeps requests", []step{
			at(0, ev(agents.KindPermissionRequest, tool("run_shell_command", "", "h1")), Waiting).pend(1),
			at(1*sec, ev(agents.KindPromptContinue, subagent("a1", "")), Waiting).pend(1).baseIs(Juggling),
		}},
		{"parallel permission requests are separate", []step{
			at(0, ev(agents.KindToolStart, tool("Bash", "t1", "h1")), Working),
			at(0, ev(agents.KindToolStart, tool("Bash", "t2", "h2")), Working),
			at(1*sec, ev(agents.KindPermissionRequest, tool("Bash", "", "h1")), Waiting).pend(1),
			at(1*sec, ev(agents.KindPermissionRequest, tool("Bash", "", "h2")), Waiting).pend(2),
			at(2*sec, ev(agents.KindToolEnd, tool("Bash", "t2", "h2")), Waiting).pend(1),
			at(3*sec, ev(agents.KindToolEnd, tool("Bash", "t1", "h1")), Working).pend(0),
		}},
		{"parallel identical calls each get their own request", []step{
			at(0, ev(agents.KindToolStart, tool("Bash", "t1", "h1")), Working),
			at(0, ev(agents.KindToolStart, tool("Bash", "t2", "h1")), Working),
			at(1*sec, ev(agents.KindPermissionRequest, tool("Bash", "", "h1")), Waiting).pend(1),
			at(1*sec, ev(agents.KindPermissionRequest, tool("Bash", "", "h1")), Waiting).pend(2),
			at(2*sec, ev(agents.KindToolEnd, tool("Bash", "t1", "h1")), Waiting).pend(1),
			at(3*sec, ev(agents.KindToolEnd, tool("Bash", "t2", "h1")), Working).pend(0),
		}},
		{"a finished call is not matched again", []step{
			at(0, ev(agents.KindToolStart, tool("Bash", "t1", "h1")), Working),
			at(1*sec, ev(agents.KindToolEnd, tool("Bash", "t1", "h1")), Working),
			at(2*sec, ev(agents.KindPermissionRequest, tool("Bash", "", "h1")), Waiting).pend(1),
			at(3*sec, ev(agents.KindToolBatch, batch("t1")), Waiting).pend(1),
		}},
		{"question from an MCP server", []step{
			at(0, ev(agents.KindQuestion, tool("mini", "", "")), Waiting).pend(1),
			at(1*sec, ev(agents.KindQuestionAnswered, tool("mini", "", "")), Working).pend(0),
		}},
		{"an MCP tool call that ends closes its server's question", []step{
			at(0, ev(agents.KindToolStart, tool("mcp__mini__ask", "t1", "h1")), Working),
			at(1*sec, ev(agents.KindQuestion, tool("mini", "", "")), Waiting).pend(1),
			at(1*sec, ev(agents.KindQuestion, tool("other", "", "")), Waiting).pend(2),
			at(2*sec, ev(agents.KindToolEnd, tool("mcp__mini__ask", "t1", "h1")), Waiting).pend(1),
		}},
		{"AskUserQuestion is tied to its call", []step{
			at(0, ev(agents.KindToolStart, tool("AskUserQuestion", "t1", "h1")), Working),
			at(1*sec, ev(agents.KindQuestion, tool("AskUserQuestion", "", "h1")), Waiting).pend(1),
			at(2*sec, ev(agents.KindToolEnd, tool("AskUserQuestion", "t1", "h1")), Working).pend(0),
		}},
		{"permission denied closes its request", []step{
			at(0, ev(agents.KindToolStart, tool("Bash", "t1", "h1")), Working),
			at(0, ev(agents.KindToolStart, tool("Bash", "t2", "h2")), Working),
			at(1*sec, ev(agents.KindPermissionRequest, tool("Bash", "", "h1")), Waiting),
			at(1*sec, ev(agents.KindPermissionRequest, tool("Bash", "", "h2")), Waiting).pend(2),
			at(2*sec, ev(agents.KindPermissionDenied, tool("Bash", "t1", "h1")), Waiting).pend(1).baseIs(Working),
		}},
		{"permission granted in the agent's dialog closes its request", []step{
			at(0, ev(agents.KindToolStart, tool("bash", "t1", "")), Working),
			at(1*sec, ev(agents.KindPermissionRequest, tool("bash", "t1", "")), Waiting).pend(1),
			at(1*sec, ev(agents.KindPermissionRequest, tool("bash", "t2", "")), Waiting).pend(2),
			at(2*sec, ev(agents.KindPermissionGranted, tool("bash", "t1", "")), Waiting).pend(1).baseIs(Working),
			at(3*sec, ev(agents.KindPermissionGranted, tool("bash", "t2", "")), Working).pend(0),
		}},
		{"tool end works", []step{
			at(0, ev(agents.KindPromptSubmit), Thinking),
			at(1*sec, ev(agents.KindToolEnd, tool("Bash", "t1", "h1")), Working),
		}},
		{"tool failure flashes error over working", []step{
			at(0, ev(agents.KindToolStart, tool("Bash", "t1", "h1")), Working),
			at(1*sec, ev(agents.KindPermissionRequest, tool("Bash", "", "h1")), Waiting),
			at(2*sec, ev(agents.KindToolFailure, tool("Bash", "t1", "h1")), Error).pend(0).baseIs(Working),
			tickAt(6*sec, Error),
			tickAt(7*sec, Working),
		}},
		{"interrupted tool is idle without a flash", []step{
			at(0, ev(agents.KindToolStart, tool("Bash", "t1", "h1")), Working),
			at(0, ev(agents.KindPermissionRequest, tool("Bash", "t2", "")), Waiting),
			at(1*sec, ev(agents.KindToolFailure, tool("Bash", "t1", "h1"), interrupt), Idle).pend(0),
		}},
		{"batch from the main thread thinks again", []step{
			at(0, ev(agents.KindToolStart, tool("Bash", "t1", "h1")), Working),
			at(1*sec, ev(agents.KindToolBatch, batch("t1")), Thinking),
		}},
		{"batch from a subagent keeps juggling", []step{
			at(0, ev(agents.KindSubagentStart, subagent("a1", "general-purpose")), Juggling),
			at(1*sec, ev(agents.KindToolBatch, batch("t1"), subagent("a1", "general-purpose")), Juggling),
			at(2*sec, ev(agents.KindToolBatch, batch("t2")), Juggling),
		}},
		{"permission_prompt notification ensures waiting", []step{
			at(0, ev(agents.KindToolStart, tool("Bash", "t1", "h1")), Working),
			at(6*sec, ev(agents.KindNotification, notif(agents.NoticeDialog)), Waiting).pend(1),
			at(7*sec, ev(agents.KindToolEnd, tool("Bash", "t1", "h1")), Working).pend(0),
		}},
		{"permission_prompt notification does not double a request", []step{
			at(0, ev(agents.KindPermissionRequest, tool("Bash", "t1", "")), Waiting).pend(1),
			at(6*sec, ev(agents.KindNotification, notif(agents.NoticeDialog)), Waiting).pend(1),
		}},
		{"permission_prompt stand-in closed by a batch", []step{
			at(0, ev(agents.KindNotification, notif(agents.NoticeDialog)), Waiting).pend(1),
			at(1*sec, ev(agents.KindToolBatch, batch("t1")), Thinking).pend(0),
		}},
		{"idle_prompt is idle without a flash", []step{
			at(0, ev(agents.KindPermissionRequest, tool("Bash", "t1", "")), Waiting),
			at(60*sec, ev(agents.KindNotification, notif(agents.NoticeIdle)), Idle).pend(0).disp(Idle),
		}},
		{"elicitation dialog and response", []step{
			at(0, ev(agents.KindNotification, notif(agents.NoticeQuestion)), Waiting).pend(1),
			at(1*sec, ev(agents.KindNotification, notif(agents.NoticeAnswered)), Idle).pend(0),
		}},
		{"elicitation dialog after the question does not double it", []step{
			at(0, ev(agents.KindQuestion, tool("mini", "", "")), Waiting).pend(1),
			at(1*sec, ev(agents.KindNotification, notif(agents.NoticeQuestion)), Waiting).pend(1),
			at(2*sec, ev(agents.KindNotification, notif(agents.NoticeAnswered)), Idle).pend(0),
		}},
		{"other notification flashes", []step{
			at(0, ev(agents.KindNotification, notif(agents.NoticeOther)), Notification).disp(Notification),
			tickAt(2*sec, Notification),
			tickAt(2500*time.Millisecond, Idle).disp(Idle),
		}},
		{"subagent start juggles", []step{
			at(0, ev(agents.KindSubagentStart, subagent("a1", "general-purpose")), Juggling),
		}},
		{"juggling is sticky while subagents run", []step{
			at(0, ev(agents.KindSubagentStart, subagent("a1", "general-purpose")), Juggling),
			at(0, ev(agents.KindSubagentStart, subagent("a2", "Explore")), Juggling),
			at(1*sec, ev(agents.KindToolStart, tool("Read", "t1", "h1")), Juggling),
			at(2*sec, ev(agents.KindToolEnd, tool("Read", "t1", "h1")), Juggling),
			at(3*sec, ev(agents.KindSubagentStop, subagent("a1", "general-purpose")), Juggling),
			at(4*sec, ev(agents.KindSubagentStop, subagent("a2", "Explore")), Working),
			at(5*sec, ev(agents.KindToolStart, tool("Read", "t2", "h2")), Working),
		}},
		{"internal compaction agent stop is ignored", []step{
			at(0, ev(agents.KindSubagentStart, subagent("a1", "general-purpose")), Juggling),
			at(1*sec, ev(agents.KindSubagentStop, subagent("a1", "")), Juggling),
		}},
		{"turn end: done, then idle", []step{
			at(0, ev(agents.KindPromptSubmit), Thinking),
			at(1*sec, ev(agents.KindPermissionRequest, tool("Bash", "t1", "")), Waiting),
			at(2*sec, ev(agents.KindTurnEnd), Attention).pend(0).baseIs(Idle).disp(Attention),
			tickAt(5*sec, Attention),
			tickAt(6*sec, Idle).disp(Idle),
		}},
		{"turn end with background tasks keeps juggling", []step{
			at(0, ev(agents.KindSubagentStart, subagent("a1", "general-purpose")), Juggling),
			at(1*sec, ev(agents.KindTurnEnd, background(1)), Juggling).disp(Juggling),
			at(2*sec, ev(agents.KindSubagentStop, subagent("a1", "general-purpose")), Working),
			at(3*sec, ev(agents.KindPromptSubmit), Thinking),
			at(4*sec, ev(agents.KindTurnEnd), Attention),
		}},
		{"turn end forgets subagents", []step{
			at(0, ev(agents.KindSubagentStart, subagent("a1", "general-purpose")), Juggling),
			at(1*sec, ev(agents.KindTurnEnd), Attention).baseIs(Idle),
			at(2*sec, ev(agents.KindPromptSubmit), Thinking),
		}},
		{"turn failure: error, then idle", []step{
			at(0, ev(agents.KindPermissionRequest, tool("Bash", "t1", "")), Waiting),
			at(1*sec, ev(agents.KindTurnFailure), Error).pend(0).baseIs(Idle),
			tickAt(6*sec, Idle),
		}},
		{"compaction sweeps until it ends", []step{
			at(0, ev(agents.KindSessionStart), Idle),
			at(1*sec, ev(agents.KindCompactStart, source("manual")), Sweeping).disp(Sweeping),
			at(2*sec, ev(agents.KindSubagentStop, subagent("a9", "")), Sweeping),
			at(30*sec, ev(agents.KindSessionStart, source("compact")), Sweeping),
			at(31*sec, ev(agents.KindCompactEnd, source("manual")), Idle).disp(Idle),
		}},
		{"compaction sweeping is capped", []step{
			at(0, ev(agents.KindCompactStart, source("auto")), Sweeping),
			tickAt(4*time.Minute, Sweeping),
			tickAt(5*time.Minute, Idle),
		}},
		{"cwd change follows", []step{
			at(0, ev(agents.KindCwdChange), Idle),
		}},
		{"worktree create carries", []step{
			at(0, ev(agents.KindWorktreeCreate), Carrying).disp(Carrying),
			at(1*sec, ev(agents.KindSessionStart), Carrying),
			tickAt(3*sec, Idle).disp(Idle),
		}},
		{"state sets the base state", []step{
			at(0, ev(agents.KindState, state("working")), Working).baseIs(Working),
			at(1*sec, ev(agents.KindState, state("Thinking")), Thinking),
		}},
		{"state plays one-shots", []step{
			at(0, ev(agents.KindState, state("working")), Working),
			at(1*sec, ev(agents.KindState, state("attention")), Attention).baseIs(Working),
			tickAt(5*sec, Working),
		}},
		{"state sleeping ends the session", []step{
			at(0, ev(agents.KindState, state("idle")), Idle),
			at(1*sec, ev(agents.KindState, state("sleeping")), Idle).gone(),
			at(2*sec, ev(agents.KindState, state("sleeping")), "").ignoredStep(),
		}},
		{"unknown state is ignored", []step{
			at(0, ev(agents.KindState, state("dancing")), "").ignoredStep(),
			at(1*sec, ev(agents.KindState, state("working")), Working),
			at(2*sec, ev(agents.KindState, state("dancing")), Working).ignoredStep(),
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			runSteps(t, New(Options{}), tt.steps)
		})
	}
}

// TestTouchOnly checks that kinds with no state meaning only touch the
// session.
func TestTouchOnly(t *testing.T) {
	for _, k := range []agents.Kind{agents.KindSetup, agents.KindInstructionsLoad,
		agents.KindConfigChange, agents.KindFileChange, agents.KindDirectoryAdd,
		agents.KindModelSwitch, agents.KindModelSwitched, agents.KindMessage,
		agents.KindWorktreeRemove, agents.KindTaskCreate, agents.KindTaskComplete,
		agents.KindTeammateIdle, agents.KindCwdChange} {
		m := New(Options{})
		m.Apply(ev(agents.KindToolStart, tool("Bash", "t1", "h1")), t0)
		m.Apply(ev(agents.KindPermissionRequest, tool("Bash", "", "h1")), t0)
		r := m.Apply(ev(k, func(e *agents.Event) { e.Cwd = "/p/sub" }), t0.Add(sec))
		if r.Session.State != Waiting || r.Session.BaseState != Working || r.Session.Pending != 1 {
			t.Errorf("Apply(%s) = %v/%v pending %d, want waiting/working pending 1",
				k, r.Session.State, r.Session.BaseState, r.Session.Pending)
		}
		if r.Session.LastKind != k || !r.Session.UpdatedAt.Equal(t0.Add(sec)) || r.Session.Cwd != "/p/sub" {
			t.Errorf("Apply(%s) touched %v %v %q, want %v %v /p/sub", k,
				r.Session.LastKind, r.Session.UpdatedAt, r.Session.Cwd, k, t0.Add(sec))
		}
	}
}

func TestFields(t *testing.T) {
	m := New(Options{})
	m.Apply(ev(agents.KindSessionStart, func(e *agents.Event) {
		e.Cwd, e.ProjectDir, e.AgentPID, e.Headless = "/p", "/p", 42, true
	}), t0)
	r := m.Apply(ev(agents.KindToolStart, tool("Bash", "t1", "h1")), t0.Add(sec))
	s := r.Session
	if s.Cwd != "/p" || s.ProjectDir != "/p" || s.AgentPID != 42 {
		t.Errorf("empty fields overwrote: cwd %q project %q pid %d", s.Cwd, s.ProjectDir, s.AgentPID)
	}
	if s.Headless {
		t.Errorf("headless = true, want false: the latest event says")
	}
	if s.Tool != "Bash" || !s.StartedAt.Equal(t0) || !s.UpdatedAt.Equal(t0.Add(sec)) || s.LastKind != agents.KindToolStart {
		t.Errorf("session = %+v", s)
	}
	if s.Agent != "claude" || s.ID != sid {
		t.Errorf("key = %v/%v", s.Agent, s.ID)
	}
	r = m.Apply(ev(agents.KindCwdChange, func(e *agents.Event) { e.Cwd = "/p/sub" }), t0.Add(2*sec))
	if r.Session.Cwd != "/p/sub" {
		t.Errorf("Apply(cwd.change) cwd = %q, want /p/sub", r.Session.Cwd)
	}
}

func TestTitles(t *testing.T) {
	steps := []struct {
		e    agents.Event
		want string
	}{
		{ev(agents.KindSessionStart), ""},
		{ev(agents.KindPromptSubmit, title("fix the parser", agents.TitleFromPrompt)), "fix the parser"},
		{ev(agents.KindPromptSubmit, title("and now the tests", agents.TitleFromPrompt)), "fix the parser"},
		{ev(agents.KindSessionStart, title("Parser rewrite", agents.TitleFromAgent)), "Parser rewrite"},
		{ev(agents.KindPromptSubmit, title("something else", agents.TitleFromPrompt)), "Parser rewrite"},
		{ev(agents.KindPromptSubmit, title("Renamed", agents.TitleFromAgent)), "Renamed"},
		{ev(agents.KindToolStart), "Renamed"},
	}
	m := New(Options{})
	for i, st := range steps {
		r := m.Apply(st.e, t0.Add(time.Duration(i)*sec))
		if r.Session.Title != st.want {
			t.Errorf("Apply(%s %q) title = %q, want %q", desc(st.e), st.e.Title, r.Session.Title, st.want)
		}
	}
}

func TestHeadlessExcludedFromDisplay(t *testing.T) {
	m := New(Options{})
	r := m.Apply(ev(agents.KindPermissionRequest, tool("Bash", "t1", ""), headless), t0)
	if r.Session.State != Waiting || r.Display != Sleeping {
		t.Errorf("Apply(headless request) = %v display %v, want waiting display sleeping", r.Session.State, r.Display)
	}
	r = m.Apply(ev(agents.KindSessionStart, inSession("s2")), t0.Add(sec))
	if r.Display != Idle {
		t.Errorf("Apply(interactive start) display = %v, want idle", r.Display)
	}
	if got := len(m.Sessions()); got != 2 {
		t.Errorf("Sessions() = %d sessions, want 2 (headless ones are listed)", got)
	}
}

func TestMinDisplay(t *testing.T) {
	m := New(Options{})
	m.Apply(ev(agents.KindSessionStart), t0)
	r := m.Apply(ev(agents.KindTurnFailure), t0.Add(sec))
	if r.Display != Error || !r.DisplayChanged {
		t.Fatalf("Apply(turn.failure) display = %v changed %v, want error changed", r.Display, r.DisplayChanged)
	}
	// The session is busy again, but error holds the display for 5 s.
	r = m.Apply(ev(agents.KindPromptSubmit), t0.Add(2*sec))
	if r.Session.State != Error || r.Display != Error || r.DisplayChanged {
		t.Errorf("Apply(prompt.submit) = %v display %v, want error held", r.Session.State, r.Display)
	}
	if w := m.NextWake(); !w.Equal(t0.Add(6 * sec)) {
		t.Errorf("NextWake() = %v, want +6s (error one-shot and its minimum display)", w.Sub(t0))
	}
	res := m.Tick(t0.Add(6*sec), nil)
	if m.Display() != Thinking || len(res) != 1 || !res[0].DisplayChanged || res[0].Session.State != Thinking {
		t.Errorf("Tick(+6s) = %+v display %v, want thinking", res, m.Display())
	}
	// Thinking holds for 1 s: an attention arriving 0.5 s later waits.
	r = m.Apply(ev(agents.KindTurnEnd), t0.Add(6500*time.Millisecond))
	if r.Display != Thinking {
		t.Errorf("Apply(turn.end) display = %v, want thinking held", r.Display)
	}
	if w := m.NextWake(); !w.Equal(t0.Add(7 * sec)) {
		t.Errorf("NextWake() = %v, want +7s", w.Sub(t0))
	}
	if res := m.Tick(t0.Add(7*sec), nil); m.Display() != Attention || len(res) != 1 || res[0].Session.ID != "" {
		t.Errorf("Tick(+7s) = %+v display %v, want attention (display-only result)", res, m.Display())
	}
	// The session returns to idle at +10.5 s; attention holds to +11 s.
	m.Tick(t0.Add(10500*time.Millisecond), nil)
	if m.Display() != Attention {
		t.Errorf("Tick(+10.5s) display = %v, want attention held", m.Display())
	}
	if w := m.NextWake(); !w.Equal(t0.Add(11 * sec)) {
		t.Errorf("NextWake() = %v, want +11s", w.Sub(t0))
	}
	m.Tick(t0.Add(11*sec), nil)
	if m.Display() != Idle {
		t.Errorf("Tick(+11s) display = %v, want idle", m.Display())
	}
}

func TestWaitingNotHeldByLowerStates(t *testing.T) {
	m := New(Options{})
	m.Apply(ev(agents.KindToolStart, tool("Bash", "t1", "h1")), t0)
	r := m.Apply(ev(agents.KindPermissionRequest, tool("Bash", "", "h1")), t0.Add(sec))
	if r.Display != Waiting {
		t.Errorf("display = %v, want waiting", r.Display)
	}
	r = m.Apply(ev(agents.KindToolEnd, tool("Bash", "t1", "h1")), t0.Add(1100*time.Millisecond))
	if r.Display != Working {
		t.Errorf("display = %v, want working at once (waiting has no minimum)", r.Display)
	}
}

func TestStale(t *testing.T) {
	alive := func(pids ...int) func(int) bool {
		return func(p int) bool { return slices.Contains(pids, p) }
	}
	t.Run("working goes idle after 5 min, pending stays", func(t *testing.T) {
		m := New(Options{})
		m.Apply(ev(agents.KindToolStart, tool("Bash", "t1", "h1")), t0)
		m.Apply(ev(agents.KindToolStart, tool("Bash", "t2", "h2"), inSession("s2")), t0)
		// Waiting does not wait for working's minimum display time.
		if r := m.Apply(ev(agents.KindPermissionRequest, tool("Bash", "", "h2"), inSession("s2")), t0); r.Display != Waiting {
			t.Errorf("Apply(permission.request) display = %v, want waiting at once", r.Display)
		}
		if w := m.NextWake(); !w.Equal(t0.Add(5 * time.Minute)) {
			t.Errorf("NextWake() = %v, want +5m", w.Sub(t0))
		}
		if res := m.Tick(t0.Add(5*time.Minute-sec), nil); len(res) != 0 {
			t.Errorf("Tick(+4m59s) = %+v, want nothing", res)
		}
		res := m.Tick(t0.Add(5*time.Minute), nil)
		if len(res) != 2 || res[0].Session.State != Idle || res[1].Session.State != Waiting || res[1].Session.BaseState != Idle {
			t.Fatalf("Tick(+5m) = %+v, want s1 idle, s2 waiting on idle", res)
		}
		if w := m.NextWake(); !w.Equal(t0.Add(10 * time.Minute)) {
			t.Errorf("NextWake() = %v, want +10m", w.Sub(t0))
		}
	})
	t.Run("removed after 10 min without a pid", func(t *testing.T) {
		m := New(Options{})
		m.Apply(ev(agents.KindSessionStart), t0)
		if res := m.Tick(t0.Add(10*time.Minute-sec), nil); len(res) != 0 {
			t.Errorf("Tick(+9m59s) = %+v, want nothing", res)
		}
		res := m.Tick(t0.Add(10*time.Minute), nil)
		if len(res) != 1 || !res[0].Removed || m.Len() != 0 || m.Display() != Sleeping {
			t.Errorf("Tick(+10m) = %+v, want s1 removed, display sleeping", res)
		}
		if w := m.NextWake(); !w.IsZero() {
			t.Errorf("NextWake() = %v, want zero", w)
		}
	})
	t.Run("kept after 10 min with a live pid", func(t *testing.T) {
		m := New(Options{})
		m.Apply(ev(agents.KindState, state("juggling"), pid(7)), t0)
		m.Tick(t0.Add(4*time.Minute), alive(7))
		res := m.Tick(t0.Add(10*time.Minute), alive(7))
		if len(res) != 1 || res[0].Removed || res[0].Session.State != Idle {
			t.Errorf("Tick(+10m) = %+v, want s1 kept idle", res)
		}
		if w := m.NextWake(); !w.IsZero() {
			t.Errorf("NextWake() = %v, want zero (liveness is polled, not scheduled)", w)
		}
		if res := m.Tick(t0.Add(20*time.Minute), alive(7)); len(res) != 0 || m.Len() != 1 {
			t.Errorf("Tick(+20m) = %+v, want s1 still kept", res)
		}
		// A nil alive cannot prove a process dead.
		if res := m.Tick(t0.Add(30*time.Minute), nil); len(res) != 0 || m.Len() != 1 {
			t.Errorf("Tick(+30m, nil) = %+v, want s1 kept", res)
		}
		res = m.Tick(t0.Add(31*time.Minute), alive())
		if len(res) != 1 || !res[0].Removed {
			t.Errorf("Tick(+31m) with the pid dead = %+v, want s1 removed", res)
		}
	})
	t.Run("removed as soon as the pid is dead", func(t *testing.T) {
		m := New(Options{})
		m.Apply(ev(agents.KindToolStart, tool("Bash", "t1", "h1"), pid(7)), t0)
		m.Apply(ev(agents.KindToolStart, tool("Bash", "t1", "h1"), pid(8), inSession("s2")), t0)
		res := m.Tick(t0.Add(sec), alive(8))
		if len(res) != 1 || !res[0].Removed || res[0].Session.ID != sid {
			t.Errorf("Tick(+1s) = %+v, want s1 removed", res)
		}
		if res[0].Display != Working || m.Len() != 1 {
			t.Errorf("display = %v, %d sessions; want working, 1", res[0].Display, m.Len())
		}
	})
}

func TestEviction(t *testing.T) {
	m := New(Options{MaxSessions: 3})
	m.Apply(ev(agents.KindSessionStart, inSession("a")), t0)
	m.Apply(ev(agents.KindSessionStart, inSession("b"), headless), t0.Add(1*sec))
	m.Apply(ev(agents.KindSessionStart, inSession("c"), headless), t0.Add(2*sec))
	r := m.Apply(ev(agents.KindSessionStart, inSession("d")), t0.Add(3*sec))
	if r.Evicted == nil || r.Evicted.ID != "b" {
		t.Fatalf("Apply(start d) evicted %+v, want b (oldest headless)", r.Evicted)
	}
	r = m.Apply(ev(agents.KindSessionStart, inSession("e")), t0.Add(4*sec))
	if r.Evicted == nil || r.Evicted.ID != "c" {
		t.Fatalf("Apply(start e) evicted %+v, want c (headless)", r.Evicted)
	}
	m.Apply(ev(agents.KindToolStart, inSession("a")), t0.Add(5*sec))
	r = m.Apply(ev(agents.KindSessionStart, inSession("f")), t0.Add(6*sec))
	if r.Evicted == nil || r.Evicted.ID != "d" {
		t.Fatalf("Apply(start f) evicted %+v, want d (least recently updated)", r.Evicted)
	}
	var ids []string
	for _, s := range m.Sessions() {
		ids = append(ids, s.ID)
	}
	if want := []string{"a", "f", "e"}; !slices.Equal(ids, want) {
		t.Errorf("Sessions() = %v, want %v", ids, want)
	}
	if r := m.Apply(ev(agents.KindToolStart, inSession("a")), t0.Add(7*sec)); r.Evicted != nil {
		t.Errorf("Apply to a known session evicted %+v", r.Evicted)
	}
}

// TestEvictionSparesPending: a flood of 300 new sessions past the 256
// cap (anyone who can post events can send it in milliseconds) never
// evicts a session that waits for the person, even the least recently
// active and a headless one; the others go least recently active first.
func TestEvictionSparesPending(t *testing.T) {
	m := New(Options{})
	max := DefaultOptions().MaxSessions
	m.Apply(ev(agents.KindSessionStart, inSession("waiting")), t0)
	m.Apply(ev(agents.KindPermissionRequest, inSession("waiting"), tool("Bash", "", "h1")), t0)
	m.Apply(ev(agents.KindSessionStart, inSession("waiting-headless"), headless), t0)
	m.Apply(ev(agents.KindQuestion, inSession("waiting-headless"), headless, tool("AskUserQuestion", "", "h2")), t0)
	m.Apply(ev(agents.KindSessionStart, inSession("asked")), t0)
	m.Apply(ev(agents.KindNotification, inSession("asked"), notif(agents.NoticeDialog)), t0)
	m.Apply(ev(agents.KindSessionStart, inSession("busy")), t0.Add(time.Second))
	var evicted []string
	for i := range 300 {
		at := t0.Add(2*time.Second + time.Duration(i)*time.Millisecond)
		if i == 150 {
			// The busy session stays active during the flood.
			m.Apply(ev(agents.KindToolStart, inSession("busy")), at)
		}
		r := m.Apply(ev(agents.KindSessionStart, inSession(fmt.Sprintf("flood-%03d", i))), at)
		if r.Ignored {
			t.Fatalf("Apply(flood-%03d) ignored with free room to make", i)
		}
		if r.Evicted != nil {
			evicted = append(evicted, r.Evicted.ID)
		}
	}
	if m.Len() != max {
		t.Fatalf("Len() = %d after the flood, want the cap %d", m.Len(), max)
	}
	for _, id := range []string{"waiting", "waiting-headless", "asked", "busy"} {
		if _, ok := m.Session(Key{"claude", id}); !ok {
			t.Errorf("session %s was evicted by the flood (evicted: %v)", id, evicted)
		}
	}
	// The oldest flood sessions went first, in order.
	for i, id := range evicted {
		if want := fmt.Sprintf("flood-%03d", i); id != want {
			t.Fatalf("eviction %d took %s, want %s (least recently active first)", i, id, want)
		}
	}
}

// TestEvictionAllPending: when every tracked session waits for the person
// there is nothing to evict, and a new session is not tracked: the cap
// holds.
func TestEvictionAllPending(t *testing.T) {
	m := New(Options{MaxSessions: 2})
	for _, id := range []string{"a", "b"} {
		m.Apply(ev(agents.KindPermissionRequest, inSession(id), tool("Bash", "", "h")), t0)
	}
	r := m.Apply(ev(agents.KindSessionStart, inSession("c")), t0.Add(time.Second))
	if !r.Ignored || r.Evicted != nil || m.Len() != 2 {
		t.Fatalf("Apply(c) = ignored %v, evicted %+v, %d sessions; want ignored, none evicted, 2", r.Ignored, r.Evicted, m.Len())
	}
	if _, ok := m.Session(Key{"claude", "c"}); ok {
		t.Error("session c is tracked past the cap")
	}
	// Once one is answered, it can make room again.
	m.Apply(ev(agents.KindTurnEnd, inSession("a")), t0.Add(2*time.Second))
	if r := m.Apply(ev(agents.KindSessionStart, inSession("c")), t0.Add(3*time.Second)); r.Ignored || r.Evicted == nil || r.Evicted.ID != "a" {
		t.Errorf("Apply(c) after a's turn ended = ignored %v, evicted %+v; want a evicted", r.Ignored, r.Evicted)
	}
}

func TestSessionsOrder(t *testing.T) {
	m := New(Options{})
	m.Apply(ev(agents.KindSessionStart, inSession("idle-old")), t0)
	m.Apply(ev(agents.KindSessionStart, inSession("idle-new")), t0.Add(sec))
	m.Apply(ev(agents.KindPermissionRequest, inSession("waiting"), tool("Bash", "t", "")), t0)
	m.Apply(ev(agents.KindToolStart, inSession("working-b")), t0.Add(2*sec))
	m.Apply(ev(agents.KindToolStart, inSession("working-a")), t0.Add(2*sec))
	var ids []string
	for _, s := range m.Sessions() {
		ids = append(ids, s.ID)
	}
	want := []string{"waiting", "working-a", "working-b", "idle-new", "idle-old"}
	if !slices.Equal(ids, want) {
		t.Errorf("Sessions() = %v, want %v", ids, want)
	}
}

func TestResolve(t *testing.T) {
	m := New(Options{})
	m.Apply(ev(agents.KindToolStart, tool("Bash", "t1", "h1")), t0)
	m.Apply(ev(agents.KindToolStart, tool("Bash", "t2", "h2")), t0)
	r1 := m.Apply(ev(agents.KindPermissionRequest, tool("Bash", "", "h1")), t0.Add(sec))
	r2 := m.Apply(ev(agents.KindPermissionRequest, tool("Bash", "", "h2")), t0.Add(sec))
	if r1.PendingKey != "t1" || r2.PendingKey != "t2" {
		t.Fatalf("PendingKey = %q, %q; want t1, t2", r1.PendingKey, r2.PendingKey)
	}
	k := Key{"claude", sid}
	r := m.Resolve(k, r1.PendingKey, t0.Add(2*sec))
	if r.Ignored || r.Session.Pending != 1 || r.Session.State != Waiting {
		t.Errorf("Resolve(t1) = %+v, want 1 pending, waiting", r.Session)
	}
	if !r.Session.UpdatedAt.Equal(t0.Add(sec)) {
		t.Errorf("Resolve touched the session: updated %v", r.Session.UpdatedAt)
	}
	if r := m.Resolve(k, "t1", t0.Add(2*sec)); !r.Ignored {
		t.Errorf("Resolve(t1) again = %+v, want ignored", r)
	}
	if r := m.Resolve(Key{"claude", "nope"}, "t2", t0.Add(2*sec)); !r.Ignored {
		t.Errorf("Resolve(unknown session) = %+v, want ignored", r)
	}
	if r := m.Resolve(k, "t2", t0.Add(3*sec)); r.Session.State != Working || r.Display != Working {
		t.Errorf("Resolve(t2) = %v display %v, want working", r.Session.State, r.Display)
	}
}

func TestRecentCallsBounded(t *testing.T) {
	m := New(Options{})
	m.Apply(ev(agents.KindToolStart, tool("Bash", "old", "h-old")), t0)
	for i := range recentCalls {
		m.Apply(ev(agents.KindToolStart, tool("Bash", fmt.Sprint("t", i), fmt.Sprint("h", i))), t0)
	}
	// The first call fell out of the ring: its request is keyed by hash.
	r := m.Apply(ev(agents.KindPermissionRequest, tool("Bash", "", "h-old")), t0.Add(sec))
	if r.PendingKey != "hash:h-old" {
		t.Errorf("PendingKey = %q, want hash:h-old", r.PendingKey)
	}
	r = m.Apply(ev(agents.KindPermissionRequest, tool("Bash", "", "h3")), t0.Add(sec))
	if r.PendingKey != "t3" {
		t.Errorf("PendingKey = %q, want t3", r.PendingKey)
	}
}

func TestNextWakeFlash(t *testing.T) {
	m := New(Options{})
	if w := m.NextWake(); !w.IsZero() {
		t.Errorf("NextWake() of an empty machine = %v, want zero", w)
	}
	m.Apply(ev(agents.KindSessionStart), t0)
	m.Apply(ev(agents.KindSessionEnd, reason("clear")), t0.Add(sec))
	if w := m.NextWake(); !w.Equal(t0.Add(6500 * time.Millisecond)) {
		t.Errorf("NextWake() = %v, want +6.5s (flash and its minimum display)", w.Sub(t0))
	}
	res := m.Tick(t0.Add(6500*time.Millisecond), nil)
	if m.Display() != Sleeping || len(res) != 1 || !res[0].DisplayChanged {
		t.Errorf("Tick(+6.5s) = %+v, display %v; want sleeping", res, m.Display())
	}
	if w := m.NextWake(); !w.IsZero() {
		t.Errorf("NextWake() = %v, want zero", w)
	}
}

func TestOptions(t *testing.T) {
	m := New(Options{
		MinDisplay: map[State]time.Duration{Attention: 0},
		AutoReturn: map[State]time.Duration{Attention: 10 * time.Second},
	})
	if m.opts.MaxSessions != 256 || m.opts.WorkingStale != 5*time.Minute || m.opts.SessionStale != 10*time.Minute {
		t.Errorf("defaults not applied: %+v", m.opts)
	}
	if m.opts.MinDisplay[Error] != 5*time.Second || m.opts.AutoReturn[Carrying] != 3*time.Second {
		t.Errorf("map defaults not merged: %+v", m.opts)
	}
	m.Apply(ev(agents.KindTurnEnd), t0)
	if r := m.Apply(ev(agents.KindPromptSubmit, inSession("s2")), t0.Add(9*sec)); r.Display != Attention {
		t.Errorf("display = %v, want attention for 10 s", r.Display)
	}
	if r := m.Apply(ev(agents.KindPromptSubmit, inSession("s2")), t0.Add(10*sec)); r.Display != Thinking {
		t.Errorf("display = %v, want thinking once the 10 s one-shot is over (no minimum)", r.Display)
	}
}

func TestStates(t *testing.T) {
	order := []State{Sleeping, Idle, Thinking, Working, Juggling, Attention, Sweeping, Notification, Error, Waiting}
	for i := 1; i < len(order); i++ {
		if order[i].Priority() < order[i-1].Priority() {
			t.Errorf("%v.Priority() = %d < %v.Priority() = %d", order[i], order[i].Priority(), order[i-1], order[i-1].Priority())
		}
	}
	if Carrying.Priority() != Juggling.Priority() {
		t.Errorf("carrying and juggling differ: %d, %d", Carrying.Priority(), Juggling.Priority())
	}
	if s, ok := ParseState(" Waiting "); !ok || s != Waiting {
		t.Errorf("ParseState(Waiting) = %v, %v", s, ok)
	}
	if _, ok := ParseState("dozing"); ok {
		t.Errorf("ParseState(dozing) ok, want unknown")
	}
	// Ties go to the one-shot, whatever the order sessions were seen in.
	for _, order := range [][]string{{"j", "c"}, {"c", "j"}} {
		m := New(Options{})
		for _, id := range order {
			if id == "j" {
				m.Apply(ev(agents.KindSubagentStart, inSession(id), subagent("a", "x")), t0)
			} else {
				m.Apply(ev(agents.KindWorktreeCreate, inSession(id)), t0)
			}
		}
		if m.Display() != Carrying {
			t.Errorf("display with %v = %v, want carrying", order, m.Display())
		}
	}
}

func BenchmarkApply(b *testing.B) {
	const sessions = 50
	m := New(Options{MaxSessions: sessions})
	ids := make([]string, sessions)
	for i := range ids {
		ids[i] = fmt.Sprintf("5e550000-0000-4000-8000-%012d", i)
		m.Apply(agents.Event{Agent: "claude", SessionID: ids[i], Kind: agents.KindSessionStart}, t0)
	}
	// One turn with a permission request, a subagent and a parallel batch,
	// as the hooks send it.
	turn := []agents.Event{
		{Kind: agents.KindPromptSubmit, Title: "fix the parser", TitleSource: agents.TitleFromPrompt},
		{Kind: agents.KindToolStart, ToolName: "Bash", ToolUseID: "toolu_1", InputHash: "h1"},
		{Kind: agents.KindPermissionRequest, ToolName: "Bash", InputHash: "h1"},
		{Kind: agents.KindNotification, Notice: agents.NoticeDialog},
		{Kind: agents.KindToolEnd, ToolName: "Bash", ToolUseID: "toolu_1", InputHash: "h1"},
		{Kind: agents.KindToolBatch, ToolUseIDs: []string{"toolu_1"}},
		{Kind: agents.KindToolStart, ToolName: "Agent", ToolUseID: "toolu_2", InputHash: "h2"},
		{Kind: agents.KindSubagentStart, SubagentID: "a1", SubagentType: "general-purpose"},
		{Kind: agents.KindToolStart, ToolName: "Read", ToolUseID: "toolu_3", InputHash: "h3", SubagentID: "a1"},
		{Kind: agents.KindToolEnd, ToolName: "Read", ToolUseID: "toolu_3", InputHash: "h3", SubagentID: "a1"},
		{Kind: agents.KindToolBatch, ToolUseIDs: []string{"toolu_3"}, SubagentID: "a1"},
		{Kind: agents.KindSubagentStop, SubagentID: "a1", SubagentType: "general-purpose"},
		{Kind: agents.KindToolEnd, ToolName: "Agent", ToolUseID: "toolu_2", InputHash: "h2"},
		{Kind: agents.KindToolBatch, ToolUseIDs: []string{"toolu_2"}},
		{Kind: agents.KindMessage},
		{Kind: agents.KindTurnEnd},
	}
	now := t0
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		e := turn[(i/sessions)%len(turn)]
		e.Agent, e.SessionID = "claude", ids[i%sessions]
		now = now.Add(time.Millisecond)
		m.Apply(e, now)
	}
}

func TestRetitle(t *testing.T) {
	now := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	m := New(Options{})
	k := Key{Agent: "codex", ID: "s1"}
	m.Apply(agents.Event{Agent: "codex", Kind: agents.KindPromptSubmit, SessionID: "s1", Title: "from the prompt", TitleSource: agents.TitleFromPrompt}, now)
	before, _ := m.Session(k)
	if !m.Retitle(k, "Fix the login", agents.TitleFromAgent) {
		t.Fatal("Retitle(new name) = false, want true")
	}
	if m.Retitle(k, "Fix the login", agents.TitleFromAgent) {
		t.Error("Retitle(same name) = true, want false")
	}
	if m.Retitle(Key{Agent: "codex", ID: "nope"}, "x", agents.TitleFromAgent) {
		t.Error("Retitle(unknown session) = true, want false")
	}
	after, _ := m.Session(k)
	if after.Title != "Fix the login" || after.TitleSource != agents.TitleFromAgent {
		t.Errorf("after Retitle: title %q (%s), want the agent's", after.Title, after.TitleSource)
	}
	if after.State != before.State || !after.UpdatedAt.Equal(before.UpdatedAt) {
		t.Errorf("Retitle changed state or age: %s at %v, want %s at %v", after.State, after.UpdatedAt, before.State, before.UpdatedAt)
	}
}

// TestPersonTitle: the person's title wins over what the agent says later,
// and taking it away shows the agent's latest again.
func TestPersonTitle(t *testing.T) {
	now := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	m := New(Options{})
	k := Key{Agent: "claude", ID: "s1"}
	title := func() (string, agents.TitleSource) {
		s, _ := m.Session(k)
		return s.Title, s.TitleSource
	}
	m.Apply(agents.Event{Agent: "claude", Kind: agents.KindSessionStart, SessionID: "s1", Title: "Named in the agent", TitleSource: agents.TitleFromAgent}, now)
	if !m.Retitle(k, "Shop", agents.TitleFromPerson) {
		t.Fatal("Retitle(person) = false, want true")
	}
	m.Apply(agents.Event{Agent: "claude", Kind: agents.KindPromptSubmit, SessionID: "s1", Title: "Renamed in the agent", TitleSource: agents.TitleFromAgent}, now)
	if got, src := title(); got != "Shop" || src != agents.TitleFromPerson {
		t.Errorf("after the agent renamed it: %q (%s), want the person's \"Shop\"", got, src)
	}
	if !m.Retitle(k, "", agents.TitleFromPerson) {
		t.Fatal("Retitle(person, \"\") = false, want true")
	}
	if got, src := title(); got != "Renamed in the agent" || src != agents.TitleFromAgent {
		t.Errorf("after the person's title went: %q (%s), want the agent's latest", got, src)
	}
}

// TestTurns counts the session's own prompts, not its subagents' turns nor
// expansions of a slash command.
func TestTurns(t *testing.T) {
	now := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	m := New(Options{})
	for _, e := range []agents.Event{
		{Kind: agents.KindSessionStart},
		{Kind: agents.KindPromptExpansion},
		{Kind: agents.KindPromptSubmit},
		{Kind: agents.KindPromptSubmit, SubagentID: "a1"},
		{Kind: agents.KindTurnEnd},
		{Kind: agents.KindPromptSubmit},
	} {
		e.Agent, e.SessionID = "codex", "s1"
		m.Apply(e, now)
	}
	if s, _ := m.Session(Key{"codex", "s1"}); s.Turns != 2 {
		t.Errorf("Turns = %d, want 2", s.Turns)
	}
}

// TestStaleResult: Tick says when a session went stale with its agent
// still running, once.
func TestStaleResult(t *testing.T) {
	now := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	m := New(Options{})
	m.Apply(agents.Event{Agent: "codex", Kind: agents.KindSessionStart, SessionID: "s1", AgentPID: 42}, now)
	alive := func(int) bool { return true }
	later := now.Add(DefaultOptions().SessionStale)
	res := m.Tick(later, alive)
	if len(res) != 1 || !res[0].Stale || res[0].Removed {
		t.Fatalf("Tick after SessionStale = %+v, want one Result with Stale", res)
	}
	if res := m.Tick(later.Add(time.Hour), alive); len(res) != 0 {
		t.Errorf("second Tick = %+v, want nothing: the session went stale once", res)
	}
}

// TestTitleWithoutSource: a title whose sender named no source (a script's
// POST /state) names a session that has none, like a prompt's.
func TestTitleWithoutSource(t *testing.T) {
	now := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	m := New(Options{})
	k := Key{Agent: "claude", ID: "s1"}
	m.Apply(agents.Event{Agent: "claude", Kind: agents.KindPromptSubmit, SessionID: "s1", Title: "from a script"}, now)
	if s, _ := m.Session(k); s.Title != "from a script" || s.TitleSource != agents.TitleFromPrompt {
		t.Errorf("title %q (%s), want \"from a script\" ranked as a prompt's", s.Title, s.TitleSource)
	}
	m.Apply(agents.Event{Agent: "claude", Kind: agents.KindSessionUpdate, SessionID: "s1", Title: "Agent's", TitleSource: agents.TitleFromAgent}, now)
	if s, _ := m.Session(k); s.Title != "Agent's" {
		t.Errorf("title %q, want the agent's over it", s.Title)
	}
}
