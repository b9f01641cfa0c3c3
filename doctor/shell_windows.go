package doctor

import (
	"context"
	"os/exec"
)

// minimalPath is the PATH an agent started without a login shell has.
const minimalPath = `C:\Windows\system32;C:\Windows`

// shell runs command as agents run their hook commands on Windows:
// through bash (Git Bash), which the commands clawd writes are quoted for.
func shell(ctx context.Context, command string) *exec.Cmd {
	return exec.CommandContext(ctx, "bash", "-c", command)
}
