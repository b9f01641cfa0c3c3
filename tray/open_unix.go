//go:build !windows && !darwin

package tray

import (
	"context"
	"os/exec"
)

// openFolder opens path in the desktop's file manager.
func openFolder(ctx context.Context, path string) error {
	return exec.CommandContext(ctx, "xdg-open", path).Run()
}
