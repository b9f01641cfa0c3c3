package peercred

import "syscall"

// FD returns the user id of the peer of the connected Unix socket fd
// (SO_PEERCRED).
func FD(fd int) (int, error) {
	cred, err := syscall.GetsockoptUcred(fd, syscall.SOL_SOCKET, syscall.SO_PEERCRED)
	if err != nil {
		return -1, err
	}
	return int(cred.Uid), nil
}
