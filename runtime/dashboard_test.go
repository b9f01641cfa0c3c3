package runtime

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/internal/focus"
	"github.com/clawdhq/clawd/internal/i18n"
	"github.com/clawdhq/clawd/internal/icons"
	"github.com/clawdhq/clawd/runtime/automations"
	"github.com/clawdhq/clawd/runtime/client"
	"github.com/clawdhq/clawd/runtime/dashboard"
)

// dashEnv is a runtime with every part of the dashboard: automations,
// agents, a doctor and a focus that record what they were asked.
type dashEnv struct {
	*permEnv
	mu      sync.Mutex
	focused []focus.Target
	fixed   []string
}

func (d *dashEnv) calls() ([]focus.Target, []string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]focus.Target(nil), d.focused...), append([]string(nil), d.fixed...)
}

type fakeDoctor struct{ d *dashEnv }

func (f fakeDoctor) Check(ctx context.Context, agent string) (client.DoctorReport, error) {
	return client.DoctorReport{Agent: agent, Fixable: agent == "claude",
		Findings: []client.DoctorFinding{{Level: "warn", Message: "hooks run an old clawd"}}}, nil
}

func (f fakeDoctor) Fix(ctx context.Context, agent string) (client.DoctorFix, error) {
	f.d.mu.Lock()
	f.d.fixed = append(f.d.fixed, agent)
	f.d.mu.Unlock()
	return client.DoctorFix{Agent: agent, Changed: true, Diff: "--- a\n+++ b\n"}, nil
}

func startDash(t *testing.T, withDoctor bool, mods ...func(*Config)) *dashEnv {
	t.Helper()
	d := &dashEnv{}
	d.permEnv = startPerm(t, func(c *Config) {
		c.Focus = func(ctx context.Context, tg focus.Target) error {
			d.mu.Lock()
			d.focused = append(d.focused, tg)
			d.mu.Unlock()
			return nil
		}
		c.Agents = func(ctx context.Context) ([]client.AgentInfo, error) {
			return []client.AgentInfo{{ID: "claude", Name: "Claude Code", Detected: true, Installed: true}}, nil
		}
		if withDoctor {
			c.Doctor = fakeDoctor{d}
		}
		e, err := automations.Open(context.Background(), automations.Options{Home: c.Home})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { e.Close() })
		c.Automations = e
		for _, m := range mods {
			m(c)
		}
	})
	return d
}

// login mints a code over the socket and exchanges it, as `clawd
// dashboard` and the browser do; it returns the cookie and the secret.
func (d *dashEnv) login(t *testing.T) (*http.Cookie, string) {
	t.Helper()
	l, err := client.NewSocket(d.sock, client.Options{}).DashboardLogin(context.Background())
	if err != nil {
		t.Fatalf("mint a login over the socket: %v", err)
	}
	want := fmt.Sprintf("http://127.0.0.1:%d/login?code=", d.port)
	if !strings.HasPrefix(l.URL, want) {
		t.Fatalf("login URL %q, want %s...", l.URL, want)
	}
	resp := d.do(t, "GET", strings.TrimPrefix(l.URL, fmt.Sprintf("http://127.0.0.1:%d", d.port)), nil, nil)
	if resp.status != http.StatusOK {
		t.Fatalf("GET %s = %d, want 200", l.URL, resp.status)
	}
	var cookie *http.Cookie
	for _, c := range resp.cookies {
		if c.Name == d.s.dashCookie() {
			cookie = c
		}
	}
	if cookie == nil {
		t.Fatalf("the login set no cookie %s: %v", d.s.dashCookie(), resp.header["Set-Cookie"])
	}
	m := regexp.MustCompile(`<meta name="clawd-secret" content="([A-Za-z0-9_-]+)">`).FindStringSubmatch(resp.body)
	if m == nil {
		t.Fatalf("the login page hands no secret:\n%s", resp.body)
	}
	return cookie, m[1]
}

type dashResp struct {
	status  int
	header  http.Header
	cookies []*http.Cookie
	body    string
}

