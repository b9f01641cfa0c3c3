package runtime

import (
	"net/http"
	"sync"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/runtime/client"
)

// maxProbes bounds the connection tests the runtime remembers: doctor
// asks about its probe right after the hook ran.
const maxProbes = 64

// probes remembers the last connection tests that arrived (see
// client.Probe). They never reach the state machine: no session, no
// notification, nothing in the event stream.
type probes struct {
	mu    sync.Mutex
	byKey map[string]client.Probe // by probeKey
	order []string                // oldest first
}

func (p *probes) add(key string, pr client.Probe) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.byKey == nil {
		p.byKey = map[string]client.Probe{}
	}
	if _, ok := p.byKey[key]; !ok {
		if len(p.order) == maxProbes {
			delete(p.byKey, p.order[0])
			p.order = p.order[1:]
		}
		p.order = append(p.order, key)
	}
	p.byKey[key] = pr
}

func (p *probes) get(key string) (client.Probe, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	pr, ok := p.byKey[key]
	return pr, ok
}

func (s *Server) handlePostProbe(w http.ResponseWriter, r *http.Request) { s.postProbe(w, r, nil) }

func (s *Server) handleGetProbe(w http.ResponseWriter, r *http.Request) { s.getProbe(w, r, nil) }

// probeKey is where a probe's id is kept: a remote profile's probes
// apart from the socket's and each other's, as its sessions are.
func probeKey(id string, from *Ingress) string {
	if from == nil {
		return id
	}
	return from.Label + ":" + id
}

// postProbe takes a probe that came in through the ingress from (nil:
// the socket).
func (s *Server) postProbe(w http.ResponseWriter, r *http.Request, from *Ingress) {
	var pr client.Probe
	if !readBody(w, r, 4<<10, &pr) {
		return
	}
	if pr.ID == "" || len(pr.ID) > client.MaxProbeID || agents.Lookup(pr.Agent) == nil || len(pr.HookEvent) > agents.MaxWordLen {
		writeError(w, http.StatusBadRequest, "a probe needs an id of at most 64 bytes and a known agent")
		return
	}
	pr.ReceivedAt = s.cfg.Now()
	pr.Host = ""
	if from != nil {
		pr.Host = from.Label
	}
	s.probes.add(probeKey(pr.ID, from), pr)
	s.log.Info("connection test arrived", "agent", pr.Agent, "hook_event", pr.HookEvent, "probe", pr.ID, "host", pr.Host)
	w.WriteHeader(http.StatusNoContent)
}

// getProbe answers whether a probe arrived through the ingress from
// (nil: the socket).
func (s *Server) getProbe(w http.ResponseWriter, r *http.Request, from *Ingress) {
	pr, ok := s.probes.get(probeKey(r.PathValue("id"), from))
	if !ok {
		writeError(w, http.StatusNotFound, "no such probe has arrived")
		return
	}
	writeJSON(w, http.StatusOK, pr)
}

// integrations returns the agents' integrations as Config.Integrations
// reports them, never nil.
func (s *Server) integrations() []client.Integration {
	var out []client.Integration
	if s.cfg.Integrations != nil {
		out = s.cfg.Integrations()
	}
	if out == nil {
		out = []client.Integration{}
	}
	return out
}

// IntegrationsChanged tells the runtime's UIs that an agent's
// integration changed state (the tray shows those that need a manual
// fix).
func (s *Server) IntegrationsChanged() {
	s.sessions.Announce(client.Change{Integrations: true})
}
