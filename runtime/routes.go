package runtime

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"

	"github.com/clawdhq/clawd/runtime/client"
)

// The local API is one table of routes (routes, below): each says its
// pattern, who may call it (its access levels) and its handler. Every
// listener serves the routes its levels allow, each behind that level's
// checks, and nothing else registers a route: a route is added, moved or
// closed here alone (TestRoutesOnlyInTable keeps it so).

// access is a set of the levels a route is served at. A level is a
// listener and the check a request meets there before the handler runs.
type access uint8

const (
	// accessSocket is the runtime's Unix socket: this user's hooks, CLI and
	// tools. The listener already refused every other user
	// (peerListener) and a browser cannot open a Unix socket, so no
	// further check applies.
	accessSocket access = 1 << iota
	// accessToken is the loopback TCP port behind guard (no browser, loopback
	// Host only), with the API token of runtime.json (requireToken).
	accessToken
	// accessDashboard is the TCP port behind dashGuard (the runtime's own
	// origin, Host and fetch metadata), with a login's cookie and its
	// secret header (dashAuth). An API route (/api/...) is served there
	// under /ui (/ui/api/v1/...); the page's own routes where they are.
	accessDashboard
	// accessIngress is a remote profile's ingress, behind guardHost with the
	// Host the remote's hooks send, with the profile's token and current
	// generation (ingressAuth).
	accessIngress
	// accessOriginal is the TCP port behind guard, for scripts written against
	// the original app: this user's processes (where the kernel says who
	// connected) or holders of the API token (thisUser).
	accessOriginal

	// accessOpen, beside exactly one level other than socket, skips that
	// level's credential (the listener's own guard still applies): the
	// handler checks what it needs itself. The dashboard's page and
	// login, a profile's hello, the original app's health check.
	accessOpen access = 1 << 7
)

// levels are the access levels in the order the table's errors name them.
var levels = []struct {
	a    access
	name string
}{{accessSocket, "socket"}, {accessToken, "token"}, {accessDashboard, "dashboard"}, {accessIngress, "ingress"}, {accessOriginal, "original"}}

func (a access) String() string {
	var names []string
	for _, l := range levels {
		if a&l.a != 0 {
			names = append(names, l.name)
		}
	}
	if a&accessOpen != 0 {
		names = append(names, "open")
	}
	return strings.Join(names, "|")
}

// call is what a handler knows of how its request came in.
type call struct {
	// at is the level (one of socket, token, dashboard, ingress,
	// original).
	at access
	// in is the profile's ingress when at is ingress.
	in *Ingress
}

// handler serves one route.
type handler func(w http.ResponseWriter, r *http.Request, c call)

// route is one entry of the table.
type route struct {
	pattern string // "METHOD /path", as http.ServeMux reads it
	access  access
	handle  handler
}

// plain is a handler that serves every level alike.
func plain(f http.HandlerFunc) handler {
	return func(w http.ResponseWriter, r *http.Request, _ call) { f(w, r) }
}

