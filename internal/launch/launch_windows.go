package launch

import (
	"context"
	"os/exec"
)

// open hands target to the shell's default handler through
// FileProtocolHandler, what `start` does without cmd.exe's quoting rules
// (a URL's & would end a `start` command). Only a failure to start counts:
// the handler's exit status says nothing.
func open(ctx context.Context, target string) error {
	cmd := exec.CommandContext(ctx, "rundll32", "url.dll,FileProtocolHandler", target)
	if err := cmd.Start(); err != nil {
		return err
	}
	go cmd.Wait()
	return nil
}
