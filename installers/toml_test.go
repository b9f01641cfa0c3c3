package installers

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// describeTOML summarizes a scanned file: per table its kind, decoded
// path and bytes; per entry its path and value bytes.
func describeTOML(doc *tomlDoc) []string {
	var out []string
	for _, t := range doc.tables {
		head := "root"
		if t.start >= 0 {
			kind := "table"
			if t.array {
				kind = "array"
			}
			head = fmt.Sprintf("%s %q %q", kind, t.path, doc.data[t.start:t.end])
		}
		out = append(out, head)
		for _, e := range t.entries {
			out = append(out, fmt.Sprintf("  %q = %s", e.path, doc.data[e.value.start:e.value.end]))
		}
	}
	return out
}

func TestScanTOML(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"empty", "", []string{"root"}},
		{
			"root and tables", "a = 1\n[t]\nb = \"x\" # c\n\n[[arr]]\n",
			[]string{"root", `  ["a"] = 1`, `table ["t"] "[t]\nb = \"x\" # c"`, `  ["b"] = "x"`, `array ["arr"] "[[arr]]"`},
		},
		{
			"quoted header parts", "[ hooks . state . \"/h/.codex/hooks.json:stop:0:0\" ]  # trust\ntrusted_hash = \"sha256:1\"\n",
			[]string{"root", `table ["hooks" "state" "/h/.codex/hooks.json:stop:0:0"] "[ hooks . state . \"/h/.codex/hooks.json:stop:0:0\" ]  # trust\ntrusted_hash = \"sha256:1\""`, `  ["trusted_hash"] = "sha256:1"`},
		},
		{
			"literal and escaped keys", "['a.b'.\"c\\u0041\\\"\"]\n\"k\\tk\".'x' = true\n",
			[]string{"root", `table ["a.b" "cA\""] "['a.b'.\"c\\u0041\\\"\"]\n\"k\\tk\".'x' = true"`, `  ["k\tk" "x"] = true`},
		},
		{
			"headers inside strings are not headers", "s = \"\"\"\n[not.a.table]\nx = \"\\\"\"\" \"\"\"\"\nl = '''\n[[nor]]'''\n[real]\n",
			[]string{"root", "  [\"s\"] = \"\"\"\n[not.a.table]\nx = \"\\\"\"\" \"\"\"\"", "  [\"l\"] = '''\n[[nor]]'''", `table ["real"] "[real]"`},
		},
		{
			"arrays and inline tables over lines", "a = [\n  1, # one\n  [2, 3],\n  { x = \"]\" },\n]\nb = { c = [1], d = { e = 'f' } }\n[t]\n",
			[]string{"root", "  [\"a\"] = [\n  1, # one\n  [2, 3],\n  { x = \"]\" },\n]", "  [\"b\"] = { c = [1], d = { e = 'f' } }", `table ["t"] "[t]"`},
		},
		{
			"dates and numbers", "d = 1979-05-27 07:32:00Z # when\nn = -1_000.5e3\nh = 0xff\n",
			[]string{"root", "  [\"d\"] = 1979-05-27 07:32:00Z", "  [\"n\"] = -1_000.5e3", "  [\"h\"] = 0xff"},
		},
		{
			"crlf and no final line break", "a = 1\r\n[t]\r\nb = 2",
			[]string{"root", "  [\"a\"] = 1", "table [\"t\"] \"[t]\\r\\nb = 2\"", "  [\"b\"] = 2"},
		},
		{
			"byte order mark", "\xef\xbb\xbfa = 1\n",
			[]string{"root", "  [\"a\"] = 1"},
		},
	}
	for _, tt := range tests {
		if _, err := decodeTOML([]byte(tt.in)); err != nil {
			t.Fatalf("%s: test input is not valid TOML: %v", tt.name, err)
		}
		doc, err := scanTOML([]byte(tt.in))
		if err != nil {
			t.Errorf("scanTOML(%q) error = %v", tt.in, err)
			continue
		}
		if got := describeTOML(doc); !slices.Equal(got, tt.want) {
			t.Errorf("%s: scanTOML(%q) =\n%s\nwant\n%s", tt.name, tt.in, strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
		}
	}
}

func TestDecodeTOMLErrors(t *testing.T) {
	tests := []struct {
		in        string
		line, col int
		msg       string
	}{
		{"a = 1\na = 2\n", 2, 0, "Key 'a' has already been defined"},
		{"[t]\n[t]\n", 2, 2, "Key 't' has already been defined"},
		{"a = \n", 1, 5, "expected value"},
		{"a = \"\xff\"\n", 0, 0, "not valid UTF-8"},
	}
	for _, tt := range tests {
		_, err := decodeTOML([]byte(tt.in))
		var se *TOMLSyntaxError
		if !errors.As(err, &se) || !errors.Is(err, ErrUnparseableTOML) {
			t.Errorf("decodeTOML(%q) error = %v, want a *TOMLSyntaxError", tt.in, err)
			continue
		}
		if se.Line != tt.line || (tt.col != 0 && se.Col != tt.col) || !strings.Contains(se.Msg, tt.msg) {
			t.Errorf("decodeTOML(%q) error = %d:%d %q, want %d:%d containing %q", tt.in, se.Line, se.Col, se.Msg, tt.line, tt.col, tt.msg)
		}
	}
}

