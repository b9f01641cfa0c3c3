package automations

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clawdhq/clawd/internal/boundedfile"
)

// soundDef is a valid definition with id.
func soundDef(id string) string {
	return "[[automation]]\nid = \"" + id + "\"\nevent = \"turn.completed\"\naction = { type = \"sound\" }\n"
}

// nested is a definition whose input holds n inline tables, one in the
// other, on its fifth line.
func nested(n int) []byte {
	return []byte(soundDef("deep") + "input = { x = " + strings.Repeat("{ a = ", n) + "1" + strings.Repeat(" }", n) + " }\n")
}

// unknownKeys is a definition with n keys nobody knows.
func unknownKeys(n int) []byte {
	var b strings.Builder
	b.WriteString(soundDef("many"))
	for i := range n {
		fmt.Fprintf(&b, "k%d = 1\n", i)
	}
	return []byte(b.String())
}

// TestParseRefusesDeepNesting: a file nested deeper than MaxDepth is
// refused before the TOML decoder sees it (8,000 levels kept the decoder
// busy for 42 s, 100,000 took gigabytes), at the line where it passes the
// limit. The test's own timeout is its bound; BenchmarkParseHostile has
// the figures.
func TestParseRefusesDeepNesting(t *testing.T) {
	for _, n := range []int{MaxDepth, 8000, 100000} {
		_, err := Parse(nested(n), "automations.toml")
		want := "automations.toml:5: nested more than 32 deep"
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%d nested tables) = %v, want %q", n, err, want)
		}
	}
	// One level less is the decoder's to judge.
	// Its keys inside inline tables take the line of the key around them.
	if _, err := Parse(nested(MaxDepth-1), "automations.toml"); err == nil || strings.Contains(err.Error(), "nested more than") ||
		!strings.Contains(err.Error(), "automations.toml:5: unknown key automation.input.x.a\n") {
		t.Errorf("Parse(%d nested tables) = %v, want the decoder's problems on line 5, not the depth's", MaxDepth-1, err)
	}
	// Arrays count as much as tables.
	deepArrays := soundDef("arr") + "x = " + strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1) + "\n"
	if _, err := Parse([]byte(deepArrays), "automations.toml"); err == nil || !strings.Contains(err.Error(), ":5: nested more than 32 deep") {
		t.Errorf("Parse(33 nested arrays) = %v, want refused on line 5", err)
	}
}

// TestParseDepthIgnoresStringsAndComments: brackets in strings (each kind
// of TOML string) and in comments are text, not nesting.
func TestParseDepthIgnoresStringsAndComments(t *testing.T) {
	many := strings.Repeat("{[", 40)
	doc := "# " + many + "\n" + soundDef("texts") +
		`name = "` + many + `\" {{"` + "\n" +
		`description = '` + many + `'` + " # " + many + "\n" +
		"[[automation]]\nid = \"multi\"\nevent = \"turn.completed\"\naction = { type = \"notification\", title = \"\"\"\n" + many + "\n\\\"\"\" {{ \"\"\", body = '''\n" + many + "'''' }\n"
	defs, err := Parse([]byte(doc), "automations.toml")
	if err != nil {
		t.Fatalf("Parse = %v", err)
	}
	if len(defs) != 2 || !strings.HasPrefix(defs[1].Action.Title, many) || defs[1].Line != 8 {
		t.Errorf("Parse = %+v", defs)
	}
}

// TestParseManyUnknownKeys: 16,000 unknown keys are reported quickly (the
// line look-up was quadratic: 285 s), each at its line, the first
// maxProblems of them and how many more.
func TestParseManyUnknownKeys(t *testing.T) {
	_, err := Parse(unknownKeys(16000), "automations.toml")
	if err == nil {
		t.Fatal("Parse accepted 16,000 unknown keys")
	}
	msg := err.Error()
	lines := strings.Split(msg, "\n")
	if len(lines) != maxProblems+1 || !strings.HasSuffix(lines[maxProblems], "and 15950 more problems") {
		t.Errorf("Parse listed %d lines, the last %q; want %d and a count", len(lines), lines[len(lines)-1], maxProblems+1)
	}
	// The keys come in the decoder's order; each at its own line.
	for _, l := range lines[:maxProblems] {
		var line, k int
		if _, err := fmt.Sscanf(l, "automations.toml:%d: unknown key automation.k%d", &line, &k); err != nil || line != k+5 {
			t.Errorf("problem %q: want key kN on line N+5", l)
		}
	}
}

