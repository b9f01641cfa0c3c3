package runtime

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"sync"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/runtime/client"
)

// Body caps. An event is small: ids, paths and a title. The original app's
// POST /state body is smaller still.
const (
	maxEventBody = 64 << 10
	maxStateBody = 8 << 10
)

// Handler returns the runtime's HTTP handler: every route behind the guard,
// every response marked with clawd's identity header.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/v1/health", s.handleHealth)
	mux.HandleFunc("POST /api/v1/events", s.handlePostEvent)
	mux.HandleFunc("GET /api/v1/events", s.handleStream)
	mux.HandleFunc("GET /api/v1/sessions", s.handleSessions)
	mux.HandleFunc("POST /api/v1/permissions", s.handlePermissionRequest)
	mux.HandleFunc("GET /api/v1/permissions", s.requireToken(s.handlePermissionList))
	mux.HandleFunc("GET /api/v1/permissions/events", s.requireToken(s.handlePermissionStream))
	mux.HandleFunc("GET /api/v1/permissions/{id}", s.requireToken(s.handlePermissionGet))
	mux.HandleFunc("POST /api/v1/permissions/{id}/decision", s.requireToken(s.handlePermissionDecision))
	mux.HandleFunc("GET /api/v1/dnd", s.requireToken(s.handleGetDND))
	mux.HandleFunc("POST /api/v1/dnd", s.requireToken(s.handlePostDND))
	// The original app's routes, for scripts written against it.
	mux.HandleFunc("GET /state", s.handleHealth)
	mux.HandleFunc("POST /state", s.handlePostState)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, "no such route: "+r.Method+" "+r.URL.Path)
	})
	guarded := s.guard(mux)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set(client.IdentityHeader, client.IdentityValue)
		guarded.ServeHTTP(w, r)
	})
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
}

func writeError(w http.ResponseWriter, code int, msg string) {
	writeJSON(w, code, map[string]string{"error": msg})
}

// readBody reads a capped JSON body into v, answering the error itself.
//
// A body whose Content-Length is within the cap, which is every hook's, is
// read in one go into a pooled buffer of that size: ingest is the runtime's
// hot path and io.ReadAll's growing buffers were a large share of its
// garbage. Any other body, chunked or declared too large, goes through
// http.MaxBytesReader, which also has net/http close the connection after
// the 413.
func readBody(w http.ResponseWriter, r *http.Request, limit int64, v any) bool {
	n := r.ContentLength
	if n < 0 || n > limit {
		return readBodyCapped(w, r, limit, v)
	}
	bp := bodyPool.Get().(*[]byte)
	defer bodyPool.Put(bp)
	b := slices.Grow((*bp)[:0], int(n))[:n]
	*bp = b[:0]
	// net/http ends the body at Content-Length and reports a short one
	// as io.ErrUnexpectedEOF, as io.ReadAll would.
	if _, err := io.ReadFull(r.Body, b); err != nil {
		writeError(w, http.StatusBadRequest, "read body: "+err.Error())
		return false
	}
	// json.Unmarshal copies what it keeps, so b can go back to the pool.
	return decodeBody(w, b, v)
}

// bodyPool holds the buffers readBody reads bodies into; none grows
// beyond the largest cap, maxEventBody.
var bodyPool = sync.Pool{New: func() any {
	b := make([]byte, 0, 1<<10)
	return &b
}}

// readBodyCapped is readBody for a body of unknown or excessive length.
func readBodyCapped(w http.ResponseWriter, r *http.Request, limit int64, v any) bool {
	b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			writeError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("body larger than %d bytes", limit))
			return false
		}
		writeError(w, http.StatusBadRequest, "read body: "+err.Error())
		return false
	}
	return decodeBody(w, b, v)
}

func decodeBody(w http.ResponseWriter, b []byte, v any) bool {
	if err := json.Unmarshal(b, v); err != nil {
		writeError(w, http.StatusBadRequest, "bad json: "+err.Error())
		return false
	}
	return true
}

func (s *Server) handleHealth(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{
		"ok":      true,
		"app":     "clawd",
		"version": s.cfg.Version,
		"pid":     os.Getpid(),
		"port":    s.port,
	})
}

// eventPool holds the events handlePostEvent decodes into: decoding needs
// a pointer, which would otherwise put a fresh Event on the heap for
// every post.
var eventPool = sync.Pool{New: func() any { return new(agents.Event) }}

func (s *Server) handlePostEvent(w http.ResponseWriter, r *http.Request) {
	e := eventPool.Get().(*agents.Event)
	defer func() {
		*e = agents.Event{} // json.Unmarshal merges into what is there
		eventPool.Put(e)
	}()
	if !readBody(w, r, maxEventBody, e) {
		return
	}
	if e.Agent != "" {
		if a := agents.Lookup(e.Agent); a != nil {
			e.Agent = a.ID
		}
	}
	if err := e.Validate(); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	s.annotate(e)
	s.codex.sawHook(e, s.cfg.Now())
	s.Ingest(*e)
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server) handleSessions(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, s.Snapshot())
}

// handleStream follows the event stream (see Server.stream).
func (s *Server) handleStream(w http.ResponseWriter, r *http.Request) {
	s.stream(w, r, s.bus, "kind", func() (*subscriber, [][]byte) {
		return s.bus.subscribe(4096), nil
	})
}