// routes is the local API: every route of every listener.
func (s *Server) routes() []route {
	const everyClient = accessSocket | accessToken | accessDashboard
	return []route{
		// The runtime itself.
		{"GET /api/v1/health", accessSocket | accessToken, plain(s.handleHealth)},
		{"GET /api/v1/sessions", accessSocket | accessToken, plain(s.handleSessions)},
		{"GET /api/v1/remotes", accessSocket | accessToken, plain(s.handleRemotes)},
		{"POST /api/v1/remotes/reload", accessSocket, plain(s.handleRemotesReload)},

		// What hooks post: this user's over the socket, a remote's through
		// its profile's ingress.
		{"POST /api/v1/events", accessSocket | accessIngress, func(w http.ResponseWriter, r *http.Request, c call) { s.postEvent(w, r, c.in) }},
		{"GET /api/v1/events", accessSocket | accessToken, plain(s.handleStream)},
		{"POST /api/v1/permissions", accessSocket | accessIngress, func(w http.ResponseWriter, r *http.Request, c call) { s.permissionRequest(w, r, c.in) }},
		{"POST /api/v1/probes", accessSocket | accessIngress, func(w http.ResponseWriter, r *http.Request, c call) { s.postProbe(w, r, c.in) }},
		{"GET /api/v1/probes/{id}", accessSocket | accessIngress, func(w http.ResponseWriter, r *http.Request, c call) { s.getProbe(w, r, c.in) }},
		{"GET " + client.RemoteHelloPath, accessIngress | accessOpen, func(w http.ResponseWriter, r *http.Request, c call) { c.in.hello(w, r) }},
		{"POST " + client.RemoteTestPath, accessIngress, func(w http.ResponseWriter, r *http.Request, c call) { s.remoteTest(w, r, c.in) }},

		// The person's answers, from every client.
		{"GET /api/v1/permissions", accessSocket | accessToken, plain(s.handlePermissionList)},
		{"GET /api/v1/permissions/events", accessSocket | accessToken, plain(s.handlePermissionStream)},
		{"GET /api/v1/permissions/{id}", everyClient, plain(s.handlePermissionGet)},
		{"POST /api/v1/permissions/{id}/decision", everyClient, func(w http.ResponseWriter, r *http.Request, c call) {
			via := "" // the body's Via names the client
			if c.at == accessDashboard {
				via = client.SourceDashboard
			}
			s.permissionDecision(w, r, via)
		}},
		{"GET /api/v1/dnd", accessSocket | accessToken, plain(s.handleGetDND)},
		{"POST /api/v1/dnd", everyClient, plain(s.handlePostDND)},

		// The automations (automations_api.go).
		{"GET /api/v1/automations", everyClient, plain(s.handleAutomations)},
		{"POST /api/v1/automations/reload", everyClient, plain(s.handleAutomationsReload)},
		{"POST /api/v1/automations/pause", everyClient, plain(s.handleAutomationsSwitch(true))},
		{"POST /api/v1/automations/resume", everyClient, plain(s.handleAutomationsSwitch(false))},
		{"POST /api/v1/automations/{id}/trust", everyClient, plain(s.handleAutomationTrust)},
		{"POST /api/v1/automations/{id}/preview", everyClient, plain(s.handleAutomationPreview)},
		{"POST /api/v1/automations/{id}/test", everyClient, plain(s.handleAutomationTest)},
		{"GET /api/v1/automations/runs", everyClient, plain(s.handleAutomationRuns)},
		{"POST /api/v1/automations/runs/{id}/retry", everyClient, plain(s.handleRunChange(true))},
		{"POST /api/v1/automations/runs/{id}/cancel", everyClient, plain(s.handleRunChange(false))},

		// The history, renaming and the recap (history_api.go).
		{"GET /api/v1/history", everyClient, plain(s.handleHistory)},
		{"GET /api/v1/sessions/resolve", everyClient, plain(s.handleResolve)},
		{"POST /api/v1/sessions/rename", everyClient, plain(s.handleRename)},
		{"GET /api/v1/recap", everyClient, plain(s.handleRecap)},

		// The dashboard: its login is minted on the socket only (`clawd
		// dashboard`), its page and data on the TCP port (dashboard.go,
		// dashboard_api.go).
		{"POST /api/v1/dashboard/login", accessSocket, plain(s.handleMintLogin)},
		{"GET /{$}", accessDashboard | accessOpen, plain(s.handleDashboardPage)},
		{"GET /login", accessDashboard | accessOpen, plain(s.handleDashboardLogin)},
		{"GET /ui/assets/{file}", accessDashboard | accessOpen, plain(s.handleDashboardAsset)},
		{"GET /ui/icons/{name}", accessDashboard | accessOpen, plain(s.dash.handleDashboardIcon)},
		{"GET /api/v1/view", accessDashboard, plain(s.dash.handleDashView)},
		{"GET /api/v1/stream", accessDashboard, plain(s.dash.handleDashStream)},
		{"POST /api/v1/pause", accessDashboard, plain(s.dash.handleDashPause)},
		{"POST /api/v1/focus", accessDashboard, plain(s.dash.handleDashFocus)},
		{"GET /api/v1/agents", accessDashboard, plain(s.dash.handleDashAgents)},
		{"GET /api/v1/doctor", accessDashboard, plain(s.dash.handleDoctorCheck)},
		{"POST /api/v1/doctor/{agent}/fix", accessDashboard, plain(s.dash.handleDoctorFix)},

		// The original app's routes, for scripts written against it
		// (compat.go); this user's also reach POST /state over the socket
		// (curl --unix-socket).
		{"GET /state", accessOriginal | accessOpen, plain(s.handleStateHealth)},
		{"POST /state", accessSocket | accessOriginal, plain(s.handlePostState)},
	}
}

