// Package text is clawd's one policy for strings that reach a person: the
// CLI's human output (`clawd status`, `clawd events`, `clawd permissions`,
// `clawd agents`), session titles, tray menu labels and tooltips, and
// desktop notifications. Whatever an agent's payload, a prompt or another
// program put into a string, a person sees one line that cannot move the
// cursor, recolour or clear the screen, or reorder the text around it.
//
// Line drops
//
//   - control characters: C0 (ESC starts the sequences that repaint a
//     terminal), DEL and C1 (U+009B is a one-byte CSI to some terminals);
//   - Unicode format characters (category Cf): the bidi embeddings,
//     overrides and isolates U+202A–U+202E and U+2066–U+2069 that make
//     text read backwards, the marks U+200E, U+200F and U+061C, the
//     zero-width U+200B–U+200D, U+2060 and U+FEFF, the soft hyphen and
//     the tag characters;
//   - bytes that are not UTF-8;
//
// and turns every run of whitespace (newlines, tabs, U+2028, no-break
// spaces) into one space. JSON, for scripts, keeps every character but
// spells these as \u escapes (see JSON).
package text

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Ellipsis marks where Line cut a string.
const Ellipsis = "…"

// Line returns s as one safe line (see the package comment) of at most
// max runes, cut with Ellipsis; max <= 0 means no limit. Leading and
// trailing whitespace goes. Line reads no more of s than it needs for max
// runes, so a cut of a huge string costs what the cut keeps.
func Line(s string, max int) string {
	var b strings.Builder
	if max > 0 {
		b.Grow(min(len(s), 4*max+4))
	} else {
		b.Grow(len(s))
	}
	n := 0         // runes written
	space := false // a whitespace run is pending
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r == utf8.RuneError && size <= 1:
			continue
		case unicode.IsSpace(r):
			space = n > 0
			continue
		case Hidden(r):
			continue
		}
		if max > 0 && n == max {
			// One rune too many: cut, and the cut ends the work.
			return cut(b.String(), max)
		}
		if space {
			b.WriteByte(' ')
			n++
			space = false
			if max > 0 && n == max {
				return cut(b.String(), max)
			}
		}
		b.WriteRune(r)
		n++
	}
	return b.String()
}

// cut ends a line of exactly max runes, which had more after it, with the
// ellipsis in place of its last rune and no space before it.
func cut(s string, max int) string {
	if max == 1 {
		return Ellipsis
	}
	_, size := utf8.DecodeLastRuneInString(s)
	return strings.TrimRightFunc(s[:len(s)-size], unicode.IsSpace) + Ellipsis
}

// Hidden reports whether Line drops r: a control character (other than
// whitespace, which Line turns into a space) or a format character.
func Hidden(r rune) bool {
	if r < 0x20 || r == 0x7f {
		return !unicode.IsSpace(r)
	}
	if r < 0x80 {
		return false
	}
	return (unicode.IsControl(r) && !unicode.IsSpace(r)) || unicode.Is(unicode.Cf, r)
}

// ClipBytes cuts s to at most n bytes at a rune boundary: a cheap bound on
// what later, costlier work (cleaning, matching) looks at.
func ClipBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	if n <= 0 {
		return ""
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// JSON returns the JSON text b with every rune Line would hide or turn
// into a space, other than the four whitespace characters JSON itself
// allows between tokens, spelled as a \u escape: the same JSON value,
// safe to print to a terminal. encoding/json escapes C0 and U+2028/U+2029
// already, but passes DEL, C1 and the format characters through raw. Such
// runes can only stand inside JSON strings, where a \u escape means the
// same.
func JSON(b []byte) []byte {
	i := 0
	for i < len(b) {
		c := b[i]
		if c >= 0x20 && c < 0x7f || c == '\t' || c == '\n' || c == '\r' {
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		if !escapes(r, size) {
			i += size
			continue
		}
		break
	}
	if i == len(b) {
		return b // the common case: nothing to escape, no copy
	}
	out := make([]byte, 0, len(b)+16)
	out = append(out, b[:i]...)
	for i < len(b) {
		r, size := utf8.DecodeRune(b[i:])
		if escapes(r, size) {
			out = appendEscape(out, r)
		} else {
			out = append(out, b[i:i+size]...)
		}
		i += size
	}
	return out
}

// escapes reports whether JSON spells r (of size bytes) as an escape.
// Invalid UTF-8 becomes U+FFFD, as encoding/json would have written it.
func escapes(r rune, size int) bool {
	if r == utf8.RuneError && size <= 1 {
		return true
	}
	switch r {
	case ' ', '\t', '\n', '\r':
		return false // between tokens; encoding/json escapes them in strings
	}
	return Hidden(r) || unicode.IsSpace(r)
}

func appendEscape(out []byte, r rune) []byte {
	const hex = "0123456789abcdef"
	u := func(v rune) {
		out = append(out, '\\', 'u', hex[v>>12&0xf], hex[v>>8&0xf], hex[v>>4&0xf], hex[v&0xf])
	}
	if r > 0xffff {
		r -= 0x10000
		u(0xd800 + r>>10)
		u(0xdc00 + r&0x3ff)
		return out
	}
	u(r)
	return out
}
