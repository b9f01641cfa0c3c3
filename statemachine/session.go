package statemachine

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/internal/text"
)

// recentCalls bounds the per-session memory of tool calls used to tie a
// permission request, which has no tool_use_id in Claude Code 2.1.328, to
// the PreToolUse that announced it.
const recentCalls = 64

// Keys of pending entries that stand in for a dialog clawd only heard of
// through a notification.
const (
	notifyPermission  = "notify:dialog"
	notifyElicitation = "notify:elicitation"
	hashPrefix        = "hash:"
	questionPrefix    = "q:"
)

// recentTurns bounds the per-session ledger of turn ids (see turns).
const recentTurns = 16

// turnID is a turn id a session saw: open while its turn runs, retired
// once the turn ended.
type turnID struct {
	id   string
	open bool
}

// turns is a session's ledger of the agent's own turn ids (Claude's
// prompt_id, Codex's turn_id: agents.Event.TurnID), the last recentTurns
// of them. The hooks of one turn run as separate processes, so a turn's
// PostToolUse or PostToolBatch may reach clawd after its Stop, even after
// the next prompt: the ledger tells such a late hook from news (see
// session.late).
type turns struct {
	ids  [recentTurns]turnID
	next int
	// noInfer is set while the open turn has seen an id no prompt
	// announced: whose results a batch sent back to the model is then
	// anyone's guess, so a batch does not move the phase.
	noInfer bool
}

func (l *turns) find(id string) *turnID {
	for i := range l.ids {
		if l.ids[i].id == id {
			return &l.ids[i]
		}
	}
	return nil
}

// isOpen reports whether a turn is open.
func (l *turns) isOpen() bool {
	for _, t := range l.ids {
		if t.open {
			return true
		}
	}
	return false
}

// add records id, open or retired, in place of the oldest entry.
func (l *turns) add(id string, open bool) {
	if t := l.find(id); t != nil {
		t.open = open
		return
	}
	l.ids[l.next] = turnID{id: id, open: open}
	l.next = (l.next + 1) % recentTurns
}

// retire ends the open turn, and id with it when it is not empty: every
// id the turn saw is retired.
func (l *turns) retire(id string) {
	for i := range l.ids {
		l.ids[i].open = false
	}
	if id != "" {
		l.add(id, false)
	}
	l.noInfer = false
}

type call struct {
	id, hash string
	done     bool // ended, failed, denied or closed by a batch
}

// session is the machine's record of one session. snap holds the fields a
// snapshot shows; the rest is bookkeeping.
type session struct {
	snap Session
	idx  int // position in Machine.list
	base State
	// titles are the session's names by source; snap shows the best.
	titles agents.Titles

	oneShot      State
	oneShotUntil time.Time
	// compactUntil is set while a compaction runs (capped).
	compactUntil time.Time

	// pending holds the keys of open permission requests and questions;
	// there are rarely more than a few, so a slice beats a map. asks are
	// those of pending that a question opened, where the key does not say
	// so itself (see isQuestion).
	pending   []string
	asks      []string
	subagents []string

	calls    [recentCalls]call
	nextCall int

	turns turns

	// staleDone is set once the session-stale rule kept this session
	// because its agent still runs; any event clears it.
	staleDone bool
	// reported is the effective state last handed out in a Result, so
	// Tick can tell which sessions changed.
	reported State
}

func (s *session) key() Key { return Key{s.snap.Agent, s.snap.ID} }

// state is the effective state at now: the highest of the active
// one-shot, compaction, Waiting while anything is pending, and BaseState.
func (s *session) state(now time.Time) State {
	best := s.base
	if len(s.pending) > 0 && rank(Waiting) > rank(best) {
		best = Waiting
	}
	if now.Before(s.compactUntil) && rank(Sweeping) > rank(best) {
		best = Sweeping
	}
	if s.oneShot != "" && now.Before(s.oneShotUntil) && rank(s.oneShot) >= rank(best) {
		best = s.oneShot
	}
	return best
}

