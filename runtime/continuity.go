package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/internal/atomicfile"
	"github.com/clawdhq/clawd/internal/boundedfile"
	"github.com/clawdhq/clawd/internal/spool"
	"github.com/clawdhq/clawd/statemachine"
)

// Continuity: what clawd shows stays true across a restart of the
// runtime (an upgrade, a crash, kill -9, autostart starting it after the
// agents).
//
//   - The journal of sessions (SessionsFile) holds the live sessions as
//     the state machine saves them (statemachine.Save), written off the
//     hooks' path: at most once every journalEvery after a change, and at
//     shutdown, by temp file and rename. After a kill -9 it is what the
//     disk has, at most journalEvery old.
//   - At start, before the socket takes hooks, the sessions come back
//     (statemachine.Restore) and their agents are checked: alive and the
//     same process (its pid and its start time, processStart, so that a
//     pid the system gave to another program since does not count). A
//     session whose agent is gone ends into the history with its last
//     known state, never shown as live; one without a pid is kept with
//     its last state and left to the session-stale rule, which ends it
//     once it has been silent for the machine's SessionStale (there is
//     no process to ask, and a session a person left open for a while is
//     more often still there than not).
//   - Then the events the hooks spooled while no runtime ran
//     (internal/spool) are replayed through the same accept and ingest
//     path as live ones, in order, each once, at the time their hook ran
//     (so the late-event rules apply as they would have); the agents of
//     the sessions they name are checked by pid (the hook ran from that
//     process moments ago), a gone one's session ends.

// SessionsFile is the journal of live sessions in the clawd home.
const SessionsFile = "sessions.journal"

const (
	// journalVersion is the journal's format.
	journalVersion = 1
	// journalEvery is how often, at most, the journal is written.
	journalEvery = time.Second
	// maxJournalBytes bounds reading the journal: MaxSessions (256) of
	// records of a few kilobytes (each field within what an event may
	// carry, the lists within statemachine.MaxSavedKeys) fit many times.
	maxJournalBytes = 8 << 20
)

// journalFile is the journal of sessions on disk.
type journalFile struct {
	Version int       `json:"version"`
	Written time.Time `json:"written"`
	// Replayed names the spool files (spool.Claim's) whose events the
	// sessions below already hold: a start that finds them still there
	// (the last one died before it removed them) removes them unread.
	Replayed []string       `json:"replayed,omitempty"`
	Sessions []savedSession `json:"sessions"`
}

// savedSession is one session of the journal.
type savedSession struct {
	Agent string `json:"agent"`
	ID    string `json:"session_id"`
	// State is the base state, the one the session returns to.
	State       string `json:"state"`
	PersonTitle string `json:"person_title,omitempty"`
	AgentTitle  string `json:"agent_title,omitempty"`
	PromptTitle string `json:"prompt_title,omitempty"`
	Cwd         string `json:"cwd,omitempty"`
	ProjectDir  string `json:"project_dir,omitempty"`
	Headless    bool   `json:"headless,omitempty"`
	AgentPID    int    `json:"agent_pid,omitempty"`
	// AgentStart is the agent process's start (processStart), "" when it
	// could not be read: then the pid alone says whether it runs.
	AgentStart string    `json:"agent_start,omitempty"`
	Host       string    `json:"host,omitempty"`
	Tool       string    `json:"tool,omitempty"`
	LastKind   string    `json:"last_event,omitempty"`
	Outcome    string    `json:"outcome,omitempty"`
	OutcomeAt  time.Time `json:"outcome_at,omitzero"`
	FailReason string    `json:"fail_reason,omitempty"`
	Turns      int       `json:"turns,omitempty"`
	// HistoryTurns is how many of Turns the history already has (a
	// session landed when it went stale, or when the runtime stopped).
	HistoryTurns int           `json:"history_turns,omitempty"`
	StartedAt    time.Time     `json:"started_at"`
	UpdatedAt    time.Time     `json:"updated_at"`
	Pending      []string      `json:"pending,omitempty"`
	Asks         []string      `json:"asks,omitempty"`
	Subagents    []string      `json:"subagents,omitempty"`
	TurnIDs      []savedTurnID `json:"turn_ids,omitempty"`
	NoInfer      bool          `json:"no_infer,omitempty"`
	StaleDone    bool          `json:"stale_done,omitempty"`
}

