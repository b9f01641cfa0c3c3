package launch

import (
	"context"
	"os/exec"
)

// open runs open(1).
func open(ctx context.Context, target string) error {
	return exec.CommandContext(ctx, "open", target).Run()
}
