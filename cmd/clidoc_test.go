package cmd

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/urfave/cli/v3"

	"github.com/clawdhq/clawd/internal/golden"
	"github.com/clawdhq/clawd/internal/i18n"
	"github.com/clawdhq/clawd/internal/lazy"
)

// cliDocPath is the command reference generated from the command tree.
const cliDocPath = "../docs/cli.md"

// cliDocRegenerate is the one step that rewrites docs/cli.md, named in
// CONTRIBUTING.md and in the failure of TestCLIDoc.
const cliDocRegenerate = "go test ./cmd -run TestCLIDoc -update"

// clidocRoot is clawd's command tree with its help in English, whatever
// the machine's locale, for a reference that reads the same everywhere.
func clidocRoot(t *testing.T) *cli.Command {
	t.Helper()
	e, _, _ := testEnv(t, t.TempDir(), nil, nil)
	e.lang = i18n.For(i18n.English)
	e.langOnce.Do(func() {})
	root := newRootCmd(e)
	// urfave adds the completion command as a run sets the tree up:
	// one run of the root's help, into e's buffers, makes the tree whole.
	if err := root.Run(context.Background(), []string{"clawd", "--help"}); err != nil {
		t.Fatalf("clawd --help: %v", err)
	}
	return root
}

// cliDoc renders the visible commands under root as Markdown: for each,
// its usage line, synopsis, aliases, category, description and flags, in
// the tree's order. Hidden commands and flags (the hook) and the help
// command and flag that every command has are left out. The output
// depends on nothing but the tree.
func cliDoc(root *cli.Command) []byte {
	var b bytes.Buffer
	b.WriteString("# Command reference\n\n")
	fmt.Fprintf(&b, "<!-- Generated from the command tree in cmd/ by `%s`; do not edit by hand. -->\n\n", cliDocRegenerate)
	b.WriteString("Every command of `" + root.Name + "`, as its `--help` shows it (in English; `[ui] language`\n")
	b.WriteString("in [config.toml](configuration.md#ui) switches the CLI's help to Chinese). Every command also\n")
	b.WriteString("takes `--help` (`-h`) and a `help` subcommand.\n\n")

	type entry struct {
		path string
		c    *cli.Command
	}
	var all []entry
	var walk func(path string, c *cli.Command)
	walk = func(path string, c *cli.Command) {
		for _, sub := range clidocSubcommands(c) {
			p := path + " " + sub.Name
			all = append(all, entry{p, sub})
			walk(p, sub)
		}
	}
	walk(root.Name, root)

	b.WriteString("| command | what it does |\n| --- | --- |\n")
	for _, en := range all {
		fmt.Fprintf(&b, "| [`%s`](#%s) | %s |\n", en.path, clidocAnchor(en.path), clidocCell(en.c.Usage))
	}
	b.WriteString("\n")

	clidocCommand(&b, root.Name, root)
	for _, en := range all {
		clidocCommand(&b, en.path, en.c)
	}
	return b.Bytes()
}

// clidocCommand writes one command's section.
func clidocCommand(b *bytes.Buffer, path string, c *cli.Command) {
	fmt.Fprintf(b, "## %s\n\n", path)
	if c.Usage != "" {
		fmt.Fprintf(b, "%s\n\n", clidocSentence(c.Usage))
	}
	b.WriteString("```\n")
	switch {
	case c.UsageText != "":
		b.WriteString(strings.TrimRight(c.UsageText, "\n") + "\n")
	default:
		line := path
		if len(clidocFlags(c)) > 0 {
			line += " [options]"
		}
		if len(clidocSubcommands(c)) > 0 {
			line += " [command]"
		}
		if c.ArgsUsage != "" {
			line += " " + c.ArgsUsage
		}
		b.WriteString(line + "\n")
	}
	b.WriteString("```\n\n")
	if len(c.Aliases) > 0 {
		fmt.Fprintf(b, "Aliases: `%s`.\n\n", strings.Join(c.Aliases, "`, `"))
	}
	if c.Category != "" {
		fmt.Fprintf(b, "Group: %s.\n\n", c.Category)
	}
	if d := strings.TrimRight(c.Description, "\n "); d != "" {
		b.WriteString("```text\n" + d + "\n```\n\n")
	}
	if subs := clidocSubcommands(c); len(subs) > 0 {
		b.WriteString("| subcommand | what it does |\n| --- | --- |\n")
		for _, s := range subs {
			p := path + " " + s.Name
			fmt.Fprintf(b, "| [`%s`](#%s) | %s |\n", p, clidocAnchor(p), clidocCell(s.Usage))
		}
		b.WriteString("\n")
	}
	if flags := clidocFlags(c); len(flags) > 0 {
		b.WriteString("| option | meaning |\n| --- | --- |\n")
		for _, f := range flags {
			names, usage, _ := strings.Cut(cli.FlagStringer(f), "\t")
			fmt.Fprintf(b, "| `%s` | %s |\n", strings.TrimSpace(names), clidocCell(usage))
		}
		b.WriteString("\n")
	}
}