// do sends a request to the TCP port as the dashboard page would send
// it, with the changes mod makes.
func (d *dashEnv) do(t *testing.T, method, path string, body any, mod func(r *http.Request)) dashResp {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = strings.NewReader(string(b))
	}
	origin := fmt.Sprintf("http://127.0.0.1:%d", d.port)
	r, err := http.NewRequest(method, origin+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	r.Header.Set("Sec-Fetch-Site", "same-origin")
	if method == http.MethodPost {
		r.Header.Set("Origin", origin)
		r.Header.Set("Content-Type", "application/json")
	}
	if mod != nil {
		mod(r)
	}
	hc := &http.Client{Timeout: 10 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := hc.Do(r)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return dashResp{resp.StatusCode, resp.Header, resp.Cookies(), string(b)}
}

// as adds a login's cookie and secret.
func as(cookie *http.Cookie, secret string) func(*http.Request) {
	return func(r *http.Request) {
		r.AddCookie(cookie)
		r.Header.Set(dashboard.SecretHeader, secret)
	}
}

func then(fs ...func(*http.Request)) func(*http.Request) {
	return func(r *http.Request) {
		for _, f := range fs {
			f(r)
		}
	}
}

// dashRoutes are every data route of the dashboard with a body that the
// route takes: a request that passes the guard gets a handler's answer.
func dashRoutes(id string) []struct {
	method, path string
	body         any
} {
	return []struct {
		method, path string
		body         any
	}{
		{"GET", "/ui/api/v1/view", nil},
		{"GET", "/ui/api/v1/stream", nil},
		{"GET", "/ui/api/v1/permissions/" + id, nil},
		{"POST", "/ui/api/v1/permissions/" + id + "/decision", client.DecisionBody{Behavior: client.Allow, Via: "test"}},
		{"POST", "/ui/api/v1/dnd", map[string]bool{"on": true}},
		{"POST", "/ui/api/v1/pause", map[string]bool{"on": true}},
		{"POST", "/ui/api/v1/focus", map[string]string{"agent": "claude", "session_id": "s1"}},
		{"GET", "/ui/api/v1/agents", nil},
		{"GET", "/ui/api/v1/doctor", nil},
		{"POST", "/ui/api/v1/doctor/claude/fix", struct{}{}},
		{"GET", "/ui/api/v1/automations", nil},
		{"POST", "/ui/api/v1/automations/reload", struct{}{}},
		{"POST", "/ui/api/v1/automations/pause", struct{}{}},
		{"POST", "/ui/api/v1/automations/resume", struct{}{}},
		{"POST", "/ui/api/v1/automations/x/trust", map[string]string{"hash": "h"}},
		{"POST", "/ui/api/v1/automations/x/preview", struct{}{}},
		{"POST", "/ui/api/v1/automations/x/test", struct{}{}},
		{"GET", "/ui/api/v1/automations/runs", nil},
		{"POST", "/ui/api/v1/automations/runs/r/retry", struct{}{}},
		{"POST", "/ui/api/v1/automations/runs/r/cancel", struct{}{}},
		{"GET", "/ui/api/v1/nothing-here", nil},
	}
}

// TestDashboardGuard proves each rule of dashGuard and dashAuth fires on
// every dashboard route, and that nothing a refused request asked for
// happened: the pending request is still pending, do-not-disturb and the
// pause are off, no terminal was focused and no agent fixed.
func TestDashboardGuard(t *testing.T) {
	d := startDash(t, true)
	d.s.Ingest(agents.Event{Agent: "claude", Kind: agents.KindPromptSubmit, SessionID: "s1", Cwd: "/w/app", AgentPID: 77, Time: time.Now()})
	hook := d.hook(bashRequest("s1", "h1", "rm -rf build"))
	defer d.stop()
	var id string
	eventually(t, "the request pending", func() bool {
		ps := d.s.Permissions()
		if len(ps) == 1 {
			id = ps[0].ID
		}
		return id != ""
	})
	cookie, secret := d.login(t)
	_, otherSecret := d.login(t)
	other := fmt.Sprintf("http://127.0.0.1:%d", d.port+1)

	rules := []struct {
		name string
		only string // the method the rule is for, "" for all
		mod  func(*http.Request)
		want int
	}{
		{"no cookie, no secret", "", nil, http.StatusUnauthorized},
		{"cookie without the secret", "", func(r *http.Request) { r.AddCookie(cookie) }, http.StatusUnauthorized},
		{"secret without the cookie", "", func(r *http.Request) { r.Header.Set(dashboard.SecretHeader, secret) }, http.StatusUnauthorized},
		{"another login's secret", "", as(cookie, otherSecret), http.StatusUnauthorized},
		{"a wrong secret", "", as(cookie, secret+"x"), http.StatusUnauthorized},
		{"the secret as the cookie", "", as(&http.Cookie{Name: cookie.Name, Value: secret}, secret), http.StatusUnauthorized},
		{"the cookie of another port's name", "", as(&http.Cookie{Name: "clawd_dashboard_1", Value: cookie.Value}, secret), http.StatusUnauthorized},
		{"DNS rebinding Host", "", then(as(cookie, secret), func(r *http.Request) { r.Host = fmt.Sprintf("evil.example:%d", d.port) }), http.StatusForbidden},
		{"Host with another port", "", then(as(cookie, secret), func(r *http.Request) { r.Host = fmt.Sprintf("127.0.0.1:%d", d.port+1) }), http.StatusForbidden},
		{"Host [::1]", "", then(as(cookie, secret), func(r *http.Request) { r.Host = fmt.Sprintf("[::1]:%d", d.port) }), http.StatusForbidden},
		{"Sec-Fetch-Site same-site (another port)", "", then(as(cookie, secret), func(r *http.Request) { r.Header.Set("Sec-Fetch-Site", "same-site") }), http.StatusForbidden},
		{"Sec-Fetch-Site cross-site", "", then(as(cookie, secret), func(r *http.Request) { r.Header.Set("Sec-Fetch-Site", "cross-site") }), http.StatusForbidden},
		{"a WebSocket handshake from another port, with the cookie", "GET", func(r *http.Request) {
			r.AddCookie(cookie)
			r.Header.Del("Sec-Fetch-Site")
			r.Header.Set("Origin", other)
			r.Header.Set("Connection", "Upgrade")
			r.Header.Set("Upgrade", "websocket")
			r.Header.Set("Sec-WebSocket-Version", "13")
			r.Header.Set("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ==")
		}, http.StatusUnauthorized},
		{"OPTIONS preflight", "", then(as(cookie, secret), func(r *http.Request) { r.Method = http.MethodOptions }), http.StatusMethodNotAllowed},
		{"PUT", "", then(as(cookie, secret), func(r *http.Request) { r.Method = http.MethodPut }), http.StatusMethodNotAllowed},
		{"POST without Origin", "POST", then(as(cookie, secret), func(r *http.Request) { r.Header.Del("Origin") }), http.StatusForbidden},
		{"POST from another port", "POST", then(as(cookie, secret), func(r *http.Request) { r.Header.Set("Origin", other) }), http.StatusForbidden},
		{"POST from origin null", "POST", then(as(cookie, secret), func(r *http.Request) { r.Header.Set("Origin", "null") }), http.StatusForbidden},
		{"POST from localhost to 127.0.0.1", "POST", then(as(cookie, secret), func(r *http.Request) { r.Header.Set("Origin", fmt.Sprintf("http://localhost:%d", d.port)) }), http.StatusForbidden},
		{"POST as a form", "POST", then(as(cookie, secret), func(r *http.Request) { r.Header.Set("Content-Type", "application/x-www-form-urlencoded") }), http.StatusUnsupportedMediaType},
		{"POST as text/plain", "POST", then(as(cookie, secret), func(r *http.Request) { r.Header.Set("Content-Type", "text/plain") }), http.StatusUnsupportedMediaType},
	}
	for _, rt := range dashRoutes(id) {
		for _, rule := range rules {
			if rule.only != "" && rt.method != rule.only {
				continue
			}
			r := d.do(t, rt.method, rt.path, rt.body, rule.mod)
			if r.status != rule.want {
				t.Errorf("%s %s, %s: %d, want %d", rt.method, rt.path, rule.name, r.status, rule.want)
			}
			if r.body != "" {
				t.Errorf("%s %s, %s: body %q, want none", rt.method, rt.path, rule.name, r.body)
			}
			if r.header.Get("Content-Security-Policy") != dashboard.CSP {
				t.Errorf("%s %s, %s: no CSP on the refusal", rt.method, rt.path, rule.name)
			}
			if r.header.Get("Access-Control-Allow-Origin") != "" {
				t.Errorf("%s %s, %s: a CORS header", rt.method, rt.path, rule.name)
			}
		}
	}

	// Nothing happened.
	if ps := d.s.Permissions(); len(ps) != 1 || ps[0].ID != id {
		t.Errorf("after the refused requests: pending = %+v, want %s still pending", ps, id)
	}
	noAnswer(t, hook)
	if d.s.DND() || !d.s.NotificationsPausedUntil().IsZero() {
		t.Error("a refused request turned do-not-disturb or the pause on")
	}
	if f, x := d.calls(); len(f) != 0 || len(x) != 0 {
		t.Errorf("refused requests focused %v and fixed %v", f, x)
	}
	if d.s.auto.Load().Paused() {
		t.Error("a refused request paused the automations")
	}

	// The same requests, done right, pass the guard: the refusals above
	// were the guard's. (The stream is read separately below.)
	for _, rt := range dashRoutes(id) {
		if rt.path == "/ui/api/v1/stream" || strings.HasSuffix(rt.path, "/decision") || strings.HasSuffix(rt.path, "/dnd") {
			continue
		}
		r := d.do(t, rt.method, rt.path, rt.body, as(cookie, secret))
		if r.status == http.StatusUnauthorized || r.status == http.StatusForbidden || r.status == http.StatusUnsupportedMediaType {
			t.Errorf("%s %s with the login, done right: %d %s", rt.method, rt.path, r.status, r.body)
		}
	}
	// localhost works as well as 127.0.0.1, with its own Origin.
	r := d.do(t, "GET", "/ui/api/v1/view", nil, then(as(cookie, secret), func(r *http.Request) { r.Host = fmt.Sprintf("localhost:%d", d.port) }))
	if r.status != http.StatusOK {
		t.Errorf("GET /ui/api/v1/view with Host localhost: %d", r.status)
	}
	cwd := d.s.Snapshot().Sessions[0].Cwd
	if f, x := d.calls(); len(f) != 1 || f[0].PID != 77 || f[0].Cwd != cwd || len(x) != 1 || x[0] != "claude" {
		t.Errorf("focus and fix done right: focused %+v, fixed %v; want pid 77 in %s (the runtime's record), and claude", f, x, cwd)
	}
	// And the decision, done right, answers the hook.
	r = d.do(t, "POST", "/ui/api/v1/permissions/"+id+"/decision", client.DecisionBody{Behavior: client.Allow, Via: "dashboard"}, as(cookie, secret))
	if r.status != http.StatusOK {
		t.Fatalf("the decision done right: %d %s", r.status, r.body)
	}
	if res := wait(t, hook); res.ans.Decision == nil || !res.ans.Decision.Allow {
		t.Errorf("the hook's answer after Allow in the dashboard: %+v", res.ans)
	}
	// A stale page: the same id again is refused, and never lands on
	// another request.
	r = d.do(t, "POST", "/ui/api/v1/permissions/"+id+"/decision", client.DecisionBody{Behavior: client.Deny}, as(cookie, secret))
	if r.status != http.StatusConflict {
		t.Errorf("a second answer to %s: %d %s, want 409", id, r.status, r.body)
	}
}

// TestDashboardTokenAPIUnchanged: the token API keeps its own guard; a
// dashboard login opens nothing of it, and the token nothing of the
// dashboard's data.
func TestDashboardTokenAPIUnchanged(t *testing.T) {
	d := startDash(t, false)
	cookie, secret := d.login(t)
	r := d.do(t, "GET", "/api/v1/sessions", nil, as(cookie, secret))
	if r.status != http.StatusForbidden && r.status != http.StatusUnauthorized {
		t.Errorf("GET /api/v1/sessions with a dashboard login: %d, want refused", r.status)
	}
	r = d.do(t, "GET", "/api/v1/sessions", nil, then(as(cookie, secret), func(r *http.Request) {
		r.Header.Del("Sec-Fetch-Site")
		r.Header.Set("Authorization", "Bearer "+d.token)
		r.Header.Set("Origin", fmt.Sprintf("http://127.0.0.1:%d", d.port))
	}))
	if r.status != http.StatusForbidden {
		t.Errorf("GET /api/v1/sessions with the token from the dashboard's origin: %d, want 403 (browsers never get in there)", r.status)
	}
	r = d.do(t, "GET", "/ui/api/v1/view", nil, func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+d.token) })
	if r.status != http.StatusUnauthorized {
		t.Errorf("GET /ui/api/v1/view with the token and no login: %d, want 401", r.status)
	}
	// Minting a login is the socket's alone, token or not.
	r = d.do(t, "POST", "/api/v1/dashboard/login", struct{}{}, func(r *http.Request) {
		r.Header.Del("Origin")
		r.Header.Del("Sec-Fetch-Site")
		r.Header.Set("Authorization", "Bearer "+d.token)
	})
	if r.status != http.StatusForbidden || !strings.Contains(r.body, "socket") {
		t.Errorf("POST /api/v1/dashboard/login on TCP with the token: %d %s, want 403", r.status, r.body)
	}
	if strings.Contains(r.body, "code=") {
		t.Error("TCP minted a login code")
	}
}

