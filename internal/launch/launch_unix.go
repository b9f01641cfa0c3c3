//go:build !windows && !darwin

package launch

import (
	"context"
	"os/exec"
)

// open runs xdg-open, which hands target to the desktop's default
// handler and exits.
func open(ctx context.Context, target string) error {
	return exec.CommandContext(ctx, "xdg-open", target).Run()
}
