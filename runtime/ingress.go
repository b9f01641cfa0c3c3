package runtime

import (
	"context"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/runtime/client"
)

// Remotes are the links to remote machines that `clawd serve` keeps
// (package remote): the snapshot and the view show their state, and
// POST /api/v1/remotes/reload on the socket makes it read the profiles
// again after `clawd remote add` or `remove` changed them.
type Remotes interface {
	Links() []client.RemoteLink
	Reload(ctx context.Context) error
}

// links returns the remote links, nil without any.
func (s *Server) links() []client.RemoteLink {
	if s.cfg.Remotes == nil {
		return nil
	}
	return s.cfg.Remotes.Links()
}

// LinksChanged tells the UIs that a remote link changed state.
func (s *Server) LinksChanged() { s.sessions.Announce(client.Change{Display: true}) }

// Ingress is one remote profile's door into the runtime: a listener of its
// own on this machine's loopback, which the profile's SSH tunnel (or, for
// WSL, the distro's loopback) leads to. Anything on either machine can
// connect to it, so it takes nothing without the profile's token and
// current generation, and what it takes is the remote's: its sessions are
// namespaced "<label>:<id>", so they never collide with, nor answer for,
// a local session or another profile's, and the remote's process ids,
// transcript paths and the like are dropped (nothing here is focused,
// watched or read for them).
type Ingress struct {
	// Label is what the profile's sessions show under and are
	// namespaced by: the profile's name, or "wsl:<distro>".
	Label string
	// Distro, for a WSL profile, is the distro whose events it takes
	// (agents.Event.Distro, marked by the hook); "" for SSH.
	Distro string
	// Port is the port the remote's hooks connect to, which they send in
	// their Host header: the tunnel's remote port (for WSL, the
	// listener's own).
	Port int
	// Tested, when set, hears each connection test that came through.
	Tested func(client.RemoteTest)

	creds atomic.Pointer[ingressCreds]
}

type ingressCreds struct {
	token      string
	generation int64
}

// SetCredentials sets the token and generation the ingress takes from now
// on: requests with the previous ones are refused.
func (in *Ingress) SetCredentials(token string, generation int64) {
	in.creds.Store(&ingressCreds{token: token, generation: generation})
}

// errForeignDistro means a WSL profile's ingress got an event that another
// distro's hook (or no WSL hook) marked.
var errForeignDistro = errors.New("the event is not marked with this profile's WSL distro")

// localize makes a remote's event one of the profile's sessions.
func (in *Ingress) localize(e *agents.Event) error {
	if in.Distro != "" && e.Distro != in.Distro {
		return errForeignDistro
	}
	if e.SessionID != "" {
		e.SessionID = in.Label + ":" + e.SessionID
	}
	e.Host = in.Label
	e.Distro = ""
	// The remote's processes and files mean nothing here: no liveness
	// checks, no focus, no reading its transcript at a local path.
	e.AgentPID = 0
	e.Transcript = ""
	return nil
}

// acceptFrom is accept for an event that came in through the ingress
// from (nil: the socket, where every event is local).
func (s *Server) acceptFrom(e *agents.Event, from *Ingress) (string, error) {
	if from == nil {
		e.Host, e.Distro = "", ""
	} else if err := from.localize(e); err != nil {
		return "", err
	}
	return s.accept(e)
}

// remoteTest answers a connection test that came through in: its nonce,
// the profile and this runtime's version.
func (s *Server) remoteTest(w http.ResponseWriter, r *http.Request, in *Ingress) {
	var t client.RemoteTest
	if !readBody(w, r, maxDecisionBody, &t) {
		return
	}
	if !validNonce(t.Nonce) {
		writeError(w, http.StatusBadRequest, "a connection test needs a nonce of 32 to 64 hex digits")
		return
	}
	s.log.Info("connection test through a remote link", "profile", in.Label, "remote_version", t.Version)
	if in.Tested != nil {
		in.Tested(t)
	}
	writeJSON(w, http.StatusOK, client.RemoteTest{Nonce: t.Nonce, Profile: in.Label, Version: s.cfg.Version})
}

// hello answers a hook's nonce with its Proof, for the current generation
// only.
func (in *Ingress) hello(w http.ResponseWriter, r *http.Request) {
	c := in.creds.Load()
	nonce := r.Header.Get(client.NonceHeader)
	gen, err := strconv.ParseInt(r.Header.Get(client.GenerationHeader), 10, 64)
	if c == nil || err != nil || gen != c.generation || !validNonce(nonce) {
		w.WriteHeader(http.StatusForbidden)
		return
	}
	w.Header().Set(client.ProofHeader, client.Proof(c.token, c.generation, nonce))
	w.WriteHeader(http.StatusNoContent)
}

// validNonce takes 16 to 32 bytes in hex.
func validNonce(n string) bool {
	if len(n) < 32 || len(n) > 64 {
		return false
	}
	_, err := hex.DecodeString(n)
	return err == nil
}

// ingressAuth lets a request through only with the profile's token as
// "Authorization: Bearer <token>" and its current generation in
// X-Clawd-Generation; anything else is a 403 with an empty body, before
// the body is read.
func (s *Server) ingressAuth(in *Ingress, next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		c := in.creds.Load()
		got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		gen, err := strconv.ParseInt(r.Header.Get(client.GenerationHeader), 10, 64)
		if c == nil || !ok || err != nil || gen != c.generation ||
			subtle.ConstantTimeCompare([]byte(strings.TrimSpace(got)), []byte(c.token)) != 1 {
			s.log.Warn("refused a request on a remote profile's ingress: wrong token or generation",
				"profile", in.Label, "path", r.URL.Path, "generation", r.Header.Get(client.GenerationHeader))
			w.Header().Set("Connection", "close")
			w.WriteHeader(http.StatusForbidden)
			return
		}
		next(w, r)
	}
}

// ServeIngress serves in on ln until ctx ends or the runtime stops.
func (s *Server) ServeIngress(ctx context.Context, ln net.Listener, in *Ingress) error {
	if _, err := s.builtListeners(); err != nil {
		return err
	}
	srv := &http.Server{
		Handler:           s.IngressHandler(in),
		ReadHeaderTimeout: 5 * time.Second,
		IdleTimeout:       30 * time.Second,
		MaxHeaderBytes:    32 << 10,
		ConnContext:       connPeer,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelDebug),
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(userListener(ln, maxTCPConns, maxForeignConns, s.log)) }()
	select {
	case err := <-errc:
		return fmt.Errorf("ingress of %s: %w", in.Label, err)
	case <-ctx.Done():
	case <-s.done:
	}
	sctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	if srv.Shutdown(sctx) != nil {
		srv.Close()
	}
	<-errc
	return nil
}

// handleRemotes is GET /api/v1/remotes: the remote links.
func (s *Server) handleRemotes(w http.ResponseWriter, r *http.Request) {
	links := s.links()
	if links == nil {
		links = []client.RemoteLink{}
	}
	writeJSON(w, http.StatusOK, links)
}

// handleRemotesReload is POST /api/v1/remotes/reload: read the profiles
// again.
func (s *Server) handleRemotesReload(w http.ResponseWriter, r *http.Request) {
	if s.cfg.Remotes == nil {
		writeError(w, http.StatusNotFound, "this runtime keeps no remote links")
		return
	}
	if err := s.cfg.Remotes.Reload(r.Context()); err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	w.WriteHeader(http.StatusNoContent)
}