// TestDashboardLogin: the code becomes a cookie once; the cookie is
// HttpOnly, SameSite=Strict, for the whole port, named for the port; a
// used or unknown code is a 403 that sets nothing; the page without a
// login offers only the way to get one.
func TestDashboardLogin(t *testing.T) {
	d := startDash(t, false)
	l, err := client.NewSocket(d.sock, client.Options{}).DashboardLogin(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if ttl := time.Until(l.ExpiresAt); ttl < dashboard.CodeTTL-time.Minute || ttl > dashboard.CodeTTL {
		t.Errorf("code expires in %v, want about %v", ttl, dashboard.CodeTTL)
	}
	path := strings.TrimPrefix(l.URL, fmt.Sprintf("http://127.0.0.1:%d", d.port))

	// Without a login, the page is the sign-in page: no script, no data.
	r := d.do(t, "GET", "/", nil, nil)
	if r.status != http.StatusOK || !strings.Contains(r.body, "clawd dashboard") || strings.Contains(r.body, "<script") {
		t.Errorf("GET / without a login: %d\n%s\nwant the sign-in page without scripts", r.status, r.body)
	}
	for _, p := range []string{"/", "/ui/assets/app.js", "/ui/icons/idle.png", path} {
		if r := d.do(t, "GET", p, nil, func(r *http.Request) { r.Host = fmt.Sprintf("rebound.example:%d", d.port) }); r.status != http.StatusForbidden {
			t.Errorf("GET %s with Host rebound.example: %d, want 403", p, r.status)
		}
	}
	// A login from another site is refused before the code is spent.
	r = d.do(t, "GET", path, nil, func(r *http.Request) { r.Header.Set("Sec-Fetch-Site", "same-site") })
	if r.status != http.StatusForbidden || len(r.cookies) != 0 {
		t.Errorf("GET /login from another port's page: %d, cookies %v; want 403, none", r.status, r.cookies)
	}

	r = d.do(t, "GET", path, nil, func(r *http.Request) { r.Header.Set("Sec-Fetch-Site", "none") })
	if r.status != http.StatusOK || len(r.cookies) != 1 {
		t.Fatalf("GET /login with a fresh code: %d, cookies %v", r.status, r.cookies)
	}
	c := r.cookies[0]
	if c.Name != fmt.Sprintf("clawd_dashboard_%d", d.port) || !c.HttpOnly || c.SameSite != http.SameSiteStrictMode || c.Path != "/" || c.Domain != "" || c.MaxAge != int(dashCookieAge/time.Second) {
		t.Errorf("cookie %+v: want clawd_dashboard_<port>, HttpOnly, SameSite=Strict, Path=/, host-only, kept %v (a bookmark opens the page again)", c, dashCookieAge)
	}
	if !strings.Contains(r.body, `src="/ui/assets/login.js"`) || r.header.Get("Cache-Control") != "no-store" {
		t.Errorf("the login page: %q, Cache-Control %q", r.body, r.header.Get("Cache-Control"))
	}
	// The code is spent: reuse is a 403 and sets nothing.
	r = d.do(t, "GET", path, nil, nil)
	if r.status != http.StatusForbidden || len(r.cookies) != 0 || strings.Contains(r.body, "clawd-secret") ||
		!strings.Contains(r.body, "clawd dashboard") || r.header.Get("Content-Type") != "text/html; charset=utf-8" {
		t.Errorf("GET /login with a used code: %d, cookies %v, %s\n%s\nwant 403, no cookie, the sign-in page", r.status, r.cookies, r.header.Get("Content-Type"), r.body)
	}
	r = d.do(t, "GET", "/login?code=made-up", nil, nil)
	if r.status != http.StatusForbidden || len(r.cookies) != 0 {
		t.Errorf("GET /login with a made-up code: %d, cookies %v; want 403, nothing", r.status, r.cookies)
	}
	// With the cookie, the page is the dashboard.
	r = d.do(t, "GET", "/", nil, func(r *http.Request) { r.AddCookie(c) })
	if r.status != http.StatusOK || !strings.Contains(r.body, `src="/ui/assets/app.js"`) {
		t.Errorf("GET / with the login: %d\n%s", r.status, r.body)
	}
}

// TestDashboardHeaders: every dashboard response, page, asset, icon or
// data, carries the CSP and its company, and nothing is inline.
func TestDashboardHeaders(t *testing.T) {
	d := startDash(t, false)
	cookie, secret := d.login(t)
	for _, p := range []string{"/", "/ui/assets/app.js", "/ui/assets/app.css", "/ui/assets/login.js", "/ui/icons/working.png", "/ui/api/v1/view", "/ui/nothing", "/login?code=x"} {
		r := d.do(t, "GET", p, nil, as(cookie, secret))
		h := r.header
		for k, want := range map[string]string{
			"Content-Security-Policy": dashboard.CSP, "X-Frame-Options": "DENY", "X-Content-Type-Options": "nosniff",
			"Cross-Origin-Resource-Policy": "same-origin", "Cache-Control": "no-store", "Referrer-Policy": "no-referrer",
			client.IdentityHeader: client.IdentityValue,
		} {
			if h.Get(k) != want {
				t.Errorf("GET %s: %s = %q, want %q", p, k, h.Get(k), want)
			}
		}
	}
	for _, want := range []string{"script-src 'self'", "frame-ancestors 'none'", "default-src 'none'", "form-action 'none'"} {
		if !strings.Contains(dashboard.CSP, want) {
			t.Errorf("CSP %q lacks %q", dashboard.CSP, want)
		}
	}
	if strings.Contains(dashboard.CSP, "unsafe") {
		t.Errorf("CSP %q allows something unsafe", dashboard.CSP)
	}
	// No inline script or style, no handler attributes: the CSP would
	// refuse them anyway. A JSON data block of a template's value runs
	// nothing (html/template escapes the value for it, see below).
	dataBlock := regexp.MustCompile(`<script type="application/json" id="[a-z-]+">\{\{\.[A-Za-z]+\}\}</script>`)
	for _, name := range []string{"index.html", "signin.html", "login.html"} {
		b, _ := dashboard.Assets.ReadFile("assets/" + name)
		b = dataBlock.ReplaceAll(b, nil)
		if regexp.MustCompile(`<script>|<script [^>]*>[^<]|<style|\son[a-z]+=|style=`).Match(b) {
			t.Errorf("%s has inline script or style", name)
		}
	}
	// The data routes answer JSON only.
	r := d.do(t, "GET", "/ui/api/v1/view", nil, as(cookie, secret))
	if ct := r.header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("GET /ui/api/v1/view Content-Type %q, want application/json", ct)
	}
}