// dashboardPrefix is where the dashboard serves an API route.
const dashboardPrefix = "/ui"

// errRoutes means the route table is not one the listeners can serve.
var errRoutes = errors.New("route table")

// listeners are the handlers the table makes, one for each listener; the
// ingress's is made per profile from its routes.
type listeners struct {
	socket, tcp http.Handler
	ingress     []route
}

// builtListeners builds the listeners from s.table once.
func (s *Server) builtListeners() (*listeners, error) {
	s.built.once.Do(func() { s.built.l, s.built.err = s.buildListeners(s.table) })
	return s.built.l, s.built.err
}

// builtRoutes holds what builtListeners made.
type builtRoutes struct {
	once sync.Once
	l    *listeners
	err  error
}

// buildListeners checks the table and makes each listener's handler
// from it. A route listed twice, or at no level, or open at more than
// its one level, or whose pattern a listener's mux refuses, is an error:
// the runtime does not start with it.
func (s *Server) buildListeners(table []route) (*listeners, error) {
	seen := map[string]bool{}
	var errs []error
	for _, rt := range table {
		method, path, ok := strings.Cut(rt.pattern, " ")
		if !ok || method == "" || !strings.HasPrefix(path, "/") {
			errs = append(errs, fmt.Errorf("%q: a pattern is METHOD /path", rt.pattern))
			continue
		}
		if seen[rt.pattern] {
			errs = append(errs, fmt.Errorf("%q is listed twice", rt.pattern))
		}
		seen[rt.pattern] = true
		lv := rt.access &^ accessOpen
		switch {
		case lv == 0:
			errs = append(errs, fmt.Errorf("%q is served at no level", rt.pattern))
		case rt.access&accessOpen != 0 && (lv&(lv-1) != 0 || lv == accessSocket):
			errs = append(errs, fmt.Errorf("%q: open goes with exactly one level other than socket, not %v", rt.pattern, lv))
		case lv&accessToken != 0 && lv&accessOriginal != 0:
			errs = append(errs, fmt.Errorf("%q: token and original are two rules for the same TCP route", rt.pattern))
		case lv&accessDashboard != 0 && !isDashboardPath(dashPath(strings.TrimSuffix(path, "{$}"))):
			errs = append(errs, fmt.Errorf("%q: the dashboard serves no such path", rt.pattern))
		case lv&(accessToken|accessOriginal) != 0 && isDashboardPath(strings.TrimSuffix(path, "{$}")):
			errs = append(errs, fmt.Errorf("%q: the TCP port gives that path to the dashboard", rt.pattern))
		}
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("%w: %w", errRoutes, errors.Join(errs...))
	}

	sock, tcp, dash := newMux(), newMux(), newMux()
	l := &listeners{}
	for _, rt := range table {
		method, path, _ := strings.Cut(rt.pattern, " ")
		h := rt.handle
		at := func(a access) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) { h(w, r, call{at: a}) }
		}
		if rt.access&accessSocket != 0 {
			sock.handle(rt.pattern, at(accessSocket))
		}
		switch {
		case rt.access&accessToken != 0:
			tcp.handle(rt.pattern, s.requireToken(at(accessToken)))
		case rt.access&accessOriginal != 0 && rt.access&accessOpen != 0:
			tcp.handle(rt.pattern, at(accessOriginal))
		case rt.access&accessOriginal != 0:
			tcp.handle(rt.pattern, s.thisUser(at(accessOriginal)))
		case rt.access&accessSocket != 0 && strings.HasPrefix(path, "/api/"):
			// Known, and not here: said so to a token holder, for
			// whom a 404 would read as a missing feature.
			tcp.handle(rt.pattern, s.requireToken(socketOnly(rt.pattern)))
		}
		switch {
		case rt.access&accessDashboard != 0 && rt.access&accessOpen != 0:
			dash.handle(method+" "+dashPath(path), at(accessDashboard))
		case rt.access&accessDashboard != 0:
			dash.handle(method+" "+dashPath(path), s.dashAuth(at(accessDashboard)))
		}
		if rt.access&accessIngress != 0 {
			l.ingress = append(l.ingress, rt)
		}
	}
	sock.handle("/", notFound)
	tcp.handle("/api/", s.requireToken(notFound))
	tcp.handle("/", notFound)
	dash.handle(dashboardAPI, s.dashAuth(notFound))
	dash.handle("/", notFound)
	for _, m := range []*mux{sock, tcp, dash} {
		if m.err != nil {
			return nil, fmt.Errorf("%w: %w", errRoutes, m.err)
		}
	}

	l.socket = identify(s.bodyDeadline(sock.ServeMux))
	api, page := s.guard(s.bodyDeadline(tcp.ServeMux)), s.dashGuard(s.bodyDeadline(dash.ServeMux))
	l.tcp = identify(s.tcpDoor(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if isDashboardPath(r.URL.Path) {
			page.ServeHTTP(w, r)
			return
		}
		api.ServeHTTP(w, r)
	})))
	return l, nil
}

