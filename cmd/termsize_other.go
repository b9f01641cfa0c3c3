//go:build !unix && !windows

package cmd

import "os"

// terminalWidth is 0: no terminal size to ask for here.
func terminalWidth(f *os.File) int { return 0 }
