package runtime

import (
	"bytes"
	"errors"
	"html/template"
	"io/fs"
	"mime"
	"net"
	"net/http"
	"path"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/clawdhq/clawd/internal/i18n"
	"github.com/clawdhq/clawd/runtime/client"
	"github.com/clawdhq/clawd/runtime/dashboard"
)

// The web dashboard, on the TCP port beside the token API (the dashboard
// level of the route table, routes.go): a page for the
// person's browser, let in through a one-time code that `clawd dashboard`
// mints over the socket. Its routes:
//
//	GET  /                      the page (index.html with a login, signin.html without)
//	GET  /login?code=...        the code becomes a login: its cookie, and its secret for the page
//	GET  /ui/assets/{file}      app.js, app.css, login.js
//	GET  /ui/icons/{name}       the tray's icons
//	     /ui/api/v1/...         the data and the changes (see dashboard_api.go)
//
// The rest of the port (the token API, POST /state) keeps its own guard:
// no route of it lets a browser in.

// isDashboardPath reports whether the dashboard serves p on the TCP port.
func isDashboardPath(p string) bool {
	return p == "/" || p == "/login" || strings.HasPrefix(p, "/ui/")
}

// dashboardAPI is the prefix of the dashboard's data routes.
const dashboardAPI = "/ui/api/v1/"

// dashCookie is the login cookie's name. Cookies are per host, not per
// port: two runtimes (two clawd homes) on one machine each have their own.
func (s *Server) dashCookie() string { return "clawd_dashboard_" + strconv.Itoa(s.tcpPort()) }

