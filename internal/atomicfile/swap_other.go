//go:build !linux

package atomicfile

// swapIf puts tmp in path's place if expect accepts what path holds just
// before.
func swapIf(tmp, path string, expect func([]byte, bool) error) error {
	return checkThenRename(tmp, path, expect)
}

// removeIf removes path if expect accepts what it holds just before.
func removeIf(path string, expect func([]byte, bool) error) error {
	return checkThenRemove(path, expect)
}
