package i18n

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// verbs matches a fmt verb, with its explicit argument index if any.
var verbs = regexp.MustCompile(`%(\[\d+\])?[-+# 0]*\d*(\.\d+)?[a-zA-Z%]`)

// args returns the verb of each argument a message uses, by position:
// "%[2]s %[1]d" gives [d s].
func args(t *testing.T, key, msg string) []string {
	var out []string
	next := 0
	for _, m := range verbs.FindAllStringSubmatch(msg, -1) {
		v := m[0][len(m[0])-1:]
		if v == "%" {
			continue
		}
		i := next
		if m[1] != "" {
			n := 0
			for _, c := range m[1][1 : len(m[1])-1] {
				n = n*10 + int(c-'0')
			}
			i = n - 1
		}
		next = i + 1
		for len(out) <= i {
			out = append(out, "")
		}
		if out[i] != "" && out[i] != v {
			t.Errorf("%s: argument %d is both %%%s and %%%s in %q", key, i+1, out[i], v, msg)
		}
		out[i] = v
	}
	return out
}

// TestCatalogs checks that every catalog parses, that every key of one is
// in all the others, and that a key's translations take the same
// arguments (by position and verb) in every language and plural form.
func TestCatalogs(t *testing.T) {
	all := map[Lang]map[string]message{}
	for _, l := range Langs() {
		c, err := catalog(l)
		if err != nil {
			t.Fatalf("catalog %s: %v", l, err)
		}
		all[l] = c
	}
	keys := map[string]bool{}
	for _, c := range all {
		for k := range c {
			keys[k] = true
		}
	}
	for k := range keys {
		var want []string
		for i, l := range Langs() {
			m, ok := all[l][k]
			if !ok {
				t.Errorf("%s: missing from catalog/%s.toml", k, l)
				continue
			}
			forms := []string{m.other}
			if m.one != "" {
				forms = append(forms, m.one)
			}
			for j, f := range forms {
				got := args(t, k, f)
				if i == 0 && j == 0 {
					want = got
					continue
				}
				if !slices.Equal(got, want) {
					t.Errorf("%s in %s takes arguments %q, English %q: %q", k, l, got, want, f)
				}
			}
		}
	}
}

// usedKey matches a literal key passed to a Printer (T, N), to a message
// for later (M, MN) or to the command line's helpers (e.t, e.n).
var usedKey = regexp.MustCompile(`\.(?:T|N|M|MN|t|n)\("([a-z0-9_]+\.[a-z0-9_.]+)"[,)]`)

// The dashboard's keys: its script calls t("key", ...) and n("key", ...)
// (app.js's own Printer), its pages' templates {{.T "key"}}.
var (
	scriptKey   = regexp.MustCompile(`(?:^|[^\w.$])[tn]\("([a-z0-9_]+\.[a-z0-9_.]+)"[,)]`)
	templateKey = regexp.MustCompile(`\{\{\s*\.T "([a-z0-9_]+\.[a-z0-9_.]+)"`)
)