// dashGuard lets a request reach the dashboard only from the person's own
// browser tab on the runtime's own origin, before a handler reads a byte
// of the body. Every response carries the dashboard's security headers
// (dashboard.SetHeaders: the CSP, no framing, no sniffing, CORP
// same-origin, no-store). The rules, each with what it stops:
//
//   - a path that is not clean: 400 (no "/ui/../api" detours);
//   - exactly one Host and at most one Content-Type header: 400;
//   - Host must be 127.0.0.1:<port> or localhost:<port>: 403 (DNS
//     rebinding: a page of evil.example resolving to 127.0.0.1 sends its
//     own name);
//   - Sec-Fetch-Site other than same-origin or none: 403 (a page on
//     another port of 127.0.0.1 is "same-site", and still not us; none is
//     the person typing or opening the URL);
//   - only GET and POST: 405, OPTIONS included, so no CORS preflight is
//     ever answered and no CORS header ever sent;
//   - a POST must carry Origin exactly http://<its Host> (the runtime's
//     own origin): 403; and be application/json: 415 (no form can post);
//   - a data route (/ui/api/v1/) needs the login's cookie and its secret
//     in dashboard.SecretHeader: 401 (see dashAuth).
//
// Rejections carry no body and change nothing.
func (s *Server) dashGuard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		dashboard.SetHeaders(w.Header())
		reject := func(code int) {
			w.Header().Set("Connection", "close")
			w.WriteHeader(code)
		}
		if p := r.URL.Path; p != path.Clean(p) && !(strings.HasSuffix(p, "/") && p[:len(p)-1] == path.Clean(p)) {
			reject(http.StatusBadRequest)
			return
		}
		if duplicateHeaders(r) {
			reject(http.StatusBadRequest)
			return
		}
		if !s.dashHost(r.Host) || crossSite(r) {
			reject(http.StatusForbidden)
			return
		}
		switch r.Method {
		case http.MethodGet:
		case http.MethodPost:
			if r.Header.Get("Origin") != "http://"+r.Host {
				reject(http.StatusForbidden)
				return
			}
			mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
			if err != nil || mt != "application/json" {
				reject(http.StatusUnsupportedMediaType)
				return
			}
		default:
			w.Header().Set("Allow", "GET, POST")
			reject(http.StatusMethodNotAllowed)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// dashHost accepts 127.0.0.1:<port> and localhost:<port>, nothing else:
// the names the dashboard's URL and a person's typing use.
func (s *Server) dashHost(hostport string) bool {
	host, port, err := net.SplitHostPort(hostport)
	if err != nil || port != strconv.Itoa(s.tcpPort()) {
		return false
	}
	switch strings.ToLower(host) {
	case "127.0.0.1", "localhost":
		return true
	}
	return false
}

// dashAuth lets a data request through only with a login's cookie and
// that login's secret in dashboard.SecretHeader. The cookie alone is not
// enough: cookies of 127.0.0.1 go to every port of it, so any local
// server the browser visits gets them; the secret lives in the page's
// localStorage, which is the runtime's origin's alone. A refusal is a
// 401 with no body.
func (s *Server) dashAuth(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		c, err := r.Cookie(s.dashCookie())
		if err != nil || !s.logins.Check(c.Value, r.Header.Get(dashboard.SecretHeader)) {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		next(w, r)
	}
}

// DashboardLogin mints a one-time login URL of the dashboard (what
// `clawd dashboard` opens; the tray's "Open dashboard" calls it in
// process).
func (s *Server) DashboardLogin() client.DashboardLogin {
	code, exp := s.logins.Mint()
	return client.DashboardLogin{
		URL:       "http://127.0.0.1:" + strconv.Itoa(s.tcpPort()) + "/login?code=" + code,
		ExpiresAt: exp.UTC(),
	}
}

// handleMintLogin is the socket's POST /api/v1/dashboard/login.
func (s *Server) handleMintLogin(w http.ResponseWriter, r *http.Request) {
	if s.tcpPort() == 0 {
		writeError(w, http.StatusServiceUnavailable, "this runtime does not listen on TCP: no dashboard")
		return
	}
	s.log.Info("dashboard login code minted")
	writeJSON(w, http.StatusOK, s.DashboardLogin())
}

// handleDashboardPage serves the page to a browser that has a login, and
// to any other the sign-in page that only says how to get one.
func (s *Server) handleDashboardPage(w http.ResponseWriter, r *http.Request) {
	name := "signin.html"
	if c, err := r.Cookie(s.dashCookie()); err == nil && s.logins.Known(c.Value) {
		name = "index.html"
	}
	s.servePage(w, http.StatusOK, name, nil)
}

// pages are the dashboard's HTML files, templates of the page's text in
// the runtime's language (see pageData): index.html, signin.html and
// login.html, which hands the login's secret to the page once (login.js
// puts it into localStorage and goes on to the dashboard). Parsed on
// first use: the hook, which starts this package too, serves no page.
var pages = sync.OnceValue(func() *template.Template {
	return template.Must(template.ParseFS(dashboard.Assets, "assets/*.html"))
})

// pageData is what a page's template reads: the runtime's language (its
// Lang for <html lang>, T for the text), the messages app.js formats
// (the dashboard's, the tray tooltip's for the summary line, the ages,
// the states' for a finished turn's row, the doctor's statuses), for a
// JSON data block the page reads (<script type="application/json">: a
// browser runs no data block, so the CSP, which runs no inline script,
// has nothing to refuse; html/template escapes the JSON for it, "<"
// included); and the login's secret for login.html.
type pageData struct {
	i18n.Printer
	// Messages are by key a message's text, or [one, other] for one
	// with a plural form: the short form keeps the page light.
	Messages map[string]any
	Secret   string
}

// servePage answers with the page name in the runtime's language; extra
// fills what only login.html reads.
func (s *Server) servePage(w http.ResponseWriter, code int, name string, extra func(*pageData)) {
	b := renderPage(s.cfg.Printer, name, extra)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(code)
	w.Write(b)
}

// renderPage is the page name in p's language.
func renderPage(p i18n.Printer, name string, extra func(*pageData)) []byte {
	d := pageData{Printer: p}
	if name == "index.html" {
		d.Messages = map[string]any{}
		for k, f := range p.Sections("dashboard", "tooltip", "age", "state", "doctor.status", "recap.span") {
			if f.One == "" {
				d.Messages[k] = f.Other
			} else {
				d.Messages[k] = [2]string{f.One, f.Other}
			}
		}
	}
	if extra != nil {
		extra(&d)
	}
	var buf bytes.Buffer
	if err := pages().ExecuteTemplate(&buf, name, d); err != nil {
		panic("dashboard: page " + name + ": " + err.Error()) // the pages and the catalogs are embedded
	}
	return buf.Bytes()
}

// dashCookieAge is how long the browser keeps a login's cookie: past a
// browser restart, so a bookmark opens the dashboard again. The login
// itself lasts no longer than the runtime that made it (see
// handleDashboardLogin).
const dashCookieAge = 30 * 24 * time.Hour

// handleDashboardLogin exchanges a login code, once, for a login: its
// cookie (HttpOnly, so no script reads it; SameSite=Strict, so no other
// site's page or link sends it) and its secret, in the page, which keeps
// it in localStorage (login.js). A bookmark, a reload or a new tab of the
// same browser then opens the dashboard signed in while the runtime runs.
//
// Why that lets no other page in, the cookie included:
//
//   - Every data route needs the cookie and the secret in
//     dashboard.SecretHeader (dashAuth). The cookie is worth nothing
//     alone: cookies ignore ports, so the browser hands it to any server
//     on 127.0.0.1, and that server still cannot read or change a thing.
//   - The secret is in the localStorage of the origin
//     http://127.0.0.1:<port>. An origin includes its port: a page on
//     another port, on localhost:<port> or on any site cannot read it.
//     On this origin the runtime serves only its own pages, whose CSP runs
//     only its own scripts (no inline script, no eval).
//   - No other page can make the browser send the header for it: a
//     custom header needs a CORS preflight, which the guard never answers
//     (OPTIONS is 405, no CORS header is ever set), and Sec-Fetch-Site
//     other than same-origin or none is refused before any handler.
//   - No other page can read the dashboard's own document: no framing
//     (frame-ancestors 'none', X-Frame-Options), COOP same-origin cuts a
//     window.open handle, CORP same-origin refuses it as a subresource.
//   - Only whoever listens on the port can serve a page of this origin:
//     while the runtime runs, that is the runtime. Another program that
//     takes the port once the runtime has stopped can read the stored
//     secret, but logins live only in the runtime's memory, so a stopped
//     runtime's secrets open nothing, not even a new runtime on the same
//     port (the page then finds itself signed out and forgets it).
func (s *Server) handleDashboardLogin(w http.ResponseWriter, r *http.Request) {
	in, err := s.logins.Redeem(r.URL.Query().Get("code"))
	if err != nil {
		s.refusedLogin(err)
		code := http.StatusForbidden
		if errors.Is(err, dashboard.ErrTooMany) {
			code = http.StatusTooManyRequests
		}
		s.servePage(w, code, "signin.html", nil)
		return
	}
	s.log.Info("dashboard login")
	http.SetCookie(w, &http.Cookie{
		Name:     s.dashCookie(),
		Value:    in.ID,
		Path:     "/",
		MaxAge:   int(dashCookieAge / time.Second),
		HttpOnly: true,
		SameSite: http.SameSiteStrictMode,
	})
	s.servePage(w, http.StatusOK, "login.html", func(d *pageData) { d.Secret = in.Secret })
}

// refusedLogin logs a refused login code: the first at once, then at
// most one line a minute saying how many more there were, so a flood of
// guesses cannot fill the log.
func (s *Server) refusedLogin(err error) {
	s.loginLog.Lock()
	defer s.loginLog.Unlock()
	now := s.cfg.Now()
	s.loginLog.refused++
	if !s.loginLog.at.IsZero() && now.Sub(s.loginLog.at) < time.Minute {
		return
	}
	s.log.Info("dashboard login refused", "err", err, "refused_since_last_line", s.loginLog.refused)
	s.loginLog.at, s.loginLog.refused = now, 0
}

// handleDashboardAsset serves the page's scripts and style.
func (s *Server) handleDashboardAsset(w http.ResponseWriter, r *http.Request) {
	switch f := r.PathValue("file"); f {
	case "app.js", "login.js", "app.css":
		serveAsset(w, http.StatusOK, f)
	default:
		writeError(w, http.StatusNotFound, "no such asset")
	}
}

// serveAsset answers with the embedded file name (a script or the style).
func serveAsset(w http.ResponseWriter, code int, name string) {
	b, err := fs.ReadFile(dashboard.Assets, "assets/"+name)
	if err != nil {
		panic("dashboard: missing embedded asset " + name) // the build embeds them all
	}
	w.Header().Set("Content-Type", assetType(name))
	w.WriteHeader(code)
	w.Write(b)
}

func assetType(name string) string {
	switch path.Ext(name) {
	case ".js":
		return "text/javascript; charset=utf-8"
	case ".css":
		return "text/css; charset=utf-8"
	}
	return "text/html; charset=utf-8"
}