type savedTurnID struct {
	ID   string `json:"id"`
	Open bool   `json:"open,omitempty"`
}

// keeper keeps the journal of sessions for a running Server: Run makes it
// with restoreSessions before it listens, calls listening once the
// socket listens, and stop once it served.
type keeper struct {
	s    *Server
	path string
	// starts are the start times of the sessions' agents by pid;
	// written holds Machine.Changes as of the last write, failing
	// whether that write failed. Only the writer's goroutine touches
	// them (and the fields below) while it runs.
	starts  map[int]string
	written uint64
	failing bool
	// seen are the ids of the spooled events replayed, claimed the
	// spool files claimed, replayed those of claimed the journal must
	// name until they are removed, and last the time of the latest
	// event or session restored.
	seen     map[string]bool
	claimed  []string
	replayed []string
	last     time.Time

	// cancel stops the writer, which runs from listening until stop.
	cancel context.CancelFunc
	done   chan struct{}
}

// restoreSessions brings back the sessions of the journal and replays the
// events the spool holds; the caller then opens the socket and calls
// listening. Nothing in the journal or the spool can stop the runtime: a
// journal it cannot read is moved aside, a spool file it cannot read is
// dropped and a line it cannot take skipped, both logged, and a spool it
// cannot claim waits for the next start.
func (s *Server) restoreSessions() *keeper {
	k := &keeper{s: s, path: filepath.Join(s.cfg.Home, SessionsFile), starts: map[int]string{}, seen: map[string]bool{}}
	jf := k.read()
	if k.restore(jf) {
		// The restored sessions' agents, before any event is replayed:
		// a spooled event of a new process that got a dead agent's pid
		// must not be taken for the dead one's. At the time of the
		// journal: the rules of time were the last runtime's to apply
		// up to then, and the spool's events come after.
		s.sessions.ClockAt(k.last, func() { s.tick(k.alive) })
	}
	k.replay(jf.Replayed)
	return k
}

// read reads the journal; one it cannot read is moved aside (to
// SessionsFile.corrupt) and taken for none.
func (k *keeper) read() journalFile {
	var jf journalFile
	data, err := boundedfile.Read(k.path, maxJournalBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return jf
	}
	if err == nil {
		if err = json.Unmarshal(data, &jf); err == nil && jf.Version != journalVersion {
			err = fmt.Errorf("version %d, want %d", jf.Version, journalVersion)
		}
	}
	if err != nil {
		aside := k.path + ".corrupt"
		k.s.log.Warn("the journal of sessions cannot be read: moved aside, its sessions come back with their next hook",
			"path", k.path, "aside", aside, "err", err)
		if err := os.Rename(k.path, aside); err != nil {
			k.s.log.Warn("move the journal of sessions aside", "err", err)
		}
		return journalFile{}
	}
	return jf
}

// restore gives the state machine the journal's sessions back, and
// reports whether there were any. Those there is no room for land in the
// history as an eviction's do.
func (k *keeper) restore(jf journalFile) bool {
	s := k.s
	now := s.cfg.Now()
	saved := make([]statemachine.Saved, 0, len(jf.Sessions))
	hist := make(map[statemachine.Key]int, len(jf.Sessions))
	unknown := 0
	disabled := 0
	for _, r := range jf.Sessions {
		if agents.Lookup(r.Agent) == nil {
			unknown++
			continue
		}
		if s.cfg.AgentsDisabled[r.Agent] {
			// Turned off in config.toml since: its sessions leave.
			disabled++
			continue
		}
		sv := r.saved()
		saved = append(saved, sv)
		hist[sv.Session.Key()] = r.HistoryTurns
		if r.AgentPID > 0 && r.AgentStart != "" {
			k.starts[r.AgentPID] = r.AgentStart
		}
		if r.UpdatedAt.After(k.last) {
			k.last = r.UpdatedAt
		}
	}
	if k.last.After(now) {
		k.last = now
	}
	if len(saved) == 0 {
		return false
	}
	res := s.sessions.Restore(saved, k.last, hist)
	s.log.Info("sessions restored from the journal", "restored", len(res.Sessions), "no_room", len(res.Dropped),
		"refused", res.Invalid+unknown, "agent_disabled", disabled)
	return true
}