// TestDashboardStream: the stream starts with the View and carries each
// event and a View after it; a decision made elsewhere shows up as the
// request gone.
func TestDashboardStream(t *testing.T) {
	d := startDash(t, true)
	cookie, secret := d.login(t)
	r, err := http.NewRequest("GET", fmt.Sprintf("http://127.0.0.1:%d/ui/api/v1/stream", d.port), nil)
	if err != nil {
		t.Fatal(err)
	}
	as(cookie, secret)(r)
	resp, err := http.DefaultClient.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	lines := make(chan map[string]json.RawMessage, 64)
	go func() {
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 4<<20)
		for sc.Scan() {
			var m map[string]json.RawMessage
			if json.Unmarshal(sc.Bytes(), &m) == nil {
				lines <- m
			}
		}
		close(lines)
	}()
	next := func(what string, ok func(typ string, m map[string]json.RawMessage) bool) map[string]json.RawMessage {
		t.Helper()
		timeout := time.After(10 * time.Second)
		for {
			select {
			case m, open := <-lines:
				if !open {
					t.Fatalf("the stream ended before %s", what)
				}
				var typ string
				json.Unmarshal(m["type"], &typ)
				if ok(typ, m) {
					return m
				}
			case <-timeout:
				t.Fatalf("no %s on the stream within 10 s", what)
			}
		}
	}
	first := next("the first view", func(typ string, m map[string]json.RawMessage) bool { return typ == "view" })
	var v dashView
	b, _ := json.Marshal(first)
	json.Unmarshal(b, &v)
	if !v.Features.Automations || !v.Features.Agents || !v.Features.Doctor || len(v.Sessions) != 0 {
		t.Errorf("first view %+v: want automations, agents and doctor on, no sessions", v)
	}
	// The title carries a bidi override and an escape sequence: the page
	// gets one inert line, as the CLI and the tray do.
	d.s.Ingest(agents.Event{Agent: "claude", Kind: agents.KindToolStart, SessionID: "s9", ToolName: "Bash", Cwd: "/w/x", Time: time.Now(),
		Title: "fix\u202e\x1b[2J the\nbug", TitleSource: agents.TitleFromAgent})
	ev := next("the event", func(typ string, m map[string]json.RawMessage) bool {
		return typ == "event" && strings.Contains(string(m["event"]), `"session_id":"s9"`)
	})
	var rec client.EventRecord
	json.Unmarshal(ev["event"], &rec)
	if rec.Title != "fix[2J the bug" {
		t.Errorf("the event's title on the dashboard stream = %q, want one inert line", rec.Title)
	}
	view := next("a view with s9 working", func(typ string, m map[string]json.RawMessage) bool {
		return typ == "view" && strings.Contains(string(m["sessions"]), `"session_id":"s9"`)
	})
	var sessions []dashSession
	json.Unmarshal(view["sessions"], &sessions)
	if len(sessions) != 1 || sessions[0].Icon != "working" || sessions[0].Label != "working (Bash)" || sessions[0].AgentName != "Claude Code" ||
		sessions[0].Title != "fix[2J the bug" {
		t.Errorf("sessions in the view: %+v, want s9 working (Bash) with the working icon", sessions)
	}
	// A failed turn's row keeps the agent's reason, as one inert line,
	// and sorts above the work in progress.
	d.s.Ingest(agents.Event{Agent: "claude", Kind: agents.KindTurnFailure, SessionID: "s8", Cwd: "/w/y", Time: time.Now(),
		ErrorKind: "rate_limit", ErrorText: "API Error: 429\x1b[2J\u202e too\nmany"})
	view = next("a view with s8 failed", func(typ string, m map[string]json.RawMessage) bool {
		return typ == "view" && strings.Contains(string(m["sessions"]), `"session_id":"s8"`)
	})
	sessions = nil
	json.Unmarshal(view["sessions"], &sessions)
	if len(sessions) != 2 || sessions[0].SessionID != "s8" || sessions[0].Label != "failed: API Error: 429[2J too many" ||
		sessions[0].Icon != "error" || sessions[0].Urgency != 2 || sessions[0].Outcome != "failed" || sessions[0].OutcomeAt.IsZero() {
		t.Errorf("sessions in the view: %+v, want s8 first, failed with its reason in one line, then s9", sessions)
	}
}

