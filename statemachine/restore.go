package statemachine

import (
	"slices"
	"time"
	"unicode/utf8"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/internal/text"
)

// MaxSavedKeys caps each list of keys a Saved session keeps (open
// requests, questions, running subagents): a session rarely has more than
// a few, and a saved record stays a few kilobytes.
const MaxSavedKeys = 16

// Saved is a session as Save hands it out for a later Restore, when the
// runtime starts again: its snapshot and what the machine needs to carry
// on with it. One-shots and a running compaction are not kept: they are
// moments, long over once the runtime is back.
type Saved struct {
	// Session is the snapshot; its State, Pending, Questions and
	// Subagents are derived again from BaseState and the lists below.
	Session Session
	// Pending are the keys of the open permission requests and
	// questions; Asks are those of Pending that a question opened.
	Pending []string
	Asks    []string
	// Subagents are the ids of the running subagents.
	Subagents []string
	// Turns is the ledger of the agent's turn ids, oldest first, so
	// that a late hook of a turn that ended before the restart is still
	// told from news.
	Turns []SavedTurn
	// NoInfer: the open turn saw an id no prompt announced (see turns).
	NoInfer bool
	// StaleDone: the session-stale rule already kept this session.
	StaleDone bool
}

// SavedTurn is one turn id of a session's ledger.
type SavedTurn struct {
	ID   string
	Open bool
}

// Changes counts the changes to the sessions since the machine was made:
// when it moved, what Save returns may differ. The runtime writes its
// journal of sessions only then.
func (m *Machine) Changes() uint64 { return m.changes }

// Save returns every tracked session as Restore takes it, sorted by key.
func (m *Machine) Save() []Saved {
	out := make([]Saved, 0, len(m.list))
	for _, s := range m.list {
		sv := Saved{
			Session:   s.peek(m.now),
			Pending:   clipKeys(s.pending),
			Asks:      clipKeys(s.asks),
			Subagents: clipKeys(s.subagents),
			NoInfer:   s.turns.noInfer,
			StaleDone: s.staleDone,
		}
		for i := range recentTurns {
			if t := s.turns.ids[(s.turns.next+i)%recentTurns]; t.id != "" {
				sv.Turns = append(sv.Turns, SavedTurn{ID: t.id, Open: t.open})
			}
		}
		out = append(out, sv)
	}
	slices.SortFunc(out, func(a, b Saved) int { return compareKeys(a.Session.Key(), b.Session.Key()) })
	return out
}

// clipKeys copies the newest MaxSavedKeys of keys.
func clipKeys(keys []string) []string {
	if len(keys) == 0 {
		return nil
	}
	return slices.Clone(keys[max(0, len(keys)-MaxSavedKeys):])
}

// Restored is what Restore did.
type Restored struct {
	// Sessions are the sessions restored, as they are now.
	Sessions []Session
	// Dropped are the sessions there was no room for (MaxSessions, the
	// least recently active first to go, as an eviction picks them).
	Dropped []Session
	// Invalid counts the records refused: no agent or id, an id or path
	// longer than any event carries, or a session already tracked (the
	// live one knows better).
	Invalid int
}

// Restore tracks the sessions of saved again, as they were when they were
// saved, at time now: their titles (every source), folders, agent, base
// state, open requests, running subagents, ledger of turns, last outcome,
// turns and times (an UpdatedAt after now is taken as now: a clock that
// went back must not keep a session fresh). It is meant for a machine
// that tracks nothing yet; a session it already tracks is left as it is.
// Fields are checked as an event's are (see agents.Event.Validate):
// titles and the failure reason are made safe lines again, a state that
// is no base state is Idle, and keys beyond MaxSavedKeys are dropped.
// When saved holds more than MaxSessions, the most recently active are
// restored. Whether each session's agent still runs is the caller's to
// check (Tick's liveness rule takes the ones it finds gone).
func (m *Machine) Restore(saved []Saved, now time.Time) Restored {
	var res Restored
	if now.After(m.now) {
		m.now = now
	}
	picked := make(map[Key]*Saved, len(saved))
	for i := range saved {
		sv := &saved[i]
		k := sv.Session.Key()
		if !validSaved(sv) || m.sessions[k] != nil {
			res.Invalid++
			continue
		}
		if prev := picked[k]; prev != nil {
			// The same session twice: the newer record wins.
			res.Invalid++
			if !sv.Session.UpdatedAt.After(prev.Session.UpdatedAt) {
				continue
			}
		}
		picked[k] = sv
	}
	order := make([]*session, 0, len(picked))
	for _, sv := range picked {
		order = append(order, restoredSession(sv, now))
	}
	// Most recently active first: the room goes to them.
	slices.SortFunc(order, func(a, b *session) int {
		switch {
		case lessRecent(b, a):
			return -1
		case lessRecent(a, b):
			return 1
		}
		return 0
	})
	for _, s := range order {
		if len(m.list) >= m.opts.MaxSessions {
			res.Dropped = append(res.Dropped, s.peek(now))
			continue
		}
		s.idx = len(m.list)
		m.list = append(m.list, s)
		m.sessions[s.key()] = s
		res.Sessions = append(res.Sessions, s.snapshot(now))
	}
	if len(res.Sessions) > 0 {
		m.changes++
	}
	m.updateDisplay(now)
	return res
}