// peek returns the snapshot without marking it as reported.
func (s *session) peek(now time.Time) Session {
	snap := s.snap
	snap.State = s.state(now)
	snap.BaseState = s.base
	snap.Pending = len(s.pending)
	snap.Questions = s.questions()
	snap.Subagents = len(s.subagents)
	snap.Titles = s.titles
	return snap
}

// snapshot returns the snapshot that goes into a Result.
func (s *session) snapshot(now time.Time) Session {
	snap := s.peek(now)
	s.reported = snap.State
	return snap
}

// touch records what every event says about the session.
func (s *session) touch(e *agents.Event, now time.Time) {
	s.snap.UpdatedAt = now
	s.snap.LastKind = e.Kind
	s.staleDone = false
	if e.Cwd != "" {
		s.snap.Cwd = e.Cwd
	}
	if e.ProjectDir != "" {
		s.snap.ProjectDir = e.ProjectDir
	}
	if e.AgentPID > 0 {
		s.snap.AgentPID = e.AgentPID
	}
	if e.Host != "" {
		s.snap.Host = e.Host
	}
	s.snap.Headless = e.Headless
	if e.Title != "" {
		s.retitle(e.Title, titleSource(e))
	}
}

// titleSource is where e's title came from. A title whose source the
// sender did not say (a script's POST /state) ranks lowest, as a
// prompt's.
func titleSource(e *agents.Event) agents.TitleSource {
	return cmp.Or(e.TitleSource, agents.TitleFromPrompt)
}

// late reports whether e is a late hook of a turn that already ended, and
// keeps the ledger of turns (seed 000 §1.2, the original's PostToolBatch
// arbitration):
//
//   - a prompt opens its turn (and reopens an id an agent uses again)
//     and retires the one before, whose Stop may never come (Esc while
//     the model thinks fires no hook);
//   - a hook of a retired turn is late: it may name the session (see
//     annotate), never change its phase, its liveness or its requests;
//   - an id never seen while a turn is open joins that turn, and turns
//     off the batch's inference for it (turns.noInfer): the open turn
//     is not retired, and the new id's own Stop ends it as any Stop;
//   - a tool hook of an id never seen, with no turn open, opens a
//     (queued) turn without a prompt; a batch does not (see Apply).
//
// Never late: events without a turn id; the session's start and end,
// which are the session's, not a turn's; permission requests and
// questions, whose hook blocks the agent until it hears back, so they
// are news whatever turn they name; and the hooks of a subagent still
// running, which carry the prompt that launched it after that prompt's
// Stop (background agents).
func (s *session) late(e *agents.Event) bool { return s.turns.late(e, s.subagents) }

// late is session.late for a session whose running subagents are
// subagents.
func (l *turns) late(e *agents.Event, subagents []string) bool {
	id := e.TurnID
	if id == "" || e.SubagentID != "" && slices.Contains(subagents, e.SubagentID) {
		return false
	}
	switch e.Kind {
	case agents.KindSessionStart, agents.KindSessionEnd, agents.KindPermissionRequest, agents.KindQuestion:
		return false
	}
	main := e.SubagentID == ""
	t := l.find(id)
	switch {
	case main && (e.Kind == agents.KindPromptSubmit || e.Kind == agents.KindPromptExpansion):
		if t == nil || !t.open {
			l.retire("")
			l.add(id, true)
		}
		return false
	case t != nil:
		return !t.open
	case l.isOpen():
		l.add(id, true)
		l.noInfer = true
	case main && opensTurn(e.Kind):
		l.add(id, true)
	}
	return false
}

// endTurn ends the session's open turn, the agent's own (a subagent's
// Stop or failure ends only the subagent's): its ids, and e's, are
// retired.
func (s *session) endTurn(e *agents.Event) {
	if e.SubagentID == "" {
		s.turns.retire(e.TurnID)
	}
}

