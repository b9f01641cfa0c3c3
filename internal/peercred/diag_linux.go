package peercred

import (
	"encoding/binary"
	"errors"
	"net"
	"syscall"

	"golang.org/x/sys/unix"
)

// The kernel's socket diagnostics (NETLINK_SOCK_DIAG, linux/inet_diag.h):
// one exact lookup of a socket by its addresses, answered with its
// owner's uid. /proc/net/tcp lists every socket of the namespace, so a
// flood of connections would make each lookup there longer than the last;
// this one costs the same whatever else is open.
const (
	sizeofSockID  = 48 // inet_diag_sockid
	sizeofReqV2   = 8 + sizeofSockID
	sizeofDiagMsg = 4 + sizeofSockID + 20 // inet_diag_msg: ... expires, rqueue, wqueue, uid, inode
	tcpStateAll   = 0xfff
	stateTimeWait = 6
)

// errDiag means the kernel's diagnostics could not be asked (a kernel
// without them, a sandbox that refuses netlink): /proc/net/tcp answers.
var errDiag = errors.New("socket diagnostics not available")

// diagOwner asks the kernel who owns the TCP socket whose own address is
// local and whose peer is remote, in family (AF_INET or AF_INET6).
func diagOwner(family int, local, remote *net.TCPAddr) (int, error) {
	src, dst := diagAddr(family, local.IP), diagAddr(family, remote.IP)
	if src == nil || dst == nil {
		return -1, ErrNoSocket
	}
	fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, unix.NETLINK_SOCK_DIAG)
	if err != nil {
		return -1, errDiag
	}
	defer unix.Close(fd)
	req := make([]byte, unix.SizeofNlMsghdr+sizeofReqV2)
	ne := binary.NativeEndian
	ne.PutUint32(req[0:], uint32(len(req)))
	ne.PutUint16(req[4:], unix.SOCK_DIAG_BY_FAMILY)
	ne.PutUint16(req[6:], unix.NLM_F_REQUEST)
	ne.PutUint32(req[8:], 1) // sequence
	r := req[unix.SizeofNlMsghdr:]
	r[0], r[1] = byte(family), unix.IPPROTO_TCP
	ne.PutUint32(r[4:], tcpStateAll)
	id := r[8:]
	binary.BigEndian.PutUint16(id[0:], uint16(local.Port))
	binary.BigEndian.PutUint16(id[2:], uint16(remote.Port))
	copy(id[4:20], src)
	copy(id[20:36], dst)
	ne.PutUint32(id[40:], ^uint32(0)) // no cookie
	ne.PutUint32(id[44:], ^uint32(0))
	if err := unix.Sendto(fd, req, 0, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		return -1, errDiag
	}
	buf := make([]byte, 1024)
	n, _, err := unix.Recvfrom(fd, buf, 0)
	if err != nil {
		return -1, errDiag
	}
	buf = buf[:n]
	if len(buf) < unix.SizeofNlMsghdr {
		return -1, errDiag
	}
	switch ne.Uint16(buf[4:]) {
	case unix.NLMSG_ERROR:
		if len(buf) >= unix.SizeofNlMsghdr+4 {
			if errno := -int32(ne.Uint32(buf[unix.SizeofNlMsghdr:])); errno == int32(syscall.ENOENT) {
				return -1, ErrNoSocket
			}
		}
		return -1, errDiag
	case unix.SOCK_DIAG_BY_FAMILY:
	default:
		return -1, errDiag
	}
	msg := buf[unix.SizeofNlMsghdr:]
	if len(msg) < sizeofDiagMsg {
		return -1, errDiag
	}
	if msg[1] == stateTimeWait {
		return -1, ErrNoSocket // a closed socket's record names uid 0 whoever owned it
	}
	return int(ne.Uint32(msg[4+sizeofSockID+12:])), nil
}

// diagAddr is ip as inet_diag_sockid holds it: 16 bytes, an IPv4 address
// in the first four.
func diagAddr(family int, ip net.IP) []byte {
	out := make([]byte, 16)
	if family == unix.AF_INET {
		v4 := ip.To4()
		if v4 == nil {
			return nil
		}
		copy(out, v4)
		return out
	}
	v6 := ip.To16()
	if v6 == nil {
		return nil
	}
	copy(out, v6)
	return out
}
