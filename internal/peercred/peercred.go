// Package peercred tells which user is at the other end of a Unix socket:
// the runtime checks that every process connecting to its socket runs as
// the person, and hooks and the CLI check that the process listening on it
// does, before a byte of an agent's payload goes out.
package peercred

import (
	"errors"
	"fmt"
	"net"
	"syscall"
)

// ErrUnsupported means the platform does not report a socket peer's user
// (Windows, and Unix systems other than Linux and macOS). The socket's
// private folder is then the only guard.
var ErrUnsupported = errors.New("peer credentials not available on this platform")

// Conn returns the user id of the process at the other end of c, a Unix
// socket connection: for a connection a server accepted, the client's; for
// a client's connection, the server's (as it was when it began to listen).
func Conn(c net.Conn) (int, error) {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return -1, fmt.Errorf("peer credentials of a %T", c)
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return -1, err
	}
	uid := -1
	var uerr error
	if err := raw.Control(func(fd uintptr) { uid, uerr = FD(int(fd)) }); err != nil {
		return -1, err
	}
	return uid, uerr
}
