package runtime

import (
	"context"
	"sync"
	"time"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/statemachine"
)

// Source is a second way the runtime learns about an agent's sessions
// besides its hooks: a log of the agent's own that a monitor follows
// (Codex's rollout files). It keeps sessions right when the agent's hooks
// are off; when both speak, the hooks win, and what only the log knows
// still counts: a session's kind and a thread's name.
type Source interface {
	// Agent is the id of the agent the source reports for.
	Agent() string
	// Run follows the log until ctx ends, emitting the events it derives.
	Run(ctx context.Context, emit func(agents.Event)) error
	// SessionKind tells from the agent's transcript of a session (a hook
	// event's Transcript) what kind of session it is, which permission
	// modes are keyed by, and whether nobody watches it; ok is false when
	// the transcript does not say.
	SessionKind(transcript string) (kind string, headless bool, ok bool)
}

// A source's event is dropped when the hooks of its session spoke within
// hookTTL, or when the hooks already reported the same tool call;
// otherwise (hooks off, untrusted, or silent for long) the source alone
// keeps the session right.
//
// An agent may write its log before it runs its first hook (Codex creates
// the rollout file, then runs SessionStart, whose process can take a while
// to start on a loaded machine): a source's events of a session the
// runtime has not heard of wait DefaultSourceGrace for the hooks, so one
// session start never shows twice, once from each.
const (
	// DefaultSourceGrace is Config.SourceGrace's default.
	DefaultSourceGrace = 3 * time.Second

	hookTTL = 15 * time.Minute
	// maxHookCalls bounds the tool calls remembered per session.
	maxHookCalls = 256
	// maxTracked bounds the sessions and transcripts remembered.
	maxTracked = 1024
)

// hookTrack is what the hooks said of one session lately.
type hookTrack struct {
	last  time.Time
	calls map[string]time.Time // tool_use_id -> when the hook reported it
}

// sessionKind is what a source said of a transcript.
type sessionKind struct {
	kind     string
	headless bool
}

// sources holds the runtime's sources by agent, the hooks' activity of
// those agents' sessions, and the session kinds read from transcripts.
type sources struct {
	byAgent map[string]Source

	// ingest serializes what the sources apply: their own events in
	// order, and the held ones when their grace ends.
	ingest sync.Mutex

	mu    sync.Mutex
	held  map[statemachine.Key][]agents.Event // waiting for the grace to end
	hooks map[statemachine.Key]*hookTrack
	kinds map[string]sessionKind // transcript path -> what it says
}

func newSources(list []Source) *sources {
	s := &sources{byAgent: map[string]Source{}, hooks: map[statemachine.Key]*hookTrack{},
		kinds: map[string]sessionKind{}, held: map[statemachine.Key][]agents.Event{}}
	for _, src := range list {
		s.byAgent[src.Agent()] = src
	}
	return s
}

// sawHook records an event that came through a hook, for an agent that
// also has a source.
func (c *sources) sawHook(e *agents.Event, now time.Time) {
	src := c.byAgent[e.Agent]
	if src == nil {
		return
	}
	k := statemachine.Key{Agent: e.Agent, ID: e.SessionID}
	c.mu.Lock()
	defer c.mu.Unlock()
	t := c.hooks[k]
	if t == nil {
		if len(c.hooks) >= maxTracked {
			c.forgetLocked(now)
		}
		t = &hookTrack{calls: map[string]time.Time{}}
		c.hooks[k] = t
	}
	t.last = now
	if e.ToolUseID != "" {
		if len(t.calls) >= maxHookCalls {
			clear(t.calls)
		}
		t.calls[e.ToolUseID] = now
	}
}

// forgetLocked drops what is older than the TTL, and everything if that
// is not enough.
func (c *sources) forgetLocked(now time.Time) {
	for k, t := range c.hooks {
		if now.Sub(t.last) >= hookTTL {
			delete(c.hooks, k)
		}
	}
	if len(c.hooks) >= maxTracked {
		clear(c.hooks)
	}
}

// covered reports whether the hooks already tell about source event e.
func (c *sources) covered(e *agents.Event, now time.Time) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.coveredLocked(e, now)
}

// coveredLocked is covered with c.mu held.
func (c *sources) coveredLocked(e *agents.Event, now time.Time) bool {
	k := statemachine.Key{Agent: e.Agent, ID: e.SessionID}
	t := c.hooks[k]
	if t == nil {
		return false
	}
	if now.Sub(t.last) < hookTTL {
		return true
	}
	_, seen := t.calls[e.ToolUseID]
	return e.ToolUseID != "" && seen
}

