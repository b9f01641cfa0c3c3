//go:build unix

package boundedfile

import (
	"os"
	"syscall"
)

// open opens path to read without blocking: O_NONBLOCK makes the open of
// a FIFO return at once instead of waiting for a writer, and Read refuses
// it after the fstat. On a regular file the flag changes nothing.
func open(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
}
