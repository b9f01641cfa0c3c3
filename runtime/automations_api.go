package runtime

import (
	"errors"
	"net/http"
	"time"

	"github.com/clawdhq/clawd/runtime/automations"
)

// The automations API: the CLI and the dashboard read and steer the
// engine through it (only `clawd serve` writes the store). Its wire types
// and typed methods are runtime/client's (client/automations.go).
//
//	GET  /api/v1/automations                 definitions, binding states, the switch
//	POST /api/v1/automations/reload          read automations.toml again (serve also does on a change)
//	POST /api/v1/automations/pause|resume    the master switch
//	POST /api/v1/automations/{id}/trust      {"hash"}: trust every binding for hash
//	POST /api/v1/automations/{id}/preview    {"event"?}: evaluate, no action
//	POST /api/v1/automations/{id}/test       {"event"?}: a real run, marked as a test
//	GET  /api/v1/automations/runs            ?state=&event=&automation=&prefix=&since=&limit=
//	POST /api/v1/automations/runs/{id}/retry|cancel

// maxAutomationBody caps a request to the automations API (a sample
// envelope at most).
const maxAutomationBody = 256 << 10

// AutomationsState is GET /api/v1/automations; client.AutomationsState
// is its wire type (TestAutomationWireTypes).
type AutomationsState struct {
	Paused      bool                         `json:"paused"`
	Definitions []automations.DefinitionView `json:"definitions"`
	// Error is why automations.toml as it is now is not in force; Kept
	// says that the definitions of its last good version are, meanwhile.
	Error string `json:"error,omitempty"`
	Kept  bool   `json:"kept,omitempty"`
	// Recovered says that the store was unreadable when serve started and
	// was moved aside for a fresh one (where, and what that lost).
	Recovered string `json:"recovered,omitempty"`
	// Backlog is the lifecycle events waiting in memory for the store
	// (and why, when it does not take them: "disk full").
	Backlog automations.Backlog `json:"backlog"`
}

// automations returns the engine, or answers 503 and returns nil when
// serve runs without automations, saying why when the engine did not
// open.
func (s *Server) automations(w http.ResponseWriter) *automations.Engine {
	e := s.auto.Load()
	if e == nil {
		msg := "automations are off in this clawd serve"
		if why := s.autoOff.Load(); why != nil {
			msg += ": " + *why
		}
		writeError(w, http.StatusServiceUnavailable, msg)
	}
	return e
}

func (s *Server) automationsState(r *http.Request) AutomationsState {
	e := s.auto.Load()
	st := AutomationsState{Paused: e.Paused(), Definitions: []automations.DefinitionView{},
		Recovered: e.Recovered(), Backlog: e.Backlog()}
	if err := e.LoadError(); err != nil {
		st.Error, st.Kept = err.Error(), e.Kept()
	}
	defs, err := e.Definitions(r.Context())
	if err != nil {
		// The store's: what is in force cannot be told.
		st.Error = err.Error()
	} else {
		st.Definitions = defs
	}
	return st
}

func (s *Server) handleAutomations(w http.ResponseWriter, r *http.Request) {
	if s.automations(w) == nil {
		return
	}
	writeJSON(w, http.StatusOK, s.automationsState(r))
}

func (s *Server) handleAutomationsReload(w http.ResponseWriter, r *http.Request) {
	e := s.automations(w)
	if e == nil {
		return
	}
	if err := e.Reload(); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	writeJSON(w, http.StatusOK, s.automationsState(r))
}

func (s *Server) handleAutomationsSwitch(pause bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		e := s.automations(w)
		if e == nil {
			return
		}
		if err := e.SetPaused(r.Context(), pause); err != nil {
			writeError(w, http.StatusInternalServerError, err.Error())
			return
		}
		s.log.Info("automations switch", "paused", pause)
		writeJSON(w, http.StatusOK, s.automationsState(r))
	}
}

func (s *Server) handleAutomationTrust(w http.ResponseWriter, r *http.Request) {
	e := s.automations(w)
	if e == nil {
		return
	}
	var body struct {
		Hash string `json:"hash"`
	}
	if !readBody(w, r, maxAutomationBody, &body) {
		return
	}
	switch err := e.Trust(r.Context(), r.PathValue("id"), body.Hash); {
	case errors.Is(err, automations.ErrNoDefinition):
		writeError(w, http.StatusNotFound, err.Error())
	case errors.Is(err, automations.ErrHashChanged):
		writeError(w, http.StatusConflict, err.Error())
	case err != nil:
		writeError(w, http.StatusInternalServerError, err.Error())
	default:
		writeJSON(w, http.StatusOK, s.automationsState(r))
	}
}

// sampleBody is a preview's or test run's optional event.
type sampleBody struct {
	Event *automations.Envelope `json:"event,omitempty"`
}

func (s *Server) handleAutomationPreview(w http.ResponseWriter, r *http.Request) {
	e := s.automations(w)
	if e == nil {
		return
	}
	var body sampleBody
	if !readBody(w, r, maxAutomationBody, &body) {
		return
	}
	res, err := e.Preview(r.Context(), r.PathValue("id"), body.Event)
	if errors.Is(err, automations.ErrNoDefinition) {
		writeError(w, http.StatusNotFound, err.Error())
		return
	}
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	writeJSON(w, http.StatusOK, res)
}

func (s *Server) handleAutomationTest(w http.ResponseWriter, r *http.Request) {
	e := s.automations(w)
	if e == nil {
		return
	}
	var body sampleBody
	if !readBody(w, r, maxAutomationBody, &body) {
		return
	}
	id, err := e.TestRun(r.Context(), r.PathValue("id"), body.Event)
	if errors.Is(err, automations.ErrNoDefinition) {
		writeError(w, http.StatusNotFound, err.Error())
		return
	}
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"run": id})
}

func (s *Server) handleAutomationRuns(w http.ResponseWriter, r *http.Request) {
	e := s.automations(w)
	if e == nil {
		return
	}
	q := r.URL.Query()
	f := automations.RunFilter{State: q.Get("state"), Event: automations.EventName(q.Get("event")), Automation: q.Get("automation"),
		Prefix: q.Get("prefix")}
	if v := q.Get("since"); v != "" {
		t, err := time.Parse(time.RFC3339, v)
		if err != nil {
			writeError(w, http.StatusBadRequest, "since: an RFC 3339 time")
			return
		}
		f.Since = t
	}
	if v := q.Get("limit"); v != "" {
		var n int
		for _, c := range v {
			if c < '0' || c > '9' || n > 100000 {
				writeError(w, http.StatusBadRequest, "limit: a number")
				return
			}
			n = n*10 + int(c-'0')
		}
		f.Limit = n
	}
	runs, err := e.Runs(r.Context(), f)
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	writeJSON(w, http.StatusOK, runs)
}

func (s *Server) handleRunChange(retry bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		e := s.automations(w)
		if e == nil {
			return
		}
		id := r.PathValue("id")
		var err error
		if retry {
			err = e.Retry(r.Context(), id)
		} else {
			err = e.Cancel(r.Context(), id)
		}
		switch {
		case errors.Is(err, automations.ErrNoRun):
			writeError(w, http.StatusNotFound, err.Error())
		case errors.Is(err, automations.ErrRunState):
			writeError(w, http.StatusConflict, err.Error())
		case err != nil:
			writeError(w, http.StatusInternalServerError, err.Error())
		default:
			w.WriteHeader(http.StatusNoContent)
		}
	}
}
