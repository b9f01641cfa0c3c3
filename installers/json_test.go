package installers

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/clawdhq/clawd/agents"
)

func TestParseValid(t *testing.T) {
	tests := []string{
		`{}`, `[]`, `0`, `-0`, `1.5e+10`, `-12.25E-3`, `true`, `false`, `null`, `""`,
		` {"a" : [1, 2, {"b": null}], "c": "\u00e9\n\"\\\/\b\f\r\t"} `,
		"\xef\xbb\xbf{\"bom\": true}",
		"{\r\n\t\"crlf\": [\r\n\t\t1\r\n\t]\r\n}\r\n",
		`"\ud83d\ude00 and a lone \ud800"`,
		`{"dup": 1, "dup": 2}`,
		`"naïve ☃"`,
	}
	for _, in := range tests {
		if _, err := parse([]byte(in)); err != nil {
			t.Errorf("parse(%q) = %v, want no error", in, err)
		}
	}
}

func TestParseInvalid(t *testing.T) {
	tests := []struct {
		in        string
		line, col int
		msg       string
	}{
		{`{"a": 1,}`, 1, 8, "trailing comma before '}'"},
		{"[\n  1,\n  2,\n]", 3, 4, "trailing comma before ']'"},
		{"{\n  // comment\n  \"a\": 1\n}", 2, 3, "comments are not allowed"},
		{`{"a": 1 /* c */}`, 1, 9, "comments are not allowed"},
		{`{'a': 1}`, 1, 2, "expected a member name in double quotes"},
		{`{a: 1}`, 1, 2, "expected a member name"},
		{`{"a" 1}`, 1, 6, "expected ':'"},
		{`{"a": 1 "b": 2}`, 1, 9, "expected ',' or '}'"},
		{`[1 2]`, 1, 4, "expected ',' or ']'"},
		{`{"a": 01}`, 1, 7, "leading zero"},
		{`{"a": .5}`, 1, 7, "expected a value"},
		{`{"a": 1.}`, 1, 9, "no digits after '.'"},
		{`{"a": 1e}`, 1, 9, "no digits in the exponent"},
		{`{"a": -}`, 1, 8, "invalid number"},
		{`{"a": +1}`, 1, 7, "expected a value"},
		{`{"a": NaN}`, 1, 7, "expected a value"},
		{`{"a": tru}`, 1, 7, "expected a value"},
		{`{"a": "x` + "\n" + `"}`, 1, 9, "control character"},
		{`{"a": "\x"}`, 1, 8, `invalid escape \x`},
		{`{"a": "\u12G4"}`, 1, 8, `invalid \u escape`},
		{"{\"a\": \"\xff\"}", 1, 8, "invalid UTF-8"},
		{`{"a": 1} x`, 1, 10, "after the top-level value"},
		{`{"a": 1}{}`, 1, 9, "after the top-level value"},
		{`{"a": [1, 2`, 1, 12, "unexpected end of file"},
		{`{"a": "x`, 1, 9, "end of file inside a string"},
		{`{"é": é}`, 1, 7, "byte 0xc3"},
		{"\xef\xbb\xbf{,}", 1, 2, "expected a member name"},
	}
	for _, tt := range tests {
		_, err := parse([]byte(tt.in))
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("parse(%q) = %v, want a *SyntaxError", tt.in, err)
			continue
		}
		if !errors.Is(err, ErrUnparseable) {
			t.Errorf("parse(%q) error does not match ErrUnparseable", tt.in)
		}
		if se.Line != tt.line || se.Col != tt.col || !strings.Contains(se.Msg, tt.msg) {
			t.Errorf("parse(%q) = %d:%d %q, want %d:%d %q", tt.in, se.Line, se.Col, se.Msg, tt.line, tt.col, tt.msg)
		}
	}
}

func TestParseDepth(t *testing.T) {
	deep := strings.Repeat("[", maxDepth+2) + strings.Repeat("]", maxDepth+2)
	if _, err := parse([]byte(deep)); !errors.Is(err, ErrUnparseable) {
		t.Errorf("parse(%d nested arrays) = %v, want ErrUnparseable", maxDepth+2, err)
	}
}

func TestParseOffsets(t *testing.T) {
	data := []byte(`{ "a" : [1, "two", {"b": true}], "c": null }`)
	root, err := parse(data)
	if err != nil {
		t.Fatal(err)
	}
	got := []string{}
	for _, m := range root.members {
		got = append(got, string(data[m.keyStart:m.keyEnd])+"="+string(data[m.value.start:m.value.end]))
	}
	want := []string{`"a"=[1, "two", {"b": true}]`, `"c"=null`}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("members = %q, want %q", got, want)
	}
	if s := root.members[0].value.elems[1]; s.str != "two" || string(data[s.start:s.end]) != `"two"` {
		t.Errorf("string node = %q at %q", s.str, data[s.start:s.end])
	}
}

