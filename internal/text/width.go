package text

// Width is how many terminal columns s takes: two for each wide
// character (Chinese, Japanese and Korean characters, full-width forms),
// one for any other. s is taken to be one line by Line's policy.
func Width(s string) int {
	w := 0
	for _, r := range s {
		w++
		if wide(r) {
			w++
		}
	}
	return w
}

// wide reports whether r takes two columns: the East Asian Wide and
// Full-width blocks that text in clawd's languages uses.
func wide(r rune) bool {
	switch {
	case r < 0x1100:
		return false
	case r <= 0x115f, // Hangul Jamo initials
		r >= 0x2e80 && r <= 0x303e, // CJK radicals, punctuation
		r >= 0x3041 && r <= 0x33ff, // kana, CJK symbols
		r >= 0x3400 && r <= 0x4dbf, // CJK extension A
		r >= 0x4e00 && r <= 0x9fff, // CJK unified ideographs
		r >= 0xa000 && r <= 0xa4cf, // Yi
		r >= 0xac00 && r <= 0xd7a3, // Hangul syllables
		r >= 0xf900 && r <= 0xfaff, // CJK compatibility ideographs
		r >= 0xfe30 && r <= 0xfe4f, // CJK compatibility forms
		r >= 0xff00 && r <= 0xff60, // full-width forms
		r >= 0xffe0 && r <= 0xffe6,
		r >= 0x20000 && r <= 0x3fffd: // CJK extensions B and on
		return true
	}
	return false
}