// dashRemotes are remote links as the remote package would keep them.
type dashRemotes []client.RemoteLink

func (r dashRemotes) Links() []client.RemoteLink       { return r }
func (r dashRemotes) Reload(ctx context.Context) error { return nil }

// TestDashboardRemote: a remote machine's session shows its machine in
// the view, and the dashboard refuses to focus it, as the tray never
// offers to: its terminal is elsewhere, and a window here with the same
// folder is not it. The links to the remote machines are in the view,
// each string one inert line.
func TestDashboardRemote(t *testing.T) {
	d := startDash(t, false, func(c *Config) {
		c.Remotes = dashRemotes{{Profile: "box", Label: "box", Kind: client.LinkSSH, State: client.LinkDown, Error: "ssh: exit 255\x1b[2J"}}
	})
	defer d.stop()
	d.s.Ingest(agents.Event{Agent: "claude", Kind: agents.KindPromptSubmit, SessionID: "box:r1", Host: "box", Cwd: "/w/app", Time: time.Now()})
	d.s.Ingest(agents.Event{Agent: "claude", Kind: agents.KindPromptSubmit, SessionID: "l1", Cwd: "/w/app", AgentPID: 88, Time: time.Now()})
	cookie, secret := d.login(t)
	var v dashView
	if r := d.do(t, "GET", "/ui/api/v1/view", nil, as(cookie, secret)); r.status != http.StatusOK || json.Unmarshal([]byte(r.body), &v) != nil {
		t.Fatalf("GET view: %d %s", r.status, r.body)
	}
	hosts := map[string]string{}
	for _, s := range v.Sessions {
		hosts[s.SessionID] = s.Host
	}
	if len(hosts) != 2 || hosts["box:r1"] != "box" || hosts["l1"] != "" {
		t.Errorf("sessions' hosts in the view = %v, want box:r1 on box and l1 here", hosts)
	}
	if len(v.Remotes) != 1 || v.Remotes[0].Label != "box" || v.Remotes[0].State != client.LinkDown || v.Remotes[0].Error != "ssh: exit 255[2J" {
		t.Errorf("remotes in the view = %+v, want box down with its error in one inert line", v.Remotes)
	}
	r := d.do(t, "POST", "/ui/api/v1/focus", map[string]string{"agent": "claude", "session_id": "box:r1"}, as(cookie, secret))
	if r.status != http.StatusConflict || !strings.Contains(r.body, "runs on box") {
		t.Errorf("focus a remote session: %d %s, want 409 saying it runs on box", r.status, r.body)
	}
	if f, _ := d.calls(); len(f) != 0 {
		t.Errorf("focusing a remote session focused %+v here", f)
	}
	if r := d.do(t, "POST", "/ui/api/v1/focus", map[string]string{"agent": "claude", "session_id": "l1"}, as(cookie, secret)); r.status != http.StatusOK {
		t.Errorf("focus a local session: %d %s", r.status, r.body)
	}
	if f, _ := d.calls(); len(f) != 1 || f[0].PID != 88 {
		t.Errorf("focus of the local session: %+v, want pid 88", f)
	}
}

