//go:build unix

package boundedfile

import (
	"os"
	"syscall"
)

// open opens path to read without blocking: with O_NONBLOCK the open of a
// FIFO returns at once instead of waiting for a writer (Read then refuses
// it after the fstat). On a regular file the flag changes nothing.
func open(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}
