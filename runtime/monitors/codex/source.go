package codex

import (
	"context"

	"github.com/clawdhq/clawd/agents"
)

// Source is the monitor as one of the runtime's sources (runtime.Source):
// Codex's rollout files, and the kind of session each one records.
type Source struct {
	o Options
}

// NewSource returns the source that follows the rollouts under o.Home;
// o.Emit is set by Run.
func NewSource(o Options) *Source { return &Source{o: o} }

// Agent is Codex's id.
func (s *Source) Agent() string { return agents.Codex.ID }

// Run follows the rollouts until ctx ends, emitting their events.
func (s *Source) Run(ctx context.Context, emit func(agents.Event)) error {
	o := s.o
	o.Emit = emit
	return New(o).Run(ctx)
}

// SessionKind reads a rollout's session_meta: the originator (the client
// that runs the thread: "codex-tui", "codex_exec", an IDE's own) and
// whether nobody watches it (`codex exec`).
func (s *Source) SessionKind(rollout string) (kind string, headless, ok bool) {
	m, err := ReadMeta(rollout)
	if err != nil {
		return "", false, false
	}
	return m.Originator, m.Headless(), true
}
