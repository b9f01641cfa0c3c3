package recap

import (
	"time"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/statemachine"
)

// Scope is what a recap row is about: a day, an agent and a folder. The
// folder is its hash (see Hash), never its name.
type Scope struct {
	Day    Day    `json:"day"`
	Agent  string `json:"agent"`
	Folder string `json:"folder"`
}

// Counts are what a recap row counts.
type Counts struct {
	// Sessions is the number of distinct sessions; a Tally's rows leave
	// it 0 and say which sessions they saw in Batch.Sessions.
	Sessions    int `json:"sessions"`
	Turns       int `json:"turns"`
	ToolCalls   int `json:"tool_calls"`
	Permissions int `json:"permissions"`
	Questions   int `json:"questions"`
	FailedTurns int `json:"failed_turns"`
	// Waiting is how long sessions had a permission request or a
	// question open: time they waited for the person.
	Waiting time.Duration `json:"-"`
	// Busy is how long sessions were thinking, running tools or
	// subagents, not counting the time they waited.
	Busy time.Duration `json:"-"`
	// Tools counts tool calls by tool.
	Tools map[string]int `json:"-"`
}

// Add adds o to c.
func (c *Counts) Add(o *Counts) {
	c.Sessions += o.Sessions
	c.Turns += o.Turns
	c.ToolCalls += o.ToolCalls
	c.Permissions += o.Permissions
	c.Questions += o.Questions
	c.FailedTurns += o.FailedTurns
	c.Waiting += o.Waiting
	c.Busy += o.Busy
	for tool, n := range o.Tools {
		if c.Tools == nil {
			c.Tools = map[string]int{}
		}
		c.Tools[tool] += n
	}
}

// Seen is one session seen in a scope.
type Seen struct {
	Scope
	// Session is the session's hash (agent and id).
	Session string
}

// Batch is what a Tally counted between two Takes.
type Batch struct {
	Rows map[Scope]*Counts
	// Sessions are the sessions seen per scope, each once per Batch.
	Sessions []Seen
}

// Hash turns what must not be stored in the clear (a folder, a session
// id) into a stable hash: an HMAC with a key of this installation. kind
// separates the namespaces.
type Hash func(kind, value string) string

// Hash kinds.
const (
	HashFolder  = "folder"
	HashSession = "session"
)

// maxTools bounds the tools counted by name per row; the rest are counted
// as OtherTools.
const maxTools = 64

// OtherTools is the name the tools past maxTools of a row count under.
const OtherTools = "(other)"

// live is what a Tally follows of one tracked session: since when it is
// busy or waiting, and where its time goes.
type live struct {
	agent, folder, session string
	// path is the folder's name, so it is hashed once, not per event.
	path                 string
	busySince, waitSince time.Time
	// row is the counts of the scope it counted in last, on day rowDay of
	// batch gen: most events of a session count in the same row.
	row    *Counts
	rowDay Day
	rowGen int
}

// Tally counts a running runtime's activity until it is taken. It is not
// safe for concurrent use: the runtime feeds it under its session lock.
type Tally struct {
	loc   *time.Location
	hash  Hash
	batch Batch
	gen   int // counts the batches taken
	seen  map[Seen]bool
	live  map[statemachine.Key]*live
	// today is the day of the latest event, [todayStart, todayEnd).
	today                Day
	todayStart, todayEnd time.Time
}

// NewTally returns a tally counting days in loc, hashing with hash.
func NewTally(loc *time.Location, hash Hash) *Tally {
	t := &Tally{loc: loc, hash: hash, live: map[statemachine.Key]*live{}}
	t.reset()
	return t
}

func (t *Tally) reset() {
	t.batch = Batch{Rows: map[Scope]*Counts{}}
	t.seen = map[Seen]bool{}
	t.gen++
}

// dayOf is DayOf(now, t.loc), without formatting a date per event.
func (t *Tally) dayOf(now time.Time) Day {
	if now.Before(t.todayStart) || !now.Before(t.todayEnd) {
		t.today = DayOf(now, t.loc)
		t.todayStart, t.todayEnd = t.today.Bounds(t.loc)
	}
	return t.today
}

// Folder is the folder a session's activity counts for: the project it
// runs in where the agent says, else its working folder.
func Folder(s statemachine.Session) string {
	if s.ProjectDir != "" {
		return s.ProjectDir
	}
	return s.Cwd
}

// Place is the folder a session's activity counts for in the recap: its
// Folder, on its remote machine (OnHost) when it runs on one, so that a
// remote's folder and this machine's of the same path count apart.
func Place(s statemachine.Session) string { return OnHost(s.Host, Folder(s)) }

