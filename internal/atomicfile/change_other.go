//go:build !linux

package atomicfile

import (
	"io/fs"
	"time"
)

// lastChange is when fi's file was last written. Only Linux's swapIf puts
// an older file under a temporary name, so the mtime tells.
func lastChange(fi fs.FileInfo) time.Time { return fi.ModTime() }
