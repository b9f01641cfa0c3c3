// Package statemachine turns normalized agent events into per-session
// states and one aggregate display state: what the tray icon, `clawd
// status` and the dashboard show. It is pure: no I/O, no goroutines, and
// time is always passed in.
package statemachine

import (
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
	// Waiting is not in the original app: a session blocked on the person
	// (a permission request or a question) stays Waiting until the request
	// is answered, withdrawn or the turn ends. The original only flashed a
	// 2.5 s "notification", which loses the one fact clawd exists to show.
	Waiting State = "waiting"
	// Error is a one-shot after a failed tool or turn.
	Error State = "error"
)

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
	Cwd         string
	ProjectDir  string
	Headless    bool
	AgentPID    int
	Tool        string // tool running or last run
	Subagents   int    // running subagents
	Pending     int    // open permission requests and questions
	LastKind    agents.Kind
	StartedAt   time.Time
	UpdatedAt   time.Time
}

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
}

// Options tunes a Machine. Zero values take the defaults of DefaultOptions.
type Options struct {
	MaxSessions  int
	WorkingStale time.Duration
	SessionStale time.Duration
	// MinDisplay is how long the display shows a state before another may
	// replace it. AutoReturn is how long a one-shot lasts in a session.
	MinDisplay map[State]time.Duration
	AutoReturn map[State]time.Duration
}

// Machine tracks sessions. It is not safe for concurrent use.
type Machine struct {
	opts Options
}

// New returns an empty machine.
func New(opts Options) *Machine { return &Machine{opts: opts} }

// Apply feeds one event into the machine at time now.
func (m *Machine) Apply(e agents.Event, now time.Time) Result { panic("todo") }

// Tick advances time-driven rules (one-shot return, minimum display
// times, stale sessions). alive reports whether a process id still runs; it
// may be nil.
func (m *Machine) Tick(now time.Time, alive func(pid int) bool) []Result { panic("todo") }

// Display returns the aggregate display state.
func (m *Machine) Display() State { panic("todo") }

// Sessions returns every tracked session, most important first.
func (m *Machine) Sessions() []Session { panic("todo") }

// NextWake returns when Tick should next run for time-driven rules other
// than process liveness, or the zero time if nothing is scheduled.
func (m *Machine) NextWake() time.Time { panic("todo") }
