// Package automations runs the person's own reactions to agents' lifecycle
// events (the Hooks V2 design): definitions in automations.toml say which
// event, under which condition, does what (a notification, a sound, a
// webhook, a command) with which input; each of their bindings must be
// trusted for the definition's current execution hash before anything
// leaves the machine. Events go to a durable outbox, a dispatcher turns
// them into runs, a worker runs them under a lease with retries, all in a
// SQLite file in the clawd home that only `clawd serve` writes.
package automations

import (
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
	"time"
)

// EventName is one of the seven lifecycle events.
type EventName string

// The lifecycle events, produced by the runtime after the fact is
// recorded.
const (
	TurnStarted       EventName = "turn.started"
	TurnCompleted     EventName = "turn.completed"
	TurnFailed        EventName = "turn.failed"
	TurnCancelled     EventName = "turn.cancelled"
	ResponseCommitted EventName = "response.committed"
	PermissionRequest EventName = "permission.requested"
	QuestionRequested EventName = "question.requested"
	envelopeSchema              = 1
	envelopeSource              = "clawd"
)

// EventNames lists the lifecycle events in the order a turn meets them.
var EventNames = []EventName{TurnStarted, PermissionRequest, QuestionRequested, ResponseCommitted,
	TurnCompleted, TurnFailed, TurnCancelled}

// Valid reports whether n is a lifecycle event.
func (n EventName) Valid() bool {
	for _, e := range EventNames {
		if e == n {
			return true
		}
	}
	return false
}

// Envelope is what a condition and an input mapping read, and what a
// webhook or command receives: one lifecycle event with its session, turn,
// agent and workspaces.
type Envelope struct {
	SchemaVersion      int            `json:"schemaVersion"`
	EventID            string         `json:"eventId"`
	EventName          EventName      `json:"eventName"`
	OccurredAt         time.Time      `json:"occurredAt"`
	Source             string         `json:"source"`
	Session            SessionRef     `json:"session"`
	Turn               *TurnRef       `json:"turn,omitempty"`
	Agent              *AgentRef      `json:"agent,omitempty"`
	Workspaces         []Workspace    `json:"workspaces"`
	PrimaryWorkspaceID string         `json:"primaryWorkspaceId,omitempty"`
	Payload            map[string]any `json:"payload"`
}

// SessionRef names the session of an event.
type SessionRef struct {
	ID    string `json:"id"`
	Title string `json:"title"`
}

// TurnRef names the turn of an event.
type TurnRef struct {
	ID string `json:"id"`
}

// AgentRef names the agent of an event.
type AgentRef struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// Workspace is a folder the session works in: its cwd, and the repository
// root above it when there is one. The id is the absolute path.
type Workspace struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// EventID is the deterministic id of a lifecycle event: "hev_" and the
// SHA-256 of its name and the id of what it is about (the turn, the
// message, the request, the question). The same fact reported twice gives
// the same id, which the outbox keeps once.
func EventID(name EventName, sourceID string) string {
	sum := sha256.Sum256([]byte(string(name) + ":" + sourceID))
	return "hev_" + hex.EncodeToString(sum[:])
}

// Workspaces returns the workspaces of a session in cwd: the folder itself
// and, when it lies inside a Git repository, the repository root first
// (the primary workspace). repoRoot finds the root ("" for none).
func Workspaces(cwd string, repoRoot func(string) string) []Workspace {
	if cwd == "" {
		return []Workspace{}
	}
	var out []Workspace
	if root := repoRoot(cwd); root != "" && root != cwd {
		out = append(out, Workspace{ID: root, Name: filepath.Base(root)})
	}
	return append(out, Workspace{ID: cwd, Name: filepath.Base(cwd)})
}
