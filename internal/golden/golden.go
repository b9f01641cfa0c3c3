// Package golden is how clawd's tests compare what they produce with a
// file they keep beside them (a golden file), and how such a file is
// rewritten when the output changes on purpose: `go test ./pkg -update`,
// then a read of the diff before committing it.
package golden

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/aymanbagabas/go-udiff"
)

var update = flag.Bool("update", false, "rewrite the golden files instead of comparing with them")

// Update reports whether this test run rewrites golden files (-update).
func Update() bool { return *update }

// Check compares got with the file at path; with -update it writes got
// there instead, making its folder. A difference fails t with a unified
// diff from the file to got, and Check reports whether they were equal.
func Check(t testing.TB, path string, got []byte) bool {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return true
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update writes it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (go test -update rewrites it):\n%s", path, udiff.Unified(path, "got", string(want), string(got)))
		return false
	}
	return true
}
