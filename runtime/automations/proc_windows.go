package automations

import (
	"os/exec"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/windows"
)

// group is the job object of one command action: the command is put in
// it as soon as it starts, and what it starts inherits the job unless it
// breaks away on purpose. A child the command starts in the instant
// before it is assigned escapes: Go's exec cannot start a process
// suspended and resume it.
type group struct {
	cmd   *exec.Cmd
	job   windows.Handle // 0 when no job could be made
	inJob atomic.Bool    // the command is in job: killing it kills them all
}

// newGroup makes a job for cmd, not yet started, which the end of cmd's
// context terminates whole.
func newGroup(cmd *exec.Cmd) *group {
	g := &group{cmd: cmd}
	cmd.Cancel = g.kill
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return g
	}
	// Closing the last handle kills what is left in the job, should clawd
	// itself die before it terminates the job.
	info := windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{
		BasicLimitInformation: windows.JOBOBJECT_BASIC_LIMIT_INFORMATION{LimitFlags: windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE},
	}
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		windows.CloseHandle(job)
		return g
	}
	g.job = job
	return g
}

// started puts the command in the job; until then, or if that fails,
// kill reaches the command alone.
func (g *group) started() {
	if g.job == 0 {
		return
	}
	h, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, uint32(g.cmd.Process.Pid))
	if err != nil {
		return
	}
	defer windows.CloseHandle(h)
	g.inJob.Store(windows.AssignProcessToJobObject(g.job, h) == nil)
}

// kill terminates every process of the job, or the command alone when it
// is not in one. It may run (as cmd.Cancel) while started does.
func (g *group) kill() error {
	if !g.inJob.Load() {
		return g.cmd.Process.Kill()
	}
	return windows.TerminateJobObject(g.job, 1)
}

func (g *group) release() {
	if g.job != 0 {
		windows.CloseHandle(g.job)
	}
}
