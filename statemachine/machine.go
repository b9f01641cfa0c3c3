// Package statemachine turns normalized agent events into per-session
// states and one aggregate display state: what the tray icon, `clawd
// status` and the dashboard show. It is pure: no I/O, no goroutines, and
// time is always passed in.
package statemachine

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"github.com/clawdhq/clawd/agents"
)

// State is a session's or the display's state. The names are the original
// app's, plus Waiting.
type State string

// The states, lowest display priority first.
const (
	Sleeping State = "sleeping" // no live interactive session
	Idle     State = "idle"     // session open, nothing running
	Thinking State = "thinking" // the model is working on a prompt
	Working  State = "working"  // a tool is running
	Juggling State = "juggling" // subagents or background tasks at work
	Carrying State = "carrying" // one-shot: a worktree is being created
	// Attention is the one-shot "done" after a turn ends.
	Attention State = "attention"
	// Sweeping is compaction in progress, or the one-shot after /clear.
	Sweeping State = "sweeping"
	// Notification is a one-shot for an agent notification that needs no
	// answer.
	Notification State = "notification"
	// Error is a one-shot after a failed tool or turn.
	Error State = "error"
	// Waiting is not in the original app: a session blocked on the person
	// (a permission request or a question) stays Waiting until the request
	// is answered, withdrawn or the turn ends. The original only flashed a
	// 2.5 s "notification", which loses the one fact clawd exists to show.
	Waiting State = "waiting"
)

// Priority is the state's display priority: when sessions disagree, the
// display shows the one with the highest. Unknown states rank with
// Sleeping. Waiting ranks above Error, unlike the original's error on
// top: while requests wait, a failure elsewhere (or a tool that failed
// beside the one asking) must not hide that the person is needed.
func (s State) Priority() int {
	switch s {
	case Waiting:
		return 9
	case Error:
		return 8
	case Notification:
		return 7
	case Sweeping:
		return 6
	case Attention:
		return 5
	case Carrying, Juggling:
		return 4
	case Working:
		return 3
	case Thinking:
		return 2
	case Idle:
		return 1
	}
	return 0
}

// rank orders states totally: Priority, with the tie between Carrying and
// Juggling broken toward the one-shot so the display never depends on map
// or insertion order.
func rank(s State) int {
	r := s.Priority() * 2
	if s == Carrying {
		r++
	}
	return r
}

// OneShot reports whether s is shown for a while and then gives way to the
// session's BaseState.
func (s State) OneShot() bool {
	switch s {
	case Attention, Error, Notification, Carrying, Sweeping:
		return true
	}
	return false
}

// Valid reports whether s is one of the named states.
func (s State) Valid() bool {
	switch s {
	case Sleeping, Idle, Thinking, Working, Juggling, Carrying, Attention, Sweeping,
		Notification, Waiting, Error:
		return true
	}
	return false
}

// ParseState returns the State named s (case-insensitive, as a custom
// script's POST /state body might spell it).
func ParseState(s string) (State, bool) {
	st := State(strings.ToLower(strings.TrimSpace(s)))
	return st, st.Valid()
}

// Outcome is how a session's last turn ended.
type Outcome string

// Outcomes. A session keeps its last one until its next prompt.
const (
	OutcomeDone   Outcome = "done"
	OutcomeFailed Outcome = "failed"
)

// MaxFailReason caps Session.FailReason, in characters.
const MaxFailReason = 200

// Key identifies a session: agent plus the agent's session id, so ids never
// collide across agents.
type Key struct {
	Agent string
	ID    string
}

// Session is a snapshot of one tracked session.
type Session struct {
	Agent       string
	ID          string
	State       State // effective state now, one-shots included
	BaseState   State // state the session returns to after a one-shot
	Title       string
	TitleSource agents.TitleSource
	// Titles are the session's titles by source; Title is the best.
	Titles     agents.Titles
	Cwd        string
	ProjectDir string
	Headless   bool
	AgentPID   int
	Host       string // the remote machine it runs on (agents.Event.Host)
	Tool       string // tool running or last run
	Subagents  int    // running subagents
	Pending    int    // open permission requests and questions
	// Questions counts the Pending entries that are questions (Claude's
	// AskUserQuestion, an MCP elicitation) rather than permission
	// requests.
	Questions int
	// Outcome is how the last turn ended, kept past the one-shot that
	// showed it until the next prompt (or a new start of the session):
	// OutcomeDone at OutcomeAt, or OutcomeFailed at OutcomeAt because of
	// FailReason, the agent's own words for it (Event.ErrorText, else an
	// ErrorKind that says more than "failed"), one safe line of at most
	// MaxFailReason characters (internal/text), or "" when the agent gave
	// none. Empty while the turn after it runs, or before any turn ended.
	Outcome    Outcome
	OutcomeAt  time.Time
	FailReason string
	// Turns counts the prompts the session took since clawd tracks it
	// (its subagents' own turns not included).
	Turns     int
	LastKind  agents.Kind
	StartedAt time.Time
	UpdatedAt time.Time
}

