package runtime

import (
	"sync"
	"time"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/statemachine"
)

// Codex reports a session twice when its hooks run: through the hooks, as
// it happens, and through its rollout file, which the monitor tails a
// moment later. The hooks win. A monitor event is dropped when the hooks
// of its session spoke within hookTTL, or when the hooks already reported
// the same tool call; otherwise (hooks off, untrusted, or silent for long)
// the monitor alone keeps the session right.
const (
	hookTTL = 15 * time.Minute
	// codexExecOriginator is the originator of `codex exec` sessions:
	// nobody watches them.
	codexExecOriginator = "codex_exec"
	// maxHookCalls bounds the tool calls remembered per session.
	maxHookCalls = 256
	// maxTracked bounds the sessions and rollout files remembered.
	maxTracked = 1024
)

// hookTrack is what the hooks said of one session lately.
type hookTrack struct {
	last  time.Time
	calls map[string]time.Time // tool_use_id -> when the hook reported it
}

// codexState holds the runtime's Codex bookkeeping: hook activity per
// session and the rollout metadata per file.
type codexState struct {
	mu    sync.Mutex
	hooks map[statemachine.Key]*hookTrack
	metas map[string]string // rollout path -> its originator
	// originator reads a rollout's originator (Config.CodexOriginator).
	originator func(path string) (string, error)
}

func newCodexState(originator func(string) (string, error)) *codexState {
	return &codexState{hooks: map[statemachine.Key]*hookTrack{}, metas: map[string]string{}, originator: originator}
}

// sawHook records an event that came through a hook.
func (c *codexState) sawHook(e *agents.Event, now time.Time) {
	if e.Agent != agents.Codex.ID {
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
func (c *codexState) forgetLocked(now time.Time) {
	for k, t := range c.hooks {
		if now.Sub(t.last) >= hookTTL {
			delete(c.hooks, k)
		}
	}
	if len(c.hooks) >= maxTracked {
		clear(c.hooks)
	}
}

// covered reports whether the hooks already tell about monitor event e.
func (c *codexState) covered(e *agents.Event, now time.Time) bool {
	k := statemachine.Key{Agent: e.Agent, ID: e.SessionID}
	c.mu.Lock()
	defer c.mu.Unlock()
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

// origin returns the originator of a rollout file, read once.
func (c *codexState) origin(path string) (string, bool) {
	if path == "" || c.originator == nil {
		return "", false
	}
	c.mu.Lock()
	o, ok := c.metas[path]
	c.mu.Unlock()
	if ok {
		return o, true
	}
	o, err := c.originator(path)
	if err != nil {
		return "", false
	}
	c.mu.Lock()
	if len(c.metas) >= maxTracked {
		clear(c.metas)
	}
	c.metas[path] = o
	c.mu.Unlock()
	return o, true
}

// sessionKind is the kind of e's session that permission_modes are keyed
// by: for Codex the originator its rollout names ("codex-tui",
// "codex_exec", an IDE's own); "" when unknown.
func (s *Server) sessionKind(e *agents.Event) string {
	if e.Agent != agents.Codex.ID {
		return ""
	}
	o, _ := s.codex.origin(e.Transcript)
	return o
}

// annotate fills in what a hook event cannot say by itself: a Codex
// session run by `codex exec` is headless, which only its rollout tells.
func (s *Server) annotate(e *agents.Event) {
	if e.Agent != agents.Codex.ID || e.Headless || e.Transcript == "" {
		return
	}
	if o, ok := s.codex.origin(e.Transcript); ok && o == codexExecOriginator {
		e.Headless = true
	}
}

// IngestMonitor applies an event the Codex rollout monitor derived,
// unless the session's hooks already reported it. Only the monitor knows
// the name a thread gets in Codex's session index (its generated title or
// the person's rename): that still reaches a session the hooks cover.
func (s *Server) IngestMonitor(e agents.Event) {
	if !s.codex.covered(&e, s.cfg.Now()) {
		s.Ingest(e)
		return
	}
	if e.Title == "" || e.TitleSource != agents.TitleFromAgent {
		return
	}
	s.mu.Lock()
	changed := s.m.Retitle(statemachine.Key{Agent: e.Agent, ID: e.SessionID}, e.Title)
	s.mu.Unlock()
	if changed {
		s.feeds.publish(Change{Display: true})
	}
}
