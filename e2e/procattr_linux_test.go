//go:build linux

package e2e

import (
	"os/exec"
	"syscall"
)

// orphanProof makes the kernel kill cmd when the test process dies, so an
// interrupted test run leaves no clawd serve or claude behind.
func orphanProof(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