// Key returns the session's key.
func (s Session) Key() Key { return Key{s.Agent, s.ID} }

// Result is what Apply reports about one event.
type Result struct {
	// Session is the session after the event (also when it was removed).
	Session Session
	// Removed is set when the event ended the session.
	Removed bool
	// Ignored is set when the event changed nothing (e.g. an end for an
	// unknown session).
	Ignored bool
	// Display is the aggregate display state after the event.
	Display State
	// DisplayChanged is set when Display differs from before.
	DisplayChanged bool
	// PendingKey is the key of the pending entry a permission request or
	// question opened: pass it to Resolve when the request is answered or
	// withdrawn outside the agent's own events (the hook's connection
	// closed, the person answered in clawd).
	PendingKey string
	// Evicted is the session dropped to make room for this one when
	// MaxSessions were already tracked: never one with an open request.
	// When every tracked session has one, the event is Ignored instead.
	Evicted *Session
	// Stale is set by Tick when the session went stale: silent for
	// SessionStale while its agent still runs (it is kept, idle).
	Stale bool
	// Late is set when the event was a late hook of a turn that had
	// ended: it may have named the session (then Ignored is not set),
	// and changed nothing else.
	Late bool
}

// Options tunes a Machine. Zero values take the defaults of DefaultOptions.
type Options struct {
	MaxSessions  int
	WorkingStale time.Duration
	SessionStale time.Duration
	// CompactTimeout caps the sweeping shown while a compaction runs, in
	// case its compact.end never arrives.
	CompactTimeout time.Duration
	// MinDisplay is how long the display shows a state before another may
	// replace it. AutoReturn is how long a one-shot lasts in a session.
	// States missing from a map take the default; an explicit 0 is kept.
	MinDisplay map[State]time.Duration
	AutoReturn map[State]time.Duration
}

// DefaultOptions returns the defaults: the original app's theme timings.
// MaxSessions is not the original's 20: a pet could show no more, but
// people run dozens of sessions (scripts start many headless ones), and
// evicting a live session loses its pending request. A session costs a
// few kilobytes.
func DefaultOptions() Options {
	return Options{
		MaxSessions:    256,
		WorkingStale:   5 * time.Minute,
		SessionStale:   10 * time.Minute,
		CompactTimeout: 5 * time.Minute,
		MinDisplay: map[State]time.Duration{
			Attention:    4 * time.Second,
			Error:        5 * time.Second,
			Sweeping:     5500 * time.Millisecond,
			Notification: 2500 * time.Millisecond,
			Carrying:     3 * time.Second,
			Working:      1 * time.Second,
			Thinking:     1 * time.Second,
		},
		AutoReturn: map[State]time.Duration{
			Attention:    4 * time.Second,
			Error:        5 * time.Second,
			Notification: 2500 * time.Millisecond,
			Carrying:     3 * time.Second,
			Sweeping:     5500 * time.Millisecond,
		},
	}
}

func (o Options) withDefaults() Options {
	d := DefaultOptions()
	if o.MaxSessions <= 0 {
		o.MaxSessions = d.MaxSessions
	}
	if o.WorkingStale <= 0 {
		o.WorkingStale = d.WorkingStale
	}
	if o.SessionStale <= 0 {
		o.SessionStale = d.SessionStale
	}
	if o.CompactTimeout <= 0 {
		o.CompactTimeout = d.CompactTimeout
	}
	merge := func(in, def map[State]time.Duration) map[State]time.Duration {
		out := make(map[State]time.Duration, len(def)+len(in))
		for k, v := range def {
			out[k] = v
		}
		for k, v := range in {
			out[k] = v
		}
		return out
	}
	o.MinDisplay = merge(o.MinDisplay, d.MinDisplay)
	o.AutoReturn = merge(o.AutoReturn, d.AutoReturn)
	return o
}

