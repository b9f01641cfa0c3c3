package runtime

import (
	"time"

	"github.com/clawdhq/clawd/runtime/client"
	"github.com/clawdhq/clawd/runtime/sessions"
)

// Permission broker defaults (the broker itself is sessions.Broker).
const (
	// DefaultPermissionTimeout is how long a request waits for the person
	// when Config.PermissionTimeout is zero (sessions.DefaultRequestTimeout).
	DefaultPermissionTimeout = sessions.DefaultRequestTimeout
	// DefaultPermissionHeartbeat is Config.PermissionHeartbeat's default:
	// a third of client.HeartbeatLoss, so a hook gives up only on a
	// runtime that missed three heartbeats.
	DefaultPermissionHeartbeat = time.Second
)

// Headless policies (Config.HeadlessPolicy).
const (
	HeadlessNone = "none" // answer no decision at once: -p handles it itself
	HeadlessAsk  = "ask"  // show the request like any other
)

// Errors of Decide (the broker's).
var (
	// ErrNoRequest: no pending or recently closed request has the id.
	ErrNoRequest = sessions.ErrNoRequest
	// ErrClosed: the request was already answered, withdrawn or expired.
	ErrClosed = sessions.ErrClosed
	// ErrBadDecision: the decision does not fit the request.
	ErrBadDecision = sessions.ErrBadDecision
)

// newBroker is the runtime's permission broker: the session store's, with
// the person's rules for an immediate answer and the requests' cards.
func (s *Server) newBroker() *sessions.Broker {
	return sessions.NewBroker(sessions.BrokerConfig{
		Store: s.sessions, Now: s.cfg.Now, Log: s.log,
		Timeout: s.cfg.PermissionTimeout, AskHeadless: s.cfg.HeadlessPolicy == HeadlessAsk,
		Rules: s.immediateRule, Card: s.card,
	})
}

// The broker's side of the Server: the hooks, the API, the tray and the
// channels reach the broker through these.

// register takes a checked request in (see sessions.Broker.Register),
// unless its agent is off: then no session shows it either.
func (s *Server) register(body *client.RequestBody) (*sessions.Request, string) {
	if s.ignored(&body.Event) {
		return nil, client.ReasonAgentOff
	}
	return s.perms.Register(body)
}

// Permissions returns the pending requests, oldest first.
func (s *Server) Permissions() []client.PermissionView { return s.perms.Permissions() }

// Decide answers the pending request id, for the API and the tray alike.
// The error wraps ErrNoRequest, ErrClosed or ErrBadDecision and says why
// in words a person can act on.
func (s *Server) Decide(id string, body client.DecisionBody) (client.PermissionView, error) {
	return s.perms.Decide(id, body)
}

// SetDND turns do-not-disturb on or off. Turning it on answers every
// pending request with no decision at once: the agents ask in their own
// terminals, nothing is allowed or denied silently.
func (s *Server) SetDND(on bool) { s.perms.SetDND(on) }

// DND reports whether do-not-disturb is on.
func (s *Server) DND() bool { return s.perms.DND() }
