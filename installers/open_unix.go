//go:build unix

package installers

import (
	"os"
	"syscall"
)

// openNoBlock opens path for reading without blocking on a FIFO with no
// writer, so that readRegular can see what it is and refuse it.
func openNoBlock(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
}