// clidocSubcommands are c's commands that its help lists, without the
// help command every command has.
func clidocSubcommands(c *cli.Command) []*cli.Command {
	var out []*cli.Command
	for _, s := range c.Commands {
		if !s.Hidden && s.Name != "help" {
			out = append(out, s)
		}
	}
	return out
}

// clidocFlags are c's flags that its help lists, without --help.
func clidocFlags(c *cli.Command) []cli.Flag {
	var out []cli.Flag
	for _, f := range c.Flags {
		if v, ok := f.(cli.VisibleFlag); ok && !v.IsVisible() {
			continue
		}
		if f.Names()[0] == "help" {
			continue
		}
		out = append(out, f)
	}
	return out
}

// clidocAnchor is the fragment GitHub gives a heading: lower case, spaces as
// hyphens, punctuation but hyphens and underscores dropped.
func clidocAnchor(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			b.WriteRune(r)
		}
	}
	return b.String()
}

// clidocCell makes s fit in one clidocCell of a Markdown table.
func clidocCell(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	s = strings.ReplaceAll(s, "|", `\|`)
	s = strings.ReplaceAll(s, "<", "&lt;")
	return s
}

// clidocSentence capitalizes s and ends it with a full stop.
func clidocSentence(s string) string {
	s = clidocCell(s)
	if s == "" {
		return s
	}
	s = strings.ToUpper(s[:1]) + s[1:]
	if !strings.HasSuffix(s, ".") {
		s += "."
	}
	return s
}

// TestCLIDoc: docs/cli.md is what the command tree generates today. A
// change of a command, a flag or a help text fails it until the file is
// regenerated.
func TestCLIDoc(t *testing.T) {
	got := cliDoc(clidocRoot(t))
	if !golden.Check(t, cliDocPath, got) {
		t.Errorf("docs/cli.md is stale: run `%s` and commit the result", cliDocRegenerate)
	}
}

// TestCLIDocTree: the reference lists visible commands and flags, never
// hidden ones, and reads the same twice.
func TestCLIDocTree(t *testing.T) {
	root := &cli.Command{Name: "x", Commands: []*cli.Command{
		{Name: "shown", Usage: "a shown one", Flags: []cli.Flag{
			&cli.BoolFlag{Name: "loud", Usage: "say it | loud"},
			&cli.BoolFlag{Name: "secret", Hidden: true},
		}, Commands: []*cli.Command{{Name: "deep", Usage: "below it", ArgsUsage: "ID"}}},
		{Name: "hook", Hidden: true, Usage: "for agents"},
	}}
	doc := string(cliDoc(root))
	for _, want := range []string{"## x shown\n", "## x shown deep\n", "x shown deep ID\n", "`--loud`", `say it \| loud`, "(#x-shown-deep)"} {
		if !strings.Contains(doc, want) {
			t.Errorf("cliDoc lacks %q:\n%s", want, doc)
		}
	}
	for _, not := range []string{"hook", "secret"} {
		if strings.Contains(doc, not) {
			t.Errorf("cliDoc shows hidden %q:\n%s", not, doc)
		}
	}
	if again := string(cliDoc(root)); again != doc {
		t.Errorf("cliDoc differs between two runs")
	}
}

// clidocResolve finds the command that words (after "clawd") name in root and
// checks every flag among them against it. It returns the command's path
// or what does not exist.
func clidocResolve(root *cli.Command, words []string) (string, error) {
	c, path := root, root.Name
	for i, w := range words {
		if strings.HasPrefix(w, "-") {
			name, _, _ := strings.Cut(strings.TrimLeft(w, "-"), "=")
			if !clidocHasFlag(c, name) {
				return "", fmt.Errorf("%s has no flag %s", path, w)
			}
			continue
		}
		if sub := clidocFind(c, w); sub != nil && !clidocFlagValue(c, words[:i]) {
			c, path = sub, path+" "+sub.Name
			continue
		}
		if len(clidocSubcommands(c)) > 0 && c.ArgsUsage == "" && c.Action == nil {
			return "", fmt.Errorf("%s has no command %q", path, w)
		}
		// An argument of c.
	}
	return path, nil
}

func clidocFind(c *cli.Command, name string) *cli.Command {
	for _, s := range c.Commands {
		if s.Name == name || slices.Contains(s.Aliases, name) {
			return s
		}
	}
	return nil
}

