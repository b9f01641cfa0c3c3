//go:build unix

package client

import (
	"os"
	"strconv"
)

// socketDir is the per-user folder of sockets whose place in the clawd
// home is too long for a socket address. /tmp rather than $TMPDIR or
// $XDG_RUNTIME_DIR: the runtime and an agent's hooks may not see the same
// environment, and the path must come out the same for both. Someone else
// can create /tmp/clawd-<uid> first; the private-folder check then refuses
// it, on both ends.
func socketDir() string { return "/tmp/clawd-" + strconv.Itoa(os.Geteuid()) }
