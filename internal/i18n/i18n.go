// Package i18n is clawd's languages: the message catalogs (English and
// Simplified Chinese, TOML files in catalog/, embedded) and the choice of
// the person's language.
//
// Every string a person reads goes through a Printer:
//
//	p := i18n.For(i18n.Detect(cfg.UI.Language, os.Getenv))
//	p.T("tray.dnd")            // "Do Not Disturb" / "勿扰模式"
//	p.T("tray.resume", "14:05") // fmt verbs; %[2]s to reorder
//	p.N("tray.sessions", 3)    // plural forms; the count is the first argument
//	p.Msg(m)                   // m := i18n.M("key", args...): a message made now, printed later
//
// A key is "<section>.<name>" of the catalog files. A message missing
// from a language falls back to English, and one missing from English
// shows its key; TestCatalogs fails on both, and on a key used in the
// code that no catalog has. Machine-readable output (--json, ids, event
// kinds, states in JSON) never goes through here.
package i18n

import (
	"embed"
	"fmt"
	"strings"
	"sync"

	"github.com/BurntSushi/toml"
)

// Lang is a language clawd speaks, named by its BCP 47 tag.
type Lang string

// The languages of the catalogs.
const (
	English Lang = "en"
	Chinese Lang = "zh-CN" // Simplified Chinese
)

// Langs returns the languages clawd speaks, English first.
func Langs() []Lang { return []Lang{English, Chinese} }

// Parse maps a language setting or a locale name to a language clawd
// speaks: "en", "en_US.UTF-8", "zh", "zh-CN", "zh_CN.UTF-8", "zh-Hans",
// "zh_SG"... Traditional Chinese (zh-TW, zh-HK, zh-Hant) and everything
// else is not spoken: ok is false.
func Parse(s string) (l Lang, ok bool) {
	s = strings.ToLower(strings.TrimSpace(s))
	// "zh_CN.UTF-8@latin": the language part only.
	if i := strings.IndexAny(s, ".@"); i >= 0 {
		s = s[:i]
	}
	s = strings.ReplaceAll(s, "_", "-")
	tag := strings.Split(s, "-")
	switch tag[0] {
	case "en":
		return English, true
	case "zh":
		for _, sub := range tag[1:] {
			switch sub {
			case "tw", "hk", "mo", "hant":
				return "", false
			}
		}
		return Chinese, true
	}
	return "", false
}

// Auto is the language setting that means "follow the locale".
const Auto = "auto"

// CheckSetting reports whether s is a valid [ui] language setting: ""
// or "auto", or a language Parse knows.
func CheckSetting(s string) error {
	if s == "" || s == Auto {
		return nil
	}
	if _, ok := Parse(s); !ok {
		return fmt.Errorf("not a language clawd speaks: want %q, %q or %q", Auto, English, Chinese)
	}
	return nil
}

// Detect picks the person's language: the setting (config.toml's [ui]
// language) unless it is "" or "auto"; else the first of LC_ALL,
// LC_MESSAGES and LANG that is set (POSIX's order; "C" and "POSIX" mean
// English); else the platform's UI language (the Windows user's UI
// language, macOS's AppleLanguages); else English. A locale clawd does not
// speak gives English.
func Detect(setting string, getenv func(string) string) Lang {
	if l, ok := Parse(setting); ok {
		return l
	}
	for _, v := range []string{"LC_ALL", "LC_MESSAGES", "LANG"} {
		if s := getenv(v); s != "" {
			l, _ := Parse(s)
			if l == "" {
				l = English
			}
			return l
		}
	}
	for _, s := range systemLanguages() {
		if l, ok := Parse(s); ok {
			return l
		}
	}
	return English
}

// Printer formats messages in one language. The zero Printer is English.
type Printer struct{ lang Lang }

// For returns the Printer of l; a language without a catalog gives
// English.
func For(l Lang) Printer {
	if l != Chinese {
		l = English
	}
	return Printer{lang: l}
}

// Lang returns p's language.
func (p Printer) Lang() Lang {
	if p.lang == "" {
		return English
	}
	return p.lang
}

