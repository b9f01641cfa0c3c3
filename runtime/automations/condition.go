package automations

import (
	"fmt"
	"reflect"
	"regexp"
	"strings"
)

// Condition says whether a definition acts on an event. A leaf compares
// the value at Path with Value through Op; All, Any and Not combine
// conditions. The zero Condition (none set) always holds.
type Condition struct {
	All []Condition `toml:"all,omitempty" json:"all,omitempty"`
	Any []Condition `toml:"any,omitempty" json:"any,omitempty"`
	Not *Condition  `toml:"not,omitempty" json:"not,omitempty"`

	Path string `toml:"path,omitempty" json:"path,omitempty"`
	Op   string `toml:"op,omitempty" json:"op,omitempty"`
	// Value is a string, number or boolean; absent, a leaf compares with
	// null (`op = "eq"` and no value: the field is missing or null).
	Value any `toml:"value,omitempty" json:"value,omitempty"`

	re *regexp.Regexp // Op "matches", compiled by check
}

// Leaf operators.
const (
	OpEq       = "eq"
	OpNe       = "ne"
	OpContains = "contains"
	OpExists   = "exists"
	OpMatches  = "matches"
)

// maxConditionDepth bounds nesting.
const maxConditionDepth = 16

// empty reports whether c sets nothing: no condition.
func (c *Condition) empty() bool {
	return c == nil || len(c.All) == 0 && len(c.Any) == 0 && c.Not == nil && c.Path == "" && c.Op == ""
}

// check validates c for event, compiles its regular expressions, and says
// what is wrong with the field name where it is.
func (c *Condition) check(event EventName, where string, depth int) error {
	if depth > maxConditionDepth {
		return fmt.Errorf("%s: nested deeper than %d levels", where, maxConditionDepth)
	}
	combos := 0
	for _, set := range []bool{len(c.All) > 0, len(c.Any) > 0, c.Not != nil} {
		if set {
			combos++
		}
	}
	leaf := c.Path != "" || c.Op != "" || c.Value != nil
	switch {
	case combos > 1 || combos == 1 && leaf:
		return fmt.Errorf("%s: one of all, any, not, or a leaf (path, op, value) per condition", where)
	case len(c.All) > 0:
		for i := range c.All {
			if err := c.All[i].check(event, fmt.Sprintf("%s.all[%d]", where, i), depth+1); err != nil {
				return err
			}
		}
		return nil
	case len(c.Any) > 0:
		for i := range c.Any {
			if err := c.Any[i].check(event, fmt.Sprintf("%s.any[%d]", where, i), depth+1); err != nil {
				return err
			}
		}
		return nil
	case c.Not != nil:
		if c.Not.empty() {
			return fmt.Errorf("%s.not: empty condition", where)
		}
		return c.Not.check(event, where+".not", depth+1)
	case !leaf:
		return nil
	}
	if c.Path == "" {
		return fmt.Errorf("%s: a leaf needs a path", where)
	}
	if err := checkPath(c.Path, event); err != nil {
		return fmt.Errorf("%s.path: %w", where, err)
	}
	switch c.Value.(type) {
	case nil, string, bool, int64, float64:
	default:
		return fmt.Errorf("%s.value: a string, number or boolean (or no value for null), not %T", where, c.Value)
	}
	switch c.Op {
	case OpEq, OpNe:
	case OpContains:
		if c.Value == nil {
			return fmt.Errorf("%s.value: contains needs a value", where)
		}
	case OpExists:
		if c.Value != nil {
			return fmt.Errorf("%s.value: exists takes no value", where)
		}
	case OpMatches:
		s, ok := c.Value.(string)
		if !ok {
			return fmt.Errorf("%s.value: matches needs a regular expression as a string", where)
		}
		re, err := regexp.Compile(s)
		if err != nil {
			return fmt.Errorf("%s.value: %v", where, err)
		}
		c.re = re
	case "":
		return fmt.Errorf("%s: a leaf needs an op (eq, ne, contains, exists, matches)", where)
	default:
		return fmt.Errorf("%s.op: unknown operator %q (eq, ne, contains, exists, matches)", where, c.Op)
	}
	return nil
}

// eval evaluates a checked c against doc (the envelope as JSON values).
// A path that leads nowhere makes a leaf false (ne and exists too: "not
// equal" needs something to compare).
func (c *Condition) eval(doc any) bool {
	switch {
	case len(c.All) > 0:
		for i := range c.All {
			if !c.All[i].eval(doc) {
				return false
			}
		}
		return true
	case len(c.Any) > 0:
		for i := range c.Any {
			if c.Any[i].eval(doc) {
				return true
			}
		}
		return false
	case c.Not != nil:
		return !c.Not.eval(doc)
	case c.empty():
		return true
	}
	v, found := resolve(doc, c.Path)
	switch c.Op {
	case OpExists:
		return found && v != nil
	case OpEq:
		return found && equal(v, c.Value) || !found && c.Value == nil
	case OpNe:
		return found && !equal(v, c.Value)
	case OpContains:
		switch v := v.(type) {
		case string:
			s, ok := c.Value.(string)
			return ok && strings.Contains(v, s)
		case []any:
			for _, el := range v {
				if equal(el, c.Value) {
					return true
				}
			}
		}
		return false
	case OpMatches:
		s, ok := v.(string)
		return found && ok && c.re != nil && c.re.MatchString(s)
	}
	return false
}

// equal compares a JSON value with a condition's value: numbers by value
// (TOML integers and JSON float64 alike), nil with nil.
func equal(v, want any) bool {
	if want == nil {
		return v == nil
	}
	if isNumber(v) && isNumber(want) {
		return toFloat(v) == toFloat(want)
	}
	return reflect.DeepEqual(v, want)
}

func isNumber(v any) bool {
	switch v.(type) {
	case int64, float64, int:
		return true
	}
	return false
}

func toFloat(v any) float64 {
	switch n := v.(type) {
	case int64:
		return float64(n)
	case int:
		return float64(n)
	case float64:
		return n
	}
	return 0
}
