package installers

import (
	"fmt"
	"strings"
)

// diffContext is the number of unchanged lines around each change.
const diffContext = 3

// diffOp is one line of an edit script: ' ' kept, '-' deleted, '+' inserted.
type diffOp struct {
	kind byte
	line string
	// a and b are the 0-based line numbers in the old and new text before
	// this line.
	a, b int
}

// unifiedDiff returns the unified diff that turns old into new, with the
// file names fromName and toName, or "" when they are equal.
func unifiedDiff(fromName, toName string, old, new []byte) string {
	a, b := splitLines(string(old)), splitLines(string(new))
	ops := myers(a, b)
	var out strings.Builder
	for i := 0; i < len(ops); {
		if ops[i].kind == ' ' {
			i++
			continue
		}
		// A hunk starts diffContext lines before the change and extends
		// over later changes that are at most 2*diffContext lines away.
		start := max(0, i-diffContext)
		end := i
		for j := i; j < len(ops); j++ {
			if ops[j].kind != ' ' {
				end = j + 1
				continue
			}
			if j-end >= 2*diffContext {
				break
			}
		}
		stop := min(len(ops), end+diffContext)
		if out.Len() == 0 {
			fmt.Fprintf(&out, "--- %s\n+++ %s\n", fromName, toName)
		}
		writeHunk(&out, ops[start:stop])
		i = stop
	}
	return out.String()
}

func writeHunk(out *strings.Builder, ops []diffOp) {
	na, nb := 0, 0
	for _, op := range ops {
		if op.kind != '+' {
			na++
		}
		if op.kind != '-' {
			nb++
		}
	}
	fmt.Fprintf(out, "@@ -%s +%s @@\n", hunkRange(ops[0].a, na), hunkRange(ops[0].b, nb))
	for _, op := range ops {
		out.WriteByte(op.kind)
		out.WriteString(op.line)
		if !strings.HasSuffix(op.line, "\n") {
			out.WriteString("\n\\ No newline at end of file\n")
		}
	}
}

// hunkRange formats a hunk's line range as GNU diff does: "l,n", just "l"
// when n is 1, and the line before the hunk when n is 0.
func hunkRange(start, n int) string {
	switch n {
	case 0:
		return fmt.Sprintf("%d,0", start)
	case 1:
		return fmt.Sprintf("%d", start+1)
	}
	return fmt.Sprintf("%d,%d", start+1, n)
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

// myers returns a shortest edit script from a to b (Myers, "An O(ND)
// difference algorithm and its variations", 1986), keeping the V array of
// every round to walk the path back.
func myers(a, b []string) []diffOp {
	n, m := len(a), len(b)
	maxD := n + m
	off := maxD + 1
	v := make([]int, 2*maxD+3)
	var trace [][]int
	var dEnd int
search:
	for d := 0; d <= maxD; d++ {
		trace = append(trace, append([]int(nil), v...))
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
				x = v[off+k+1] // down: insertion
			} else {
				x = v[off+k-1] + 1 // right: deletion
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x++
				y++
			}
			v[off+k] = x
			if x >= n && y >= m {
				dEnd = d
				break search
			}
		}
	}
	// Walk back from (n, m), collecting operations in reverse.
	var rev []diffOp
	x, y := n, m
	for d := dEnd; d > 0; d-- {
		v := trace[d]
		k := x - y
		var prevK int
		if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
			prevK = k + 1
		} else {
			prevK = k - 1
		}
		prevX := v[off+prevK]
		prevY := prevX - prevK
		for x > prevX && y > prevY {
			x--
			y--
			rev = append(rev, diffOp{' ', a[x], x, y})
		}
		if x == prevX {
			y--
			rev = append(rev, diffOp{'+', b[y], x, y})
		} else {
			x--
			rev = append(rev, diffOp{'-', a[x], x, y})
		}
	}
	for x > 0 && y > 0 {
		x--
		y--
		rev = append(rev, diffOp{' ', a[x], x, y})
	}
	ops := make([]diffOp, len(rev))
	for i, op := range rev {
		ops[len(rev)-1-i] = op
	}
	return ops
}
