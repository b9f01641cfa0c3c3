//go:build unix

package client

import (
	"errors"
	"syscall"
	"time"
)

// roundTrip sends req to 127.0.0.1:port over a blocking socket whose send
// and receive timeouts end at deadline, and returns the response head.
func roundTrip(port int, req []byte, deadline time.Time) ([]byte, error) {
	left := time.Until(deadline)
	if left <= 0 {
		return nil, errTimeout
	}
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
	if err != nil {
		return nil, err
	}
	defer syscall.Close(fd)
	syscall.CloseOnExec(fd)
	tv := syscall.NsecToTimeval(left.Nanoseconds())
	// SO_SNDTIMEO also bounds connect(2).
	if err := syscall.SetsockoptTimeval(fd, syscall.SOL_SOCKET, syscall.SO_SNDTIMEO, &tv); err != nil {
		return nil, err
	}
	if err := syscall.SetsockoptTimeval(fd, syscall.SOL_SOCKET, syscall.SO_RCVTIMEO, &tv); err != nil {
		return nil, err
	}
	sa := &syscall.SockaddrInet4{Port: port, Addr: [4]byte{127, 0, 0, 1}}
	if err := retryEINTR(func() error { return syscall.Connect(fd, sa) }); err != nil {
		return nil, timeoutErr(err)
	}
	for len(req) > 0 {
		var n int
		err := retryEINTR(func() (err error) { n, err = syscall.Write(fd, req); return err })
		if err != nil {
			return nil, timeoutErr(err)
		}
		req = req[n:]
	}
	return readHead(func(b []byte) (int, error) {
		var n int
		err := retryEINTR(func() (err error) { n, err = syscall.Read(fd, b); return err })
		if n < 0 {
			n = 0
		}
		return n, timeoutErr(err)
	})
}

var errTimeout = errors.New("i/o timeout")

// timeoutErr names the errno a socket timeout gives.
func timeoutErr(err error) error {
	if errors.Is(err, syscall.EAGAIN) || errors.Is(err, syscall.EWOULDBLOCK) || errors.Is(err, syscall.EINPROGRESS) {
		return errTimeout
	}
	return err
}

func retryEINTR(f func() error) error {
	for {
		if err := f(); !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}
