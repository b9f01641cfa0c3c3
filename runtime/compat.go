package runtime

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/statemachine"
)

// stateBody is the original app's POST /state body. Custom scripts written
// for Clawd-on-desk send it; fields clawd has no use for (svg,
// display_svg, editor, pid_chain, host) are accepted and ignored.
//
// POST /state is taken only from this user: on the socket, or on the TCP
// port from a process of this user (the kernel says who connected, on
// Linux) or with the API token from runtime.json. What it sets reaches
// the history, the recap, the automations (webhooks and commands the
// person trusted) and the 256 sessions the runtime keeps, so another
// user's post would run the person's automations with its data, and a
// flood of them would push real sessions out: anyone else gets a 403 and
// nothing happens (see thisUser). Even from this user it only ever
// sets a session's state: it cannot create, answer or withdraw a
// permission request or question (those come from this user's hooks),
// and it cannot show one either: "waiting" is not among its states, a
// permission or question event name is taken as the plain state sent
// with it, and a session that waits for the person is left alone (409).
type stateBody struct {
	State     string          `json:"state"`
	SessionID string          `json:"session_id"`
	Event     string          `json:"event"`
	AgentID   string          `json:"agent_id"`
	Cwd       string          `json:"cwd"`
	AgentPID  json.RawMessage `json:"agent_pid"`
	ClaudePID json.RawMessage `json:"claude_pid"`
	Headless  bool            `json:"headless"`
}

// compatDefaultAgent is the agent_id the original app's protocol assumes
// when a body names none.
const compatDefaultAgent = "claude-code"

var compatStates = map[string]bool{}

func init() {
	for _, s := range []statemachine.State{statemachine.Sleeping, statemachine.Idle,
		statemachine.Thinking, statemachine.Working, statemachine.Juggling,
		statemachine.Carrying, statemachine.Attention, statemachine.Sweeping,
		statemachine.Notification, statemachine.Error} {
		compatStates[string(s)] = true
	}
}

// handlePostState is POST /state from this user (the socket, or
// thisUser's checks).
func (s *Server) handlePostState(w http.ResponseWriter, r *http.Request) {
	var b stateBody
	if !readBody(w, r, maxStateBody, &b) {
		return
	}
	if !compatStates[b.State] {
		writeError(w, http.StatusBadRequest, "unknown state "+quoteClip(b.State)+
			"; known: idle, thinking, working, juggling, sweeping, error, attention, notification, carrying, sleeping")
		return
	}
	agentID := b.AgentID
	if agentID == "" {
		agentID = compatDefaultAgent
	}
	if err := s.refuseUndeclared(agentID); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	a := agents.Lookup(agentID)
	if a == nil {
		writeError(w, http.StatusBadRequest, "unknown agent_id "+quoteClip(agentID))
		return
	}
	e := agents.Event{
		Agent:     a.ID,
		Kind:      agents.KindState,
		State:     b.State,
		SessionID: b.SessionID,
		Time:      s.cfg.Now().UTC(),
		Cwd:       b.Cwd,
		Headless:  b.Headless,
		AgentPID:  firstPID(b.AgentPID, b.ClaudePID),
	}
	if e.SessionID == "" {
		e.SessionID = "default"
	}
	if b.Event != "" {
		// The original app's hooks name the agent's own event.
		if k, ok := a.Kinds()[b.Event]; ok && k != agents.KindPermissionRequest && k != agents.KindQuestion {
			e.Kind, e.HookEvent, e.State = k, b.Event, ""
			if k == agents.KindSessionEnd && b.State == string(statemachine.Sweeping) {
				e.Reason = "clear"
			}
		}
	}
	if err := e.Validate(); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	rec, ok := s.ingest(e, true)
	if !ok {
		writeError(w, http.StatusConflict, "session "+quoteClip(e.SessionID)+
			" waits for a permission decision: POST /state cannot change it")
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"ok": true, "state": rec.State, "display_state": rec.DisplayState})
}

// errUndeclared is what a post naming an undeclared custom agent is told.
var errUndeclared = errors.New("is no custom agent of this clawd: declare it in config.toml as [[agents.custom]] " +
	"with its name and display_name, then restart clawd serve (custom agents are read when it starts)")

// refuseUndeclared returns an error for an agent id in the custom agents'
// namespace that config.toml did not declare (a typo, an agent removed
// from the file, or a forgery): such an id is no agent and never falls
// back to another. Each refusal is counted; the log says so at the first
// and then at every power of two, with the count, so a flood of them
// shows without filling the log. nil for any other id.
func (s *Server) refuseUndeclared(id string) error {
	if !agents.IsCustomID(id) || agents.Lookup(id) != nil {
		return nil
	}
	n := s.undeclared.Add(1)
	if n&(n-1) == 0 {
		s.log.Warn("refused a post for an undeclared custom agent", "agent", quoteClip(id), "refused", n)
	}
	return fmt.Errorf("agent %s %w", quoteClip(id), errUndeclared)
}

// stateOnly reports whether e's agent is one clawd answers no permission
// of at all, whatever the config says: a custom agent, which reports its
// state itself and has no dialog clawd could stand in for.
func stateOnly(e *agents.Event) bool {
	a := agents.Lookup(e.Agent)
	return a != nil && a.Custom
}

// firstPID returns the first positive integer among the raw JSON values.
func firstPID(raws ...json.RawMessage) int {
	for _, raw := range raws {
		var f float64
		if json.Unmarshal(raw, &f) == nil && f > 0 && f < 1<<31 {
			return int(f)
		}
	}
	return 0
}

func quoteClip(s string) string {
	if len(s) > 40 {
		s = s[:40] + "..."
	}
	return `"` + strings.ToValidUTF8(s, "?") + `"`
}
