//go:build !linux && !darwin && !windows

package notify

import "os/exec"

// playerHint says how to get a player when none is found.
const playerHint = "clawd plays no sound on this system"

// playerCommand finds no player: clawd knows none for this system.
func playerCommand(lookPath func(string) (string, error), file string) (argv []string, ok bool) {
	return nil, false
}

func hideWindow(*exec.Cmd) {}