// Machine tracks sessions. It is not safe for concurrent use.
type Machine struct {
	opts Options

	sessions map[Key]*session
	// list holds the same sessions for cheap iteration in the per-event
	// display computation; order is irrelevant (swap-remove).
	list []*session

	// now is the latest time passed to Apply or Tick; Sessions reports
	// effective states as of then.
	now time.Time
	// flashUntil ends the machine-level sweeping shown after /clear: the
	// cleared session is gone and its successor is idle, so the flash
	// belongs to no session.
	flashUntil time.Time

	shown      State
	shownSince time.Time

	// ended keeps the ledger of turns of the last maxEnded sessions that
	// went (ended, died, went stale or were evicted), oldest first in
	// endedOrder.
	ended      map[Key]turns
	endedOrder []Key

	// changes counts the changes to the sessions (see Changes).
	changes uint64
}

// New returns an empty machine.
func New(opts Options) *Machine {
	return &Machine{
		opts:     opts.withDefaults(),
		sessions: make(map[Key]*session),
		ended:    make(map[Key]turns),
		shown:    Sleeping,
	}
}

// Apply feeds one event into the machine at time now.
func (m *Machine) Apply(e agents.Event, now time.Time) Result {
	m.now = now
	k := Key{e.Agent, e.SessionID}
	s := m.sessions[k]
	var res Result

	var st State
	if e.Kind == agents.KindState {
		var ok bool
		if st, ok = ParseState(e.State); !ok {
			return m.ignored(k, s, now)
		}
	}
	ends := e.Kind == agents.KindSessionEnd || (e.Kind == agents.KindState && st == Sleeping)
	if s == nil {
		if ends {
			return m.ignored(k, nil, now)
		}
		// A late hook of a turn of a session that ended does not bring
		// it back: "late hooks never change liveness" (seed 000 §1.2).
		// A session that ended is gone for the person; a slow
		// PostToolBatch must not make it reappear, thinking, for the
		// five minutes until the working-stale rule. A hook of a new
		// turn, or any hook without a turn id, still revives it (a
		// resumed session).
		past, hadPast := m.ended[k]
		if probe := past; hadPast && probe.late(&e, nil) {
			return m.ignored(k, nil, now)
		}
		// What the agent says of an ended session's name after the end
		// (a title it finished generating as it exited) brings nothing
		// back: a resumed session starts, or takes a prompt, first.
		if hadPast && e.Kind == agents.KindSessionUpdate {
			return m.ignored(k, nil, now)
		}
		if s, res.Evicted = m.create(k, now); s == nil {
			// Every tracked session waits for the person: no room.
			return m.ignored(k, nil, now)
		}
		if hadPast {
			s.turns = past
			m.forgetEnded(k)
		}
	}
	if s.late(&e) {
		return m.late(s, &e, now)
	}

	s.touch(&e, now)
	removed := false
	baseBefore := s.base
	switch e.Kind {
	case agents.KindSessionStart:
		// A SessionStart with source compact arrives in the middle of a
		// compaction: the session carries on as it was.
		if e.Source != "compact" {
			s.base = Idle
			s.clearPending()
			s.subagents = s.subagents[:0]
			s.turns.retire("")
			s.setOutcome("", time.Time{}, "")
		}
	case agents.KindSessionEnd:
		removed = true
		s.turns.retire("")
		if e.Reason == "clear" && !s.snap.Headless {
			m.flashUntil = now.Add(m.opts.AutoReturn[Sweeping])
		}
	case agents.KindPromptSubmit, agents.KindPromptExpansion:
		if e.SubagentID != "" {
			// A sub-agent's own turn (Codex reports it under the
			// parent's session id): the parent's turn goes on, and its
			// open requests stay open.
			s.endDone()
			s.addSubagent(e.SubagentID)
			s.base = Juggling
			break
		}
		s.clearPending()
		s.endDone()
		s.setOutcome("", time.Time{}, "")
		s.base = s.busy(Thinking)
		if e.Kind == agents.KindPromptSubmit {
			s.snap.Turns++
		}
	case agents.KindPromptContinue:
		// The turn's tool results go back to the model: every call of
		// the batch was decided, so nothing waits any more. The turn
		// goes on; it is not a new one.
		if e.SubagentID != "" {
			s.addSubagent(e.SubagentID)
			s.base = Juggling
			break
		}
		s.clearPending()
		s.base = s.busy(Thinking)
	case agents.KindToolStart:
		s.endDone()
		if e.SubagentID != "" {
			s.addSubagent(e.SubagentID)
		}
		s.base = s.busy(Working)
		if e.ToolName != "" {
			s.snap.Tool = e.ToolName
		}
		if e.ToolUseID != "" {
			s.remember(e.ToolUseID, e.InputHash)
		}
		// An agent that asks before it announces a call (its permission
		// request has no call id, so it is keyed by the input's hash)
		// starts the call only once it was allowed: that request is
		// settled. Agents that announce first key the request by the
		// call id instead, and are not touched.
		if e.InputHash != "" {
			s.removeHashPending(e.InputHash)
		}
	case agents.KindPermissionRequest, agents.KindQuestion:
		res.PendingKey = s.pendingKey(&e)
		// A concrete request supersedes the stand-in a permission_prompt
		// notification opened for a dialog clawd had not heard of.
		s.removePending(notifyPermission)
		if e.Kind == agents.KindQuestion {
			s.addQuestion(res.PendingKey)
		} else {
			s.addPending(res.PendingKey)
		}
	case agents.KindPermissionDenied, agents.KindPermissionGranted:
		// The agent reports how its own dialog was answered: the
		// request is settled either way, and the turn goes on.
		s.closeCall(&e)
		s.base = s.busy(Working)
	case agents.KindToolEnd, agents.KindToolFailure:
		s.closeCall(&e)
		switch {
		case e.Kind == agents.KindToolFailure && e.Interrupt:
			// The person pressed Esc: no Stop follows and nothing is
			// running any more.
			s.base = Idle
			s.clearPending()
			s.endTurn(&e)
		default:
			if e.SubagentID != "" {
				s.addSubagent(e.SubagentID)
			}
			s.base = s.busy(Working)
			if e.Kind == agents.KindToolFailure {
				s.flash(Error, now, m.opts.AutoReturn[Error])
			}
		}
	case agents.KindToolBatch:
		for _, id := range e.ToolUseIDs {
			s.markDone(id)
			s.removePending(id)
		}
		s.removePending(notifyPermission)
		switch {
		case e.TurnID != "" && (s.turns.noInfer || !s.turns.isOpen()):
			// Whose results these are is unclear (an id the open turn
			// did not announce), or no turn is open for them: the
			// phase stays (see session.late).
		case e.SubagentID != "":
			s.addSubagent(e.SubagentID)
			s.base = Juggling
		default:
			// The batch's results go back to the model.
			s.base = s.busy(Thinking)
		}
	case agents.KindNotification:
		switch e.Notice {
		case agents.NoticeDialog:
			if len(s.pending) == 0 {
				s.addPending(notifyPermission)
			}
		case agents.NoticeIdle:
			// The agent says it has been waiting for input for a while:
			// nothing runs and any dialog is gone. No second "done"
			// flash (the original's bug #400).
			s.base = Idle
			s.clearPending()
			s.endTurn(&e)
		case agents.NoticeQuestion:
			if !s.hasQuestion() {
				s.addPending(notifyElicitation)
			}
		case agents.NoticeAnswered:
			s.removeQuestions()
		default:
			s.flash(Notification, now, m.opts.AutoReturn[Notification])
		}
	case agents.KindQuestionAnswered:
		s.removeQuestions()
		s.base = s.busy(Working)
	case agents.KindSubagentStart:
		s.endDone()
		if e.SubagentID != "" {
			s.addSubagent(e.SubagentID)
		}
		s.base = Juggling
	case agents.KindSubagentStop:
		// agent_type "" is Claude's internal compaction agent, which
		// never had a SubagentStart.
		if e.SubagentType != "" {
			s.removeSubagent(e.SubagentID)
			if len(s.subagents) == 0 && s.base == Juggling {
				s.base = Working
			}
		}
	case agents.KindTurnEnd:
		s.clearPending()
		s.endTurn(&e)
		if e.Reason == agents.ReasonInterrupt {
			// The person cut the turn short (Codex's Interrupt): nothing
			// runs any more, and that is not "done" news. The same as
			// Claude's Esc, an interrupted tool failure.
			s.subagents = s.subagents[:0]
			s.base = Idle
		} else if e.BackgroundTasks > 0 {
			// Not done: background work will report back as a new
			// prompt (the original showed "done" here, bug #952).
			s.base = Juggling
		} else {
			s.subagents = s.subagents[:0]
			s.base = Idle
			s.flash(Attention, now, m.opts.AutoReturn[Attention])
			s.setOutcome(OutcomeDone, now, "")
		}
	case agents.KindTurnFailure:
		s.clearPending()
		s.endTurn(&e)
		s.base = Idle
		s.flash(Error, now, m.opts.AutoReturn[Error])
		s.setOutcome(OutcomeFailed, now, FailReason(&e))
	case agents.KindCompactStart:
		s.compactUntil = now.Add(m.opts.CompactTimeout)
	case agents.KindCompactEnd:
		// PostCompact is not "done" (the original's bug #449): back to
		// whatever the session was doing.
		s.compactUntil = time.Time{}
	case agents.KindWorktreeCreate:
		s.flash(Carrying, now, m.opts.AutoReturn[Carrying])
	case agents.KindState:
		switch {
		case st == Sleeping:
			// The original app's hooks sent "sleeping" on SessionEnd.
			removed = true
		case st.OneShot():
			s.flash(st, now, m.opts.AutoReturn[st])
		default:
			s.base = st
		}
	}

	if isBusy(s.base) && !isBusy(baseBefore) {
		// The session works again, whether a prompt said so or not
		// (an agent without prompt hooks, a script's POST /state): the
		// last turn's outcome is no longer what it is doing.
		s.setOutcome("", time.Time{}, "")
	}
	m.changes++
	res.Session = s.snapshot(now)
	if removed {
		m.remove(s)
		res.Removed = true
	}
	before := m.shown
	m.updateDisplay(now)
	res.Display, res.DisplayChanged = m.shown, m.shown != before
	return res
}

