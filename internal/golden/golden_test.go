package golden

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// recorder is a testing.TB that keeps what a check reported.
type recorder struct {
	testing.TB
	errors []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

// TestCheck: equal output passes, a difference fails with a diff, and
// -update writes the file (its folder too) so that the next check passes.
func TestCheck(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "out.golden")
	old := *update
	t.Cleanup(func() { *update = old })

	*update = true
	Check(t, path, []byte("one\ntwo\n"))
	if b, err := os.ReadFile(path); err != nil || string(b) != "one\ntwo\n" {
		t.Fatalf("-update wrote %q, %v", b, err)
	}
	*update = false
	r := &recorder{TB: t}
	Check(r, path, []byte("one\ntwo\n"))
	if len(r.errors) != 0 {
		t.Errorf("the same output failed: %v", r.errors)
	}
	Check(r, path, []byte("one\nthree\n"))
	if len(r.errors) != 1 || !strings.Contains(r.errors[0], "-two") || !strings.Contains(r.errors[0], "+three") {
		t.Errorf("a different output reported %q, want one difference with its diff", r.errors)
	}
}