// TestParseTooManyDefinitions: more than MaxDefinitions definitions are
// refused, naming the cap; MaxDefinitions are taken.
func TestParseTooManyDefinitions(t *testing.T) {
	var b strings.Builder
	for i := range MaxDefinitions {
		b.WriteString(soundDef(fmt.Sprint("d", i)))
	}
	if defs, err := Parse([]byte(b.String()), "automations.toml"); err != nil || len(defs) != MaxDefinitions {
		t.Fatalf("Parse(%d definitions) = %d, %v", MaxDefinitions, len(defs), err)
	}
	b.WriteString(soundDef("one-too-many"))
	_, err := Parse([]byte(b.String()), "automations.toml")
	if err == nil || !strings.Contains(err.Error(), "257 definitions, more than the 256 clawd takes") {
		t.Errorf("Parse(257 definitions) = %v, want refused naming the cap", err)
	}
}

// TestParseQuotesWhatItEchoes: an id and a key carrying ESC sequences and
// U+202E (which reorders a terminal line) come back escaped in the
// problems, never raw.
func TestParseQuotesWhatItEchoes(t *testing.T) {
	doc := "[[automation]]\nid = \"x\\u001b[31m\\u202ey\"\nevent = \"turn.completed\\u001b[2J\"\naction = { type = \"sound\" }\n" +
		"\"k\\u001b[31m\\u202e\" = 1\nbindings = [ { scope = \"workspace\", id = \"/a\\u202e\" }, { scope = \"workspace\", id = \"/a\\u202e\" } ]\n"
	_, err := Parse([]byte(doc), "automations.toml")
	if err == nil {
		t.Fatal("Parse accepted a hostile id")
	}
	msg := err.Error()
	if strings.ContainsAny(msg, "\x1b\u202e") {
		t.Errorf("Parse's error carries raw ESC or U+202E: %q", msg)
	}
	for _, want := range []string{`automation "x\x1b[31m\u202ey": id:`, `unknown key automation."k\x1b[31m\u202e"`, `"turn.completed\x1b[2J" is not a lifecycle event`} {
		if !strings.Contains(msg, want) {
			t.Errorf("Parse = %s\nwant %s", msg, want)
		}
	}
}

// TestReloadRefusesOversize: a file over MaxFileSize is refused before it
// is parsed, and the definitions of the last good file stay in force, as
// with any file with problems.
func TestReloadRefusesOversize(t *testing.T) {
	e := testEngine(t, newFakeClock(), soundDef("good"))
	if !e.Listens(TurnCompleted) {
		t.Fatal("the good file's definition is not in force")
	}
	big := soundDef("big") + "description = \"" + strings.Repeat("x", MaxFileSize) + "\"\n"
	if err := os.WriteFile(e.file, []byte(big), 0o600); err != nil {
		t.Fatal(err)
	}
	err := e.Reload()
	if !errors.Is(err, boundedfile.ErrTooLarge) || !strings.Contains(err.Error(), "capped at 1024 KiB") {
		t.Errorf("Reload(oversize) = %v, want ErrTooLarge saying the cap", err)
	}
	if !errors.Is(e.LoadError(), boundedfile.ErrTooLarge) || !e.Kept() || !e.Listens(TurnCompleted) {
		t.Errorf("after a refused file: LoadError %v, kept %v, listens %v; want the error and the good file's definition in force",
			e.LoadError(), e.Kept(), e.Listens(TurnCompleted))
	}
	if got := filepath.Base(e.file); !strings.Contains(err.Error(), got) {
		t.Errorf("Reload error %q does not name %s", err, got)
	}
}

// BenchmarkParseHostile times Parse on the files of the review: nested
// inline tables and unknown keys (see TestParseRefusesDeepNesting and
// TestParseManyUnknownKeys), and the largest valid file.
func BenchmarkParseHostile(b *testing.B) {
	var most strings.Builder
	for i := range MaxDefinitions {
		most.WriteString(soundDef(fmt.Sprint("d", i)))
	}
	for _, c := range []struct {
		name string
		doc  []byte
	}{
		{"nested-8000", nested(8000)},
		{"nested-100000", nested(100000)},
		{"unknown-keys-16000", unknownKeys(16000)},
		{"definitions-256", []byte(most.String())},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				Parse(c.doc, "automations.toml")
			}
		})
	}
}