func TestTOMLQuote(t *testing.T) {
	tests := []struct{ in, want string }{
		{`/home/user/.codex/hooks.json:stop:0:0`, `"/home/user/.codex/hooks.json:stop:0:0"`},
		{`C:\Users\Ann Lee\.codex\hooks.json`, `"C:\\Users\\Ann Lee\\.codex\\hooks.json"`},
		{"say \"hi\"\t\n\x01\x7f é", `"say \"hi\"\t\n\u0001\u007F é"`},
	}
	for _, tt := range tests {
		got := tomlQuote(tt.in)
		if got != tt.want {
			t.Errorf("tomlQuote(%q) = %s, want %s", tt.in, got, tt.want)
		}
		m, err := decodeTOML([]byte("k = " + got))
		if err != nil || m["k"] != tt.in {
			t.Errorf("tomlQuote(%q) = %s decodes to %q, %v", tt.in, got, m["k"], err)
		}
	}
}

// addThenRemove adds a marker table, checks that the result is valid,
// then removes every table with the marker path and returns the result.
func addThenRemove(t *testing.T, data []byte, after func(*tomlTable) bool, blocks int) ([]byte, []byte) {
	t.Helper()
	var adds []tomlAddition
	for i := range blocks {
		adds = append(adds, tomlAddition{after: after, tables: []newTOMLTable{
			{array: true, path: []string{"clawd-test", "g"}},
			{path: []string{"clawd-test", fmt.Sprintf("k%d", i)}, lines: []string{`v = "x"`, "n = 1"}},
		}})
	}
	added, err := addTOMLTables(data, adds)
	if err != nil {
		t.Fatalf("addTOMLTables(%q): %v", data, err)
	}
	if _, err := decodeTOML(added); err != nil {
		t.Fatalf("addTOMLTables(%q) = %q, which does not parse: %v", data, added, err)
	}
	doc, err := scanTOML(added)
	if err != nil {
		t.Fatalf("scanTOML(%q): %v", added, err)
	}
	ed := newTOMLEditor(doc)
	for i, tb := range doc.tables {
		if tb.start >= 0 && tb.path[0] == "clawd-test" {
			ed.remove(i)
		}
	}
	back, err := ed.result()
	if err != nil {
		t.Fatal(err)
	}
	return added, back
}

func TestTOMLAddRemoveInverse(t *testing.T) {
	anyTable := func(*tomlTable) bool { return true }
	first := func(t *tomlTable) bool { return t.path[0] == "a" }
	tests := []struct {
		in        string
		after     func(*tomlTable) bool
		wantAdded string
	}{
		{"", nil, "[[clawd-test.g]]\n[clawd-test.k0]\nv = \"x\"\nn = 1\n\n[[clawd-test.g]]\n[clawd-test.k1]\nv = \"x\"\nn = 1\n"},
		{"\n\n", nil, "\n\n[[clawd-test.g]]\n[clawd-test.k0]\nv = \"x\"\nn = 1\n\n[[clawd-test.g]]\n[clawd-test.k1]\nv = \"x\"\nn = 1\n"},
		{"x = 1", nil, "x = 1\n\n[[clawd-test.g]]\n[clawd-test.k0]\nv = \"x\"\nn = 1\n\n[[clawd-test.g]]\n[clawd-test.k1]\nv = \"x\"\nn = 1"},
		{"# only a comment\n", nil, "# only a comment\n\n[[clawd-test.g]]\n[clawd-test.k0]\nv = \"x\"\nn = 1\n\n[[clawd-test.g]]\n[clawd-test.k1]\nv = \"x\"\nn = 1\n"},
		{"x = 1   \n\n\n", nil, "x = 1   \n\n[[clawd-test.g]]\n[clawd-test.k0]\nv = \"x\"\nn = 1\n\n[[clawd-test.g]]\n[clawd-test.k1]\nv = \"x\"\nn = 1\n\n\n"},
		{"[a]\nb = 1\n# about c\n[c]\nd = 2\n", first, "[a]\nb = 1\n\n[[clawd-test.g]]\n[clawd-test.k0]\nv = \"x\"\nn = 1\n\n[[clawd-test.g]]\n[clawd-test.k1]\nv = \"x\"\nn = 1\n# about c\n[c]\nd = 2\n"},
		{"[a]\r\nb = 1\r\n", anyTable, "[a]\r\nb = 1\r\n\r\n[[clawd-test.g]]\r\n[clawd-test.k0]\r\nv = \"x\"\r\nn = 1\r\n\r\n[[clawd-test.g]]\r\n[clawd-test.k1]\r\nv = \"x\"\r\nn = 1\r\n"},
		{"[a]\nb = \"\"\"\nmulti\n\"\"\"\n[c]\n", first, "[a]\nb = \"\"\"\nmulti\n\"\"\"\n\n[[clawd-test.g]]\n[clawd-test.k0]\nv = \"x\"\nn = 1\n\n[[clawd-test.g]]\n[clawd-test.k1]\nv = \"x\"\nn = 1\n[c]\n"},
	}
	for _, tt := range tests {
		added, back := addThenRemove(t, []byte(tt.in), tt.after, 2)
		if string(added) != tt.wantAdded {
			t.Errorf("addTOMLTables(%q) =\n%q\nwant\n%q", tt.in, added, tt.wantAdded)
		}
		if string(back) != tt.in {
			t.Errorf("removing what addTOMLTables(%q) added gave %q", tt.in, back)
		}
	}
}

