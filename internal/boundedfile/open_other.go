//go:build !unix

package boundedfile

import "os"

// open opens path to read. Windows has no FIFOs in the file system (its
// named pipes live under \\.\pipe\), so a plain open does not block.
func open(path string) (*os.File, error) { return os.Open(path) }
