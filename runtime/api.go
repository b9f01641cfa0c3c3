package runtime

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/runtime/client"
)

// Body caps. An event is ids, paths, a title and at most a turn's answer,
// which the hook cuts to fit agents.MaxEventBody. The original app's POST
// /state body is smaller still.
const (
	maxEventBody = agents.MaxEventBody
	maxStateBody = 8 << 10
)

// bodyDeadline gives every request Config.BodyReadTimeout from the end of
// its headers (ReadHeaderTimeout bounds those) to deliver its body: a
// connection that announces a body and sends nothing is cut off then.
// Handlers that hold the connection open afterwards (the streams, a
// permission request waiting for the person) lift the deadline once they
// have read what they need.
func (s *Server) bodyDeadline(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.NewResponseController(w).SetReadDeadline(time.Now().Add(s.cfg.BodyReadTimeout))
		h.ServeHTTP(w, r)
	})
}

// identify marks every response with clawd's identity header.
func identify(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set(client.IdentityHeader, client.IdentityValue)
		h.ServeHTTP(w, r)
	})
}

func notFound(w http.ResponseWriter, r *http.Request) {
	writeError(w, http.StatusNotFound, "no such route: "+r.Method+" "+r.URL.Path)
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
// The buffer grows as bytes arrive, never ahead of them: a Content-Length
// is a promise, and thousands of connections that announce 64 KiB and send
// nothing must not cost 64 KiB each. Hooks' bodies fit the pooled buffers
// that ingest, the runtime's hot path, reuses. A body over limit is a 413
// (http.MaxBytesReader then has net/http close the connection), one that
// does not arrive within Config.BodyReadTimeout a 400 (see bodyDeadline).
func readBody(w http.ResponseWriter, r *http.Request, limit int64, v any) bool {
	bp := bodyPool.Get().(*[]byte)
	b := (*bp)[:0]
	defer func() {
		if cap(b) <= maxPooledBody {
			*bp = b[:0]
			bodyPool.Put(bp)
		}
	}()
	body := http.MaxBytesReader(w, r.Body, limit)
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)] // grows by doubling, from what arrived
		}
		n, err := body.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			var tooBig *http.MaxBytesError
			if errors.As(err, &tooBig) {
				writeError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("body larger than %d bytes", limit))
				return false
			}
			writeError(w, http.StatusBadRequest, "read body: "+err.Error())
			return false
		}
	}
	// json.Unmarshal copies what it keeps, so b can go back to the pool.
	return decodeBody(w, b, v)
}

// maxPooledBody is the largest buffer readBody keeps for reuse: an
// event's cap. A permission request's bigger buffer is left to the GC.
const maxPooledBody = maxEventBody

// bodyPool holds the buffers readBody reads bodies into.
var bodyPool = sync.Pool{New: func() any {
	b := make([]byte, 0, 1<<10)
	return &b
}}

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
		"port":    s.tcpPort(),
	})
}

// handleStateHealth is the original app's GET /state health check, open
// to anything on the machine: it says that clawd runs and nothing more.
// To this user's processes it also proves which clawd it is: a nonce in
// client.NonceHeader is answered with client.PortProof, which clawd
// doctor checks (another user gets no proof, so it cannot pass the
// runtime's off as its own on a squatted port).
func (s *Server) handleStateHealth(w http.ResponseWriter, r *http.Request) {
	if n := r.Header.Get(client.NonceHeader); n != "" && validNonce(n) && peerOfRequest(r.Context()) != peerOther {
		w.Header().Set(client.ProofHeader, client.PortProof(s.cfg.Token, n))
	}
	writeJSON(w, http.StatusOK, map[string]any{"ok": true, "app": "clawd"})
}

// eventPool holds the events handlePostEvent decodes into: decoding needs
// a pointer, which would otherwise put a fresh Event on the heap for
// every post.
var eventPool = sync.Pool{New: func() any { return new(agents.Event) }}

func (s *Server) handlePostEvent(w http.ResponseWriter, r *http.Request) { s.postEvent(w, r, nil) }

// postEvent takes an event from a local hook (from nil) or through a
// remote profile's ingress.
func (s *Server) postEvent(w http.ResponseWriter, r *http.Request, from *Ingress) {
	e := eventPool.Get().(*agents.Event)
	defer func() {
		*e = agents.Event{} // json.Unmarshal merges into what is there
		eventPool.Put(e)
	}()
	if !readBody(w, r, maxEventBody, e) {
		return
	}
	response, err := s.acceptFrom(e, from)
	if err != nil {
		writeError(w, acceptStatus(err), err.Error())
		return
	}
	s.ingestWith(*e, response, false)
	w.WriteHeader(http.StatusNoContent)
}

// acceptStatus is the status of an event acceptFrom refused.
func acceptStatus(err error) int {
	if errors.Is(err, errForeignDistro) {
		return http.StatusForbidden
	}
	return http.StatusBadRequest
}

func (s *Server) handleSessions(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, s.Snapshot())
}