// replay replays the events the spool holds, each once, in the order
// their hooks appended them; a claimed file named in done (the journal's
// Replayed) is already in the sessions and goes unread.
func (k *keeper) replay(done []string) {
	s := k.s
	paths, err := spool.Claim(s.cfg.Home, s.cfg.Now())
	if err != nil {
		s.log.Warn("the hooks' spool cannot be claimed: its events wait for the next start", "err", err)
		return
	}
	var n, dup, bad int
	for _, p := range paths {
		if slices.Contains(k.claimed, p) {
			continue
		}
		k.claimed = append(k.claimed, p)
		if slices.Contains(done, filepath.Base(p)) {
			continue
		}
		recs, torn, err := spool.Read(p)
		if err != nil {
			s.log.Warn("a file of the hooks' spool cannot be read: dropped", "path", p, "err", err)
			continue
		}
		bad += torn
		for _, r := range recs {
			if k.seen[r.ID] {
				dup++
				continue
			}
			k.seen[r.ID] = true
			if k.replayOne(r.Event) {
				n++
			} else {
				bad++
			}
		}
		k.replayed = append(k.replayed, filepath.Base(p))
	}
	if n+dup+bad > 0 {
		s.log.Info("replayed the events the hooks spooled while no runtime ran", "events", n, "duplicates", dup, "refused", bad)
	}
}

// replayOne replays one spooled event as the socket would take it, at the
// time its hook ran (no earlier than what came before it, no later than
// now).
func (k *keeper) replayOne(e agents.Event) bool {
	s := k.s
	if e.Kind == agents.KindPermissionRequest {
		// Hooks never spool one (its answer is worth nothing later): a
		// line that says so was not a hook's.
		return false
	}
	response, err := s.acceptFrom(&e, nil)
	if err != nil {
		return false
	}
	at := e.Time
	if at.Before(k.last) {
		at = k.last
	}
	if now := s.cfg.Now(); at.After(now) {
		at = now
	}
	k.last = at
	s.sessions.ClockAt(at, func() { s.ingestWith(e, response, false) })
	return true
}

// listening finishes the start once the socket listens (hooks now queue
// on it rather than spool): the events a hook spooled while the first
// replay ran are replayed too, the agents of the sessions they named are
// checked, the journal is written and the spool removed; from now on the
// journal is written as the sessions change, until ctx ends.
func (k *keeper) listening(ctx context.Context) {
	s := k.s
	k.replay(nil)
	s.tick(s.cfg.Alive)
	if k.write(true) && len(k.claimed) > 0 {
		if err := spool.Remove(k.claimed); err != nil {
			s.log.Warn("remove the replayed spool", "err", err)
		} else {
			k.replayed, k.claimed = nil, nil
		}
	}
	ctx, cancel := context.WithCancel(ctx)
	k.cancel, k.done = cancel, make(chan struct{})
	go func() {
		defer close(k.done)
		k.run(ctx)
	}()
}

// alive reports whether the agent process pid runs and is the one the
// journal knew: a process started since under the same pid is not.
func (k *keeper) alive(pid int) bool {
	if !k.s.cfg.Alive(pid) {
		return false
	}
	want := k.starts[pid]
	if want == "" {
		return true // not known: the pid alone says
	}
	got, err := processStart(pid)
	if err != nil {
		// Gone meanwhile, or not readable here (see processStart): the
		// pid alone says.
		return true
	}
	return got == want
}

// run writes the journal every journalEvery when the sessions changed,
// until ctx ends.
func (k *keeper) run(ctx context.Context) {
	t := time.NewTicker(journalEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			k.write(false)
		}
	}
}

