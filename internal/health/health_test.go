package health

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clawdhq/clawd/internal/i18n"
)

// textFields are the fields New sets together: a finding or fix set
// apart from its message would stay English in every language.
var textFields = map[string]bool{"Finding": true, "Fix": true, "FindingMsg": true, "FixMsg": true}

// setsText returns where the file f sets a check's finding or fix other
// than through New: a composite literal or an assignment naming one of
// textFields.
func setsText(fset *token.FileSet, f *ast.File) []string {
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.KeyValueExpr:
			if id, ok := n.Key.(*ast.Ident); ok && textFields[id.Name] {
				out = append(out, fset.Position(n.Pos()).String()+": "+id.Name+":")
			}
		case *ast.AssignStmt:
			for _, l := range n.Lhs {
				if s, ok := l.(*ast.SelectorExpr); ok && textFields[s.Sel.Name] {
					out = append(out, fset.Position(s.Pos()).String()+": ."+s.Sel.Name+" =")
				}
			}
		}
		return true
	})
	return out
}

// TestChecksMadeByNew: outside this package, the code makes checks only
// with New, which takes the finding and the fix as messages; with
// TestFindingsHaveKeys (doctor) no check's finding is English only.
// Tests may build checks as --json gives them back.
func TestChecksMadeByNew(t *testing.T) {
	root := filepath.Join("..", "..")
	fset := token.NewFileSet()
	files := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".") && path != root) {
			return filepath.SkipDir
		}
		if d.IsDir() && path == filepath.Join(root, "internal", "health") {
			return filepath.SkipDir // New itself
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		files++
		for _, p := range setsText(fset, f) {
			t.Errorf("%s a check's finding or fix set without health.New", p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 {
		t.Errorf("looked at %d Go files; the walk no longer covers the repository", files)
	}
}

// TestChecksMadeByNewFires: the check finds both ways of setting a
// finding apart from its message.
func TestChecksMadeByNewFires(t *testing.T) {
	src := `package p
func f() {
	c := health.Check{ID: "x", Finding: "english only"}
	c.Fix = "clawd serve"
}`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := setsText(fset, f); len(got) != 2 {
		t.Errorf("setsText found %q, want the literal's Finding and the assignment to Fix", got)
	}
}

// TestNew: a check's English is its messages' English; Text prints them
// in the reader's language, and a check without messages (from JSON) as
// it is.
func TestNew(t *testing.T) {
	c := New("runtime.reachable", "", Warn, i18n.M("doctor.finding.not_running", "/h/.clawd"), i18n.Literal("clawd serve"))
	if want := "clawd serve is not running for /h/.clawd: the agents' hooks deliver nothing until it runs"; c.Finding != want || c.Fix != "clawd serve" {
		t.Errorf("New = %q, fix %q, want %q, fix clawd serve", c.Finding, c.Fix, want)
	}
	finding, fix := c.Text(i18n.For(i18n.Chinese))
	if want := "clawd serve 没有为 /h/.clawd 运行：在它运行之前，智能体的钩子什么也送不到"; finding != want || fix != "clawd serve" {
		t.Errorf("Text in Chinese = %q, %q, want %q, clawd serve", finding, fix, want)
	}
	plain := Check{ID: "x", Finding: "as read", Fix: "as read too"}
	if finding, fix := plain.Text(i18n.For(i18n.Chinese)); finding != "as read" || fix != "as read too" {
		t.Errorf("Text of a check without messages = %q, %q", finding, fix)
	}
}
