package text

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestLine(t *testing.T) {
	tests := []struct {
		in   string
		max  int
		want string
	}{
		{"fix the parser", 0, "fix the parser"},
		{"  two\n\nlines \t here  ", 0, "two lines here"},
		{"ring\x07 the bell", 0, "ring the bell"},
		{"a \x1b b", 0, "a b"},
		{"/tmp/\x1b[2J\x1b[31mred", 0, "/tmp/[2J[31mred"},
		{"csi \u009b31m", 0, "csi 31m"},
		{"del\x7f", 0, "del"},
		{"nel\u0085next", 0, "nel next"},
		{"line\u2028sep\u2029para", 0, "line sep para"},
		{"nb\u00a0space", 0, "nb space"},
		{"\u202eevil.exe\u202c", 0, "evil.exe"},
		{"\u2066iso\u2069 \u2067late\u2069 \u2068fsi\u2069", 0, "iso late fsi"},
		{"lrm\u200e rlm\u200f alm\u061c", 0, "lrm rlm alm"},
		{"zero\u200bwidth\u200c\u200djoin\u2060\ufeff", 0, "zerowidthjoin"},
		{"soft\u00adhyphen", 0, "softhyphen"},
		{"tag\U000e0041\U000e007f", 0, "tag"},
		{"bad \xff\xfe utf8", 0, "bad utf8"},
		{"é ü 漢字 🙂", 0, "é ü 漢字 🙂"},
		{"", 0, ""},
		{" \n\t ", 0, ""},
		{"abcdef", 6, "abcdef"},
		{"abcdefg", 6, "abcde…"},
		{"abc defg", 4, "abc…"},
		{"abc   defg", 5, "abc…"},
		{"abc   defg", 6, "abc d…"},
		{"ab", 1, "…"},
		{"a", 1, "a"},
		{strings.Repeat("é", 50), 40, strings.Repeat("é", 39) + "…"},
		{"\u202e" + strings.Repeat("x", 10), 5, "xxxx…"},
	}
	for _, tt := range tests {
		if got := Line(tt.in, tt.max); got != tt.want {
			t.Errorf("Line(%q, %d) = %q, want %q", tt.in, tt.max, got, tt.want)
		}
	}
}

// TestLineNothingHiddenSurvives runs every rune of the BMP and the tag
// block through Line: none that is a control or format character comes
// out, and no whitespace but the plain space.
func TestLineNothingHiddenSurvives(t *testing.T) {
	var b strings.Builder
	for r := rune(0); r < 0x10000; r++ {
		if utf8.ValidRune(r) {
			b.WriteString("x")
			b.WriteRune(r)
		}
	}
	for r := rune(0xe0000); r < 0xe0080; r++ {
		b.WriteRune(r)
	}
	for _, r := range Line(b.String(), 0) {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || (unicode.IsSpace(r) && r != ' ') {
			t.Errorf("Line kept %U", r)
		}
	}
}

func TestLineBoundedWork(t *testing.T) {
	huge := strings.Repeat("word ", 1<<20)
	allocs := testing.AllocsPerRun(10, func() { Line(huge, 40) })
	if allocs > 2 {
		t.Errorf("Line(5 MiB, 40) made %v allocations, want at most 2", allocs)
	}
	if got := Line(huge, 12); got != "word word w…" {
		t.Errorf("Line(huge, 12) = %q", got)
	}
}

func TestClipBytes(t *testing.T) {
	tests := []struct {
		in   string
		n    int
		want string
	}{
		{"hello", 10, "hello"},
		{"hello", 5, "hello"},
		{"hello", 3, "hel"},
		{"héllo", 2, "h"},
		{"héllo", 3, "hé"},
		{"🙂", 3, ""},
		{"abc", 0, ""},
	}
	for _, tt := range tests {
		if got := ClipBytes(tt.in, tt.n); got != tt.want {
			t.Errorf("ClipBytes(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
		}
	}
}

func TestJSON(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{`{"a":"plain"}`, `{"a":"plain"}`},
		{"{\n\t\"a\": \"b\"\r\n}", "{\n\t\"a\": \"b\"\r\n}"},
		{`{"cwd":"/tmp/\u001b[2J"}`, `{"cwd":"/tmp/\u001b[2J"}`},
		{"{\"t\":\"\u202eevil\"}", `{"t":"\u202eevil"}`},
		{"{\"t\":\"del\x7f c1\u009b\"}", `{"t":"del\u007f c1\u009b"}`},
		{"{\"t\":\"tag\U000e0041\"}", `{"t":"tag\udb40\udc41"}`},
		{"{\"t\":\"nb\u00a0sp\"}", `{"t":"nb\u00a0sp"}`},
		{"{\"t\":\"é 漢 🙂\"}", "{\"t\":\"é 漢 🙂\"}"},
		{"{\"t\":\"bad\xff\"}", `{"t":"bad\ufffd"}`},
	}
	for _, tt := range tests {
		got := string(JSON([]byte(tt.in)))
		if got != tt.want {
			t.Errorf("JSON(%q) = %q, want %q", tt.in, got, tt.want)
		}
		var a, b any
		if json.Unmarshal([]byte(got), &b) != nil {
			t.Errorf("JSON(%q) = %q: not JSON", tt.in, got)
			continue
		}
		if json.Unmarshal([]byte(tt.in), &a) == nil && utf8.ValidString(tt.in) {
			ja, _ := json.Marshal(a)
			jb, _ := json.Marshal(b)
			if string(ja) != string(jb) {
				t.Errorf("JSON(%q) changed the value: %s, want %s", tt.in, jb, ja)
			}
		}
	}
}

func TestJSONNoCopyWhenClean(t *testing.T) {
	in := []byte(`{"a":"plain é"}`)
	if out := JSON(in); &out[0] != &in[0] {
		t.Error("JSON copied a clean input")
	}
}

func TestWidth(t *testing.T) {
	for s, want := range map[string]int{"": 0, "claude": 6, "智能体": 6, "工作中（Bash）": 14, "한국어": 6, "ｘ": 2, "é": 1} {
		if got := Width(s); got != want {
			t.Errorf("Width(%q) = %d, want %d", s, got, want)
		}
	}
}
