package runtime

import (
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clawdhq/clawd/runtime/client"
)

// TestRoutesRefuseBadTable: a route listed twice, one that conflicts with
// another in a listener's mux, one served at no level and one opened at
// two levels each keep the runtime from starting, with an error that
// names the route; the table as it is starts.
func TestRoutesRefuseBadTable(t *testing.T) {
	noop := plain(func(http.ResponseWriter, *http.Request) {})
	for _, c := range []struct {
		name  string
		extra route
		want  string
	}{
		{"listed twice", route{"GET /api/v1/health", accessSocket, noop}, `"GET /api/v1/health" is listed twice`},
		{"a conflicting pattern", route{"GET /api/v1/permissions/{other}", accessSocket, noop}, "/api/v1/permissions/{other}"},
		{"no level", route{"GET /api/v1/nowhere", 0, noop}, "served at no level"},
		{"open at two levels", route{"GET /api/v1/wide", accessToken | accessDashboard | accessOpen, noop}, "open goes with exactly one level"},
		{"open on the socket", route{"GET /api/v1/wide", accessSocket | accessOpen, noop}, "open goes with exactly one level"},
		{"a dashboard path for the token API", route{"GET /ui/x", accessToken, noop}, "gives that path to the dashboard"},
		{"token and original", route{"GET /api/v1/both", accessToken | accessOriginal, noop}, "two rules"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := New(Config{Home: t.TempDir()})
			s.table = append(s.table, c.extra)
			ln, err := Listen(0)
			if err != nil {
				t.Fatal(err)
			}
			defer ln.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			err = s.Serve(ctx, ln, nil)
			if !errors.Is(err, errRoutes) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Serve with %v added = %v, want a route table error containing %q", c.extra.pattern, err, c.want)
			}
			in := &Ingress{Label: "box"}
			if err := s.ServeIngress(ctx, ln, in); !errors.Is(err, errRoutes) {
				t.Errorf("ServeIngress with %v added = %v, want a route table error", c.extra.pattern, err)
			}
		})
	}
	if _, err := New(Config{}).buildListeners(New(Config{}).routes()); err != nil {
		t.Fatalf("the route table: %v", err)
	}
}

// TestRoutesOnlyInTable: no file of the package but routes.go registers a
// route or makes a mux of its own, so every route is in the table; and
// the check finds such a registration where there is one.
func TestRoutesOnlyInTable(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		for _, where := range routeRegistrations(t, f, src) {
			t.Errorf("%s registers a route outside the table (routes.go): add it to Server.routes", where)
		}
	}
	if checked < 10 {
		t.Fatalf("checked %d files, want the package's", checked)
	}
	bad := `package runtime
func (s *Server) extra(m *http.ServeMux) {
	m.HandleFunc("GET /api/v1/secret", s.handleHealth)
	http.Handle("/x", nil)
	_ = http.NewServeMux()
}`
	if got := routeRegistrations(t, "extra.go", []byte(bad)); len(got) != 3 {
		t.Errorf("routeRegistrations(a file with a HandleFunc, a Handle and a NewServeMux) = %v, want all three", got)
	}
}

// routeRegistrations lists where src (the file name) calls HandleFunc,
// Handle or http.NewServeMux, but in routes.go's mux.handle and newMux,
// which serve the table.
func routeRegistrations(t *testing.T, name string, src []byte) []string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, 0)
	if err != nil {
		t.Fatal(err)
	}
	var found []string
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if ok && name == "routes.go" && (fn.Name.Name == "handle" || fn.Name.Name == "newMux") {
			continue
		}
		ast.Inspect(d, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			if sel, ok := call.Fun.(*ast.SelectorExpr); ok {
				switch sel.Sel.Name {
				case "HandleFunc", "Handle", "NewServeMux":
					found = append(found, fmt.Sprintf("%s (%s)", fset.Position(call.Pos()), sel.Sel.Name))
				}
			}
			return true
		})
	}
	return found
}

// concrete is a route's path with its wildcards filled in.
func concrete(path string) string {
	path = strings.TrimSuffix(path, "{$}")
	r := strings.NewReplacer("{id}", "x", "{agent}", "claude", "{file}", "app.js", "{name}", "idle.png")
	return r.Replace(path)
}

