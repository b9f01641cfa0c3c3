//go:build darwin

package runtime

import (
	"strconv"

	"golang.org/x/sys/unix"
)

// processStart identifies the process pid by when it started
// (kern.proc.pid's p_starttime, a wall-clock time to the microsecond).
// sysctl answers for every user's processes.
func processStart(pid int) (string, error) {
	k, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	if err != nil {
		return "", err
	}
	if k.Proc.P_pid != int32(pid) {
		// sysctl answers an empty record for a pid that is gone.
		return "", unix.ESRCH
	}
	t := k.Proc.P_starttime
	return strconv.FormatInt(int64(t.Sec), 10) + "." + strconv.FormatInt(int64(t.Usec), 10), nil
}
