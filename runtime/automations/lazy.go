package automations

import (
	"regexp"
	"sync"
)

// lazyRegexp compiles expr on first use. The package is linked into every
// clawd process, the hook's included, which never evaluates an
// automation: compiling its patterns at init cost each hook 0.4 ms.
func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
