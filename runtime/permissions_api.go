package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/runtime/client"
	"github.com/clawdhq/clawd/runtime/sessions"
)

// Body caps of the permission API.
const (
	// maxPermissionBody caps a registration. The hook sends a truncated
	// preview (InputTruncated) of a larger tool input instead of a body
	// that would be refused: a big Write is shown, never auto-denied (the
	// original's #36).
	maxPermissionBody = 1 << 20
	// maxDecisionBody caps a decision: a verdict, a message, and a
	// question's answers (up to 8 questions of 32 labels of 1 KiB and
	// agents.MaxAnswerText of one's own each).
	maxDecisionBody = 1 << 20
)

// handlePermissionRequest is the hook's POST /api/v1/permissions: it
// registers the request and holds the connection open until the answer.
// Closing the connection withdraws the request: Claude Code kills the
// hook when the person answers in the terminal, and net/http cancels the
// request's context as soon as the connection drops.
func (s *Server) handlePermissionRequest(w http.ResponseWriter, r *http.Request) {
	s.permissionRequest(w, r, nil)
}

// permissionRequest takes a request from a local hook (from nil) or
// through a remote profile's ingress.
func (s *Server) permissionRequest(w http.ResponseWriter, r *http.Request, from *Ingress) {
	body, ok := s.readPermissionRequest(w, r, from)
	if !ok {
		return
	}
	e := &body.Event
	if stateOnly(e) {
		// Nothing to show and nothing to answer: no decision, at once.
		s.log.Info("permission not shown", "agent", e.Agent, "session", e.SessionID, "tool", e.ToolName, "reason", "state-only agent")
		w.WriteHeader(http.StatusNoContent)
		return
	}
	req, reason := s.register(&body)
	if req == nil {
		s.log.Log(r.Context(), notShownLevel(reason), "permission not shown", "agent", e.Agent, "session", e.SessionID,
			"subagent", e.SubagentID, "tool", e.ToolName, "reason", reason)
		writeJSON(w, http.StatusOK, client.Answer{Reason: reason})
		return
	}
	v := req.Added()
	if a := s.auto.Load(); a != nil {
		a.Requested(r.Context(), v)
	}
	s.log.Info("permission pending", "id", v.ID, "agent", e.Agent, "session", e.SessionID,
		"tool", e.ToolName, "kind", v.Kind)
	s.hold(w, r, req, s.perms.WaitFor(body.WaitSeconds))
}

// readPermissionRequest reads a hook's registration and checks it,
// answering the error itself.
func (s *Server) readPermissionRequest(w http.ResponseWriter, r *http.Request, from *Ingress) (client.RequestBody, bool) {
	var body client.RequestBody
	// readBody reads to EOF, which starts net/http's background read that
	// notices the hook hanging up.
	if !readBody(w, r, maxPermissionBody, &body) {
		return body, false
	}
	// The request is read; the wait that follows is held open as long as
	// the agent lets the hook wait (bodyDeadline's limit was for the body).
	http.NewResponseController(w).SetReadDeadline(time.Time{})
	e := &body.Event
	if _, err := s.acceptFrom(e, from); err != nil {
		writeError(w, acceptStatus(err), err.Error())
		return body, false
	}
	if e.Kind != agents.KindPermissionRequest && e.Kind != agents.KindQuestion {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("event kind %q is not a permission request: use %q or %q",
			e.Kind, agents.KindPermissionRequest, agents.KindQuestion))
		return body, false
	}
	if string(body.ToolInput) == "null" {
		body.ToolInput = nil
	}
	return body, true
}

