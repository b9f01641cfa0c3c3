package cmd

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/internal/golden"
)

// Each agent's page, docs/agents/<id>.md, is prose written by hand and,
// between the two markers below, the facts of the agent's file in
// agents/ (events, settings, what clawd does, the releases tested, the
// blind spots), generated so that they cannot drift from the code.

const (
	agentDocBegin = "<!-- BEGIN GENERATED from agents/ by `go test ./cmd -run TestAgentDocs -update`; edit the agent's file, not this block -->\n"
	agentDocEnd   = "<!-- END GENERATED -->\n"
)

// agentDocDir is where the agents' pages are.
const agentDocDir = "../docs/agents"

// agentFacts renders the generated block of a's page.
func agentFacts(a *agents.Agent) []byte {
	var b bytes.Buffer
	b.WriteString(agentDocBegin)
	b.WriteString("## At a glance\n\n| | |\n| --- | --- |\n")
	row := func(k, v string) { fmt.Fprintf(&b, "| %s | %s |\n", k, clidocCell(v)) }
	row("id", "`"+a.ID+"`")
	if len(a.Aliases) > 0 {
		row("also accepted as", "`"+strings.Join(a.Aliases, "`, `")+"`")
	}
	if a.Command != "" {
		cmd := "`" + a.Command + "`"
		if a.Package != "" {
			cmd += " (npm `" + a.Package + "`)"
		}
		row("its command", cmd)
	}
	if a.Unsupported != "" {
		row("supported", "no: "+a.Unsupported)
	} else {
		row("hook it up", "`clawd install "+a.ID+"`, undo with `clawd uninstall "+a.ID+"`")
	}
	if a.Settings != "" {
		row("settings clawd edits", a.Settings)
	}
	if a.ConfigDir != nil {
		home := func(k string) string {
			if k == "HOME" {
				return "~"
			}
			return ""
		}
		if dir, err := a.ConfigDir(home); err == nil {
			row("its settings folder (by default)", "`"+filepath.ToSlash(dir)+"`")
		}
	}
	verified := string(a.Verified)
	if t := a.Tested; len(t) > 0 {
		verified += "; tested with " + strings.Join(t, ", ")
	}
	if verified != "" {
		row("verified", verified)
	}
	yes := func(v bool) string {
		if v {
			return "yes"
		}
		return "no"
	}
	s := a.Supports
	row("session states", yes(s.States))
	row("answers permissions", yes(s.Permissions))
	q := yes(s.AnswersQuestions)
	if !s.AnswersQuestions && s.QuestionsInTerminal != "" {
		q += ": " + s.QuestionsInTerminal
	}
	row("answers questions", q)
	row("titles", yes(s.Titles))
	row("subagents", yes(s.Subagents))
	if a.Resume != nil {
		row("`clawd resume` runs", "`"+strings.Join(append([]string{a.Command}, a.Resume("ID")...), " ")+"`")
	} else {
		row("`clawd resume`", "no way to resume a session by its id that clawd knows")
	}
	if len(a.BypassModes) > 0 {
		row("modes that skip its prompts", "`"+strings.Join(a.BypassModes, "`, `")+"`: clawd answers no decision at once")
	}
	if len(a.RunsHooksOf) > 0 {
		row("also runs the hooks of", strings.Join(a.RunsHooksOf, ", ")+" (clawd ignores those runs)")
	}
	b.WriteString("\n")

	if len(a.Hooks) > 0 {
		b.WriteString("## Events clawd hooks\n\n| event | becomes | timeout (s) | waits for you | since |\n| --- | --- | --- | --- | --- |\n")
		for _, h := range a.Hooks {
			kind := string(a.Kinds()[h.Event])
			if kind == "" {
				kind = "-"
			} else {
				kind = "`" + kind + "`"
			}
			blocking := ""
			if h.Blocking {
				blocking = "yes"
			}
			fmt.Fprintf(&b, "| `%s` | %s | %d | %s | %s |\n", h.Event, kind, h.Timeout, blocking, h.Since)
		}
		b.WriteString("\n")
	}

	if len(a.Notes) > 0 {
		b.WriteString("## Blind spots\n\n")
		for _, n := range a.Notes {
			fmt.Fprintf(&b, "- %s\n", strings.Join(strings.Fields(n), " "))
		}
		b.WriteString("\n")
	}
	b.WriteString(agentDocEnd)
	return b.Bytes()
}

// agentIndex renders the generated block of docs/agents/README.md: every
// agent with what clawd does for it.
func agentIndex(all []*agents.Agent) []byte {
	var b bytes.Buffer
	b.WriteString(agentDocBegin)
	b.WriteString("| agent | `clawd install` | verified | states | answers permissions | answers questions |\n| --- | --- | --- | --- | --- | --- |\n")
	yes := func(v bool) string {
		if v {
			return "yes"
		}
		return ""
	}
	for _, a := range all {
		install, verified := "`"+a.ID+"`", string(a.Verified)
		if a.Unsupported != "" {
			install, verified = "not supported", ""
		}
		if len(a.Tested) > 0 {
			verified += " (" + a.Pinned() + ")"
		}
		s := a.Supports
		fmt.Fprintf(&b, "| [%s](%s.md) | %s | %s | %s | %s | %s |\n", a.Name, a.ID, install, verified, yes(s.States), yes(s.Permissions), yes(s.AnswersQuestions))
	}
	b.WriteString("\n")
	b.WriteString(agentDocEnd)
	return b.Bytes()
}

