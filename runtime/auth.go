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
	return func(w http.ResponseWriter, r *http.Request) {
		if !s.hasToken(r) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="clawd"`)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		next(w, r)
	}
}

// hasToken reports whether r carries the API token.
func (s *Server) hasToken(r *http.Request) bool {
	got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	return ok && s.cfg.Token != "" &&
		subtle.ConstantTimeCompare([]byte(strings.TrimSpace(got)), []byte(s.cfg.Token)) == 1
}

// thisUser lets a request of the original app's level through only from
// this user's processes (where the kernel says who connected) or with the
// API token: anyone else gets a 403 before a byte of the body is read
// (see stateBody for why POST /state is this user's alone).
func (s *Server) thisUser(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if peerOfRequest(r.Context()) != peerUser && !s.hasToken(r) {
			w.Header().Set("Connection", "close")
			writeError(w, http.StatusForbidden, r.Method+" "+r.URL.Path+" is taken from this user only: send the token of runtime.json as "+
				"\"Authorization: Bearer <token>\", or post over the runtime's socket (curl --unix-socket <clawd home>/clawd.sock)")
			return
		}
		next(w, r)
	}
}

// hasLogin reports whether r carries the cookie of a dashboard login.
func (s *Server) hasLogin(r *http.Request) bool {
	c, err := r.Cookie(s.dashCookie())
	return err == nil && s.logins.Known(c.Value)
}

// tcpDoor is the first thing every request on the TCP port meets, before
// the routes' own guards:
//
//   - another user's process (the kernel says who connected, on Linux;
//     see userListener) gets a 403 with no body for everything but the
//     original app's GET /state, which says only that clawd runs: nothing
//     on the port is theirs to read, post or answer;
//   - a request that proves nothing (neither the token nor a dashboard
//     login) has its connection closed after the answer, so nobody holds
//     keep-alive connections the person's browser and tools need; the
//     dashboard's sign-in and login pages are such requests, once each.
func (s *Server) tcpDoor(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if peerOfRequest(r.Context()) == peerOther {
			w.Header().Set("Connection", "close")
			if r.Method == http.MethodGet && r.URL.Path == "/state" {
				next.ServeHTTP(w, r)
				return
			}
			w.WriteHeader(http.StatusForbidden)
			return
		}
		if !s.hasToken(r) && !s.hasLogin(r) {
			w.Header().Set("Connection", "close")
		}
		next.ServeHTTP(w, r)
	})
}

// othersOut refuses every request of another user's process (the
// kernel says who connected, on Linux; see userListener) with a 403 and
// no body, and closes its connection: a remote profile's ingress is
// reached through this user's own ssh.
func othersOut(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if peerOfRequest(r.Context()) == peerOther {
			w.Header().Set("Connection", "close")
			w.WriteHeader(http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}
