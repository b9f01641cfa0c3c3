package runtime

import (
	"crypto/subtle"
	"net/http"
	"strings"
)

// requireToken lets a request through only with the API token from
// runtime.json as "Authorization: Bearer <token>". Reading and answering
// permission requests and switching do-not-disturb change what an agent
// may do; anything on this machine can reach the port, only the person's
// own clients can read runtime.json (mode 0600).
//
// The hook's POST /api/v1/permissions is not wrapped: a hook that found
// the runtime by probing the port range has no token, and registering a
// request grants nothing. The guard still applies to it.
//
// A refusal is a 401 with an empty body, checked before the body is read.
func (s *Server) requireToken(next http.HandlerFunc) http.HandlerFunc {
	want := []byte(s.cfg.Token)
	return func(w http.ResponseWriter, r *http.Request) {
		got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !ok || len(want) == 0 || subtle.ConstantTimeCompare([]byte(strings.TrimSpace(got)), want) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="clawd"`)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		next(w, r)
	}
}
