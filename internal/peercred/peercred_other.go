//go:build !linux && !darwin

package peercred

// FD reports ErrUnsupported: this platform's peer credentials are not
// wired up.
func FD(fd int) (int, error) { return -1, ErrUnsupported }