func clidocHasFlag(c *cli.Command, name string) bool {
	for _, f := range c.Flags {
		if slices.Contains(f.Names(), name) {
			return true
		}
	}
	return false
}

// clidocFlagValue reports whether the last of before is a flag of c that
// takes a value (so the next word is that value, not a command).
func clidocFlagValue(c *cli.Command, before []string) bool {
	if len(before) == 0 {
		return false
	}
	last := before[len(before)-1]
	if !strings.HasPrefix(last, "-") || strings.Contains(last, "=") {
		return false
	}
	name := strings.TrimLeft(last, "-")
	for _, f := range c.Flags {
		if d, ok := f.(cli.DocGenerationFlag); ok && slices.Contains(f.Names(), name) {
			return d.TakesValue()
		}
	}
	return false
}

// readmeQuickStart returns the clawd command lines of the README's quick start:
// the first code block after its "## Quick start" heading, comments cut.
func readmeQuickStart(t *testing.T, readme string) [][]string {
	t.Helper()
	_, section, ok := strings.Cut(readme, "\n## Quick start\n")
	if !ok {
		t.Fatal("README.md has no \"## Quick start\" section")
	}
	_, block, ok := strings.Cut(section, "```sh\n")
	if !ok {
		t.Fatal("README.md's quick start has no ```sh block")
	}
	block, _, _ = strings.Cut(block, "```")
	var lines [][]string
	for _, l := range strings.Split(block, "\n") {
		l, _, _ = strings.Cut(l, "#")
		f := strings.Fields(l)
		if len(f) > 0 && f[0] == "clawd" {
			lines = append(lines, f[1:])
		}
	}
	return lines
}

// TestReadmeQuickStart: every command the README's quick start shows
// exists in the command tree, with the flags it is given, and they are
// the five a newcomer needs.
func TestReadmeQuickStart(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	root := clidocRoot(t)
	var paths []string
	for _, words := range readmeQuickStart(t, string(readme)) {
		p, err := clidocResolve(root, words)
		if err != nil {
			t.Errorf("README quick start `clawd %s`: %v", strings.Join(words, " "), err)
		}
		paths = append(paths, p)
	}
	want := []string{"clawd install", "clawd autostart enable", "clawd dashboard", "clawd status", "clawd doctor"}
	if strings.Join(paths, ",") != strings.Join(want, ",") {
		t.Errorf("README quick start runs %q, want %q", paths, want)
	}
}

// readmeMaxLines is how long the README may grow: a newcomer's page,
// with everything else in docs/.
const readmeMaxLines = 150

// TestReadmeShort: the README stays a page a newcomer reads to the end.
func TestReadmeShort(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(readme, []byte("\n")); n > readmeMaxLines {
		t.Errorf("README.md has %d lines, want at most %d: move the details into docs/", n, readmeMaxLines)
	}
}

// TestReadmeRequiredCommands: the README shows the two commands the
// project asks for, one that runs clawd and one that runs the whole test
// suite, and CI runs that same suite.
func TestReadmeRequiredCommands(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"```sh\ngo run . serve\n```", "```sh\nbash scripts/test.sh\n```"} {
		if !bytes.Contains(readme, []byte(want)) {
			t.Errorf("README.md lacks the block %q", want)
		}
	}
	ci, err := os.ReadFile("../.ci/run")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(ci, []byte("bash scripts/test.sh")) {
		t.Errorf(".ci/run = %q, want it to run bash scripts/test.sh as the README says", ci)
	}
}

// TestResolve: the check of the quick start fires on a command, a
// subcommand or a flag that does not exist.
func TestResolve(t *testing.T) {
	root := clidocRoot(t)
	for _, tc := range []struct {
		line string
		ok   bool
	}{
		{"install --all", true},
		{"install claude", true},
		{"autostart enable", true},
		{"doctor --fix --agent claude", true},
		{"permissions allow 5e55", true},
		{"instal --all", false},
		{"install --everything", false},
		{"autostart enabel", false},
		{"hook claude", true}, // hidden, but there
	} {
		_, err := clidocResolve(root, strings.Fields(tc.line))
		if (err == nil) != tc.ok {
			t.Errorf("clidocResolve(%q) = %v, want ok %v", tc.line, err, tc.ok)
		}
	}
}

// clidocLink is a Markdown link or image: its target, up to a space (a
// title) or the closing parenthesis.
var clidocLink = lazy.Regexp(`!?\[[^\]]*\]\(([^)\s]+)[^)]*\)`)

// clidocCode is a code span, whose brackets are no link. Both are built
// on first use: this test binary also runs as clawd, hooks included.
var clidocCode = lazy.Regexp("`[^`]*`")

