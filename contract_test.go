package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/clawdhq/clawd/agents"
)

// The agent contract: everything agent-specific lives in the agent's file
// under agents/ and its installer under installers/. Elsewhere the code
// speaks of agents only through agents.Agent; a new agent touches no
// switch in cmd/, runtime/, statemachine/ or tray/.

// contractAllowed are the places outside agents/ and installers/ where an
// agent's own names may appear in code, each with why.
var contractAllowed = map[string]string{
	"runtime/monitors/codex/":      "Codex's rollout monitor: a log format of Codex's own, by nature one agent's",
	"runtime/monitors/monitors.go": "the registry of the agents' log monitors (one line per monitor)",
	"runtime/compat.go":            "the original app's POST /state protocol: agent_id defaults to claude-code, claude_pid is a wire field",
	// Words that are an agent's and also the desktop's or clawd's own.
	"internal/autostart/": "XDG_CONFIG_HOME there is the desktop's base directory (where autostart entries go), not an agent's override",
	"internal/i18n/":      `"auto" there is the [ui] language setting (follow the locale), not an agent's permission mode`,
	// Tests and test infrastructure drive real agents by name.
	"e2e/":                   "end-to-end tests of the real agent CLIs",
	"bench/":                 "benchmarks of the hook as Claude Code runs it",
	"internal/fakeanthropic": "the fake model API Claude Code talks to",
	"internal/fakeopenai/":   "the fake model API Codex, Qwen, Copilot and opencode talk to",
	"internal/fakegemini/":   "the fake model API Gemini CLI talks to",
	"internal/intruder":      "the hostile-user test program, which poses as agents' hooks",
}

// agentWords are the names by which code could single out an agent: its
// id, aliases and product name, its settings folder and override
// variables, its hook event names where they are its own, its permission
// modes, and the names of its own tools and notification types that
// clawd's code once switched on.
func agentWords(t *testing.T) (idents []string, literals []*regexp.Regexp) {
	t.Helper()
	words := map[string]bool{}
	for _, a := range agents.All() {
		idents = append(idents, strings.ToLower(a.ID))
		words[a.ID] = true
		words[a.Name] = true
		for _, al := range a.Aliases {
			words[al] = true
		}
		for _, m := range a.BypassModes {
			words[m] = true
		}
		var asked []string
		a.ConfigDir(func(k string) string {
			asked = append(asked, k)
			return ""
		})
		for _, k := range asked {
			if k != "HOME" && k != "USERPROFILE" {
				words[k] = true
			}
		}
		// Event names that are not plain English words.
		for name := range a.Kinds() {
			if strings.ContainsAny(name[1:], "ABCDEFGHIJKLMNOPQRSTUVWXYZ_") {
				words[name] = true
			}
		}
	}
	for _, w := range []string{"AskUserQuestion", "ExitPlanMode", "apply_patch", "permission_prompt", "idle_prompt",
		"elicitation_dialog", "permission_suggestions", ".claude", ".codex", "rollout"} {
		words[w] = true
	}
	for w := range words {
		literals = append(literals, regexp.MustCompile(`(?i)(^|[^A-Za-z0-9_])`+regexp.QuoteMeta(w)+`($|[^A-Za-z0-9_])`))
	}
	return idents, literals
}

// TestContractAllowedExist: every place the contract allows is there, so
// a package that moved does not leave its exception behind (nor one that
// names a path never to exist).
func TestContractAllowedExist(t *testing.T) {
	for p := range contractAllowed {
		if _, err := os.Stat(strings.TrimSuffix(p, "/")); err != nil {
			t.Errorf("contractAllowed names %s: %v", p, err)
		}
	}
}