// stop stops the writer and writes the journal a last time: the runtime
// has served, and the history has landed the sessions still running.
func (k *keeper) stop() {
	if k.cancel != nil {
		k.cancel()
		<-k.done
	}
	k.write(true)
}

// write writes the journal when the sessions changed since the last
// write (always when force is set), and reports whether it is written.
func (k *keeper) write(force bool) bool {
	s := k.s
	saved, hist, changes, changed := s.sessions.Save(k.written, force || k.failing)
	if !changed {
		return true
	}

	jf := journalFile{Version: journalVersion, Written: s.cfg.Now().UTC(), Replayed: k.replayed,
		Sessions: make([]savedSession, len(saved))}
	pids := make(map[int]string, len(saved))
	for i, sv := range saved {
		r := recordOf(sv)
		r.HistoryTurns = hist[i]
		if pid := r.AgentPID; pid > 0 {
			start, known := k.starts[pid]
			if !known {
				// Read once per process: it cannot change, and a
				// process that went is found by the liveness check.
				start, _ = processStart(pid)
			}
			r.AgentStart, pids[pid] = start, start
		}
		jf.Sessions[i] = r
	}
	k.starts = pids
	data, err := json.Marshal(jf)
	if err == nil {
		err = atomicfile.Write(k.path, data, 0o600, false, nil)
	}
	if err != nil {
		if !k.failing {
			s.log.Warn("the journal of sessions cannot be written: a restart now would lose what changed since", "err", err)
		}
		k.failing = true
		return false
	}
	k.written, k.failing = changes, false
	return true
}

// recordOf is sv as the journal keeps it.
func recordOf(sv statemachine.Saved) savedSession {
	ss := sv.Session
	r := savedSession{
		Agent: ss.Agent, ID: ss.ID, State: string(ss.BaseState),
		PersonTitle: ss.Titles.Person, AgentTitle: ss.Titles.Agent, PromptTitle: ss.Titles.Prompt,
		Cwd: ss.Cwd, ProjectDir: ss.ProjectDir, Headless: ss.Headless, AgentPID: ss.AgentPID, Host: ss.Host,
		Tool: ss.Tool, LastKind: string(ss.LastKind), Outcome: string(ss.Outcome), OutcomeAt: ss.OutcomeAt,
		FailReason: ss.FailReason, Turns: ss.Turns, StartedAt: ss.StartedAt, UpdatedAt: ss.UpdatedAt,
		Pending: sv.Pending, Asks: sv.Asks, Subagents: sv.Subagents, NoInfer: sv.NoInfer, StaleDone: sv.StaleDone,
	}
	for _, t := range sv.Turns {
		r.TurnIDs = append(r.TurnIDs, savedTurnID{ID: t.ID, Open: t.Open})
	}
	return r
}

// saved is r as the state machine restores it.
func (r savedSession) saved() statemachine.Saved {
	sv := statemachine.Saved{
		Session: statemachine.Session{
			Agent: r.Agent, ID: r.ID, BaseState: statemachine.State(r.State),
			Titles: agents.Titles{Person: r.PersonTitle, Agent: r.AgentTitle, Prompt: r.PromptTitle},
			Cwd:    r.Cwd, ProjectDir: r.ProjectDir, Headless: r.Headless, AgentPID: r.AgentPID, Host: r.Host,
			Tool: r.Tool, LastKind: agents.Kind(r.LastKind), Outcome: statemachine.Outcome(r.Outcome),
			OutcomeAt: r.OutcomeAt, FailReason: r.FailReason, Turns: r.Turns, StartedAt: r.StartedAt, UpdatedAt: r.UpdatedAt,
		},
		Pending: r.Pending, Asks: r.Asks, Subagents: r.Subagents, NoInfer: r.NoInfer, StaleDone: r.StaleDone,
	}
	for _, t := range r.TurnIDs {
		sv.Turns = append(sv.Turns, statemachine.SavedTurn{ID: t.ID, Open: t.Open})
	}
	return sv
}

// errNoStartTime: the platform has no way to read a process's start here.
var errNoStartTime = errors.New("a process's start time cannot be read on this system")
