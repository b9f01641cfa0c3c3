//go:build !linux

package remote

import "os/exec"

// dieWithParent does nothing where the kernel cannot end a child with
// its parent: a serve that is killed leaves its ssh running until the
// connection drops.
func dieWithParent(cmd *exec.Cmd) {}
