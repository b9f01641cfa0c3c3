package runtime

import (
	"crypto/subtle"
	"net/http"
	"strings"
)

// requireToken lets a TCP request through only with the API token from
// runtime.json as "Authorization: Bearer <token>". Anything on this
// machine can reach the port; only the person's own clients can read
// runtime.json (mode 0600, in the 0700 clawd home). Reads need it too:
// sessions carry titles (first prompt lines), folders and tool names.
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
