package notify

import (
	"os/exec"
	"strings"
	"syscall"
)

// playerHint says how to get a player when none is found.
const playerHint = "Windows PowerShell (powershell.exe) plays it: check PATH"

// playerCommand returns the command line that plays file with .NET's
// SoundPlayer, which every Windows PowerShell has. PlaySync keeps
// PowerShell alive until the sound ends.
func playerCommand(lookPath func(string) (string, error), file string) (argv []string, ok bool) {
	ps, err := lookPath("powershell")
	if err != nil {
		return nil, false
	}
	// In a single-quoted PowerShell string only ' is special: doubled.
	quoted := "'" + strings.ReplaceAll(file, "'", "''") + "'"
	return []string{ps, "-NoProfile", "-Command", "(New-Object Media.SoundPlayer " + quoted + ").PlaySync()"}, true
}

// createNoWindow is CREATE_NO_WINDOW: PowerShell is a console program,
// and a console flashing up with each chime would be worse than silence.
const createNoWindow = 0x08000000

func hideWindow(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{HideWindow: true, CreationFlags: createNoWindow}
}