func TestQuote(t *testing.T) {
	for _, s := range []string{"plain", `a"b\c`, "<b>&</b>", "tab\tnl\ncr\r\x01\x1f", "naïve ☃ 😀", "\u2028"} {
		q := quote(s)
		var back string
		if err := json.Unmarshal([]byte(q), &back); err != nil || back != s {
			t.Errorf("quote(%q) = %s, decodes to %q, %v", s, q, back, err)
		}
		if strings.ContainsAny(q, `<>&`) != strings.ContainsAny(s, `<>&`) {
			t.Errorf("quote(%q) = %s, escaped HTML characters", s, q)
		}
	}
}

// FuzzParse checks the parser against encoding/json (they must agree on
// what is valid) and, for any object without "hooks", that install then
// uninstall gives back the exact input.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`{}`, `{"a":1}`, "{\n  \"a\": [1, 2]\n}\n", "{\n\t\"x\": {}\n}", `{ "a" : "b" }`,
		`[1,]`, `{"a":1,}`, `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"clawd hook claude"}]}]}}`,
		"\xef\xbb\xbf{}", "{\r\n  \"a\": 1\r\n}\r\n", `{"a":"\u00e9"}`, "{\"k\":\n\n    1}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		root, err := parse(data)
		body := bytes.TrimPrefix(data, []byte(utf8BOM))
		if utf8.Valid(body) {
			blank := len(bytes.TrimSpace(body)) == 0
			if valid := json.Valid(body); (err == nil && !blank) != valid {
				t.Fatalf("parse(%q) error = %v, json.Valid = %v", data, err, valid)
			}
		}
		if err != nil || root == nil || root.kind != kindObject {
			return
		}
		if _, n := root.get("hooks"); n > 0 {
			return
		}
		if len(root.members) == 0 && root.end-root.start > 2 {
			return // known edge: "{ }" comes back as "{}"
		}
		installed, _, err := InstallClaude(data, "/usr/local/bin/clawd", agents.Claude.Pinned(), Known{})
		if err != nil {
			t.Fatalf("InstallClaude(%q): %v", data, err)
		}
		if !json.Valid(bytes.TrimPrefix(installed, []byte(utf8BOM))) {
			t.Fatalf("InstallClaude(%q) wrote invalid JSON:\n%s", data, installed)
		}
		back, _, err := UninstallClaude(installed, Known{})
		if err != nil {
			t.Fatalf("UninstallClaude: %v", err)
		}
		if !bytes.Equal(back, data) {
			t.Fatalf("round trip of %q gave %q", data, back)
		}
	})
}

// FuzzInstall checks, on any settings file install accepts, that the
// result is valid JSON, that a second install changes nothing, and that
// uninstall after install equals uninstall alone.
func FuzzInstall(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/claude/*/in.json")
	for _, s := range seeds {
		data, err := os.ReadFile(s)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	emptyContainer := regexp.MustCompile(`[\[{]\s*[\]}]`)
	f.Fuzz(func(t *testing.T, data []byte) {
		installed, _, err := InstallClaude(data, "/usr/local/bin/clawd", agents.Claude.Pinned(), Known{})
		if err != nil {
			return
		}
		if !json.Valid(bytes.TrimPrefix(installed, []byte(utf8BOM))) {
			t.Fatalf("InstallClaude(%q) wrote invalid JSON:\n%s", data, installed)
		}
		again, ch, err := InstallClaude(installed, "/usr/local/bin/clawd", agents.Claude.Pinned(), Known{})
		if err != nil || ch.Any() || !bytes.Equal(again, installed) {
			t.Fatalf("second InstallClaude(%q) = %+v, %v", data, ch, err)
		}
		if emptyContainer.Match(data) {
			return // known edge: an emptied container is dropped, not kept empty
		}
		want, _, err := UninstallClaude(data, Known{})
		if err != nil {
			t.Fatalf("UninstallClaude(in): %v", err)
		}
		got, _, err := UninstallClaude(installed, Known{})
		if err != nil {
			t.Fatalf("UninstallClaude(installed): %v", err)
		}
		if len(bytes.TrimSpace(bytes.TrimPrefix(data, []byte(utf8BOM)))) == 0 {
			return // a blank file comes back as "{}"
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("in %q:\nuninstall(install(in)) = %q\nuninstall(in)          = %q", data, got, want)
		}
	})
}