// validSaved reports whether sv names a session the way events do.
func validSaved(sv *Saved) bool {
	ss := &sv.Session
	if ss.Agent == "" || len(ss.Agent) > agents.MaxWordLen || ss.ID == "" || len(ss.ID) > agents.MaxIDLen ||
		len(ss.Cwd) > agents.MaxPathLen || len(ss.ProjectDir) > agents.MaxPathLen ||
		len(ss.Tool) > agents.MaxIDLen || len(ss.Host) > agents.MaxIDLen || len(ss.LastKind) > agents.MaxWordLen ||
		!utf8.ValidString(ss.ID) {
		return false
	}
	for _, keys := range [][]string{sv.Pending, sv.Asks, sv.Subagents} {
		for _, k := range keys {
			if k == "" || len(k) > agents.MaxIDLen+len(hashPrefix) {
				return false
			}
		}
	}
	for _, t := range sv.Turns {
		if t.ID == "" || len(t.ID) > agents.MaxIDLen {
			return false
		}
	}
	return true
}

// restoredSession builds the machine's record of sv at now.
func restoredSession(sv *Saved, now time.Time) *session {
	snap := sv.Session
	snap.State, snap.Pending, snap.Questions, snap.Subagents = "", 0, 0, 0
	snap.Titles = agents.Titles{
		Person: text.Line(snap.Titles.Person, agents.MaxTitleLen),
		Agent:  text.Line(snap.Titles.Agent, agents.MaxTitleLen),
		Prompt: text.Line(snap.Titles.Prompt, agents.MaxTitleLen),
	}
	snap.Title, snap.TitleSource = snap.Titles.Best()
	snap.FailReason = text.Line(snap.FailReason, MaxFailReason)
	switch snap.Outcome {
	case OutcomeDone, OutcomeFailed:
	default:
		snap.Outcome, snap.OutcomeAt, snap.FailReason = "", time.Time{}, ""
	}
	if snap.Turns < 0 {
		snap.Turns = 0
	}
	if snap.AgentPID < 0 {
		snap.AgentPID = 0
	}
	if snap.UpdatedAt.IsZero() || snap.UpdatedAt.After(now) {
		snap.UpdatedAt = now
	}
	if snap.StartedAt.IsZero() || snap.StartedAt.After(snap.UpdatedAt) {
		snap.StartedAt = snap.UpdatedAt
	}
	if snap.OutcomeAt.After(snap.UpdatedAt) {
		snap.OutcomeAt = snap.UpdatedAt
	}
	base := sv.Session.BaseState
	if base == "" {
		base = sv.Session.State
	}
	switch base {
	case Idle, Thinking, Working, Juggling, Waiting:
	default:
		// A one-shot, sleeping or no state at all: nothing known runs.
		base = Idle
	}
	s := &session{snap: snap, base: base, titles: snap.Titles, staleDone: sv.StaleDone}
	s.pending = clipKeys(sv.Pending)
	for _, k := range clipKeys(sv.Asks) {
		if slices.Contains(s.pending, k) {
			s.asks = append(s.asks, k)
		}
	}
	s.subagents = clipKeys(sv.Subagents)
	if base == Juggling && len(s.subagents) == 0 {
		// Juggling is sticky only while subagents run.
		s.base = Working
	}
	turns := sv.Turns[max(0, len(sv.Turns)-recentTurns):]
	for _, t := range turns {
		s.turns.add(t.ID, t.Open)
	}
	s.turns.noInfer = sv.NoInfer && s.turns.isOpen()
	s.snap.BaseState = s.base
	return s
}
