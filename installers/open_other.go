//go:build !unix

package installers

import "os"

// openNoBlock opens path for reading (there are no FIFOs in the file
// system here).
func openNoBlock(path string) (*os.File, error) { return os.Open(path) }