// TestKeysInCode checks that every literal key the code passes to a
// Printer, the dashboard's script and pages included, is in the English
// catalog (and so, by TestCatalogs, in all).
func TestKeysInCode(t *testing.T) {
	en, err := catalog(English)
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join("..", "..")
	n := 0
	page := map[string]int{} // uses in the dashboard's assets, by extension
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".") && path != root) {
			return filepath.SkipDir
		}
		if d.IsDir() && filepath.Base(path) == "i18n" {
			return filepath.SkipDir // its own tests use missing keys on purpose
		}
		if d.IsDir() {
			return nil
		}
		pattern := usedKey
		if filepath.Base(filepath.Dir(path)) == "assets" && filepath.Base(filepath.Dir(filepath.Dir(path))) == "dashboard" {
			switch filepath.Ext(path) {
			case ".js":
				pattern = scriptKey
			case ".html":
				pattern = templateKey
			default:
				return nil
			}
		} else if !strings.HasSuffix(path, ".go") {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range pattern.FindAllStringSubmatch(string(data), -1) {
			n++
			if pattern != usedKey {
				page[filepath.Ext(path)]++
			}
			if _, ok := en[m[1]]; !ok {
				t.Errorf("%s uses the key %q, which catalog/en.toml does not have", path, m[1])
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 50 {
		t.Errorf("found %d uses of keys in the code; the pattern no longer matches how the code calls Printer", n)
	}
	if page[".js"] < 50 || page[".html"] < 20 {
		t.Errorf("found %d uses of keys in the dashboard's script and %d in its pages; the patterns no longer match how they name messages", page[".js"], page[".html"])
	}
}

func TestParse(t *testing.T) {
	tests := []struct {
		in   string
		want Lang
		ok   bool
	}{
		{"en", English, true},
		{"en_US.UTF-8", English, true},
		{"EN-gb", English, true},
		{"zh", Chinese, true},
		{"zh-CN", Chinese, true},
		{"zh_CN.UTF-8", Chinese, true},
		{"zh_SG.GB2312", Chinese, true},
		{"zh-Hans", Chinese, true},
		{"zh-Hans-CN", Chinese, true},
		{"zh_TW.UTF-8", "", false},
		{"zh-Hant-HK", "", false},
		{"fr_FR.UTF-8", "", false},
		{"C", "", false},
		{"", "", false},
	}
	for _, tt := range tests {
		if got, ok := Parse(tt.in); got != tt.want || ok != tt.ok {
			t.Errorf("Parse(%q) = %q, %v, want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestDetect(t *testing.T) {
	tests := []struct {
		name    string
		setting string
		env     map[string]string
		want    Lang
	}{
		{"nothing", "", nil, English},
		{"LANG", "", map[string]string{"LANG": "zh_CN.UTF-8"}, Chinese},
		{"LC_ALL wins", "", map[string]string{"LC_ALL": "en_US.UTF-8", "LANG": "zh_CN.UTF-8"}, English},
		{"LC_MESSAGES before LANG", "", map[string]string{"LC_MESSAGES": "zh_CN.UTF-8", "LANG": "en_US.UTF-8"}, Chinese},
		{"C locale", "", map[string]string{"LANG": "C.UTF-8"}, English},
		{"unspoken locale", "", map[string]string{"LANG": "de_DE.UTF-8"}, English},
		{"setting wins", "zh-CN", map[string]string{"LC_ALL": "en_US.UTF-8"}, Chinese},
		{"setting en", "en", map[string]string{"LANG": "zh_CN.UTF-8"}, English},
		{"auto follows the locale", "auto", map[string]string{"LANG": "zh_CN.UTF-8"}, Chinese},
	}
	for _, tt := range tests {
		got := Detect(tt.setting, func(k string) string { return tt.env[k] })
		if got != tt.want {
			t.Errorf("Detect(%q, %v) [%s] = %q, want %q", tt.setting, tt.env, tt.name, got, tt.want)
		}
	}
}

func TestCheckSetting(t *testing.T) {
	for _, ok := range []string{"", "auto", "en", "zh-CN", "zh"} {
		if err := CheckSetting(ok); err != nil {
			t.Errorf("CheckSetting(%q) = %v, want nil", ok, err)
		}
	}
	for _, bad := range []string{"fr", "zh-TW", "chinese"} {
		if err := CheckSetting(bad); err == nil {
			t.Errorf("CheckSetting(%q) = nil, want an error", bad)
		}
	}
}

func TestPrinter(t *testing.T) {
	zh := For(Chinese)
	if got, want := zh.N("tray.sessions", 3), "会话（3）"; got != want {
		t.Errorf(`zh.N("tray.sessions", 3) = %q, want %q`, got, want)
	}
	var en Printer
	for n, want := range map[int]string{1: "juggling 1 subagent", 2: "juggling 2 subagents"} {
		if got := en.N("state.juggling_n", n); got != want {
			t.Errorf(`en.N("state.juggling_n", %d) = %q, want %q`, n, got, want)
		}
	}
	if got, want := zh.T("no.such_key"), "no.such_key"; got != want {
		t.Errorf("zh.T of a missing key = %q, want the key %q", got, want)
	}
	if got, want := en.T("tray.asks", "Codex", "which?"), "Codex asks: which?"; got != want {
		t.Errorf("en.T(tray.asks) = %q, want %q", got, want)
	}
	if For("fr").Lang() != English {
		t.Errorf("For(fr).Lang() = %q, want English", For("fr").Lang())
	}
}

func TestParseAppleLanguages(t *testing.T) {
	got := parseAppleLanguages("(\n    \"zh-Hans-CN\",\n    \"en-US\"\n)\n")
	if want := []string{"zh-Hans-CN", "en-US"}; !slices.Equal(got, want) {
		t.Errorf("parseAppleLanguages = %q, want %q", got, want)
	}
}

// TestMsg: a message made now prints in the language of the Printer that
// prints it; a literal prints as it is; the zero Msg prints "".
func TestMsg(t *testing.T) {
	m := MN("state.juggling_n", 2)
	if got, want := For(Chinese).Msg(m), For(Chinese).N("state.juggling_n", 2); got != want {
		t.Errorf("zh.Msg(MN) = %q, want %q", got, want)
	}
	var en Printer
	if got, want := en.Msg(M("tray.asks", "Codex", "which?")), "Codex asks: which?"; got != want || M("tray.asks").Key() != "tray.asks" {
		t.Errorf("en.Msg(M(tray.asks)) = %q, want %q", got, want)
	}
	if got := For(Chinese).Msg(Literal("clawd serve")); got != "clawd serve" || Literal("x").Key() != "" {
		t.Errorf("zh.Msg(Literal) = %q, want clawd serve, and no key", got)
	}
	if got := en.Msg(Msg{}); got != "" || !(Msg{}).IsZero() || !Literal("").IsZero() {
		t.Errorf("the zero Msg prints %q, want nothing", got)
	}
}