// late reports a late hook of a turn that ended (see session.late): it
// may have named the session, and changed nothing else.
func (m *Machine) late(s *session, e *agents.Event, now time.Time) Result {
	res := Result{Late: true, Ignored: !s.annotate(e), Session: s.snapshot(now)}
	if !res.Ignored {
		m.changes++
	}
	before := m.shown
	m.updateDisplay(now)
	res.Display, res.DisplayChanged = m.shown, m.shown != before
	return res
}

// ignored reports an event that changed nothing. The display may still
// move on: time has passed.
func (m *Machine) ignored(k Key, s *session, now time.Time) Result {
	res := Result{Ignored: true, Session: Session{Agent: k.Agent, ID: k.ID}}
	if s != nil {
		res.Session = s.snapshot(now)
	}
	before := m.shown
	m.updateDisplay(now)
	res.Display, res.DisplayChanged = m.shown, m.shown != before
	return res
}

// Resolve closes one pending entry of a session, by the key Apply returned
// in Result.PendingKey, when the request was settled outside the agent's
// hook events. It does not count as activity of the session. It reports
// Ignored when the session or the entry is unknown.
func (m *Machine) Resolve(k Key, pendingKey string, now time.Time) Result {
	m.now = now
	s := m.sessions[k]
	if s == nil || !s.hasPending(pendingKey) {
		return m.ignored(k, s, now)
	}
	s.removePending(pendingKey)
	m.changes++
	res := Result{Session: s.snapshot(now)}
	before := m.shown
	m.updateDisplay(now)
	res.Display, res.DisplayChanged = m.shown, m.shown != before
	return res
}

