package client

import (
	"os"
	"path/filepath"
)

// socketDir is the per-user folder of sockets whose place in the clawd
// home is too long for a socket address: under the user's own temp
// folder, inside the profile.
func socketDir() string { return filepath.Join(os.TempDir(), "clawd") }
