package automations

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/clawdhq/clawd/internal/lazy"
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

// eval computes x against doc. A path that leads nowhere is an error
// (the mapping fails, nothing is sent); in a template it is "".
func (x *Expr) eval(doc any) (any, error) {
	switch {
	case x.Path != "":
		v, ok := resolve(doc, x.Path)
		if !ok {
			return nil, fmt.Errorf("path %q leads nowhere in this event", x.Path)
		}
		return v, nil
	case x.Null:
		return nil, nil
	case x.Const != nil:
		return x.Const, nil
	}
	return expand(x.Template, doc), nil
}

// expand fills a template's placeholders: a value's text, "" for null or
// nothing, JSON for objects and arrays; "$${" stays a literal "${". The
// result is trimmed.
func expand(tmpl string, doc any) string {
	out := placeholder().ReplaceAllStringFunc(tmpl, func(m string) string {
		if strings.HasPrefix(m, "$$") {
			return m[1:]
		}
		path := strings.TrimSpace(m[2 : len(m)-1])
		v, ok := resolve(doc, path)
		if !ok || v == nil {
			return ""
		}
		switch v := v.(type) {
		case string:
			return v
		case map[string]any, []any:
			b, _ := json.Marshal(v)
			return string(b)
		case float64:
			b, _ := json.Marshal(v)
			return string(b)
		}
		return fmt.Sprint(v)
	})
	return strings.TrimSpace(out)
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

// eval maps doc to the action's input.
func (in Input) eval(doc any) (map[string]any, error) {
	out := make(map[string]any, len(in))
	for _, k := range in.keys() {
		x := in[k]
		v, err := x.eval(doc)
		if err != nil {
			return nil, fmt.Errorf("input.%s: %w", k, err)
		}
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
