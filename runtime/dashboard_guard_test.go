package runtime

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"testing"
)

// dashFiles are the dashboard's data routes: they see the runtime only
// through dashStore.
var dashFiles = []string{"dashboard_api.go", "dashboard_questions.go"}

// dashReaches lists where src, a file of the dashboard's data routes,
// goes past dashStore: a name of the runtime's types (Server,
// sessions.Store, sessions.Broker), or a selection of Server's session
// store or broker.
func dashReaches(t *testing.T, name string, src []byte) []string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	// The selected names of X.Sel are fields and methods, not types.
	selected := map[*ast.Ident]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		if se, ok := n.(*ast.SelectorExpr); ok {
			selected[se.Sel] = true
		}
		return true
	})
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SelectorExpr:
			switch n.Sel.Name {
			case "sessions", "perms":
				out = append(out, fset.Position(n.Sel.Pos()).String()+": the runtime's "+n.Sel.Name)
			case "Store", "Broker":
				if id, ok := n.X.(*ast.Ident); ok && id.Name == "sessions" {
					out = append(out, fset.Position(n.Pos()).String()+": sessions."+n.Sel.Name)
				}
			}
		case *ast.Ident:
			if !selected[n] {
				out = append(out, runtimeType(fset, n)...)
			}
		}
		return true
	})
	return out
}

// runtimeType reports id when it names one of the runtime's own types,
// which the dashboard's files must not hold.
func runtimeType(fset *token.FileSet, id *ast.Ident) []string {
	switch id.Name {
	case "Server":
		return []string{fset.Position(id.Pos()).String() + ": " + id.Name}
	}
	return nil
}

// TestDashboardOnlyThroughStore keeps the dashboard a client of the
// store's API, like the tray: its data routes are built from dashStore,
// and their files name neither the Server nor the store.
func TestDashboardOnlyThroughStore(t *testing.T) {
	for _, name := range dashFiles {
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range dashReaches(t, name, src) {
			t.Errorf("%s: the dashboard goes through dashStore", r)
		}
	}
}

// TestDashReachesFires shows the dashboard's guard finding each way past
// dashStore.
func TestDashReachesFires(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      int
	}{
		{"clean", `package runtime
func (api *dashAPI) ok(l sessions.Line) { _ = api.store.View(); _, _ = api.store.session(statemachine.Key{}) }`, 0},
		{"a Server method", `package runtime
func (s *Server) bad() {}`, 1},
		{"the store", `package runtime
func (api *dashAPI) bad(x *sessions.Store) { _ = x }`, 1},
		{"the broker", `package runtime
type dashBad struct{ b *sessions.Broker }`, 1},
		{"through a field", `package runtime
func (api *dashAPI) bad() { api.srv.sessions.session(k); api.srv.perms.mu.Lock() }`, 2},
	} {
		got := dashReaches(t, tc.name+".go", []byte(tc.src))
		if len(got) != tc.want {
			t.Errorf("dashReaches(%s) = %q, want %d", tc.name, got, tc.want)
		}
	}
}
