//go:build unix

package automations

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
)

// group is the process group of one command action: the command leads
// it, and what it starts stays in it unless it leaves on purpose
// (setsid).
type group struct{ cmd *exec.Cmd }

// newGroup makes cmd, not yet started, lead a process group of its own,
// which the end of cmd's context kills whole.
func newGroup(cmd *exec.Cmd) *group {
	g := &group{cmd}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = g.kill
	return g
}

// started is a no-op: the group exists from the command's first
// instruction.
func (g *group) started() {}

// kill kills every process of the group. After the command was waited
// for, its id names the group as long as a process of it lives, and a
// group with none left is ESRCH; that a new process took the id and made
// itself a group leader in between is as unlikely as any pid reuse.
func (g *group) kill() error {
	err := syscall.Kill(-g.cmd.Process.Pid, syscall.SIGKILL)
	if errors.Is(err, syscall.ESRCH) {
		return os.ErrProcessDone
	}
	return err
}

func (g *group) release() {}
