package peercred

import "golang.org/x/sys/unix"

// FD returns the user id of the peer of the connected Unix socket fd
// (LOCAL_PEERCRED, what getpeereid(3) reads).
func FD(fd int) (int, error) {
	cred, err := unix.GetsockoptXucred(fd, unix.SOL_LOCAL, unix.LOCAL_PEERCRED)
	if err != nil {
		return -1, err
	}
	return int(cred.Uid), nil
}
