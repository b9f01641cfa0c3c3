package peercred

import (
	"bufio"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"net"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// procTCP are the kernel's tables of this network namespace's TCP
// sockets, each line with its owner's uid.
var procTCP = []string{"/proc/net/tcp", "/proc/net/tcp6"}

// The state column's values clawd looks at: a listening socket, and one
// in TIME_WAIT, whose line names uid 0 whoever owned it (the kernel keeps
// only a small record of a closed socket).
const (
	tcpListen   = "0A"
	tcpTimeWait = "06"
)

// tcpOwner finds the socket whose own address is local and, unless
// listening, whose peer is remote, in the kernel's tables, and returns its
// uid.
func tcpOwner(local, remote *net.TCPAddr, listening bool) (int, error) {
	if !listening {
		// The socket may be IPv4, or IPv6 holding an IPv4-mapped address.
		uid, err := diagOwner(unix.AF_INET, local, remote)
		if errors.Is(err, ErrNoSocket) {
			uid, err = diagOwner(unix.AF_INET6, local, remote)
		}
		if !errors.Is(err, errDiag) {
			return uid, err
		}
	}
	var firstErr error
	for _, path := range procTCP {
		uid, err := scanTCP(path, local, remote, listening)
		if err == nil {
			return uid, nil
		}
		if firstErr == nil || firstErr == ErrNoSocket {
			firstErr = err
		}
	}
	return -1, firstErr
}

func scanTCP(path string, local, remote *net.TCPAddr, listening bool) (int, error) {
	f, err := os.Open(path)
	if err != nil {
		if os.IsNotExist(err) {
			return -1, ErrNoSocket // no IPv6 in this kernel
		}
		return -1, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Scan() // the header
	for sc.Scan() {
		// sl local_address rem_address st tx:rx tr:when retrnsmt uid ...
		fields := strings.Fields(sc.Text())
		if len(fields) < 8 {
			continue
		}
		if fields[3] == tcpTimeWait || (fields[3] == tcpListen) != listening || !sameAddr(fields[1], local) {
			continue
		}
		if !listening && !sameAddr(fields[2], remote) {
			continue
		}
		uid, err := strconv.Atoi(fields[7])
		if err != nil {
			continue
		}
		return uid, nil
	}
	if err := sc.Err(); err != nil {
		return -1, err
	}
	return -1, ErrNoSocket
}

// sameAddr reports whether the kernel's "0100007F:5B25" names a: the
// address as 32-bit words in the machine's byte order, in hex, and the
// port in hex. An IPv4 address matches its IPv4-mapped IPv6 form.
func sameAddr(field string, a *net.TCPAddr) bool {
	ipHex, portHex, ok := strings.Cut(field, ":")
	if !ok || len(ipHex)%8 != 0 {
		return false
	}
	port, err := strconv.ParseUint(portHex, 16, 16)
	if err != nil || int(port) != a.Port {
		return false
	}
	raw, err := hex.DecodeString(ipHex)
	if err != nil {
		return false
	}
	ip := make(net.IP, len(raw))
	for i := 0; i < len(raw); i += 4 {
		binary.NativeEndian.PutUint32(ip[i:], binary.BigEndian.Uint32(raw[i:]))
	}
	return ip.Equal(a.IP)
}