// kindOf returns what the source of e's agent says of e's transcript,
// read once per transcript.
func (c *sources) kindOf(e *agents.Event) (sessionKind, bool) {
	src := c.byAgent[e.Agent]
	if src == nil || e.Transcript == "" {
		return sessionKind{}, false
	}
	c.mu.Lock()
	k, ok := c.kinds[e.Transcript]
	c.mu.Unlock()
	if ok {
		return k, true
	}
	kind, headless, ok := src.SessionKind(e.Transcript)
	if !ok {
		return sessionKind{}, false
	}
	k = sessionKind{kind: kind, headless: headless}
	c.mu.Lock()
	if len(c.kinds) >= maxTracked {
		clear(c.kinds)
	}
	c.kinds[e.Transcript] = k
	c.mu.Unlock()
	return k, true
}

// sessionKind is the kind of e's session that permission modes are keyed
// by (for Codex the originator its rollout names: "codex-tui", an IDE's
// own); "" when unknown.
func (s *Server) sessionKind(e *agents.Event) string {
	k, _ := s.sources.kindOf(e)
	return k.kind
}

// accept readies an event a hook sent: the agent's id for an alias, the
// event validated, its final answer (Event.Response) taken off it for the
// automations, what a source knows of the session added (a session nobody
// watches is headless, which its transcript may be the only one to say),
// and the hooks' activity noted, so the source's copies give way.
func (s *Server) accept(e *agents.Event) (response string, err error) {
	if err := s.refuseUndeclared(e.Agent); err != nil {
		return "", err
	}
	if e.Agent != "" {
		if a := agents.Lookup(e.Agent); a != nil {
			e.Agent = a.ID
		}
	}
	if err := e.Validate(); err != nil {
		return "", err
	}
	response, e.Response = e.Response, ""
	if k, ok := s.sources.kindOf(e); ok && k.headless {
		e.Headless = true
	}
	s.sources.sawHook(e, s.cfg.Now())
	return response, nil
}

// IngestSource applies an event a source derived, unless the session's
// hooks already reported it. Only the source may know the name a thread
// got in the agent (its generated title or the person's rename): that
// still reaches a session the hooks cover. The events of a session the
// runtime has not heard of wait Config.SourceGrace for its hooks.
func (s *Server) IngestSource(e agents.Event) {
	c := s.sources
	c.ingest.Lock()
	defer c.ingest.Unlock()
	k := statemachine.Key{Agent: e.Agent, ID: e.SessionID}
	c.mu.Lock()
	q, waiting := c.held[k]
	if waiting {
		c.held[k] = append(q, e)
	}
	c.mu.Unlock()
	switch {
	case waiting:
	case s.cfg.SourceGrace > 0 && !c.covered(&e, s.cfg.Now()) && !s.knows(k) && c.hold(k, e):
		timer := s.cfg.After(s.cfg.SourceGrace)
		go func() {
			select {
			case <-timer:
			case <-s.done:
			}
			s.releaseHeld(k)
		}()
	default:
		s.ingestSourceLocked(e)
	}
}

// hold starts holding events of k with e, unless too many are held.
func (c *sources) hold(k statemachine.Key, e agents.Event) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.held) >= maxTracked {
		return false
	}
	c.held[k] = []agents.Event{e}
	return true
}

// releaseHeld applies the events of k held for its hooks, each unless
// the hooks covered it meanwhile.
func (s *Server) releaseHeld(k statemachine.Key) {
	c := s.sources
	c.ingest.Lock()
	defer c.ingest.Unlock()
	c.mu.Lock()
	q := c.held[k]
	delete(c.held, k)
	c.mu.Unlock()
	for _, e := range q {
		s.ingestSourceLocked(e)
	}
}

// knows reports whether the state machine has session k.
func (s *Server) knows(k statemachine.Key) bool {
	_, ok := s.sessions.Session(k)
	return ok
}

// ingestSourceLocked applies source event e, or only its title when the
// hooks cover it; c.ingest is held.
func (s *Server) ingestSourceLocked(e agents.Event) {
	if !s.sources.covered(&e, s.cfg.Now()) {
		s.Ingest(e)
		return
	}
	if e.Title == "" || e.TitleSource != agents.TitleFromAgent {
		return
	}
	s.sessions.Retitle(statemachine.Key{Agent: e.Agent, ID: e.SessionID}, e.Title, agents.TitleFromAgent)
}

// RunSources runs every source until ctx ends; a source that stops early
// is logged.
func (s *Server) RunSources(ctx context.Context) {
	var wg sync.WaitGroup
	for _, src := range s.sources.byAgent {
		wg.Go(func() {
			if err := src.Run(ctx, s.IngestSource); err != nil && ctx.Err() == nil {
				s.log.Warn("source stopped", "agent", src.Agent(), "err", err)
			}
		})
	}
	wg.Wait()
}
