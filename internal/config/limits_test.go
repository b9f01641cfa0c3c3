package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clawdhq/clawd/internal/boundedfile"
)

// hostile are documents that once stalled the TOML parser, with the line
// their refusal names (0: parsed, or refused by the schema).
var hostile = []struct {
	name, doc string
	line      int
}{
	{"8,000 inline tables", "a = " + strings.Repeat("{b=", 8000) + "1" + strings.Repeat("}", 8000) + "\n", 1},
	{"8,000 arrays", "\n[ui]\nx = " + strings.Repeat("[", 8000) + strings.Repeat("]", 8000) + "\n", 3},
	{"8,000-piece dotted key", strings.TrimSuffix(strings.Repeat("a.", 8000), ".") + " = 1\n", 1},
	{"8,000-piece table header", "[" + strings.TrimSuffix(strings.Repeat("a.", 8000), ".") + "]\n", 1},
	{"8,000 arrays of inline tables", "a = " + strings.Repeat("[{b=", 4000) + "1" + strings.Repeat("}]", 4000) + "\n", 1},
	{"dotted keys in inline tables", "a = {" + strings.TrimSuffix(strings.Repeat("b.", 20), ".") + " = {" + strings.TrimSuffix(strings.Repeat("c.", 20), ".") + " = 1}}\n", 1},
}

func TestParseRefusesDeepNesting(t *testing.T) {
	for _, tt := range hostile {
		_, err := Parse("config.toml", []byte(tt.doc))
		want := fmt.Sprintf("config.toml:%d: nested more than %d deep", tt.line, maxDepth)
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "remove the nesting") {
			t.Errorf("Parse(%s) error = %.300v, want %q", tt.name, err, want)
		}
	}
}

// TestTooDeep: what only looks deep (brackets and dots in strings and
// comments, floats, multi-line strings) is not, and the depth counts
// header, keys and brackets together.
func TestTooDeep(t *testing.T) {
	deep := strings.Repeat("[", 40)
	tests := []struct {
		name, doc string
		max, line int
	}{
		{"the schema's deepest", "[agents.claude.permission_modes]\n\"codex-tui\" = \"native\"\n", 4, 0},
		{"one more", "[agents.claude.permission_modes]\n\"codex-tui\" = [\"native\"]\n", 4, 2},
		{"header", "[a.b.c.d.e]\n", 4, 1},
		{"quoted pieces", "[a.\"b.c.d.e\"]\n'x.y.z' = 1\n", 4, 0},
		{"dotted key under a header", "[a.b]\nc.d.e = 1\n", 4, 2},
		{"inline tables", "a = {b = {c = {d = {e = 1}}}}\n", 4, 1},
		{"empty inline tables", "a = {b = {}, c = {d = {}}}\n", 4, 0},
		{"arrays", "a = [[[1]], [[2]]]\n", 4, 0},
		{"arrays, one more", "a = [[[1]], [[[2]]]]\n", 4, 1},
		{"brackets in strings", "a = \"" + deep + "\"\nb = '" + deep + "'\n", 4, 0},
		{"escaped quote", "a = \"\\\"" + deep + "\"\n", 4, 0},
		{"brackets in comments", "# " + deep + "\na = 1 # " + deep + "\n", 4, 0},
		{"multi-line strings", "a = \"\"\"\n" + deep + "\n\"\"\"\"\"\nb = '''\n" + deep + "\n'''\nc = [[[[[1]]]]]\n", 4, 7},
		{"floats and dates", "a = [1.5, 2.25, 1979-05-27T07:32:00.999Z, 3.0e5]\n", 2, 0},
		{"arrays over lines", "a = [\n  [\n    [1]]]\nb = [\n  [\n    [\n      [1]]]]\n", 4, 7},
		{"array of tables", "[[a.b.c]]\nd = 1\n", 4, 0},
		{"array of tables, one more", "[[a.b.c]]\nd.e = 1\n", 4, 2},
		{"unterminated string", "a = \"" + deep + "\nb = 1\n", 4, 0},
	}
	for _, tt := range tests {
		if got := tooDeep([]byte(tt.doc), tt.max); got != tt.line {
			t.Errorf("tooDeep(%s, %d) = line %d, want %d", tt.name, tt.max, got, tt.line)
		}
	}
}

// TestLoadManyKeys: 16,000 unknown keys are refused quickly, in an error
// that lists the first few and counts the rest instead of spelling out
// 3 MB of them.
func TestLoadManyKeys(t *testing.T) {
	home := t.TempDir()
	write(t, home, manyKeys(16000))
	_, err := Load(home)
	if err == nil {
		t.Fatal("Load(16,000 unknown keys) = nil error")
	}
	msg := err.Error()
	path := Path(home)
	if n := strings.Count(msg, "unknown key notifications.k"); n != maxProblems {
		t.Errorf("the error names %d unknown keys, want the first %d", n, maxProblems)
	}
	if !strings.Contains(msg, path+":2: unknown key notifications.k0 ") || !strings.HasSuffix(msg, path+": and 15980 more problems") {
		t.Errorf("Load(16,000 unknown keys) error = %.500s ... %s", msg, msg[max(0, len(msg)-200):])
	}
}

func manyKeys(n int) string {
	var b strings.Builder
	b.WriteString("[notifications]\n")
	for i := range n {
		fmt.Fprintf(&b, "k%d = 1\n", i)
	}
	return b.String()
}

func TestLoadTooLarge(t *testing.T) {
	home := t.TempDir()
	comment := "# " + strings.Repeat("x", 98) + "\n"
	write(t, home, strings.Repeat(comment, MaxFileSize/len(comment))+"[ui]\nlanguage = \"en\"\n")
	if c, err := Load(home); err != nil || c.UI.Language != "en" {
		t.Fatalf("Load(just under the cap) = %+v, %v; want it read", c.UI, err)
	}
	write(t, home, strings.Repeat(comment, MaxFileSize/len(comment)+1))
	_, err := Load(home)
	if !errors.Is(err, boundedfile.ErrTooLarge) || !strings.Contains(err.Error(), Path(home)) || !strings.Contains(err.Error(), "shorten it, or remove it") {
		t.Errorf("Load(over the cap) error = %v, want ErrTooLarge naming the file and what to do", err)
	}
}

func TestLoadFolder(t *testing.T) {
	home := t.TempDir()
	if err := os.Mkdir(filepath.Join(home, FileName), 0o700); err != nil {
		t.Fatal(err)
	}
	_, err := Load(home)
	if !errors.Is(err, boundedfile.ErrNotRegular) || !strings.Contains(err.Error(), "a folder") || !strings.Contains(err.Error(), "replace it with one, or remove it") {
		t.Errorf("Load(config.toml is a folder) error = %v, want ErrNotRegular saying what to do", err)
	}
}

// BenchmarkParseHostile times what the limits leave of each hostile
// document, and the largest file Load reads made of keys.
func BenchmarkParseHostile(b *testing.B) {
	docs := map[string]string{
		"16,000 unknown keys":   manyKeys(16000),
		"1 MiB of unknown keys": manyKeys(MaxFileSize / len("k99999 = 1\n")),
	}
	for _, h := range hostile {
		docs[h.name] = h.doc
	}
	for name, doc := range docs {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if _, err := Parse("config.toml", []byte(doc)); err == nil {
					b.Fatal("parsed")
				}
			}
		})
	}
}
