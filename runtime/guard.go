package runtime

import (
	"mime"
	"net"
	"net/http"
	"strconv"
	"strings"
)

// guard keeps browsers and anything not on this machine out of the API,
// before a handler reads a byte of the body. A page in a browser can send
// "simple" cross-origin POSTs to loopback ports; binding to 127.0.0.1 does
// not stop that, these checks do:
//
//   - any Origin or Referer header (also empty or "null") is a browser: 403;
//   - so is Sec-Fetch-Site naming another site: a page can strip Origin and
//     Referer from a no-cors GET (referrerPolicy "no-referrer"), but not
//     the fetch metadata, and such a GET could still hold a stream open;
//   - Host must name loopback with the runtime's port (stops DNS rebinding): 403;
//   - exactly one Host and at most one Content-Type header: 400;
//   - a body-carrying request must be application/json: 415;
//   - OPTIONS is never answered as a CORS preflight: 405.
//
// Forwarded and X-Forwarded-* headers are ignored: they grant nothing.
// Rejections carry an empty body and change nothing.
func (s *Server) guard(next http.Handler) http.Handler { return guardHost(s.loopbackHost, next) }

// guardHost is guard with hostOK saying which Host headers are this
// listener's own: a profile's ingress is reached through the remote's
// port, whose number its hooks send.
func guardHost(hostOK func(string) bool, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reject := func(code int) {
			w.Header().Set("Connection", "close")
			w.WriteHeader(code)
		}
		if _, ok := r.Header["Origin"]; ok {
			reject(http.StatusForbidden)
			return
		}
		if _, ok := r.Header["Referer"]; ok {
			reject(http.StatusForbidden)
			return
		}
		if crossSite(r) {
			reject(http.StatusForbidden)
			return
		}
		if duplicateHeaders(r) {
			reject(http.StatusBadRequest)
			return
		}
		if !hostOK(r.Host) {
			reject(http.StatusForbidden)
			return
		}
		if r.Method == http.MethodOptions {
			reject(http.StatusMethodNotAllowed)
			return
		}
		if r.Method == http.MethodPost || r.Method == http.MethodPut || r.Method == http.MethodPatch {
			mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
			if err != nil || mt != "application/json" {
				reject(http.StatusUnsupportedMediaType)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// crossSite reports a request the browser marks as another page's: its
// Sec-Fetch-Site is neither same-origin nor none (none is the person
// typing or opening the URL; a client that sends no Sec-Fetch-Site is
// not a browser).
func crossSite(r *http.Request) bool {
	switch r.Header.Get("Sec-Fetch-Site") {
	case "", "none", "same-origin":
		return false
	}
	return true
}

// duplicateHeaders reports a second Host or Content-Type header. Go moves
// the Host header into r.Host; a second one shows up in r.Header (or is
// rejected by net/http already).
func duplicateHeaders(r *http.Request) bool {
	return len(r.Header.Values("Host")) > 0 || len(r.Header.Values("Content-Type")) > 1
}

// loopbackHost accepts 127.0.0.1, localhost and [::1], each with the
// runtime's own port.
func (s *Server) loopbackHost(hostport string) bool { return loopbackHostPort(hostport, s.tcpPort()) }

// loopbackHostPort accepts 127.0.0.1, localhost and [::1] with port want.
func loopbackHostPort(hostport string, want int) bool {
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		return false
	}
	if p, err := strconv.Atoi(port); err != nil || p != want {
		return false
	}
	switch strings.ToLower(host) {
	case "127.0.0.1", "localhost", "::1":
		return true
	}
	return false
}
