package tray

import (
	"context"
	"os/exec"
)

// openFolder opens path in Finder.
func openFolder(ctx context.Context, path string) error {
	return exec.CommandContext(ctx, "open", path).Run()
}