// TestDashboardWithoutDoctor: without Config.Doctor the view says so and
// its routes are absent: no stub.
func TestDashboardWithoutDoctor(t *testing.T) {
	d := startDash(t, false)
	cookie, secret := d.login(t)
	var v dashView
	r := d.do(t, "GET", "/ui/api/v1/view", nil, as(cookie, secret))
	json.Unmarshal([]byte(r.body), &v)
	if v.Features.Doctor || !v.Features.Agents {
		t.Errorf("features %+v: want no doctor, agents", v.Features)
	}
	for _, rt := range []struct{ method, path string }{{"GET", "/ui/api/v1/doctor"}, {"POST", "/ui/api/v1/doctor/claude/fix"}} {
		if r := d.do(t, rt.method, rt.path, struct{}{}, as(cookie, secret)); r.status != http.StatusNotFound {
			t.Errorf("%s %s without a doctor: %d, want 404", rt.method, rt.path, r.status)
		}
	}
}

// TestDashboardPause: the dashboard pauses notifications for an hour and
// resumes them, as the tray does.
func TestDashboardPause(t *testing.T) {
	d := startDash(t, false)
	cookie, secret := d.login(t)
	if r := d.do(t, "POST", "/ui/api/v1/pause", map[string]bool{"on": true}, as(cookie, secret)); r.status != http.StatusOK {
		t.Fatalf("pause: %d %s", r.status, r.body)
	}
	if until := time.Until(d.s.NotificationsPausedUntil()); until < client.PauseFor-time.Minute || until > client.PauseFor {
		t.Errorf("paused for %v, want %v", until, client.PauseFor)
	}
	if r := d.do(t, "POST", "/ui/api/v1/pause", map[string]bool{"on": false}, as(cookie, secret)); r.status != http.StatusOK {
		t.Fatalf("resume: %d %s", r.status, r.body)
	}
	if !d.s.NotificationsPausedUntil().IsZero() {
		t.Error("still paused after resume")
	}
}

