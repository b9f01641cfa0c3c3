package atomicfile

import (
	"io/fs"
	"syscall"
	"time"
)

// lastChange is when fi's file last changed, its contents or its name:
// the later of its mtime and its ctime. A rename sets the ctime, which
// matters here: swapIf's exchange puts the file it displaced, whose
// mtime may be days old, under the temporary name for a moment.
func lastChange(fi fs.FileInfo) time.Time {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fi.ModTime()
	}
	if c := time.Unix(st.Ctim.Unix()); c.After(fi.ModTime()) {
		return c
	}
	return fi.ModTime()
}
