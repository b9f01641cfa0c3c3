package text

import (
	"strings"
	"testing"
)

func TestCodeLine(t *testing.T) {
	tests := []struct {
		in   string
		max  int
		want string
	}{
		{"\tif x {", 0, "\tif x {"},
		{"    return nil  ", 0, "    return nil  "},
		{"line\r", 0, "line"},
		{"\x1b[2J\x1b[31mred", 0, "[2J[31mred"},
		// Trojan Source: the override and the isolates are dropped, so
		// the line reads in the order it is stored.
		{"\tif access != \"user\u202e \u2066// admin\u2069 \u2066\" {", 0, "\tif access != \"user // admin \" {"},
		{"a\u2028b\u00a0c\fd", 0, "a b c d"},
		{"zero\u200bwidth\ufeff", 0, "zerowidth"},
		{"bad\xffbyte", 0, "badbyte"},
		{"\t\tabcdef", 5, "\t\tab…"},
		{"", 0, ""},
	}
	for _, tt := range tests {
		if got := CodeLine(tt.in, tt.max); got != tt.want {
			t.Errorf("CodeLine(%q, %d) = %q, want %q", tt.in, tt.max, got, tt.want)
		}
	}
	// Every rune it keeps is one Line keeps too, or a space or tab.
	for r := rune(0); r < 0x110000; r++ {
		if r >= 0xd800 && r < 0xe000 {
			continue
		}
		got := CodeLine(string(r), 0)
		if got != "" && got != " " && got != "\t" && got != Line(string(r), 0) {
			t.Fatalf("CodeLine(%U) = %q, Line %q", r, got, Line(string(r), 0))
		}
	}
}

// CodeLine of a huge line costs what the cut keeps.
func TestCodeLineHuge(t *testing.T) {
	huge := strings.Repeat("x", 20<<20)
	allocs := testing.AllocsPerRun(5, func() { CodeLine(huge, 100) })
	if got := CodeLine(huge, 100); len(got) != 99+len(Ellipsis) || allocs > 4 {
		t.Errorf("CodeLine(20 MB, 100) = %d bytes in %v allocations, want 100 runes in a few", len(got), allocs)
	}
}