// HasPending reports whether session k still has the pending entry
// pendingKey: false once the agent's own events closed it (the tool ran,
// the turn ended) or the session is gone.
func (m *Machine) HasPending(k Key, pendingKey string) bool {
	s := m.sessions[k]
	return s != nil && s.hasPending(pendingKey)
}

// create tracks a new session k. At MaxSessions it first evicts the
// least recently active session that waits for nobody: a session with an
// open permission request or question is never evicted, so a flood of new
// sessions cannot drop a request the person is about to answer. When
// every session waits, there is no room and create returns nil.
func (m *Machine) create(k Key, now time.Time) (*session, *Session) {
	var evicted *Session
	if len(m.list) >= m.opts.MaxSessions {
		var victim *session
		for _, s := range m.list {
			if len(s.pending) == 0 && (victim == nil || lessRecent(s, victim)) {
				victim = s
			}
		}
		if victim == nil {
			return nil, nil
		}
		snap := victim.snapshot(now)
		evicted = &snap
		m.remove(victim)
	}
	s := &session{snap: Session{Agent: k.Agent, ID: k.ID, StartedAt: now}, base: Idle}
	s.idx = len(m.list)
	m.list = append(m.list, s)
	m.sessions[k] = s
	return s, evicted
}

// lessRecent reports whether a should be evicted before b: headless
// sessions first (nobody watches them), then the least recently active.
func lessRecent(a, b *session) bool {
	if a.snap.Headless != b.snap.Headless {
		return a.snap.Headless
	}
	if !a.snap.UpdatedAt.Equal(b.snap.UpdatedAt) {
		return a.snap.UpdatedAt.Before(b.snap.UpdatedAt)
	}
	return keyLess(a.key(), b.key())
}

