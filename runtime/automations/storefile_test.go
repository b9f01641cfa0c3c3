package automations

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// sqlLiteral is how a statement of the store starts.
var sqlLiteral = regexp.MustCompile(`(?i)^\x60?\s*(SELECT|INSERT|UPDATE|DELETE|CREATE|PRAGMA)\s`)

// packageFiles parses the package's own files (not its tests), by name.
func packageFiles(t *testing.T, fs *token.FileSet) map[string]*ast.File {
	t.Helper()
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*ast.File{}
	for _, n := range names {
		if strings.HasSuffix(n, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fs, n, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		out[n] = f
	}
	return out
}

// TestSQLOnlyInStore keeps every statement of the engine in store.go, where
// the schema is: a query elsewhere is one more place to look when the
// schema changes.
func TestSQLOnlyInStore(t *testing.T) {
	found := 0
	fs := token.NewFileSet()
	for f, file := range packageFiles(t, fs) {
		ast.Inspect(file, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING || !sqlLiteral.MatchString(lit.Value[1:]) {
				return true
			}
			found++
			if f != "store.go" {
				t.Errorf("%s: SQL outside store.go: %.60s", fs.Position(lit.Pos()), lit.Value)
			}
			return true
		})
	}
	// The guard sees the store's own statements, or it sees nothing.
	if found < 10 {
		t.Fatalf("found %d SQL statements in the package, want the store's (at least 10)", found)
	}
}

// TestRowsErrChecked: every function of the package that loops over
// rows.Next also asks rows.Err, since Next returns false on an error as
// at the end, and a half-read result would pass for a whole one.
func TestRowsErrChecked(t *testing.T) {
	loops := 0
	for f, file := range packageFiles(t, token.NewFileSet()) {
		for _, d := range file.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			// Each function literal is its own scope: a transaction's
			// closure reads its rows and must check them itself.
			var check func(body ast.Node, name string)
			check = func(body ast.Node, name string) {
				next, errs := 0, 0
				ast.Inspect(body, func(n ast.Node) bool {
					if fl, ok := n.(*ast.FuncLit); ok && fl.Body != body {
						check(fl.Body, name+" (a func literal)")
						return false
					}
					call, ok := n.(*ast.CallExpr)
					if !ok {
						return true
					}
					sel, ok := call.Fun.(*ast.SelectorExpr)
					if !ok {
						return true
					}
					if id, ok := sel.X.(*ast.Ident); ok && id.Name == "rows" {
						switch sel.Sel.Name {
						case "Next":
							next++
						case "Err":
							errs++
						}
					}
					return true
				})
				loops += next
				if next > 0 && errs == 0 {
					t.Errorf("%s: %s loops over rows.Next without checking rows.Err", f, name)
				}
			}
			check(fd.Body, fd.Name.Name)
		}
	}
	if loops == 0 {
		t.Fatal("found no rows.Next loop: the guard looks at nothing")
	}
}