// opensTurn reports whether a hook of kind k, of a turn never seen, opens
// one when none is open: the calls of a prompt whose submit clawd missed.
func opensTurn(k agents.Kind) bool {
	switch k {
	case agents.KindToolStart, agents.KindToolEnd, agents.KindToolFailure,
		agents.KindPermissionDenied, agents.KindPermissionGranted:
		return true
	}
	return false
}

// annotate takes from a late hook what it may still say about the
// session and reports whether anything changed: its title, and its
// folders where the session has none yet (a late hook's folder is older
// than what the session knows: the turn after may have changed it). It is
// no activity: the session's age, last event and staleness stay.
func (s *session) annotate(e *agents.Event) bool {
	changed := false
	if e.Cwd != "" && s.snap.Cwd == "" {
		s.snap.Cwd, changed = e.Cwd, true
	}
	if e.ProjectDir != "" && s.snap.ProjectDir == "" {
		s.snap.ProjectDir, changed = e.ProjectDir, true
	}
	if e.Title != "" && s.retitle(e.Title, titleSource(e)) {
		changed = true
	}
	return changed
}

// retitle records a title from src (see agents.Titles for which wins) and
// reports whether the title shown changed.
func (s *session) retitle(title string, src agents.TitleSource) bool {
	if !s.titles.Set(title, src) {
		return false
	}
	before, beforeSrc := s.snap.Title, s.snap.TitleSource
	s.snap.Title, s.snap.TitleSource = s.titles.Best()
	return s.snap.Title != before || s.snap.TitleSource != beforeSrc
}

// busy returns Juggling while subagents run, else st: juggling is sticky.
func (s *session) busy(st State) State {
	if len(s.subagents) > 0 {
		return Juggling
	}
	return st
}

// setOutcome records how the last turn ended (see Session.Outcome); the
// zero values clear it.
func (s *session) setOutcome(o Outcome, at time.Time, reason string) {
	s.snap.Outcome, s.snap.OutcomeAt, s.snap.FailReason = o, at, reason
}

// FailReason is why the turn of the failure e failed, as Session.FailReason
// keeps it: the agent's own words, else its ErrorKind unless that says no
// more than "failed" ("error", "unknown").
func FailReason(e *agents.Event) string {
	r := e.ErrorText
	if r == "" {
		switch k := strings.ToLower(strings.TrimSpace(e.ErrorKind)); k {
		case "", "error", "unknown":
		default:
			r = e.ErrorKind
		}
	}
	return text.Line(r, MaxFailReason)
}

func (s *session) flash(st State, now time.Time, d time.Duration) {
	s.oneShot, s.oneShotUntil = st, now.Add(d)
}

// endDone ends an Attention one-shot: once the session works again its
// last turn's "done" is stale news. (The display still holds it for its
// minimum display time.) Other one-shots run their course: an error flash
// stays visible over the next tool call.
func (s *session) endDone() {
	if s.oneShot == Attention {
		s.oneShot, s.oneShotUntil = "", time.Time{}
	}
}

func (s *session) addSubagent(id string) {
	for _, a := range s.subagents {
		if a == id {
			return
		}
	}
	s.subagents = append(s.subagents, id)
}

func (s *session) removeSubagent(id string) {
	for i, a := range s.subagents {
		if a == id {
			s.subagents = append(s.subagents[:i], s.subagents[i+1:]...)
			return
		}
	}
}

// remember records a started tool call in the ring of recent calls.
func (s *session) remember(id, hash string) {
	s.calls[s.nextCall] = call{id: id, hash: hash}
	s.nextCall = (s.nextCall + 1) % recentCalls
}

func (s *session) markDone(id string) {
	if id == "" {
		return
	}
	for i := range s.calls {
		if s.calls[i].id == id {
			s.calls[i].done = true
		}
	}
}

// openCall returns the id of the most recent call with this input hash
// that has neither finished nor a pending entry of its own.
func (s *session) openCall(hash string) string {
	for n := 1; n <= recentCalls; n++ {
		c := &s.calls[(s.nextCall-n+recentCalls)%recentCalls]
		if c.id == "" {
			break // the ring has not wrapped yet
		}
		if c.hash == hash && !c.done && !s.hasPending(c.id) {
			return c.id
		}
	}
	return ""
}

