//go:build !windows

package runtime

import "syscall"

// openNonBlock opens a file without blocking: a FIFO put in a transcript's
// place cannot hold the reader (openRegular then refuses it).
const openNonBlock = syscall.O_NONBLOCK
