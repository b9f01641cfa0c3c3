//go:build !linux

package e2e

// codexProc is a running process of a Codex home.
type codexProc struct {
	pid     int
	cmdline string
}

// codexProcesses finds nothing where there is no /proc to look in: the
// daemon stop itself is all the cleanup there.
func codexProcesses(string) []codexProc { return nil }