// pendingKey keys a permission request or question as precisely as the
// event allows, so answering one of several parallel requests leaves the
// others open.
func (s *session) pendingKey(e *agents.Event) string {
	if e.ToolUseID != "" {
		return e.ToolUseID
	}
	if e.InputHash != "" {
		if id := s.openCall(e.InputHash); id != "" {
			return id
		}
		return hashPrefix + e.InputHash
	}
	return questionPrefix + e.ToolName
}

// closeCall handles the end of a tool call (done, failed or denied): its
// pending entry goes, so does one keyed by its input hash, and so does the
// stand-in of a permission_prompt notification.
func (s *session) closeCall(e *agents.Event) {
	s.markDone(e.ToolUseID)
	if e.ToolUseID != "" {
		s.removePending(e.ToolUseID)
	}
	if e.InputHash != "" {
		s.removeHashPending(e.InputHash)
	}
	s.removePending(notifyPermission)
	// An MCP server asks its questions (elicitations) while one of its
	// tool calls runs: when the call is over, so is the question, also
	// when a hook answered it and no ElicitationResult fired.
	if server := mcpServer(e.ToolName); server != "" {
		s.removePendingIf(func(k string) bool {
			return k == notifyElicitation ||
				(len(k) == len(questionPrefix)+len(server) &&
					strings.HasPrefix(k, questionPrefix) && k[len(questionPrefix):] == server)
		})
	}
}

// removeHashPending removes the pending entry of a request keyed by the
// input hash h.
func (s *session) removeHashPending(h string) {
	s.removePendingIf(func(k string) bool {
		return len(k) == len(hashPrefix)+len(h) && strings.HasPrefix(k, hashPrefix) && k[len(hashPrefix):] == h
	})
}

// mcpServer returns the server of an MCP tool name (mcp__server__tool).
func mcpServer(tool string) string {
	rest, ok := strings.CutPrefix(tool, "mcp__")
	if !ok {
		return ""
	}
	server, _, ok := strings.Cut(rest, "__")
	if !ok {
		return ""
	}
	return server
}

func (s *session) hasPending(key string) bool {
	for _, k := range s.pending {
		if k == key {
			return true
		}
	}
	return false
}

func (s *session) addPending(key string) {
	if !s.hasPending(key) {
		s.pending = append(s.pending, key)
	}
}

func (s *session) removePending(key string) {
	s.removePendingIf(func(k string) bool { return k == key })
}

func (s *session) removePendingIf(drop func(string) bool) {
	s.pending = dropIf(s.pending, drop)
	s.asks = dropIf(s.asks, drop)
}

// dropIf removes the keys drop picks from keys, in place.
func dropIf(keys []string, drop func(string) bool) []string {
	out := keys[:0]
	for _, k := range keys {
		if !drop(k) {
			out = append(out, k)
		}
	}
	clear(keys[len(out):])
	return out
}

func (s *session) clearPending() {
	clear(s.pending)
	s.pending = s.pending[:0]
	clear(s.asks)
	s.asks = s.asks[:0]
}

// addQuestion adds the pending entry of a question.
func (s *session) addQuestion(key string) {
	s.addPending(key)
	if !isQuestion(key) && !slices.Contains(s.asks, key) {
		s.asks = append(s.asks, key)
	}
}

// questions counts the pending entries that are questions.
func (s *session) questions() int {
	n := len(s.asks)
	for _, k := range s.pending {
		if isQuestion(k) {
			n++
		}
	}
	return n
}

// isQuestion tells the entries of MCP questions (elicitations) apart from
// permission requests.
func isQuestion(k string) bool {
	return strings.HasPrefix(k, questionPrefix) || k == notifyElicitation
}

func (s *session) hasQuestion() bool {
	for _, k := range s.pending {
		if isQuestion(k) {
			return true
		}
	}
	return false
}

func (s *session) removeQuestions() { s.removePendingIf(isQuestion) }