// T returns the message of key, formatted with args (fmt verbs; a
// message without args is returned as written).
func (p Printer) T(key string, args ...any) string {
	m, ok := p.lookup(key)
	if !ok {
		return key
	}
	return format(m.other, args)
}

// N returns the message of key for the count n, formatted with n as the
// first argument and then args: a message with plural forms ({ one = ...,
// other = ... }) takes "one" for 1 and "other" for any other count.
func (p Printer) N(key string, n int, args ...any) string {
	m, ok := p.lookup(key)
	if !ok {
		return key
	}
	s := m.other
	if n == 1 && m.one != "" {
		s = m.one
	}
	return format(s, append([]any{n}, args...))
}

func (p Printer) lookup(key string) (message, bool) {
	for _, l := range []Lang{p.Lang(), English} {
		if c, err := catalog(l); err == nil {
			if m, ok := c[key]; ok {
				return m, true
			}
		}
	}
	return message{}, false
}

func format(s string, args []any) string {
	if len(args) == 0 {
		return s
	}
	return fmt.Sprintf(s, args...)
}

// message is one catalog entry: other is the message (every count but 1
// when one is set).
type message struct{ one, other string }

//go:embed catalog/*.toml
var catalogFiles embed.FS

var catalogs = map[Lang]func() (map[string]message, error){}

func init() {
	for _, l := range Langs() {
		// Parsed on first use: every clawd process, hooks included, links
		// this package, and most never print a message.
		catalogs[l] = sync.OnceValues(func() (map[string]message, error) { return load(l) })
	}
}

func catalog(l Lang) (map[string]message, error) { return catalogs[l]() }

// load reads the catalog of l: sections of keys whose values are a string
// or a table of plural forms { one = "...", other = "..." }.
func load(l Lang) (map[string]message, error) {
	name := "catalog/" + string(l) + ".toml"
	data, err := catalogFiles.ReadFile(name)
	if err != nil {
		return nil, err
	}
	var raw map[string]any
	if _, err := toml.Decode(string(data), &raw); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	out := map[string]message{}
	var walk func(prefix string, t map[string]any) error
	walk = func(prefix string, t map[string]any) error {
		for k, v := range t {
			key := k
			if prefix != "" {
				key = prefix + "." + k
			}
			switch v := v.(type) {
			case string:
				out[key] = message{other: v}
			case map[string]any:
				if m, ok := plural(v); ok {
					out[key] = m
					continue
				}
				if err := walk(key, v); err != nil {
					return err
				}
			default:
				return fmt.Errorf("%s: %s is a %T, want a string or { one, other }", name, key, v)
			}
		}
		return nil
	}
	if err := walk("", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// plural reads a table of plural forms: "other", and "one" or not.
func plural(t map[string]any) (message, bool) {
	other, ok := t["other"].(string)
	if !ok {
		return message{}, false
	}
	one, _ := t["one"].(string)
	for k := range t {
		if k != "one" && k != "other" {
			return message{}, false
		}
	}
	return message{one: one, other: other}, true
}

// Keys returns the keys of l's catalog, for tests and tools; an error
// means the embedded file does not parse.
func Keys(l Lang) ([]string, error) {
	c, err := catalog(l)
	if err != nil {
		return nil, err
	}
	keys := make([]string, 0, len(c))
	for k := range c {
		keys = append(keys, k)
	}
	return keys, nil
}

// Form is a message as a page's script takes it: Other, and One for the
// count 1 when the message has plural forms.
type Form struct {
	One   string `json:"one,omitempty"`
	Other string `json:"other"`
}

// Sections returns the messages of the catalog sections named (their
// keys "<section>.<name>", subsections included) in p's language, each
// falling back to English as T does: what the dashboard's script formats
// itself.
func (p Printer) Sections(names ...string) map[string]Form {
	out := map[string]Form{}
	for _, l := range []Lang{English, p.Lang()} {
		c, err := catalog(l)
		if err != nil {
			continue
		}
		for k, m := range c {
			for _, name := range names {
				if strings.HasPrefix(k, name+".") {
					out[k] = Form{One: m.one, Other: m.other}
				}
			}
		}
	}
	return out
}
