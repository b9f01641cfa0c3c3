package cmd

import (
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// hookTapDir, when set, is a folder where `clawd hook` leaves a copy of
// every payload an agent sent it. Only a build for the end-to-end tests
// sets it (go build -ldflags "-X github.com/clawdhq/clawd/cmd.hookTapDir=DIR",
// see e2e's CLAWD_E2E_TAP): scripts/drift.sh compares what a new release
// of an agent sends with what the pinned one sent. Release builds leave it
// empty, and the hook then does nothing more.
var hookTapDir string

// tapHook copies payload into hookTapDir as NS-PID-AGENT-EVENT.json (the
// event as the command line named it, "" for agents that name it in the
// payload): written aside and renamed, so a .json file is whole. A failure
// is only logged: the tap never changes what the hook does.
func tapHook(o *hookOptions, payload []byte) error {
	if hookTapDir == "" {
		return nil
	}
	base := filepath.Join(hookTapDir, fmt.Sprintf("%d-%d-%s-%s", time.Now().UnixNano(), os.Getpid(), o.agent, o.event))
	if err := os.WriteFile(base+".part", payload, 0o600); err != nil {
		return fmt.Errorf("tap the payload: %w", err)
	}
	if err := os.Rename(base+".part", base+".json"); err != nil {
		return fmt.Errorf("tap the payload: %w", err)
	}
	return nil
}