// withAgentFacts returns page with its generated block replaced by
// facts; a page without one gets it at its end.
func withAgentFacts(page, facts []byte) []byte {
	i := bytes.Index(page, []byte(agentDocBegin))
	j := bytes.Index(page, []byte(agentDocEnd))
	if i < 0 || j < i {
		return append(append(bytes.TrimRight(page, "\n"), "\n\n"...), facts...)
	}
	out := append([]byte(nil), page[:i]...)
	out = append(out, facts...)
	return append(out, page[j+len(agentDocEnd):]...)
}

// TestAgentDocs: every agent of the registry has its page, with its prose
// and the facts its file in agents/ has today; there is no page of an
// agent clawd does not know.
func TestAgentDocs(t *testing.T) {
	var ids []string
	for _, a := range agents.All() {
		ids = append(ids, a.ID)
		path := filepath.Join(agentDocDir, a.ID+".md")
		page, err := os.ReadFile(path)
		if os.IsNotExist(err) && golden.Update() {
			page = []byte("# " + a.Name + "\n")
		} else if err != nil {
			t.Fatalf("%v (every agent has its page)", err)
		}
		if !bytes.HasPrefix(page, []byte("# "+a.Name+"\n")) {
			t.Errorf("%s starts %q, want the heading # %s", path, strings.SplitN(string(page), "\n", 2)[0], a.Name)
		}
		got := withAgentFacts(page, agentFacts(a))
		if !golden.Check(t, path, got) {
			t.Errorf("%s is stale: run `go test ./cmd -run TestAgentDocs -update`", path)
		}
		prose, _, _ := bytes.Cut(got, []byte(agentDocBegin))
		if len(bytes.Fields(prose)) < 20 && !golden.Update() {
			t.Errorf("%s has no prose of its own above the generated facts", path)
		}
	}
	index := filepath.Join(agentDocDir, "README.md")
	page, err := os.ReadFile(index)
	if err != nil {
		t.Fatal(err)
	}
	if !golden.Check(t, index, withAgentFacts(page, agentIndex(agents.All()))) {
		t.Errorf("%s is stale: run `go test ./cmd -run TestAgentDocs -update`", index)
	}
	pages, err := filepath.Glob(filepath.Join(agentDocDir, "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pages {
		id := strings.TrimSuffix(filepath.Base(p), ".md")
		if id != "README" && id != "custom" && !slices.Contains(ids, id) {
			t.Errorf("%s is the page of no agent in agents/", p)
		}
	}
}

// TestWithAgentFacts: the generated block is replaced in place, prose
// before and after it kept, and added to a page that has none.
func TestWithAgentFacts(t *testing.T) {
	facts := []byte(agentDocBegin + "new\n" + agentDocEnd)
	page := []byte("# X\n\nprose\n\n" + agentDocBegin + "old\n" + agentDocEnd + "\nafter\n")
	want := "# X\n\nprose\n\n" + agentDocBegin + "new\n" + agentDocEnd + "\nafter\n"
	if got := string(withAgentFacts(page, facts)); got != want {
		t.Errorf("withAgentFacts(page) =\n%s\nwant\n%s", got, want)
	}
	if got, want := string(withAgentFacts([]byte("# X\nprose\n"), facts)), "# X\nprose\n\n"+string(facts); got != want {
		t.Errorf("withAgentFacts(no block) =\n%s\nwant\n%s", got, want)
	}
}

// readmeAgentRow is the README's row of a in its table of agents.
func readmeAgentRow(a *agents.Agent) string {
	install, verified := "`"+a.ID+"`", string(a.Verified)
	if a.Unsupported != "" {
		install, verified = "not supported", "-"
	}
	yes := func(v bool) string {
		if v {
			return "yes"
		}
		return "-"
	}
	return fmt.Sprintf("| [%s](docs/agents/%s.md) | %s | %s | %s | %s |", a.Name, a.ID, install, verified, yes(a.Supports.Permissions), yes(a.Supports.AnswersQuestions))
}

// TestReadmeAgents: the README's table of agents has every agent of the
// registry, in its order, with what clawd does for it today.
func TestReadmeAgents(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, a := range agents.All() {
		want = append(want, readmeAgentRow(a))
	}
	var got []string
	for _, l := range strings.Split(string(readme), "\n") {
		if strings.HasPrefix(l, "| [") && strings.Contains(l, "](docs/agents/") {
			got = append(got, l)
		}
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("README.md's table of agents is\n%s\nwant (from agents/)\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