// pageWeight is every byte the dashboard can send a browser, uncompressed:
// its embedded files and the tray's icons it shows.
func pageWeight(t testing.TB) (total int, files map[string]int) {
	files = map[string]int{}
	entries, err := dashboard.Assets.ReadDir("assets")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, _ := dashboard.Assets.ReadFile("assets/" + e.Name())
		n := len(b)
		if strings.HasSuffix(e.Name(), ".html") {
			// A page as served: its text and messages in the heavier
			// language.
			n = 0
			for _, l := range i18n.Langs() {
				n = max(n, len(renderPage(i18n.For(l), e.Name(), nil)))
			}
		}
		files[e.Name()] = n
		total += n
	}
	for _, n := range icons.All() {
		b := icons.PNG(n)
		files["icons/"+string(n)+".png"] = len(b)
		total += len(b)
	}
	return total, files
}

// maxPageWeight is the dashboard's budget: 100 KB for all its assets,
// uncompressed.
const maxPageWeight = 100 * 1000

func TestDashboardPageWeight(t *testing.T) {
	total, files := pageWeight(t)
	t.Logf("page weight %d bytes: %v", total, files)
	if total > maxPageWeight {
		t.Errorf("the dashboard's assets weigh %d bytes, over the %d budget: %v", total, maxPageWeight, files)
	}
}

// BenchmarkDashboardPageWeight reports the page weight (bytes-total)
// beside the other figures.
func BenchmarkDashboardPageWeight(b *testing.B) {
	total, _ := pageWeight(b)
	for range b.N {
	}
	b.ReportMetric(float64(total), "bytes-total")
}

// TestDashboardGuardRaw fires the rules a well-behaved client cannot
// break: a path with dot segments, and two Content-Type headers.
func TestDashboardGuardRaw(t *testing.T) {
	d := startDash(t, false)
	cookie, secret := d.login(t)
	host := fmt.Sprintf("127.0.0.1:%d", d.port)
	auth := fmt.Sprintf("Cookie: %s=%s\r\n%s: %s\r\n", cookie.Name, cookie.Value, dashboard.SecretHeader, secret)
	for _, c := range []struct {
		name, req string
		want      int
	}{
		{"a dot segment out of /ui/", "GET /ui/../api/v1/sessions HTTP/1.1\r\nHost: " + host + "\r\n" + auth + "Connection: close\r\n\r\n", http.StatusBadRequest},
		{"a dot segment inside /ui/", "GET /ui/api/v1/../v1/view HTTP/1.1\r\nHost: " + host + "\r\n" + auth + "Connection: close\r\n\r\n", http.StatusBadRequest},
		{"two Content-Types", "POST /ui/api/v1/dnd HTTP/1.1\r\nHost: " + host + "\r\n" + auth + "Origin: http://" + host + "\r\n" +
			"Content-Type: application/json\r\nContent-Type: text/plain\r\nContent-Length: 11\r\nConnection: close\r\n\r\n{\"on\":true}", http.StatusBadRequest},
		{"done right", "GET /ui/api/v1/view HTTP/1.1\r\nHost: " + host + "\r\n" + auth + "Connection: close\r\n\r\n", http.StatusOK},
	} {
		code, h, _ := rawRequest(t, d.port, c.req)
		if code != c.want || h.Get("Content-Security-Policy") != dashboard.CSP {
			t.Errorf("%s: %d (CSP %q), want %d", c.name, code, h.Get("Content-Security-Policy"), c.want)
		}
	}
	if d.s.DND() {
		t.Error("a refused request turned do-not-disturb on")
	}
}

