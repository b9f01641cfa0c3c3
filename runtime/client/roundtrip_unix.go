//go:build unix

package client

import (
	"errors"
	"fmt"
	"syscall"
	"time"

	"github.com/clawdhq/clawd/internal/peercred"
)

// roundTrip sends req to the runtime's socket at sock over a blocking
// socket whose send and receive timeouts end at deadline, and returns the
// response head. The socket's folder and the listening process's user are
// checked before req goes out.
func roundTrip(sock string, req []byte, deadline time.Time) ([]byte, error) {
	left := time.Until(deadline)
	if left <= 0 {
		return nil, errTimeout
	}
	if err := checkSocketDir(sock); err != nil {
		return nil, err
	}
	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
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
	sa := &syscall.SockaddrUnix{Name: sock}
	if err := retryEINTR(func() error { return syscall.Connect(fd, sa) }); err != nil {
		if notListening(err) {
			return nil, fmt.Errorf("%w: connect %s: %v", ErrNotRunning, sock, err)
		}
		return nil, timeoutErr(err)
	}
	if err := checkPeerUID(peercred.FD(fd)); err != nil {
		return nil, err
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
