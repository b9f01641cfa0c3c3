//go:build !windows

package doctor

import (
	"context"
	"os/exec"
)

// minimalPath is the PATH an agent started without a login shell has.
const minimalPath = "/usr/bin:/bin"

// shell runs command as agents run their hook commands: with sh -c.
func shell(ctx context.Context, command string) *exec.Cmd {
	return exec.CommandContext(ctx, "/bin/sh", "-c", command)
}