// TestDashboardLanguage: with the runtime in Simplified Chinese, the
// pages are Chinese (<html lang>, headings, the sign-in page), the page
// carries every message app.js names, in Chinese, and the view's state
// labels are Chinese while its data (states, kinds, ids) stays as it is.
func TestDashboardLanguage(t *testing.T) {
	d := startDash(t, false, func(c *Config) { c.Printer = i18n.For(i18n.Chinese) })
	defer d.stop()
	if r := d.do(t, "GET", "/", nil, nil); !strings.Contains(r.body, `<html lang="zh-CN">`) || !strings.Contains(r.body, "每个网址只能让一个浏览器登录一次") {
		t.Errorf("the sign-in page in Chinese reads:\n%s", r.body)
	}
	cookie, secret := d.login(t)
	page := d.do(t, "GET", "/", nil, as(cookie, secret)).body
	for _, want := range []string{`<html lang="zh-CN">`, `<h2 id="needs-h">等你处理<`, `<h2 id="sessions-h">会话<`, `<option value="">全部</option>`} {
		if !strings.Contains(page, want) {
			t.Errorf("the dashboard in Chinese lacks %s:\n%s", want, page)
		}
	}
	m := regexp.MustCompile(`<script type="application/json" id="clawd-messages">([^<]*)</script>`).FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("the page carries no messages:\n%s", page)
	}
	var msgs map[string]any
	if err := json.Unmarshal([]byte(m[1]), &msgs); err != nil {
		t.Fatalf("the page's messages: %v", err)
	}
	if got := msgs["dashboard.allow"]; got != "允许" {
		t.Errorf("the page's Allow reads %q, want 允许", got)
	}
	// Every key app.js names (as internal/i18n's TestKeysInCode finds
	// them) is on the page; the run states it names by the engine's
	// states too.
	js, _ := dashboard.Assets.ReadFile("assets/app.js")
	used := regexp.MustCompile(`(?:^|[^\w.$])[tn]\("([a-z0-9_]+\.[a-z0-9_.]+)"[,)]`).FindAllStringSubmatch(string(js), -1)
	if len(used) < 50 {
		t.Fatalf("found %d keys in app.js; the pattern no longer matches how it names messages", len(used))
	}
	for _, u := range used {
		if _, ok := msgs[u[1]]; !ok {
			t.Errorf("app.js uses %q, which the page does not carry", u[1])
		}
	}
	for _, s := range append(slices.Clone(automations.RunStates), automations.BindingActive, automations.BindingNeedsReview, automations.BindingDisabled) {
		if _, ok := msgs["dashboard.run."+s]; !ok {
			t.Errorf("the page has no words for the automation state %q (dashboard.run.%s)", s, s)
		}
	}

	d.s.Ingest(agents.Event{Agent: "claude", Kind: agents.KindPromptSubmit, SessionID: "zh1", Cwd: "/w/app", Time: time.Now()})
	r := d.do(t, "GET", "/ui/api/v1/view", nil, as(cookie, secret))
	var v dashView
	if err := json.Unmarshal([]byte(r.body), &v); err != nil || len(v.Sessions) != 1 {
		t.Fatalf("GET view: %d %s", r.status, r.body)
	}
	if s := v.Sessions[0]; s.Label != "思考中" || s.State != "thinking" || s.Agent != "claude" {
		t.Errorf("the session in the view: label %q, state %q, agent %q; want the label in Chinese (思考中), the data as it is", s.Label, s.State, s.Agent)
	}
}

// TestLoginFlood: 2,000 guessed codes in a row get a few 403s, then 429s
// that look at nothing, and one log line; the person's real code, minted
// meanwhile, works once the guesses stop for a moment.
func TestLoginFlood(t *testing.T) {
	var logged bytes.Buffer
	var mu sync.Mutex
	now := time.Now()
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	d := startDash(t, false, func(c *Config) {
		c.Now = clock
		c.Logger = slog.New(slog.NewTextHandler(writerFunc(func(p []byte) (int, error) {
			mu.Lock()
			defer mu.Unlock()
			return logged.Write(p)
		}), nil))
	})
	codes := map[int]int{}
	for i := range 2000 {
		codes[d.do(t, "GET", fmt.Sprintf("/login?code=guess-%d", i), nil, nil).status]++
	}
	if codes[http.StatusForbidden] > 10 || codes[http.StatusTooManyRequests] < 1990 {
		t.Errorf("2,000 guesses answered %v, want at most 10 × 403 and the rest 429", codes)
	}
	mu.Lock()
	lines := strings.Count(logged.String(), "dashboard login refused")
	mu.Unlock()
	if lines != 1 {
		t.Errorf("2,000 guesses logged %d lines, want 1", lines)
	}
	mu.Lock()
	now = now.Add(2 * time.Second)
	mu.Unlock()
	d.login(t)
}
