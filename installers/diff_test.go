package installers

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

func TestUnifiedDiff(t *testing.T) {
	tests := []struct {
		name     string
		old, new string
		want     string
	}{
		{"equal", "a\nb\n", "a\nb\n", ""},
		{"both empty", "", "", ""},
		{
			"create", "", "a\nb\n",
			"--- old\n+++ new\n@@ -0,0 +1,2 @@\n+a\n+b\n",
		},
		{
			"delete all", "a\n", "",
			"--- old\n+++ new\n@@ -1 +0,0 @@\n-a\n",
		},
		{
			"change in the middle",
			"1\n2\n3\n4\n5\n6\n7\n8\n9\n", "1\n2\n3\n4\nfive\n6\n7\n8\n9\n",
			"--- old\n+++ new\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n",
		},
		{
			"two hunks",
			"1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n", "x\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\ny\n",
			"--- old\n+++ new\n@@ -1,4 +1,4 @@\n-1\n+x\n 2\n 3\n 4\n@@ -9,4 +9,4 @@\n 9\n 10\n 11\n-12\n+y\n",
		},
		{
			"changes 6 lines apart share a hunk",
			"1\n2\n3\n4\n5\n6\n7\n8\n", "x\n2\n3\n4\n5\n6\n7\ny\n",
			"--- old\n+++ new\n@@ -1,8 +1,8 @@\n-1\n+x\n 2\n 3\n 4\n 5\n 6\n 7\n-8\n+y\n",
		},
		{
			"no newline at end",
			"a\nb", "a\nc",
			"--- old\n+++ new\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n\\ No newline at end of file\n",
		},
	}
	for _, tt := range tests {
		got := unifiedDiff("old", "new", []byte(tt.old), []byte(tt.new))
		if got != tt.want {
			t.Errorf("%s: unifiedDiff(%q, %q) =\n%s\nwant\n%s", tt.name, tt.old, tt.new, got, tt.want)
		}
	}
}

// TestUnifiedDiffApplies applies random diffs back to the old text: the
// hunks must reproduce the new text exactly.
func TestUnifiedDiffApplies(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 500; i++ {
		old := randomLines(r)
		new := mutate(r, old)
		d := unifiedDiff("a", "b", []byte(old), []byte(new))
		if (d == "") != (old == new) {
			t.Fatalf("unifiedDiff(%q, %q) = %q", old, new, d)
		}
		if d == "" {
			continue
		}
		got, err := applyUnified(old, d)
		if err != nil {
			t.Fatalf("apply diff of %q → %q: %v\n%s", old, new, err, d)
		}
		if got != new {
			t.Fatalf("applying\n%s\nto %q gave %q, want %q", d, old, got, new)
		}
	}
}

func randomLines(r *rand.Rand) string {
	var b strings.Builder
	n := r.IntN(30)
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "l%d\n", r.IntN(8))
	}
	return b.String()
}

func mutate(r *rand.Rand, s string) string {
	lines := splitLines(s)
	for n := r.IntN(5); n > 0; n-- {
		switch i := r.IntN(len(lines) + 1); r.IntN(3) {
		case 0:
			lines = append(lines[:i], append([]string{fmt.Sprintf("new%d\n", r.IntN(4))}, lines[i:]...)...)
		case 1:
			if i < len(lines) {
				lines = append(lines[:i], lines[i+1:]...)
			}
		case 2:
			if i < len(lines) {
				lines[i] = "changed\n"
			}
		}
	}
	return strings.Join(lines, "")
}

// applyUnified is a minimal patch(1) for the diffs unifiedDiff writes.
func applyUnified(old, diff string) (string, error) {
	src := splitLines(old)
	var out []string
	pos := 0
	lines := strings.Split(strings.TrimSuffix(diff, "\n"), "\n")[2:]
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if strings.HasPrefix(l, "@@") {
			var aStart, aLen, bStart, bLen int
			f := strings.Fields(l)
			parseRange(f[1][1:], &aStart, &aLen)
			parseRange(f[2][1:], &bStart, &bLen)
			start := aStart - 1
			if aLen == 0 {
				start = aStart
			}
			if start < pos {
				return "", fmt.Errorf("hunk %q goes backwards", l)
			}
			out = append(out, src[pos:start]...)
			pos = start
			continue
		}
		text := l[1:] + "\n"
		switch l[0] {
		case ' ', '-':
			if pos >= len(src) || strings.TrimSuffix(src[pos], "\n") != l[1:] {
				return "", fmt.Errorf("line %q does not match old line %d", l, pos+1)
			}
			if l[0] == ' ' {
				out = append(out, src[pos])
			}
			pos++
		case '+':
			out = append(out, text)
		}
	}
	out = append(out, src[pos:]...)
	return strings.Join(out, ""), nil
}

// splitLines splits s after each "\n"; a last line without one is kept.
func splitLines(s string) []string {
	var lines []string
	for s != "" {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			lines = append(lines, s)
			break
		}
		lines = append(lines, s[:i+1])
		s = s[i+1:]
	}
	return lines
}

func parseRange(s string, start, n *int) {
	a, b, ok := strings.Cut(s, ",")
	*start, _ = strconv.Atoi(a)
	*n = 1
	if ok {
		*n, _ = strconv.Atoi(b)
	}
}