func keyLess(a, b Key) bool { return compareKeys(a, b) < 0 }

// compareKeys orders keys by agent, then id.
func compareKeys(a, b Key) int { return cmp.Or(cmp.Compare(a.Agent, b.Agent), cmp.Compare(a.ID, b.ID)) }

func (m *Machine) remove(s *session) {
	// Kept even with no turn known: that the session ended is what a
	// late title of it is checked against (see Apply).
	m.keepEnded(s.key(), s.turns)
	last := len(m.list) - 1
	m.list[s.idx] = m.list[last]
	m.list[s.idx].idx = s.idx
	m.list[last] = nil
	m.list = m.list[:last]
	delete(m.sessions, s.key())
}

// maxEnded bounds the sessions whose turns Machine.ended keeps.
const maxEnded = 64

// keepEnded keeps the ledger of turns of session k, which is going, so
// that the late hooks of its turns (and a late title) do not bring it
// back.
func (m *Machine) keepEnded(k Key, l turns) {
	if _, ok := m.ended[k]; !ok {
		if len(m.endedOrder) == maxEnded {
			delete(m.ended, m.endedOrder[0])
			m.endedOrder = append(m.endedOrder[:0], m.endedOrder[1:]...)
		}
		m.endedOrder = append(m.endedOrder, k)
	}
	m.ended[k] = l
}

func (m *Machine) forgetEnded(k Key) {
	delete(m.ended, k)
	if i := slices.Index(m.endedOrder, k); i >= 0 {
		m.endedOrder = slices.Delete(m.endedOrder, i, i+1)
	}
}

// target is what the display should show at now, ignoring minimum display
// times.
func (m *Machine) target(now time.Time) State {
	best := Sleeping
	for _, s := range m.list {
		if s.snap.Headless {
			continue
		}
		if st := s.state(now); rank(st) > rank(best) {
			best = st
		}
	}
	if now.Before(m.flashUntil) && rank(Sweeping) > rank(best) {
		best = Sweeping
	}
	return best
}

// updateDisplay moves the shown state to the target once the shown one
// has had its minimum display time; Waiting is shown at once: the person
// is needed now, and no one-shot's animation holds that back.
func (m *Machine) updateDisplay(now time.Time) {
	t := m.target(now)
	if t == m.shown || t != Waiting && now.Sub(m.shownSince) < m.opts.MinDisplay[m.shown] {
		return
	}
	m.shown, m.shownSince = t, now
}