// FuzzTOMLEdit checks the editor on any file BurntSushi/toml accepts: the
// scanner follows it, adding tables keeps it valid, and removing them
// gives back the same bytes.
func FuzzTOMLEdit(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/codex/*/*.toml")
	for _, s := range seeds {
		data, err := os.ReadFile(s)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, s := range []string{"", "a = 1", "[t]\nx = [\n1,\n]\n", "s = '''\n[x]\n'''\n", "\ufeff[a]\r\n", "a = { b = 1 }\n[[c]]\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if _, err := decodeTOML(data); err != nil {
			return
		}
		body := bytes.TrimPrefix(data, []byte(utf8BOM))
		if len(bytes.TrimSpace(body)) == 0 && len(body) > 0 && !bytes.HasSuffix(body, []byte("\n")) {
			return // known exception, see removals
		}
		doc, err := scanTOML(data)
		if err != nil {
			t.Fatalf("scanTOML(%q): %v", data, err)
		}
		_ = describeTOML(doc)
		for _, after := range []func(*tomlTable) bool{nil, func(*tomlTable) bool { return true }} {
			if bytes.Contains(data, []byte("clawd-test")) {
				return
			}
			added, back := addThenRemove(t, data, after, 1)
			if !bytes.Equal(back, data) {
				t.Fatalf("add then remove of %q gave %q (added: %q)", data, back, added)
			}
		}
	})
}

// FuzzCodexConfig installs into and uninstalls from any config.toml
// BurntSushi/toml accepts: install either refuses or leaves a valid file
// that a second install does not change, and uninstall gives back the
// original bytes.
func FuzzCodexConfig(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/codex/*/config.toml")
	for _, s := range seeds {
		data, err := os.ReadFile(s)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("[[hooks.Stop]]\n[[hooks.Stop.hooks]]\ncommand = \"x\"\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := decodeTOML(data)
		if err != nil || bytes.Contains(data, []byte("clawd")) || !utf8.Valid(data) {
			return
		}
		// Trust tables of handlers that are not there are the one known
		// exception, see TestCodexOrphanTrust.
		state, _ := trustState(m)
		handlers, _ := inlineCodexHandlers(m, Known{})
		for k := range state {
			orphan := strings.HasPrefix(k, fixtureHome)
			for _, h := range handlers {
				if k == CodexHookKey(fixtureConfig, h.Event, h.group, h.handler) {
					orphan = false
				}
			}
			if orphan {
				return
			}
		}
		body := bytes.TrimPrefix(data, []byte(utf8BOM))
		if len(bytes.TrimSpace(body)) == 0 && len(body) > 0 && !bytes.HasSuffix(body, []byte("\n")) {
			return
		}
		in := CodexFiles{HooksPath: fixtureHooks, ConfigPath: fixtureConfig, Config: data}
		e, err := InstallCodex(in, goldenBinary, Known{})
		if err != nil {
			if !errors.Is(err, ErrUnexpectedShape) {
				t.Fatalf("InstallCodex(%q): %v", data, err)
			}
			return
		}
		if _, err := decodeTOML(e.Config); err != nil {
			t.Fatalf("InstallCodex(%q) wrote invalid TOML %q: %v", data, e.Config, err)
		}
		installed := CodexFiles{HooksPath: fixtureHooks, Hooks: e.Hooks, ConfigPath: fixtureConfig, Config: e.Config}
		if again, err := InstallCodex(installed, goldenBinary, Known{}); err != nil || again.Any() {
			t.Fatalf("second InstallCodex(%q) = %+v, %v; want no change", e.Config, again, err)
		}
		u, err := UninstallCodex(installed, Known{})
		if err != nil {
			t.Fatalf("UninstallCodex(%q): %v", e.Config, err)
		}
		if !bytes.Equal(u.Config, data) {
			t.Fatalf("uninstall(install(%q)) = %q", data, u.Config)
		}
	})
}
