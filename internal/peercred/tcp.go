package peercred

import (
	"errors"
	"net"
)

// ErrNoSocket means no socket of the kind asked for was found: the peer
// closed its end already, or nothing listens there.
var ErrNoSocket = errors.New("no such socket")

// TCP returns the user id of the process at the other end of c, a TCP
// connection between two sockets of this machine that a server accepted:
// the owner of the socket whose own address is c's remote address and
// whose peer is c's local address. A peer on another machine, or one that
// is gone already, is ErrNoSocket; a platform that does not say,
// ErrUnsupported.
func TCP(c net.Conn) (int, error) {
	local, ok1 := c.LocalAddr().(*net.TCPAddr)
	remote, ok2 := c.RemoteAddr().(*net.TCPAddr)
	if !ok1 || !ok2 {
		return -1, ErrNoSocket
	}
	return tcpOwner(remote, local, false)
}

// TCPListener returns the user id of the process that listens on addr, a
// TCP address of this machine (127.0.0.1:23333): whoever holds a port
// clawd would take. ErrNoSocket when nothing listens there.
func TCPListener(addr *net.TCPAddr) (int, error) {
	return tcpOwner(addr, nil, true)
}
