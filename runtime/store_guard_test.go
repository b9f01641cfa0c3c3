package runtime

import (
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// storeFiles are the files of the session store: only they touch its
// fields (see sessionStore).
var storeFiles = []string{"store.go", "journal.go"}

// storeFields returns the names of sessionStore's fields, as store.go
// declares them.
func storeFields(t *testing.T) map[string]bool {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "store.go", nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	fields := map[string]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		ts, ok := n.(*ast.TypeSpec)
		if !ok || ts.Name.Name != "sessionStore" {
			return true
		}
		for _, fl := range ts.Type.(*ast.StructType).Fields.List {
			for _, name := range fl.Names {
				fields[name.Name] = true
			}
		}
		return false
	})
	if len(fields) == 0 {
		t.Fatal("store.go declares no sessionStore struct")
	}
	return fields
}

// isStoreType reports whether e is sessionStore or *sessionStore.
func isStoreType(e ast.Expr) bool {
	if st, ok := e.(*ast.StarExpr); ok {
		e = st.X
	}
	id, ok := e.(*ast.Ident)
	return ok && id.Name == "sessionStore"
}

// isStoreValue reports whether e is a store: X.sessions (the Server's
// field), a name in bound, newSessionStore(...) or &sessionStore{...}.
func isStoreValue(e ast.Expr, bound map[string]bool) bool {
	switch e := e.(type) {
	case *ast.ParenExpr:
		return isStoreValue(e.X, bound)
	case *ast.SelectorExpr:
		return e.Sel.Name == "sessions"
	case *ast.Ident:
		return bound[e.Name]
	case *ast.CallExpr:
		id, ok := e.Fun.(*ast.Ident)
		return ok && id.Name == "newSessionStore"
	case *ast.UnaryExpr:
		return isStoreValue(e.X, bound)
	case *ast.CompositeLit:
		return isStoreType(e.Type)
	}
	return false
}

// storeReaches lists where src, the file name of the runtime package,
// reaches into the session store's fields (any of fields) or stands in
// for the store: a method of sessionStore, a sessionStore literal, a
// field selected through Server.sessions or through a name bound to the
// store (a parameter of its type, a variable assigned from it).
func storeReaches(t *testing.T, name string, src []byte, fields map[string]bool) []string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	report := func(n ast.Node, what string) {
		out = append(out, fset.Position(n.Pos()).String()+": "+what)
	}
	// bound are the names bound to the store: the package's, then in
	// each function its own.
	global := map[string]bool{}
	for _, d := range f.Decls {
		if gd, ok := d.(*ast.GenDecl); ok {
			for _, sp := range gd.Specs {
				if vs, ok := sp.(*ast.ValueSpec); ok {
					for i, name := range vs.Names {
						if (vs.Type != nil && isStoreType(vs.Type)) || (i < len(vs.Values) && isStoreValue(vs.Values[i], global)) {
							global[name.Name] = true
						}
					}
				}
			}
		}
	}
	bound := global
	bind := func(fl *ast.FieldList) {
		if fl == nil {
			return
		}
		for _, p := range fl.List {
			if isStoreType(p.Type) {
				for _, n := range p.Names {
					bound[n.Name] = true
				}
			}
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncDecl:
			bound = maps.Clone(global)
			bind(n.Recv)
			if n.Recv != nil && len(n.Recv.List) > 0 && isStoreType(n.Recv.List[0].Type) {
				report(n, "method "+n.Name.Name+" of sessionStore outside the store's files")
			}
			bind(n.Type.Params)
		case *ast.FuncLit:
			bind(n.Type.Params)
		case *ast.AssignStmt:
			for i, rhs := range n.Rhs {
				if i < len(n.Lhs) && isStoreValue(rhs, bound) {
					if id, ok := n.Lhs[i].(*ast.Ident); ok {
						bound[id.Name] = true
					}
				}
			}
		case *ast.ValueSpec:
			for i, name := range n.Names {
				if (n.Type != nil && isStoreType(n.Type)) || (i < len(n.Values) && isStoreValue(n.Values[i], bound)) {
					bound[name.Name] = true
				}
			}
		case *ast.CompositeLit:
			if isStoreType(n.Type) {
				report(n, "a sessionStore literal outside the store's files")
			}
		case *ast.SelectorExpr:
			if fields[n.Sel.Name] && isStoreValue(n.X, bound) {
				report(n, "the store's field "+n.Sel.Name)
			}
		}
		return true
	})
	return out
}

// TestStoreFieldsOnlyInStore keeps the session store's fields in its own
// files: the rest of the runtime, the broker and the dashboard included,
// uses its methods, which keep its lock order.
func TestStoreFieldsOnlyInStore(t *testing.T) {
	fields := storeFields(t)
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") || slices.Contains(storeFiles, name) {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		for _, r := range storeReaches(t, name, src, fields) {
			t.Errorf("%s: use the store's methods (its files are %v)", r, storeFiles)
		}
	}
	if checked < 10 {
		t.Fatalf("checked %d files: not the runtime package's directory?", checked)
	}
}

// TestStoreReachesFires shows the guard finding each way into the store.
func TestStoreReachesFires(t *testing.T) {
	fields := storeFields(t)
	for _, tc := range []struct {
		name, src string
		want      int
	}{
		{"clean", `package runtime
func (s *Server) ok() { s.sessions.nudge(); st := s.sessions; st.tick(nil); _ = s.perms.mu; _ = s.problems.m }`, 0},
		{"through Server.sessions", `package runtime
func (s *Server) bad() { s.sessions.mu.Lock(); _ = s.sessions.seq; s.sessions.m.Display() }`, 3},
		{"through a variable", `package runtime
func (s *Server) bad() { st := s.sessions; st.mu.Lock(); var o = s.sessions; _ = o.backlog }`, 2},
		{"through a parameter", `package runtime
func bad(st *sessionStore) { _ = st.j }`, 1},
		{"a method", `package runtime
func (st *sessionStore) bad() {}`, 1},
		{"a literal", `package runtime
var x = &sessionStore{}`, 1},
	} {
		got := storeReaches(t, tc.name+".go", []byte(tc.src), fields)
		if len(got) != tc.want {
			t.Errorf("storeReaches(%s) = %q, want %d", tc.name, got, tc.want)
		}
	}
}

// dashFiles are the dashboard's data routes: they see the runtime only
// through dashStore.
var dashFiles = []string{"dashboard_api.go", "dashboard_questions.go"}

// dashReaches lists where src, a file of the dashboard's data routes,
// goes past dashStore: a name of the runtime's types (Server,
// sessionStore, broker, journal), or a selection of Server's sessions or
// broker.
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
	case "Server", "sessionStore", "broker", "journal":
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
func (api *dashAPI) ok() { _ = api.store.View(); _, _ = api.store.session(statemachine.Key{}) }`, 0},
		{"a Server method", `package runtime
func (s *Server) bad() {}`, 1},
		{"the store", `package runtime
func (api *dashAPI) bad(x *sessionStore) { _ = x }`, 1},
		{"through a field", `package runtime
func (api *dashAPI) bad() { api.srv.sessions.session(k); api.srv.perms.mu.Lock() }`, 2},
	} {
		got := dashReaches(t, tc.name+".go", []byte(tc.src))
		if len(got) != tc.want {
			t.Errorf("dashReaches(%s) = %q, want %d", tc.name, got, tc.want)
		}
	}
}