// Tick advances time-driven rules (one-shot return, minimum display
// times, stale sessions). alive reports whether a process id still runs; it
// may be nil, in which case no process is taken for dead.
//
// It returns one Result per session whose state changed or that was
// removed, sorted by key. When only the display changed, it returns a
// single Result with a zero Session and DisplayChanged set.
func (m *Machine) Tick(now time.Time, alive func(pid int) bool) []Result {
	m.now = now
	if !m.flashUntil.IsZero() && !now.Before(m.flashUntil) {
		m.flashUntil = time.Time{}
	}
	var out []Result
	for i := 0; i < len(m.list); {
		s := m.list[i]
		before := s.reported
		beforeBase := s.base
		if s.oneShot != "" && !now.Before(s.oneShotUntil) {
			s.oneShot, s.oneShotUntil = "", time.Time{}
		}
		if !s.compactUntil.IsZero() && !now.Before(s.compactUntil) {
			s.compactUntil = time.Time{}
		}
		pid := s.snap.AgentPID
		age := now.Sub(s.snap.UpdatedAt)
		remove, stale := false, false
		switch {
		case pid > 0 && alive != nil && !alive(pid):
			remove = true
		case age >= m.opts.SessionStale && !s.staleDone:
			// Silent for long. An agent that still runs is only idle
			// (a person may come back to it); without a live process
			// the session is gone (a killed agent sends no SessionEnd).
			if pid > 0 {
				s.base = Idle
				s.subagents = s.subagents[:0]
				s.staleDone = true
				stale = true
			} else {
				remove = true
			}
		case age >= m.opts.WorkingStale && isBusy(s.base):
			// A lost Stop must not leave the session busy forever. Pending
			// stays: a permission open in a live agent is still Waiting.
			s.base = Idle
			s.subagents = s.subagents[:0]
		}
		if remove {
			out = append(out, Result{Session: s.snapshot(now), Removed: true})
			m.remove(s)
			continue // the swap moved another session to i
		}
		if s.state(now) != before || s.base != beforeBase || stale {
			out = append(out, Result{Session: s.snapshot(now), Stale: stale})
		}
		i++
	}
	if len(out) > 0 {
		m.changes++
	}
	before := m.shown
	m.updateDisplay(now)
	changed := m.shown != before
	if len(out) == 0 && changed {
		out = append(out, Result{})
	}
	slices.SortFunc(out, func(a, b Result) int { return compareKeys(a.Session.Key(), b.Session.Key()) })
	for i := range out {
		out[i].Display, out[i].DisplayChanged = m.shown, changed
	}
	return out
}

func isBusy(s State) bool { return s == Thinking || s == Working || s == Juggling }

// Display returns the aggregate display state.
func (m *Machine) Display() State { return m.shown }

// Session returns the snapshot of one session.
func (m *Machine) Session(k Key) (Session, bool) {
	s := m.sessions[k]
	if s == nil {
		return Session{}, false
	}
	return s.peek(m.now), true
}

// Len returns the number of tracked sessions.
func (m *Machine) Len() int { return len(m.list) }

// Sessions returns every tracked session, most important first: by
// effective state priority, then most recently updated, then key.
func (m *Machine) Sessions() []Session {
	out := make([]Session, 0, len(m.list))
	for _, s := range m.list {
		out = append(out, s.peek(m.now))
	}
	slices.SortFunc(out, func(a, b Session) int {
		if ra, rb := rank(a.State), rank(b.State); ra != rb {
			return rb - ra
		}
		if !a.UpdatedAt.Equal(b.UpdatedAt) {
			return b.UpdatedAt.Compare(a.UpdatedAt)
		}
		return compareKeys(a.Key(), b.Key())
	})
	return out
}

// NextWake returns when Tick should next run for time-driven rules other
// than process liveness, or the zero time if nothing is scheduled: the
// earliest of one-shot and flash expiries, a display change held back by a
// minimum display time, and the working-stale and session-stale deadlines.
// Right after a Tick it is always later than that Tick; after an Apply it
// may be earlier than the Apply's time, which means a Tick is due now.
func (m *Machine) NextWake() time.Time {
	var w time.Time
	at := func(t time.Time) {
		if !t.IsZero() && (w.IsZero() || t.Before(w)) {
			w = t
		}
	}
	at(m.flashUntil)
	for _, s := range m.list {
		if s.oneShot != "" {
			at(s.oneShotUntil)
		}
		at(s.compactUntil)
		if isBusy(s.base) {
			at(s.snap.UpdatedAt.Add(m.opts.WorkingStale))
		}
		if !s.staleDone {
			at(s.snap.UpdatedAt.Add(m.opts.SessionStale))
		}
	}
	if t := m.target(m.now); t != m.shown && t != Waiting {
		at(m.shownSince.Add(m.opts.MinDisplay[m.shown]))
	}
	return w
}

// Retitle gives an existing session a title from src without counting as
// activity: its state, age and staleness stay as they are. It takes the
// agent's own title reported out of band (a rename in an index file, a
// transcript) and the person's (an empty one takes theirs away). It
// reports whether the title shown changed.
func (m *Machine) Retitle(k Key, title string, src agents.TitleSource) bool {
	s := m.sessions[k]
	if s == nil {
		return false
	}
	before := s.titles
	changed := s.retitle(title, src)
	if s.titles != before {
		m.changes++
	}
	return changed
}
