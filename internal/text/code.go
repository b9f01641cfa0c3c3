package text

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// CodeLine returns one line of a file (a line of a diff) as Line would
// make it safe, but as code is read: its spaces and tabs stay where they
// are, indentation included, and nothing is trimmed. It drops what Line
// hides (control and format characters: ESC, the bidi overrides and
// isolates, the zero-width characters) and bytes that are not UTF-8,
// drops a carriage return, and turns any other whitespace (U+2028, a
// no-break space, a form feed) into a space, so the line stays one line
// and reads in its own order. max bounds it in runes (<= 0: no limit),
// cut with Ellipsis; like Line, it reads no more of s than that needs.
func CodeLine(s string, max int) string {
	var b strings.Builder
	if max > 0 {
		b.Grow(min(len(s), 4*max+4))
	} else {
		b.Grow(len(s))
	}
	n := 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r == utf8.RuneError && size <= 1, r == '\r':
			continue
		case r == '\t' || r == ' ':
		case unicode.IsSpace(r):
			r = ' '
		case Hidden(r):
			continue
		}
		if max > 0 && n == max {
			return cut(b.String(), max)
		}
		b.WriteRune(r)
		n++
	}
	return b.String()
}