// hold keeps the hook's connection until req is closed, for at most
// timeout, and writes the answer as the response's last line.
//
// It acknowledges at once (the response headers and a first heartbeat)
// and sends a heartbeat every Config.PermissionHeartbeat: a hook that sees
// no acknowledgement within client.AckTimeout, or no byte within
// client.HeartbeatLoss, takes the runtime for stopped and answers "no
// decision" so the agent's own prompt takes over.
func (s *Server) hold(w http.ResponseWriter, r *http.Request, req *sessions.Request, timeout time.Duration) {
	rc := http.NewResponseController(w)
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	beat := func() error {
		rc.SetWriteDeadline(time.Now().Add(s.cfg.StreamWriteTimeout))
		if _, err := io.WriteString(w, "\n"); err != nil {
			return err
		}
		return rc.Flush()
	}
	if beat() != nil {
		s.perms.NoDecision(req, client.ReasonWithdrawn)
		return
	}
	ans, ok := s.await(r.Context(), req, timeout, beat)
	if !ok {
		return
	}
	line, _ := json.Marshal(ans)
	rc.SetWriteDeadline(time.Now().Add(s.cfg.StreamWriteTimeout))
	w.Write(append(line, '\n'))
}

// await waits for req's answer, beating meanwhile. Past timeout, or when
// the runtime stops, it closes req with no decision and returns that. When
// the hook is gone (ctx ends, a heartbeat fails) it withdraws req and
// reports false: there is nobody to answer.
func (s *Server) await(ctx context.Context, req *sessions.Request, timeout time.Duration, beat func() error) (client.Answer, bool) {
	heartbeat := time.NewTicker(s.cfg.PermissionHeartbeat)
	defer heartbeat.Stop()
	expired := s.cfg.After(timeout)
	for {
		select {
		case ans := <-req.Answer():
			return ans, true
		case <-expired:
			// Closed by someone else meanwhile or not: req.Answer() has
			// the answer now.
			s.perms.NoDecision(req, client.ReasonTimeout)
			return <-req.Answer(), true
		case <-s.done:
			s.perms.NoDecision(req, client.ReasonShutdown)
			return <-req.Answer(), true
		case <-ctx.Done():
			s.perms.NoDecision(req, client.ReasonWithdrawn)
			return client.Answer{}, false
		case <-heartbeat.C:
			if beat() != nil {
				s.perms.NoDecision(req, client.ReasonWithdrawn)
				return client.Answer{}, false
			}
		}
	}
}

// handlePermissionList is GET /api/v1/permissions: pending requests,
// oldest first.
func (s *Server) handlePermissionList(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, s.Permissions())
}

// handlePermissionGet is GET /api/v1/permissions/{id}.
func (s *Server) handlePermissionGet(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	d, ok := s.perms.Detail(id)
	if !ok {
		writeError(w, http.StatusNotFound, "no permission request "+id)
		return
	}
	writeJSON(w, http.StatusOK, d)
}

// handlePermissionDecision is POST /api/v1/permissions/{id}/decision.
// The body's Via names the client (see client.ClientSource).
func (s *Server) handlePermissionDecision(w http.ResponseWriter, r *http.Request) {
	s.permissionDecision(w, r, "")
}

// permissionDecision answers a decision posted by via, or by the client
// the body's Via names when via is "".
func (s *Server) permissionDecision(w http.ResponseWriter, r *http.Request, via string) {
	id := r.PathValue("id")
	var body client.DecisionBody
	if !readBody(w, r, maxDecisionBody, &body) {
		return
	}
	if via != "" {
		body.Via = via
	}
	view, err := s.Decide(id, body)
	switch {
	case errors.Is(err, ErrNoRequest):
		writeError(w, http.StatusNotFound, "no permission request "+id)
	case errors.Is(err, ErrClosed):
		writeError(w, http.StatusConflict, err.Error())
	case err != nil:
		writeError(w, http.StatusBadRequest, err.Error())
	default:
		writeJSON(w, http.StatusOK, view)
	}
}

// handlePermissionStream is GET /api/v1/permissions/events: the pending
// requests as "added" lines, then every change as it happens. NDJSON by
// default, Server-Sent Events when the client accepts text/event-stream,
// with a heartbeat every 15 s as on the event stream.
func (s *Server) handlePermissionStream(w http.ResponseWriter, r *http.Request) {
	s.stream(w, r, "type", func() (*sessions.Subscription[sessions.Line], []sessions.Line) {
		return s.perms.Follow(1024)
	})
}
