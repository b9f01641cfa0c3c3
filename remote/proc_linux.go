package remote

import (
	"os/exec"
	"syscall"
)

// dieWithParent makes the kernel end the tunnel's ssh when clawd serve
// dies, even by SIGKILL: no tunnel outlives the runtime it leads to.
func dieWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
}
