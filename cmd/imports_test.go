package cmd

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const modulePath = "github.com/clawdhq/clawd/"

// serverImports are the packages of runtime/ that cmd's files other than
// runtime/client may import, each for the files named and why. Everything
// else the CLI asks of the runtime goes through runtime/client and its
// wire types.
var serverImports = map[string]struct {
	files []string
	why   string
}{
	"runtime":                   {[]string{"serve.go", "autostart.go", "uninstall.go"}, "serve builds the server; autostart and uninstall ask runtime.HomeInUse whether a serve holds the home, which no API can say when none answers"},
	"runtime/automations":       {[]string{"serve.go", "automations.go"}, "serve opens the engine; automations.go edits and reads automations.toml itself (only the file's functions: automationsFileAPI)"},
	"runtime/channels/telegram": {[]string{"serve.go", "channels.go"}, "serve runs the channel; clawd channels pairs and reads the channel's own files (token, chat, status), with or without serve"},
	"runtime/history":           {[]string{"serve.go"}, "serve opens the history store"},
	"runtime/monitors":          {[]string{"serve.go"}, "serve runs the agents' monitors"},
	"runtime/selfrepair":        {[]string{"serve.go"}, "serve runs the self-repair"},
	"runtime/recap":             {[]string{"recap.go"}, "recap.Summary is the recap API's wire type (runtime/client returns it)"},
	"runtime/client":            {nil, "the CLI's way to the runtime"},
}

// automationsFileAPI is what automations.go may use of
// runtime/automations: the format of automations.toml, no server type.
var automationsFileAPI = []string{"File", "MaxFileSize", "ReadFile", "Add", "Replace", "Block", "FileState"}

// importProblems checks the Go files of cmd (name → source) against
// serverImports and automationsFileAPI.
func importProblems(files map[string][]byte) (problems []string, clientSeen bool) {
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, name := range names {
		fs := token.NewFileSet()
		f, err := parser.ParseFile(fs, name, files[name], parser.SkipObjectResolution)
		if err != nil {
			problems = append(problems, err.Error())
			continue
		}
		aliases := map[string]bool{} // names runtime/automations goes by in the file
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			rel, ok := strings.CutPrefix(path, modulePath)
			if !ok || (rel != "runtime" && !strings.HasPrefix(rel, "runtime/")) {
				continue
			}
			allowed, ok := serverImports[rel]
			switch {
			case !ok:
				problems = append(problems, fmt.Sprintf("%s imports %s: the CLI reaches the runtime through runtime/client and its wire types", name, rel))
				continue
			case allowed.files != nil && !slices.Contains(allowed.files, name):
				problems = append(problems, fmt.Sprintf("%s imports %s, allowed only in %s (%s)", name, rel, strings.Join(allowed.files, ", "), allowed.why))
				continue
			}
			if rel == "runtime/client" {
				clientSeen = true
			}
			if rel == "runtime/automations" {
				alias := "automations"
				if imp.Name != nil {
					alias = imp.Name.Name
				}
				aliases[alias] = true
			}
		}
		if len(aliases) == 0 || name == "serve.go" {
			continue
		}
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if id, ok := sel.X.(*ast.Ident); ok && aliases[id.Name] && !slices.Contains(automationsFileAPI, sel.Sel.Name) {
				problems = append(problems, fmt.Sprintf("%s: uses automations.%s: the CLI uses only the file's functions of runtime/automations (%s); the server's types are runtime/client's",
					fs.Position(sel.Pos()), sel.Sel.Name, strings.Join(automationsFileAPI, ", ")))
			}
			return true
		})
	}
	return problems, clientSeen
}

// TestCmdImportsNoServerTypes: cmd's own files reach the runtime through
// runtime/client and its wire types; the other runtime packages they
// import are the allow-listed ones, for the reasons given.
func TestCmdImportsNoServerTypes(t *testing.T) {
	paths, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	for _, p := range paths {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		files[p] = b
	}
	problems, clientSeen := importProblems(files)
	for _, p := range problems {
		t.Error(p)
	}
	if !clientSeen {
		t.Error("no file of cmd imports runtime/client: the check looks at nothing")
	}
}

// TestImportProblemsFires: the check refuses a runtime import outside the
// list, an allowed one in another file, and a server type of
// runtime/automations.
func TestImportProblemsFires(t *testing.T) {
	problems, _ := importProblems(map[string][]byte{
		"a.go": []byte("package cmd\nimport _ \"github.com/clawdhq/clawd/runtime/dashboard\"\n"),
		"b.go": []byte("package cmd\nimport _ \"github.com/clawdhq/clawd/runtime/history\"\n"),
		"automations.go": []byte("package cmd\nimport auto \"github.com/clawdhq/clawd/runtime/automations\"\n" +
			"var _ auto.DefinitionView\nvar _ = auto.ReadFile\n"),
	})
	want := []string{"a.go imports runtime/dashboard", "uses automations.DefinitionView", "b.go imports runtime/history, allowed only in serve.go"}
	if len(problems) != len(want) {
		t.Fatalf("importProblems = %q, want %d problems: %q", problems, len(want), want)
	}
	for i, w := range want {
		if !strings.Contains(problems[i], w) {
			t.Errorf("problem %d = %q, want it to say %q", i, problems[i], w)
		}
	}
}
