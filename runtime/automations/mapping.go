package automations

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/clawdhq/clawd/internal/lazy"
	"github.com/clawdhq/clawd/internal/text"
)

// Expr is one value of an input mapping or a notification's text:
// exactly one of Path (the value at a path, its type kept), Const (a
// string, number or boolean; Null for null) and Template (a string with
// ${path} placeholders).
type Expr struct {
	Path     string `toml:"path,omitempty" json:"path,omitempty"`
	Const    any    `toml:"const,omitempty" json:"const,omitempty"`
	Null     bool   `toml:"null,omitempty" json:"null,omitempty"`
	Template string `toml:"template,omitempty" json:"template,omitempty"`
}

// placeholder matches ${path}; "$${" writes a literal "${".
var placeholder = lazy.Regexp(`\$?\$\{([^}]+)\}`)

func (x *Expr) check(event EventName, where string) error {
	set := 0
	for _, b := range []bool{x.Path != "", x.Const != nil, x.Null, x.Template != ""} {
		if b {
			set++
		}
	}
	if set != 1 {
		return fmt.Errorf("%s: exactly one of path, const, null = true, template", where)
	}
	switch {
	case x.Path != "":
		if err := checkPath(x.Path, event); err != nil {
			return fmt.Errorf("%s.path: %w", where, err)
		}
	case x.Const != nil:
		switch x.Const.(type) {
		case string, bool, int64, float64:
		default:
			return fmt.Errorf("%s.const: a string, number or boolean, not %T", where, x.Const)
		}
	case x.Template != "":
		for _, m := range placeholder().FindAllStringSubmatch(x.Template, -1) {
			if strings.HasPrefix(m[0], "$$") {
				continue
			}
			if err := checkPath(strings.TrimSpace(m[1]), event); err != nil {
				return fmt.Errorf("%s.template: %w", where, err)
			}
		}
	}
	return nil
}

// Bounds of what a mapping makes and what an action is sent. The largest
// text an event carries is an answer, cut to agents.MaxResponseLen (64
// KiB): one value may quote it with words around it, or hold the whole
// payload, so maxValue is twice that. The input as a whole stays within
// maxInput, which leaves room in maxBody for the event itself (the answer
// again, at worst a few times its size once JSON-escaped). maxBody, 1 MiB,
// is a request any receiver takes and nothing serve would notice; a
// definition that would build more (say 10,000 copies of the answer in one
// template) fails its run instead of making hundreds of megabytes.
const (
	maxValue = 128 << 10
	maxInput = 512 << 10
	maxBody  = 1 << 20
)

// errTooLarge is a mapped value over its bound.
var errTooLarge = errors.New("more than the limit")

// eval computes x against doc: the value and its size in an action's body
// (a string's bytes, the JSON of an object or array), at most max. A path
// that leads nowhere is an error (the mapping fails, nothing is sent); in
// a template it is "". A value over max is an error too (errTooLarge):
// the mapping fails rather than send a cut value nobody asked for.
func (x *Expr) eval(doc any, max int) (v any, size int, err error) {
	switch {
	case x.Path != "":
		v, ok := resolve(doc, x.Path)
		if !ok {
			return nil, 0, fmt.Errorf("path %q leads nowhere in this event", x.Path)
		}
		if size = valueSize(v); size > max {
			return nil, 0, fmt.Errorf("path %q holds %w", x.Path, errTooLarge)
		}
		return v, size, nil
	case x.Null:
		return nil, 0, nil
	case x.Const != nil:
		return x.Const, valueSize(x.Const), nil
	}
	s, ok := expand(x.Template, doc, max)
	if !ok {
		return nil, 0, fmt.Errorf("the template makes %w", errTooLarge)
	}
	return s, len(s), nil
}

// valueSize is the size of v in an action's body: a string's bytes, the
// JSON of an object or array (marshalled once: it is a part of the event,
// which is bounded already), a few bytes for anything else.
func valueSize(v any) int {
	switch v := v.(type) {
	case string:
		return len(v)
	case map[string]any, []any:
		b, _ := json.Marshal(v)
		return len(b)
	}
	return 0
}

// expand fills a template's placeholders: a value's text, "" for null or
// nothing, JSON for objects and arrays; "$${" stays a literal "${". The
// result is trimmed. It stops as soon as the text would pass max bytes:
// ok is then false and s the first max bytes (cut at a rune boundary), so
// a template of many large placeholders costs max, not what it would make.
func expand(tmpl string, doc any, max int) (s string, ok bool) {
	return expandEscaped(tmpl, doc, max, nil)
}

// expandEscaped is expand with each placeholder's text passed through esc
// (when not nil) and the template's own text left as written: what a
// service would read as markup (Slack's <!channel>) can be written in the
// template, never slipped in by a value.
func expandEscaped(tmpl string, doc any, max int, esc func(string) string) (s string, ok bool) {
	s, ok, _ = walk(tmpl, max, nil, func(path string) (string, error) {
		v := fill(path, doc)
		if esc != nil {
			v = esc(v)
		}
		return v, nil
	})
	return strings.TrimSpace(s), ok
}

