package client

import (
	"time"

	"github.com/clawdhq/clawd/agents"
)

// SessionView is one session as the API shows it.
type SessionView struct {
	Agent       string    `json:"agent"`
	SessionID   string    `json:"session_id"`
	State       string    `json:"state"`
	BaseState   string    `json:"base_state,omitempty"`
	Title       string    `json:"title"`
	TitleSource string    `json:"title_source,omitempty"`
	Cwd         string    `json:"cwd"`
	ProjectDir  string    `json:"project_dir,omitempty"`
	Headless    bool      `json:"headless"`
	AgentPID    int       `json:"agent_pid,omitempty"`
	Tool        string    `json:"tool,omitempty"`
	Subagents   int       `json:"subagents,omitempty"`
	Pending     int       `json:"pending,omitempty"`
	LastEvent   string    `json:"last_event,omitempty"`
	StartedAt   time.Time `json:"started_at"`
	UpdatedAt   time.Time `json:"updated_at"`
}

// Snapshot is GET /api/v1/sessions and `clawd status --json`.
type Snapshot struct {
	DisplayState string        `json:"display_state"`
	Sessions     []SessionView `json:"sessions"`
}

// EventRecord is one line of the event stream: the normalized event plus
// what it did to its session and to the display.
type EventRecord struct {
	Seq uint64 `json:"seq"`
	agents.Event
	// State is the session's state after the event ("sleeping" once the
	// session ended).
	State        string `json:"state"`
	DisplayState string `json:"display_state"`
}
