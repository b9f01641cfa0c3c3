package atomicfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// StaleAfter is how long ago a temporary file of Write, WriteIf or their
// swaps must last have changed for RemoveStale to take it for one whose
// writer died. A live writer holds its temporary file for the
// milliseconds of a write, check and rename.
const StaleAfter = time.Minute

// tempPattern is os.CreateTemp's pattern for the temporary files next to
// path: ".<name>.<random digits>.tmp".
func tempPattern(path string) string { return "." + filepath.Base(path) + ".*.tmp" }

// isTemp reports whether name is one of path's temporary files as
// os.CreateTemp names them from tempPattern: the * is a decimal uint32.
func isTemp(path, name string) bool {
	prefix, suffix, _ := strings.Cut(tempPattern(path), "*")
	digits, ok := strings.CutPrefix(name, prefix)
	if digits, ok = strings.CutSuffix(digits, suffix); !ok || len(digits) == 0 || len(digits) > 10 {
		return false
	}
	for _, c := range []byte(digits) {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// RemoveStale removes the temporary files that a Write or WriteIf of path
// killed before its rename left next to it: the regular files named as
// clawd names them (".<name>.<digits>.tmp") that last changed before
// cutoff (typically StaleAfter ago). Nothing else in the folder is
// touched: not another program's ".<name>.tmp", not a kept displaced
// version, not a temporary file a live writer is using. It returns the
// paths it removed; an error only when the folder cannot be listed (none
// when it does not exist).
func RemoveStale(path string, cutoff time.Time) ([]string, error) {
	dir := filepath.Dir(path)
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var removed []string
	for _, e := range entries {
		if !e.Type().IsRegular() || !isTemp(path, e.Name()) {
			continue
		}
		p := filepath.Join(dir, e.Name())
		fi, err := os.Lstat(p)
		if err != nil || !fi.Mode().IsRegular() || !lastChange(fi).Before(cutoff) {
			continue
		}
		if os.Remove(p) == nil {
			removed = append(removed, p)
		}
	}
	return removed, nil
}