// walk writes tmpl within max bytes: its text through lit, each
// placeholder's path through val ("$${" is text: "${"); nil lit writes the
// text as it is. It stops at the first error, or as soon as the output
// would pass max: ok is then false and s the first max bytes, cut at a
// rune boundary.
func walk(tmpl string, max int, lit func(string) error, val func(path string) (string, error)) (s string, ok bool, err error) {
	var b strings.Builder
	add := func(p string) bool {
		if room := max - b.Len(); len(p) > room {
			b.WriteString(text.ClipBytes(p, room))
			return false
		}
		b.WriteString(p)
		return true
	}
	literal := func(p string) bool {
		if lit != nil {
			if err = lit(p); err != nil {
				return false
			}
		}
		return add(p)
	}
	ok = true
	for rest := tmpl; ok; {
		m := placeholder().FindStringSubmatchIndex(rest)
		if m == nil {
			ok = literal(rest)
			break
		}
		if ok = literal(rest[:m[0]]); !ok {
			break
		}
		if match := rest[m[0]:m[1]]; strings.HasPrefix(match, "$$") {
			ok = literal(match[1:])
		} else {
			var v string
			if v, err = val(rest[m[2]:m[3]]); err != nil {
				return b.String(), false, err
			}
			ok = add(v)
		}
		rest = rest[m[1]:]
	}
	return b.String(), ok && err == nil, err
}

// fill is what the placeholder of path writes in a text.
func fill(path string, doc any) string {
	v, ok := resolve(doc, strings.TrimSpace(path))
	if !ok || v == nil {
		return ""
	}
	switch v := v.(type) {
	case string:
		return v
	case map[string]any, []any, float64:
		b, _ := json.Marshal(v)
		return string(b)
	}
	return fmt.Sprint(v)
}

// errAfterBackslash is a JSON template's placeholder right after a
// backslash inside a string, which would escape the value's first
// character: refused when the definition is read.
var errAfterBackslash = errors.New(`a placeholder right after a backslash: write "\\${...}" for a backslash before the value`)

// expandJSON fills the placeholders of tmpl, a JSON text: inside a string
// a placeholder writes what expand would (through esc when not nil),
// escaped for JSON, so that no value can end the string; anywhere else
// the value as JSON, one whole value (null for nothing). A template that
// is JSON with each placeholder so filled (checkJSONTemplate) therefore
// makes JSON whatever the event holds; the result is checked anyway. ok
// is false over max bytes.
func expandJSON(tmpl string, doc any, max int, esc func(string) string) (s string, ok bool, err error) {
	inString, escaped := false, false
	lit := func(p string) error {
		for i := 0; i < len(p); i++ {
			switch c := p[i]; {
			case escaped:
				escaped = false
			case inString && c == '\\':
				escaped = true
			case c == '"':
				inString = !inString
			}
		}
		return nil
	}
	val := func(path string) (string, error) {
		switch {
		case escaped:
			return "", errAfterBackslash
		case inString:
			v := fill(path, doc)
			if esc != nil {
				v = esc(v)
			}
			b := marshalJSON(v)
			return string(b[1 : len(b)-1]), nil
		}
		v, _ := resolve(doc, strings.TrimSpace(path))
		return string(marshalJSON(v)), nil
	}
	s, ok, err = walk(tmpl, max, lit, val)
	if err == nil && ok && !json.Valid([]byte(s)) {
		err = errors.New("the template did not make JSON")
	}
	return s, ok, err
}

// marshalJSON is v's JSON without encoding/json's escaping of <, > and &
// (which would make a text six times its size): what a service's body
// holds.
func marshalJSON(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return []byte("null") // only values decoded from JSON get here
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// checkJSONTemplate says why tmpl, the JSON template of field (an array
// when array is set), cannot make JSON for event: a placeholder's path,
// or the JSON itself once every placeholder is filled with nothing ("" in
// a string, null elsewhere), with where in the template it goes wrong.
func checkJSONTemplate(tmpl string, event EventName, field string, array bool) error {
	x := Expr{Template: tmpl}
	if err := x.check(event, field); err != nil {
		return err
	}
	s, ok, err := expandJSON(tmpl, nil, maxBody, nil)
	switch {
	case errors.Is(err, errAfterBackslash):
		return fmt.Errorf("%s: %w", field, err)
	case !ok && err == nil:
		return fmt.Errorf("%s: more than %d KiB", field, maxBody>>10)
	}
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return fmt.Errorf("%s: not JSON with its placeholders filled in (a placeholder stands inside a string, or for a whole value): %v near %q",
				field, err, text.Line(s[max(0, int(se.Offset)-20):min(len(s), int(se.Offset)+10)], 0))
		}
		return fmt.Errorf("%s: not JSON with its placeholders filled in: %v", field, err)
	}
	if _, isArray := v.([]any); array && !isArray {
		return fmt.Errorf("%s: a JSON array ([...])", field)
	}
	return nil
}

// Input is a definition's input mapping: what the action receives, field
// by field.
type Input map[string]Expr

func (in Input) check(event EventName) error {
	for _, k := range in.keys() {
		x := in[k]
		if err := x.check(event, "input."+k); err != nil {
			return err
		}
	}
	return nil
}

// eval maps doc to the action's input: each value within maxValue, all of
// them within maxInput.
func (in Input) eval(doc any) (map[string]any, error) {
	out := make(map[string]any, len(in))
	left := maxInput
	for _, k := range in.keys() {
		x := in[k]
		v, n, err := x.eval(doc, min(maxValue, left))
		switch {
		case errors.Is(err, errTooLarge) && left < maxValue:
			return nil, fmt.Errorf("input.%s: %w of %d KiB for the whole input: map less of the event", k, err, maxInput>>10)
		case errors.Is(err, errTooLarge):
			return nil, fmt.Errorf("input.%s: %w of %d KiB for one value: map less of the event", k, err, maxValue>>10)
		case err != nil:
			return nil, fmt.Errorf("input.%s: %w", k, err)
		}
		left -= n
		out[k] = v
	}
	return out, nil
}

func (in Input) keys() []string {
	ks := make([]string, 0, len(in))
	for k := range in {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