// clidocBrokenLinks returns the relative links of the Markdown file at
// path (inline code and code blocks aside) that lead to no file, or to a
// heading that file does not have.
func clidocBrokenLinks(path string, text string) []string {
	var broken []string
	for _, line := range clidocProse(text, false) {
		for _, m := range clidocLink().FindAllStringSubmatch(line, -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			file, frag, _ := strings.Cut(target, "#")
			if file == "" {
				if !slices.Contains(clidocHeadings(text), frag) {
					broken = append(broken, target)
				}
				continue
			}
			dest := filepath.Join(filepath.Dir(path), filepath.FromSlash(file))
			fi, err := os.Stat(dest)
			if err != nil {
				broken = append(broken, target)
				continue
			}
			if frag == "" || fi.IsDir() || !strings.HasSuffix(dest, ".md") {
				continue
			}
			b, err := os.ReadFile(dest)
			if err != nil || !slices.Contains(clidocHeadings(string(b)), frag) {
				broken = append(broken, target)
			}
		}
	}
	return broken
}

// clidocProse returns the lines of a Markdown text outside code blocks,
// with their code spans taken out, or only their backquotes when
// keepCode.
func clidocProse(text string, keepCode bool) []string {
	var out []string
	inBlock := false
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			inBlock = !inBlock
			continue
		}
		if !inBlock {
			out = append(out, clidocCode().ReplaceAllStringFunc(line, func(code string) string {
				if keepCode {
					return strings.Trim(code, "`")
				}
				return ""
			}))
		}
	}
	return out
}

// clidocHeadings returns the anchors of a Markdown text's headings.
func clidocHeadings(text string) []string {
	var out []string
	for _, line := range clidocProse(text, true) {
		if h, ok := strings.CutPrefix(strings.TrimLeft(line, "#"), " "); ok && strings.HasPrefix(line, "#") {
			out = append(out, clidocAnchor(h))
		}
	}
	return out
}

// TestDocLinks: every relative link in README.md, CONTRIBUTING.md and
// docs/**/*.md leads to a file of the repository, and to a heading of it
// when it names one.
func TestDocLinks(t *testing.T) {
	files := []string{"../README.md", "../CONTRIBUTING.md"}
	err := filepath.WalkDir("../docs", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") {
			files = append(files, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 10 {
		t.Fatalf("found only %v", files)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range clidocBrokenLinks(f, string(b)) {
			t.Errorf("%s links to %s, which does not exist", strings.TrimPrefix(f, "../"), l)
		}
	}
}

// clidocRepoPath is a code span that names a file or folder of the
// repository (no placeholder, no pattern in it).
var clidocRepoPath = lazy.Regexp("`((?:agents|bench|cmd|docs|e2e|installers|internal|packaging|release|runtime|scripts|statemachine|testdata|tray)/[^`\\s<>*]*)`")

// TestDocPaths: every file or folder of the repository that README.md,
// CONTRIBUTING.md or docs/ names in a code span (`runtime/codexmon`,
// `e2e/dashboard_test.go`) exists, so a move in the tree cannot leave the
// docs pointing at nothing.
func TestDocPaths(t *testing.T) {
	files := []string{"../README.md", "../CONTRIBUTING.md"}
	more, err := filepath.Glob("../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	agentPages, err := filepath.Glob("../docs/agents/*.md")
	if err != nil {
		t.Fatal(err)
	}
	files = append(append(files, more...), agentPages...)
	var checked int
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range clidocRepoPath().FindAllStringSubmatch(string(b), -1) {
			checked++
			if _, err := os.Stat(filepath.Join("..", filepath.FromSlash(strings.TrimSuffix(m[1], "/")))); err != nil {
				t.Errorf("%s names %s, which is not in the repository", strings.TrimPrefix(f, "../"), m[1])
			}
		}
	}
	if checked < 20 {
		t.Errorf("found only %d repository paths in the docs", checked)
	}
}

// TestBrokenLinks: the link check fires on a missing file or heading and
// passes links to files, headings, other sites and code.
func TestBrokenLinks(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "there.md"), []byte("# There\n\n## The `x` part\n```\n# not a heading\n```\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	text := "# Top\n[a](there.md) [b](there.md#the-x-part) [c](#top) [d](https://x.example/y) ![e](gone.png)\n" +
		"`[f](gone2.md)`\n```\n[g](gone3.md)\n```\n[h](sub/gone4.md \"title\") [i](there.md#not-a-heading) [j](#nowhere)\n"
	got := clidocBrokenLinks(filepath.Join(dir, "doc.md"), text)
	if want := "gone.png,sub/gone4.md,there.md#not-a-heading,#nowhere"; strings.Join(got, ",") != want {
		t.Errorf("clidocBrokenLinks = %q, want %s", got, want)
	}
}
