package client

import (
	"time"

	"github.com/clawdhq/clawd/agents"
)

// SessionView is one session as the API shows it.
type SessionView struct {
	Agent       string `json:"agent"`
	SessionID   string `json:"session_id"`
	State       string `json:"state"`
	BaseState   string `json:"base_state,omitempty"`
	Title       string `json:"title"`
	TitleSource string `json:"title_source,omitempty"`
	Cwd         string `json:"cwd"`
	ProjectDir  string `json:"project_dir,omitempty"`
	Headless    bool   `json:"headless"`
	AgentPID    int    `json:"agent_pid,omitempty"`
	// Host is the remote machine the session runs on (its profile, or
	// "wsl:<distro>"); empty for this machine's.
	Host      string `json:"host,omitempty"`
	Tool      string `json:"tool,omitempty"`
	Subagents int    `json:"subagents,omitempty"`
	Pending   int    `json:"pending,omitempty"`
	// Questions counts the Pending requests that are questions (an
	// AskUserQuestion, an MCP elicitation), not permission requests.
	Questions int    `json:"questions,omitempty"`
	LastEvent string `json:"last_event,omitempty"`
	// Outcome is how the session's last turn ended, "done" or "failed"
	// (statemachine.Outcome), kept until its next prompt; empty while a
	// turn runs. OutcomeAt is when; FailReason is why it failed, in the
	// agent's own words as one safe line (internal/text), or empty when
	// the agent did not say.
	Outcome    string    `json:"outcome,omitempty"`
	OutcomeAt  time.Time `json:"outcome_at,omitzero"`
	FailReason string    `json:"fail_reason,omitempty"`
	StartedAt  time.Time `json:"started_at"`
	UpdatedAt  time.Time `json:"updated_at"`
}

// Snapshot is GET /api/v1/sessions and `clawd status --json`.
type Snapshot struct {
	DisplayState string        `json:"display_state"`
	Sessions     []SessionView `json:"sessions"`
	// Integrations are the agents' hooks as the runtime's self-repair
	// sees them, in the registry's order; empty when it does not run.
	Integrations []Integration `json:"integrations"`
	// Remotes are the links to remote machines (clawd remote), when
	// there are any.
	Remotes []RemoteLink `json:"remotes,omitempty"`
	// Problems are what is wrong with the runtime itself (no TCP port for
	// the dashboard, the automations or the history off or failing), in
	// id order; none when all is well.
	Problems []Problem `json:"problems,omitempty"`
}

// Problem is one thing wrong with the runtime itself: what it means for
// the person, and what to do.
type Problem struct {
	// ID names the part: "dashboard", "automations", "history".
	ID string `json:"id"`
	// Text says what is wrong and what it means, in one line.
	Text string `json:"text"`
	// Remedy is what to do, when there is something.
	Remedy string `json:"fix,omitempty"`
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
	// Answer is set on a KindPermissionAnswered record: how the request
	// closed.
	Answer *PermissionAnswer `json:"answer,omitempty"`
	// Dropped is set on the StreamLagged line: how many records this
	// reader lost, reading too slowly.
	Dropped int `json:"dropped,omitempty"`
	// Missed and Reset are set on the StreamMissed line: how many of the
	// records a reconnecting reader asked for the backlog no longer
	// holds, or that the runtime numbers anew (see the event stream).
	Missed int  `json:"missed,omitempty"`
	Reset  bool `json:"reset,omitempty"`
}

// View is everything a UI shows of the runtime at one moment: the
// sessions, the pending permission requests and the settings, taken
// together, so that a request is listed only while its session shows it
// pending.
type View struct {
	Snapshot
	// Permissions are the pending requests, oldest first.
	Permissions []PermissionView `json:"permissions"`
	// DND is do-not-disturb.
	DND bool `json:"dnd"`
	// NotificationsPausedUntil is when the notification pause ends; in the
	// past (or zero) when notifications are not paused.
	NotificationsPausedUntil time.Time `json:"notifications_paused_until"`
}

// Change is one item of the runtime's change feed: what just changed.
// Exactly one of Event, Permission, Settings, Display or Integrations
// is set. A UI follows the feed to know when to take a new View.
type Change struct {
	// Event is an agent event the runtime applied.
	Event *EventRecord
	// Permission is a permission request added or closed, or one left to
	// the agent's own dialog without being shown (ChangeUnshown).
	Permission *PermissionChange
	// Settings is set when do-not-disturb or the notification pause
	// changed.
	Settings bool
	// Display is set when the clock changed a session or the display
	// without an event: a one-shot state ran out, a session went stale or
	// its agent process died.
	Display bool
	// Integrations is set when an agent's integration changed state (see
	// Snapshot.Integrations).
	Integrations bool
	// Dropped counts the changes this feed lost before this one because
	// its reader fell behind. A reader that cares (the tray does not: it
	// takes a new View anyway) can resynchronize.
	Dropped int
}

// RemoteLink is one remote profile's link as `clawd serve` keeps it (see
// package remote): `clawd status`, `clawd remote list` and the tray show
// it.
type RemoteLink struct {
	// Profile is the profile's name; Label is what its sessions show
	// under (their ids are "<label>:<the agent's id>"): the name, or
	// "wsl:<distro>".
	Profile string `json:"profile"`
	Label   string `json:"label"`
	// Kind is LinkSSH or LinkWSL.
	Kind string `json:"kind"`
	// State is LinkUp, LinkConnecting or LinkDown; Error says why a
	// link is down, Since when it went into its state.
	State string    `json:"state"`
	Error string    `json:"error,omitempty"`
	Since time.Time `json:"since"`
	// Ingress is the profile's own listener on this machine's loopback;
	// RemotePort is the port the remote's hooks connect to.
	Ingress    string `json:"ingress,omitempty"`
	RemotePort int    `json:"remote_port"`
	Generation int64  `json:"generation"`
	// TunnelPID is the ssh process that holds the tunnel, while one runs.
	TunnelPID int `json:"tunnel_pid,omitempty"`
	// Attempts counts the connections tried since the link was last up;
	// NextTry is when the next one starts, while the link waits.
	Attempts int       `json:"attempts,omitempty"`
	NextTry  time.Time `json:"next_try,omitzero"`
	// LastTest is the last connection test that came through.
	LastTest *RemoteTestNote `json:"last_test,omitempty"`
}

// RemoteTestNote is a connection test the ingress received.
type RemoteTestNote struct {
	Nonce string    `json:"nonce"`
	At    time.Time `json:"at"`
}

// Remote link kinds and states.
const (
	LinkSSH = "ssh"
	LinkWSL = "wsl"

	LinkUp         = "up"
	LinkConnecting = "connecting"
	LinkDown       = "down"
)