// TestAgentContract fails when an agent-specific name appears in the code
// (identifiers and string literals; comments may explain) of a package
// that should know no agent in particular.
func TestAgentContract(t *testing.T) {
	idents, literals := agentWords(t)
	allowed := func(path string) bool {
		if strings.HasPrefix(path, "agents/") || strings.HasPrefix(path, "installers/") {
			return true
		}
		for p := range contractAllowed {
			if strings.HasPrefix(path, p) {
				return true
			}
		}
		return false
	}
	fset := token.NewFileSet()
	var problems []string
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		path = filepath.ToSlash(path)
		if d.IsDir() {
			if name := d.Name(); name == "testdata" || strings.HasPrefix(name, ".") && path != "." {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || allowed(path) {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		// Names of other modules' packages (math.Pi) are theirs, not
		// this code's.
		foreign := map[string]bool{}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if strings.Contains(p, "/runtime/monitors/") {
				// An agent's own monitor is reached through the
				// registry (runtime/monitors), not imported.
				problems = append(problems, fset.Position(imp.Pos()).String()+": imports "+p)
			}
			if !strings.HasPrefix(p, "github.com/clawdhq/clawd") {
				name := p[strings.LastIndex(p, "/")+1:]
				if imp.Name != nil {
					name = imp.Name.Name
				}
				foreign[name] = true
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.SelectorExpr:
				if x, ok := n.X.(*ast.Ident); ok && foreign[x.Name] {
					return false
				}
			case *ast.Ident:
				if slices.ContainsFunc(idents, func(id string) bool { return namesAgent(n.Name, id) }) {
					problems = append(problems, fset.Position(n.Pos()).String()+": identifier "+n.Name)
				}
			case *ast.BasicLit:
				if n.Kind != token.STRING {
					return true
				}
				s, _ := strconv.Unquote(n.Value)
				for _, re := range literals {
					if re.MatchString(s) {
						problems = append(problems, fset.Position(n.Pos()).String()+": string "+strconv.Quote(s))
						break
					}
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf("agent-specific name outside agents/ and installers/: %s", p)
	}
}

// namesAgent reports whether the identifier name holds the agent id as
// whole words (camelCase or snake_case): codexHome and CodeBuddy do, Pid
// and pixel do not name Pi.
func namesAgent(name, id string) bool {
	var words []string
	start := 0
	for i := 1; i <= len(name); i++ {
		switch {
		case i == len(name), name[i] == '_':
		case isUpper(name[i]) && (!isUpper(name[i-1]) || i+1 < len(name) && !isUpper(name[i+1]) && name[i+1] != '_'):
		default:
			continue
		}
		if w := strings.Trim(name[start:i], "_"); w != "" {
			words = append(words, strings.ToLower(w))
		}
		start = i
	}
	for i := range words {
		joined := ""
		for _, w := range words[i:] {
			if joined += w; joined == id {
				return true
			}
			if len(joined) >= len(id) {
				break
			}
		}
	}
	return false
}

func isUpper(c byte) bool { return c >= 'A' && c <= 'Z' }

// TestAgentContractFires proves the check finds what it looks for.
func TestAgentContractFires(t *testing.T) {
	idents, literals := agentWords(t)
	if !slices.Contains(idents, "claude") || !slices.Contains(idents, "codex") {
		t.Errorf("agent identifiers %q miss claude or codex", idents)
	}
	for _, c := range []struct {
		name, id string
		want     bool
	}{
		{"codexHome", "codex", true}, {"ClaudeSettingsPath", "claude", true}, {"NewCodeBuddy", "codebuddy", true},
		{"piWorld", "pi", true}, {"isPi", "pi", true}, {"PI_DIR", "pi", true},
		{"AgentPID", "pi", false}, {"pixel", "pi", false}, {"Sleeping", "pi", false}, {"pid", "pi", false},
	} {
		if got := namesAgent(c.name, c.id); got != c.want {
			t.Errorf("namesAgent(%q, %q) = %v, want %v", c.name, c.id, got, c.want)
		}
	}
	for _, s := range []string{"bypassPermissions", "run ExitPlanMode", "CODEX_HOME", "~/.claude/settings.json", "PermissionRequest", "claude-code"} {
		if !slices.ContainsFunc(literals, func(re *regexp.Regexp) bool { return re.MatchString(s) }) {
			t.Errorf("the check would miss the string %q", s)
		}
	}
	for _, s := range []string{"Stop", "notification", "closed", "the hook stops"} {
		if slices.ContainsFunc(literals, func(re *regexp.Regexp) bool { return re.MatchString(s) }) {
			t.Errorf("the check would flag the plain string %q", s)
		}
	}
}