// dashPath is where the dashboard serves path: an API route under /ui,
// the page's own where it is.
func dashPath(path string) string {
	if strings.HasPrefix(path, "/api/") {
		return dashboardPrefix + path
	}
	return path
}

// mux is an http.ServeMux that keeps the first pattern it refused (a
// conflict, a bad pattern) as an error rather than a panic.
type mux struct {
	*http.ServeMux
	err error
}

func newMux() *mux { return &mux{ServeMux: http.NewServeMux()} }

func (m *mux) handle(pattern string, h http.HandlerFunc) {
	defer func() {
		if v := recover(); v != nil && m.err == nil {
			m.err = fmt.Errorf("%q: %v", pattern, v)
		}
	}()
	m.HandleFunc(pattern, h)
}

// SocketHandler serves the runtime's socket: every route at the socket
// level, for this user's hooks, CLI and tools. It panics on a table that
// Serve refuses (see buildListeners).
func (s *Server) SocketHandler() http.Handler { return s.mustListeners().socket }

// TCPHandler serves the loopback TCP port, which anything on the machine
// can reach. Another user's connections get nothing but GET /state (see
// tcpDoor). The rest is the token level's routes behind guard and the API
// token, the original app's behind guard and thisUser, and the
// dashboard's behind dashGuard and a login (see dashGuard). Events and
// permission requests are not taken here at all, token or not: only this
// user's hooks post them, over the socket (see socketOnly).
func (s *Server) TCPHandler() http.Handler { return s.mustListeners().tcp }

func (s *Server) mustListeners() *listeners {
	l, err := s.builtListeners()
	if err != nil {
		panic(err)
	}
	return l
}

// IngressHandler serves a profile's ingress: the routes at the ingress
// level, behind the browser guard with the Host the remote's hooks send,
// each with the profile's token and generation but the hello that proves
// to a hook that it talks to this runtime (it checks the generation and
// answers a nonce only).
func (s *Server) IngressHandler(in *Ingress) http.Handler {
	m := newMux()
	for _, rt := range s.mustListeners().ingress {
		h := rt.handle
		f := func(w http.ResponseWriter, r *http.Request) { h(w, r, call{at: accessIngress, in: in}) }
		if rt.access&accessOpen != 0 {
			m.handle(rt.pattern, f)
		} else {
			m.handle(rt.pattern, s.ingressAuth(in, f))
		}
	}
	m.handle("/", notFound)
	var h http.Handler = guardHost(func(h string) bool { return loopbackHostPort(h, in.Port) }, s.bodyDeadline(m.ServeMux))
	if in.Distro == "" {
		// An SSH profile's hooks come through this user's own ssh;
		// a WSL distro's come from its own user, whom the token and
		// the generation are for.
		h = othersOut(h)
	}
	return identify(h)
}

// socketOnly refuses, on TCP, a route that only the socket serves.
func socketOnly(pattern string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusForbidden, pattern+" is taken on the runtime's socket only, from this user's hooks and CLI (see runtime.json)")
	}
}
