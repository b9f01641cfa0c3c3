//go:build unix

package spool

import (
	"errors"
	"fmt"
	"syscall"
)

// appendOnce writes line at the end of the file at path (made 0600) in one
// write(2), unless the file already holds something and line would take
// it past half (errFull). It uses the system calls directly: package os
// would start Go's poller for the file, which a hook process pays for
// and never uses. O_NONBLOCK makes a FIFO planted at path fail at once
// rather than wait for a reader; O_NOFOLLOW refuses a link.
func appendOnce(path string, line []byte, half int64) (size int64, err error) {
	fd, err := retry(func() (int, error) {
		return syscall.Open(path, syscall.O_WRONLY|syscall.O_APPEND|syscall.O_CREAT|syscall.O_CLOEXEC|
			syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0o600)
	})
	if err != nil {
		return 0, fmt.Errorf("spool: open %s: %w", path, err)
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return 0, fmt.Errorf("spool: stat %s: %w", path, err)
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		return 0, fmt.Errorf("spool: %s: %w", path, ErrNotRegular)
	}
	if st.Size > 0 && st.Size+int64(len(line)) > half {
		return st.Size, errFull
	}
	// One write: O_APPEND places it whole at the end. A short write only
	// happens when the disk is full, and the rest then fails too.
	for len(line) > 0 {
		n, err := retry(func() (int, error) { return syscall.Write(fd, line) })
		if err != nil {
			return st.Size, fmt.Errorf("spool: write %s: %w", path, err)
		}
		line = line[n:]
	}
	return st.Size, nil
}

func retry(f func() (int, error)) (int, error) {
	for {
		n, err := f()
		if !errors.Is(err, syscall.EINTR) {
			return n, err
		}
	}
}
