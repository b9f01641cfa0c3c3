// Package lazy holds values clawd builds on first use rather than at
// package init. Every package of clawd is linked into every clawd
// process, and the hook, which starts once per agent event and must be
// quick, uses few of them: a regexp compiled at init costs it 20–200 µs
// and hundreds of allocations whether it is used or not.
package lazy

import (
	"regexp"
	"sync"
)

// Regexp compiles expr on first use; it panics then if expr is invalid,
// as regexp.MustCompile would at init (a test that uses it finds out).
func Regexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
