package tray

import (
	"context"
	"os/exec"
)

// openFolder opens path in Explorer. Explorer's exit status is 1 even
// when it opened the folder, so only a failure to start counts.
func openFolder(ctx context.Context, path string) error {
	cmd := exec.Command("explorer.exe", path)
	if err := cmd.Start(); err != nil {
		return err
	}
	go cmd.Wait()
	return nil
}
