package notify

import "os/exec"

// playerHint says how to get a player when none is found.
const playerHint = "afplay ships with macOS in /usr/bin: check PATH"

// playerCommand returns the command line that plays file.
func playerCommand(lookPath func(string) (string, error), file string) (argv []string, ok bool) {
	return firstPlayer(lookPath, file, []string{"afplay"})
}

func hideWindow(*exec.Cmd) {}