// OnHost names folder on host ("box:/home/u/shop"); host "" is this
// machine, where a folder is its path.
func OnHost(host, folder string) string {
	if host == "" {
		return folder
	}
	return host + ":" + folder
}

// row returns the counts of a session's scope on day d, noting the
// session as seen there.
func (t *Tally) row(l *live, d Day) *Counts {
	if l.row != nil && l.rowGen == t.gen && l.rowDay == d {
		return l.row
	}
	sc := Scope{Day: d, Agent: l.agent, Folder: l.folder}
	c := t.batch.Rows[sc]
	if c == nil {
		c = &Counts{}
		t.batch.Rows[sc] = c
	}
	if s := (Seen{sc, l.session}); !t.seen[s] {
		t.seen[s] = true
		t.batch.Sessions = append(t.batch.Sessions, s)
	}
	l.row, l.rowDay, l.rowGen = c, d, t.gen
	return c
}

// Apply counts an event the runtime applied, given the session as the
// state machine left it (removed: the event ended it).
func (t *Tally) Apply(e *agents.Event, s statemachine.Session, removed bool, now time.Time) {
	l := t.follow(s, now)
	c := t.row(l, t.dayOf(now))
	switch e.Kind {
	case agents.KindPromptSubmit:
		if e.SubagentID == "" {
			c.Turns++
		}
	case agents.KindToolStart:
		c.ToolCalls++
		tool := e.ToolName
		if tool == "" {
			tool = OtherTools
		}
		if c.Tools == nil {
			c.Tools = map[string]int{}
		}
		if _, known := c.Tools[tool]; !known && len(c.Tools) >= maxTools {
			tool = OtherTools
		}
		c.Tools[tool]++
	case agents.KindPermissionRequest:
		c.Permissions++
	case agents.KindQuestion:
		c.Questions++
	case agents.KindTurnFailure:
		c.FailedTurns++
	}
	t.session(l, s, removed, now)
}

// Session follows a session's state as the state machine left it after
// anything (an event, the clock, an answer given in clawd): the time it
// spent busy or waiting up to now is counted, on the days it fell on.
func (t *Tally) Session(s statemachine.Session, removed bool, now time.Time) {
	t.session(t.follow(s, now), s, removed, now)
}

func (t *Tally) session(l *live, s statemachine.Session, removed bool, now time.Time) {
	t.accrue(l, now)
	if removed {
		delete(t.live, s.Key())
		return
	}
	if isBusy(s) {
		l.busySince = now
	}
	if s.Pending > 0 {
		l.waitSince = now
	}
}

// follow returns the live record of s, with its scope as it is now.
func (t *Tally) follow(s statemachine.Session, now time.Time) *live {
	k := s.Key()
	l := t.live[k]
	if l == nil {
		l = &live{agent: s.Agent, session: t.hash(HashSession, s.Agent+"\x00"+s.ID)}
		t.live[k] = l
	}
	path := Place(s)
	if l.folder != "" && path == l.path {
		return l
	}
	if l.folder != "" {
		// The session moved: its time so far counts where it was.
		t.carry(l, now)
	}
	l.path, l.folder, l.row = path, t.hash(HashFolder, path), nil
	return l
}

// carry counts l's busy and waiting time up to now and keeps the clocks
// that ran running from now.
func (t *Tally) carry(l *live, now time.Time) {
	busy, waiting := !l.busySince.IsZero(), !l.waitSince.IsZero()
	t.accrue(l, now)
	if busy {
		l.busySince = now
	}
	if waiting {
		l.waitSince = now
	}
}

// accrue counts l's busy and waiting time up to now and stops the clocks.
func (t *Tally) accrue(l *live, now time.Time) {
	if !l.busySince.IsZero() {
		Split(l.busySince, now, t.loc, func(d Day, dur time.Duration) { t.row(l, d).Busy += dur })
		l.busySince = time.Time{}
	}
	if !l.waitSince.IsZero() {
		Split(l.waitSince, now, t.loc, func(d Day, dur time.Duration) { t.row(l, d).Waiting += dur })
		l.waitSince = time.Time{}
	}
}

// isBusy reports whether a session is at work for its own sake: thinking,
// running tools or subagents, and not waiting for the person.
func isBusy(s statemachine.Session) bool {
	if s.Pending > 0 {
		return false
	}
	switch s.BaseState {
	case statemachine.Thinking, statemachine.Working, statemachine.Juggling:
		return true
	}
	return false
}

// Take returns what was counted since the last Take, the busy and waiting
// time of the sessions still running included up to now, and starts
// afresh.
func (t *Tally) Take(now time.Time) Batch {
	for _, l := range t.live {
		t.carry(l, now)
	}
	b := t.batch
	t.reset()
	return b
}
