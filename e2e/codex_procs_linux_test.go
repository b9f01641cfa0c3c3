//go:build linux

package e2e

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// codexProc is a running process of a Codex home.
type codexProc struct {
	pid     int
	cmdline string
}

// codexProcesses returns the processes that belong to the Codex home dir:
// those with CODEX_HOME=dir in their environment (Codex, the daemon it
// started, their children) or running a binary from under it (the daemon
// runs a copy in dir/packages).
func codexProcesses(dir string) []codexProc {
	entries, _ := os.ReadDir("/proc")
	envVar := []byte("CODEX_HOME=" + dir)
	var out []codexProc
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		cmdline, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		env, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		cmd := strings.TrimSpace(string(bytes.ReplaceAll(cmdline, []byte{0}, []byte{' '})))
		mine := strings.HasPrefix(cmd, dir+string(os.PathSeparator))
		for _, kv := range bytes.Split(env, []byte{0}) {
			if bytes.Equal(kv, envVar) {
				mine = true
			}
		}
		if mine {
			out = append(out, codexProc{pid, cmd})
		}
	}
	return out
}
