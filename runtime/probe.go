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
	byID  map[string]client.Probe
	order []string // oldest first
}

func (p *probes) add(pr client.Probe) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.byID == nil {
		p.byID = map[string]client.Probe{}
	}
	if _, ok := p.byID[pr.ID]; !ok {
		if len(p.order) == maxProbes {
			delete(p.byID, p.order[0])
			p.order = p.order[1:]
		}
		p.order = append(p.order, pr.ID)
	}
	p.byID[pr.ID] = pr
}

func (p *probes) get(id string) (client.Probe, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	pr, ok := p.byID[id]
	return pr, ok
}

func (s *Server) handlePostProbe(w http.ResponseWriter, r *http.Request) {
	var pr client.Probe
	if !readBody(w, r, 4<<10, &pr) {
		return
	}
	if pr.ID == "" || len(pr.ID) > client.MaxProbeID || agents.Lookup(pr.Agent) == nil || len(pr.HookEvent) > agents.MaxWordLen {
		writeError(w, http.StatusBadRequest, "a probe needs an id of at most 64 bytes and a known agent")
		return
	}
	pr.ReceivedAt = s.cfg.Now()
	s.probes.add(pr)
	s.log.Info("connection test arrived", "agent", pr.Agent, "hook_event", pr.HookEvent, "probe", pr.ID)
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server) handleGetProbe(w http.ResponseWriter, r *http.Request) {
	pr, ok := s.probes.get(r.PathValue("id"))
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
	s.feeds.publish(client.Change{Integrations: true})
}