// TestRouteLevelsGuarded: every route of the table, at each level it is
// served at, is refused without that level's credential (the token, a
// dashboard login, the profile's token and generation, this user), and
// reaches its handler with it; a route of the socket alone is refused on
// TCP even with the token.
func TestRouteLevelsGuarded(t *testing.T) {
	d := startDash(t, true)
	cookie, secret := d.login(t)
	in := &Ingress{Label: "box"}
	in.SetCredentials("profile-token", 3)
	inPort := startIngress(t, d.s, in)

	send := func(t *testing.T, port int, method, path string, mod func(*http.Request)) (int, string) {
		t.Helper()
		var body io.Reader
		if method == http.MethodPost {
			body = strings.NewReader("{}")
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		r, err := http.NewRequestWithContext(ctx, method, fmt.Sprintf("http://127.0.0.1:%d%s", port, path), body)
		if err != nil {
			t.Fatal(err)
		}
		if method == http.MethodPost {
			r.Header.Set("Content-Type", "application/json")
		}
		if mod != nil {
			mod(r)
		}
		resp, err := http.DefaultTransport.RoundTrip(r)
		if err != nil {
			t.Fatalf("%s %s: %v", method, path, err)
		}
		defer resp.Body.Close()
		if !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
			return resp.StatusCode, "" // a stream, a page: its status says enough
		}
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	reached := func(t *testing.T, what string, code int, body string) {
		t.Helper()
		if code == http.StatusUnauthorized || code == http.StatusForbidden && body == "" || strings.Contains(body, "no such route") {
			t.Errorf("%s with its credential: %d %q, want its handler's answer", what, code, body)
		}
	}
	dashOrigin := func(r *http.Request) {
		r.Header.Set("Sec-Fetch-Site", "same-origin")
		if r.Method == http.MethodPost {
			r.Header.Set("Origin", fmt.Sprintf("http://127.0.0.1:%d", d.port))
		}
	}
	bearer := func(tok string) func(*http.Request) {
		return func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+tok) }
	}
	levelsSeen := map[access]int{}
	for _, rt := range d.s.table {
		method, path, _ := strings.Cut(rt.pattern, " ")
		p := concrete(path)
		if rt.access&accessOpen != 0 {
			levelsSeen[accessOpen]++
			continue
		}
		t.Run(rt.pattern, func(t *testing.T) {
			if rt.access&accessToken != 0 {
				levelsSeen[accessToken]++
				if code, body := send(t, d.port, method, p, nil); code != http.StatusUnauthorized || body != "" {
					t.Errorf("token level without the token: %d %q, want an empty 401", code, body)
				}
				if code, body := send(t, d.port, method, p, bearer("not-the-token")); code != http.StatusUnauthorized {
					t.Errorf("token level with another token: %d %q, want 401", code, body)
				}
				code, body := send(t, d.port, method, p, bearer(d.token))
				reached(t, "token level", code, body)
			} else if rt.access&accessSocket != 0 && strings.HasPrefix(path, "/api/") {
				levelsSeen[accessSocket]++
				if code, body := send(t, d.port, method, p, bearer(d.token)); code != http.StatusForbidden || !strings.Contains(body, "socket only") {
					t.Errorf("a socket route on TCP with the token: %d %q, want 403 saying socket only", code, body)
				}
			}
			if rt.access&accessDashboard != 0 {
				levelsSeen[accessDashboard]++
				up := dashPath(p)
				if code, body := send(t, d.port, method, up, dashOrigin); code != http.StatusUnauthorized || body != "" {
					t.Errorf("dashboard level %s without a login: %d %q, want an empty 401", up, code, body)
				}
				if code, _ := send(t, d.port, method, up, then(dashOrigin, func(r *http.Request) { r.AddCookie(cookie) })); code != http.StatusUnauthorized {
					t.Errorf("dashboard level %s with the cookie but not the secret: %d, want 401", up, code)
				}
				if method == http.MethodPost {
					if code, _ := send(t, d.port, method, up, then(as(cookie, secret), func(r *http.Request) { r.Header.Set("Sec-Fetch-Site", "same-origin") })); code != http.StatusForbidden {
						t.Errorf("dashboard level POST %s with a login, without Origin: %d, want 403", up, code)
					}
				}
				code, body := send(t, d.port, method, up, then(dashOrigin, as(cookie, secret)))
				reached(t, "dashboard level "+up, code, body)
			}
			if rt.access&accessIngress != 0 {
				levelsSeen[accessIngress]++
				if code, body := send(t, inPort, method, p, nil); code != http.StatusForbidden || body != "" {
					t.Errorf("ingress level without the profile's token: %d %q, want an empty 403", code, body)
				}
				if code, _ := send(t, inPort, method, p, then(bearer("profile-token"), func(r *http.Request) { r.Header.Set(client.GenerationHeader, "2") })); code != http.StatusForbidden {
					t.Errorf("ingress level with the previous generation: %d, want 403", code)
				}
				if rt.pattern != "POST /api/v1/permissions" { // it would hold the request open for the person
					code, body := send(t, inPort, method, p, then(bearer("profile-token"), func(r *http.Request) { r.Header.Set(client.GenerationHeader, "3") }))
					reached(t, "ingress level", code, body)
				}
			}
			if rt.access&accessOriginal != 0 {
				levelsSeen[accessOriginal]++
				// A connection whose owner the kernel did not name
				// (httptest's request has no peer): only the token
				// lets it in.
				r := httptest.NewRequest(method, p, strings.NewReader(`{"state":"working"}`))
				r.Host = fmt.Sprintf("127.0.0.1:%d", d.port)
				r.Header.Set("Content-Type", "application/json")
				w := httptest.NewRecorder()
				d.s.TCPHandler().ServeHTTP(w, r)
				if w.Code != http.StatusForbidden || !strings.Contains(w.Body.String(), "this user only") {
					t.Errorf("original level from nobody known: %d %q, want 403", w.Code, w.Body.String())
				}
				// This user's process, over real TCP (Linux names the
				// peer; elsewhere nobody can tell, and the token is
				// needed).
				code, body := send(t, d.port, method, p, bearer(d.token))
				reached(t, "original level", code, body)
			}
		})
	}
	for _, l := range []access{accessSocket, accessToken, accessDashboard, accessIngress, accessOriginal, accessOpen} {
		if levelsSeen[l] == 0 {
			t.Errorf("no route of the table at level %v was checked", l)
		}
	}
	// Nothing the table does not list is served.
	if code, _ := send(t, d.port, "GET", "/api/v1/nothing-here", bearer(d.token)); code != http.StatusNotFound {
		t.Errorf("GET /api/v1/nothing-here with the token: %d, want 404", code)
	}
	if code, _ := send(t, d.port, "GET", "/ui/api/v1/health", then(dashOrigin, as(cookie, secret))); code != http.StatusNotFound {
		t.Errorf("the token API's health on the dashboard, which the table does not give it: %d, want 404", code)
	}
}
