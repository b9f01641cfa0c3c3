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

// TestSQLOnlyInStore keeps every statement of the engine in store.go, where
// the schema is: a query elsewhere is one more place to look when the
// schema changes.
func TestSQLOnlyInStore(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	found := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		fs := token.NewFileSet()
		file, err := parser.ParseFile(fs, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
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
