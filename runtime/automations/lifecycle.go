package automations

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/runtime/client"
)

// The runtime tells the engine what it recorded; the engine derives the
// lifecycle events from it: a prompt starts a turn, a turn's end completes
// it (or, interrupted, cancels it) and commits its answer, a failed turn
// fails, a shown request asks for permission or input. Only what a
// definition listens to is written.

// Fact is one event the runtime recorded, with what the session knows.
type Fact struct {
	Event agents.Event
	// Title and Cwd are the session's, after the event.
	Title, Cwd string
	// Response is the turn's final answer (Event.Response, which the
	// runtime takes off the event before recording it).
	Response string
}

// turnState is a session's current turn.
type turnState struct {
	id      string
	started time.Time
	open    bool
}

// turnTracker follows each session's turn, for turn ids where the agent
// has none and for durations.
type turnTracker struct {
	mu       sync.Mutex
	sessions map[string]*turnState
}

// maxTrackedSessions bounds the turns remembered.
const maxTrackedSessions = 4096

func sessionKey(agent, id string) string { return agent + "\x00" + id }

// Record derives the lifecycle events of f and queues those a definition
// listens to for the store (see queue.go): it runs on the hook's path and
// never waits for the store.
func (e *Engine) Record(ctx context.Context, f Fact) {
	ev := f.Event
	if ev.SubagentID != "" {
		return // a subagent's turn is part of its session's
	}
	k := sessionKey(ev.Agent, ev.SessionID)
	var names []EventName
	var turn turnState
	e.turns.mu.Lock()
	t := e.turns.sessions[k]
	switch ev.Kind {
	case agents.KindPromptSubmit:
		if len(e.turns.sessions) >= maxTrackedSessions && t == nil {
			clear(e.turns.sessions)
		}
		id := ev.TurnID
		if id == "" {
			id = fmt.Sprintf("%s:%d", ev.SessionID, ev.Time.UnixNano())
		}
		if t == nil || !t.open || t.id != id {
			t = &turnState{id: id, started: ev.Time, open: true}
			e.turns.sessions[k] = t
			names = append(names, TurnStarted)
		}
	case agents.KindTurnEnd:
		if t == nil {
			t = &turnState{id: ev.TurnID, started: ev.Time}
			if t.id == "" {
				t.id = fmt.Sprintf("%s:%d", ev.SessionID, ev.Time.UnixNano())
			}
		}
		if ev.Reason == agents.ReasonInterrupt {
			names = append(names, TurnCancelled)
		} else {
			if f.Response != "" {
				names = append(names, ResponseCommitted)
			}
			names = append(names, TurnCompleted)
		}
		t.open = false
		delete(e.turns.sessions, k)
	case agents.KindTurnFailure:
		if t == nil {
			t = &turnState{id: ev.TurnID, started: ev.Time}
		}
		names = append(names, TurnFailed)
		delete(e.turns.sessions, k)
	case agents.KindSessionEnd:
		delete(e.turns.sessions, k)
	}
	if t != nil {
		turn = *t
	}
	e.turns.mu.Unlock()
	for _, name := range names {
		env := e.envelope(name, f, turn)
		e.remember(env)
		if e.Listens(name) {
			e.enqueue(env)
		}
	}
}

// envelope builds the envelope of lifecycle event name for f.
func (e *Engine) envelope(name EventName, f Fact, turn turnState) *Envelope {
	ev := f.Event
	env := &Envelope{
		SchemaVersion: envelopeSchema,
		EventName:     name,
		OccurredAt:    ev.Time.UTC(),
		Source:        envelopeSource,
		Session:       SessionRef{ID: ev.SessionID, Title: f.Title},
		Agent:         agentRef(ev.Agent),
		Workspaces:    Workspaces(f.Cwd, e.o.RepoRoot),
		Payload:       map[string]any{},
	}
	if len(env.Workspaces) > 0 {
		env.PrimaryWorkspaceID = env.Workspaces[0].ID
	}
	source := turn.id
	if turn.id != "" {
		env.Turn = &TurnRef{ID: turn.id}
	}
	dur := ev.Time.Sub(turn.started).Milliseconds()
	switch name {
	case TurnCompleted:
		env.Payload["durationMs"] = dur
	case TurnCancelled:
		env.Payload["durationMs"], env.Payload["reason"] = dur, ev.Reason
	case TurnFailed:
		env.Payload["durationMs"], env.Payload["message"] = dur, ev.ErrorKind
	case ResponseCommitted:
		source = turn.id + ":response"
		env.Payload["text"], env.Payload["messageId"] = f.Response, source
	}
	env.EventID = EventID(name, sessionKey(ev.Agent, ev.SessionID)+"\x00"+source)
	return env
}

func agentRef(id string) *AgentRef {
	if a := agents.Lookup(id); a != nil {
		return &AgentRef{ID: a.ID, Name: a.Name}
	}
	if id == "" {
		return nil
	}
	return &AgentRef{ID: id, Name: id}
}

// Requested queues the event of a permission request or question the
// runtime shows the person, as Record does.
func (e *Engine) Requested(ctx context.Context, p client.PermissionView) {
	name := PermissionRequest
	if p.Kind == client.KindQuestion {
		name = QuestionRequested
	}
	e.turns.mu.Lock()
	var turn turnState
	if t := e.turns.sessions[sessionKey(p.Agent, p.SessionID)]; t != nil {
		turn = *t
	}
	e.turns.mu.Unlock()
	env := &Envelope{
		SchemaVersion: envelopeSchema,
		EventID:       EventID(name, p.ID),
		EventName:     name,
		OccurredAt:    p.CreatedAt.UTC(),
		Source:        envelopeSource,
		Session:       SessionRef{ID: p.SessionID, Title: p.Title},
		Agent:         agentRef(p.Agent),
		Workspaces:    Workspaces(p.Cwd, e.o.RepoRoot),
		Payload:       map[string]any{"requestId": p.ID, "tool": p.Tool, "summary": p.Summary},
	}
	if turn.id != "" {
		env.Turn = &TurnRef{ID: turn.id}
	}
	if len(env.Workspaces) > 0 {
		env.PrimaryWorkspaceID = env.Workspaces[0].ID
	}
	if name == QuestionRequested {
		opts := make([]any, len(p.Options))
		for i, o := range p.Options {
			opts[i] = o
		}
		env.Payload["options"] = opts
	} else {
		env.Payload["kind"] = p.Kind
	}
	e.remember(env)
	if e.Listens(name) {
		e.enqueue(env)
	}
}
