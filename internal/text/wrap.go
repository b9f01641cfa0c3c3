package text

import (
	"strings"
	"unicode/utf8"
)

// Wrap breaks the line s into lines of at most width terminal columns
// (0 or less: no limit), at spaces; a word too long for a line of its
// own (a path, a URL) is broken after a '/', else where it must be, and
// text in wide characters (Chinese, which has no spaces) between any two
// of them, but not before a comma or a full stop. The lines keep no space at either end; the caller indents the
// ones after the first.
func Wrap(s string, width int) []string {
	if width <= 0 || Width(s) <= width {
		return []string{s}
	}
	var lines []string
	line := ""
	for _, word := range strings.Fields(s) {
		for word != "" {
			room := width
			if line != "" {
				room -= Width(line) + 1
			}
			if Width(word) <= room {
				if line != "" {
					line += " "
				}
				line += word
				break
			}
			// What fits of it in the room left: up to a slash when it is
			// too long for a line of its own, or between wide characters.
			head, tail := breakWord(word, room, line == "", Width(word) > width)
			if head != "" {
				if line != "" {
					line += " "
				}
				line, word = line+head, tail
			}
			lines = append(lines, line)
			line = ""
		}
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}

// noLineStart is the punctuation a Chinese line does not start with.
const noLineStart = "，。、：；！？）》」』”’"

// breakWord splits word so that head takes at most room columns, at
// the last place that fits where a line may break: after a '/' (not a
// leading one) when slashes, or beside a wide character; else, when
// hard, at room (at least one character); else not at all.
func breakWord(word string, room int, hard, slashes bool) (head, tail string) {
	cut, w := 0, 0 // bytes and columns of the hard break
	soft := 0      // bytes up to the last soft break that fits
	prevWide := false
	for i, r := range word {
		rw := Width(string(r))
		if i > 0 && (prevWide || rw == 2) && !strings.ContainsRune(noLineStart, r) {
			soft = i
		}
		if w+rw > room {
			break
		}
		w += rw
		cut = i + len(string(r))
		if slashes && r == '/' && i > 0 && cut < len(word) {
			soft = cut
		}
		prevWide = rw == 2
	}
	switch {
	case soft > 0:
		return word[:soft], word[soft:]
	case !hard:
		return "", word
	case cut == 0:
		// One character wider than the room: it takes a line of its own.
		_, cut = utf8.DecodeRuneInString(word)
	}
	return word[:cut], word[cut:]
}
