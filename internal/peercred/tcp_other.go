//go:build !linux

package peercred

import "net"

// tcpOwner reports ErrUnsupported: only Linux's kernel tables are read.
func tcpOwner(local, remote *net.TCPAddr, listening bool) (int, error) {
	return -1, ErrUnsupported
}
