// Package tomlpos finds the line each key of a TOML document is written
// on. BurntSushi/toml keeps positions private, and an error that names the
// line is worth this: it reads the common shapes (table headers, arrays of
// tables, key = value, dotted and quoted keys) and misses keys inside
// inline tables or multi-line values, which take the line of their
// enclosing key.
package tomlpos

import (
	"slices"
	"strconv"
	"strings"
)

// Lines maps each key of a TOML document to the line (1-based) it is first
// written on. A key is its pieces joined by NUL; the tables of an array of
// tables ([[x]]) have their index as a piece: "x\x000\x00key".
func Lines(data []byte) map[string]int {
	out := map[string]int{}
	var table []string
	arrays := map[string]int{}
	note := func(k []string, n int) {
		for i := 1; i <= len(k); i++ {
			s := strings.Join(k[:i], "\x00")
			if _, ok := out[s]; !ok {
				out[s] = n
			}
		}
	}
	for i, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		switch {
		case line == "" || line[0] == '#':
		case strings.HasPrefix(line, "[["):
			if end := strings.Index(line, "]]"); end > 0 {
				name := SplitKey(line[2:end])
				k := strings.Join(name, "\x00")
				table = append(name, strconv.Itoa(arrays[k]))
				arrays[k]++
				note(table, i+1)
			}
		case line[0] == '[':
			if end := strings.LastIndex(line, "]"); end > 0 {
				table = SplitKey(line[1:end])
				note(table, i+1)
			}
		default:
			if eq := indexOutsideQuotes(line, '='); eq > 0 {
				note(append(slices.Clip(table), SplitKey(line[:eq])...), i+1)
			}
		}
	}
	return out
}

// Key joins key pieces the way Lines does.
func Key(pieces ...string) string { return strings.Join(pieces, "\x00") }

// SplitKey splits a dotted TOML key, honouring quoted pieces.
func SplitKey(s string) []string {
	var out []string
	for {
		dot := indexOutsideQuotes(s, '.')
		piece := s
		if dot >= 0 {
			piece = s[:dot]
		}
		piece = strings.TrimSpace(piece)
		if len(piece) >= 2 && (piece[0] == '"' || piece[0] == '\'') && piece[len(piece)-1] == piece[0] {
			piece = piece[1 : len(piece)-1]
		}
		out = append(out, piece)
		if dot < 0 {
			return out
		}
		s = s[dot+1:]
	}
}

func indexOutsideQuotes(s string, c byte) int {
	var quote byte
	for i := 0; i < len(s); i++ {
		switch {
		case quote != 0:
			if s[i] == '\\' && quote == '"' {
				i++
			} else if s[i] == quote {
				quote = 0
			}
		case s[i] == '"' || s[i] == '\'':
			quote = s[i]
		case s[i] == c:
			return i
		}
	}
	return -1
}
