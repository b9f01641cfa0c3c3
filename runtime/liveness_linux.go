//go:build linux

package runtime

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
)

// processStart identifies the process pid by when it started: field 22 of
// /proc/<pid>/stat (starttime, in clock ticks since boot), after this
// boot's id, so that a pid reused after a reboot does not match either.
// It reads only /proc, which every user may for every process (unless
// /proc is mounted hidepid: then another user's process is not found,
// and the caller goes by the pid).
func processStart(pid int) (string, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return "", err
	}
	// The command name (field 2) is in parentheses and may hold spaces
	// and parentheses itself: the fields after it start after the last
	// ')'.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return "", fmt.Errorf("/proc/%d/stat: no command name", pid)
	}
	f := bytes.Fields(b[i+1:])
	const starttime = 22 - 3 // f[0] is field 3
	if len(f) <= starttime {
		return "", fmt.Errorf("/proc/%d/stat: %d fields", pid, len(f)+2)
	}
	return bootID() + "/" + string(f[starttime]), nil
}

// bootID is this boot's id ("" where the kernel has none).
var bootID = sync.OnceValue(func() string {
	b, _ := os.ReadFile("/proc/sys/kernel/random/boot_id")
	return strings.TrimSpace(string(b))
})
