package client

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/clawdhq/clawd/internal/clawdhome"
	"github.com/clawdhq/clawd/internal/peercred"
)

// Hooks and the CLI talk to the runtime over a Unix socket that only the
// person can reach: it lives in the clawd home (0700), and both ends check
// who is at the other end where the platform tells (peer credentials on
// Linux and macOS). Nothing goes to a TCP port: another local user can
// listen on any free port and answer like clawd, but cannot get into this
// user's folder or pass the peer check.

// SocketName is the runtime's socket in the clawd home.
const SocketName = "clawd.sock"

// maxSocketPath is the longest socket path every platform takes: a socket
// address holds 104 bytes on macOS and the BSDs, 108 on Linux and Windows,
// the terminating NUL included.
const maxSocketPath = 103

// ErrNotOurs means the runtime's socket, or the process behind it, does
// not belong to this user: its folder is someone else's or others may
// write to it, or another user listens on it. Nothing is sent.
var ErrNotOurs = errors.New("the runtime's socket is not this user's")

// SocketPath returns where the runtime of the clawd home listens, and where
// its hooks and CLI connect: <home>/clawd.sock, or, when that path is too
// long for a socket address, <hash of the home>.sock in a short per-user
// folder (/tmp/clawd-<uid> on Unix, the user's temp folder on Windows),
// which must pass the same private-folder check. Both ends compute it from
// the home alone; runtime.json names it as well.
func SocketPath(home string) string {
	if abs, err := filepath.Abs(home); err == nil {
		home = abs
	}
	p := filepath.Join(home, SocketName)
	if len(p) <= maxSocketPath {
		return p
	}
	sum := sha256.Sum256([]byte(home))
	return filepath.Join(socketDir(), hex.EncodeToString(sum[:8])+".sock")
}

// checkSocketDir checks the socket's folder before anything connects: it
// must be this user's and closed to others' writes (clawdhome.CheckPrivate).
// A missing folder means no runtime.
func checkSocketDir(path string) error {
	err := clawdhome.CheckPrivate(filepath.Dir(path))
	switch {
	case err == nil:
		return nil
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%w: %v", ErrNotRunning, err)
	case errors.Is(err, clawdhome.ErrNotPrivate):
		return fmt.Errorf("%w: %v", ErrNotOurs, err)
	}
	return err
}

// checkPeerUID checks the user id peercred reported for the runtime's
// end of a connection. Where the platform cannot tell, the folder check
// stands alone.
func checkPeerUID(uid int, err error) error {
	switch {
	case errors.Is(err, peercred.ErrUnsupported):
		return nil
	case err != nil:
		return fmt.Errorf("peer credentials: %w", err)
	case uid != os.Geteuid():
		return fmt.Errorf("%w: the process listening on it runs as uid %d, not %d", ErrNotOurs, uid, os.Geteuid())
	}
	return nil
}

// dialSocket connects to the runtime's socket at path, checking the folder
// first and the listening process's user after: a connection that fails
// either check is closed before anything is written.
func dialSocket(ctx context.Context, path string) (net.Conn, error) {
	if err := checkSocketDir(path); err != nil {
		return nil, err
	}
	var d net.Dialer
	c, err := d.DialContext(ctx, "unix", path)
	if err != nil {
		if notListening(err) {
			return nil, fmt.Errorf("%w: %v", ErrNotRunning, err)
		}
		return nil, err
	}
	if err := checkPeerUID(peercred.Conn(c)); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// dialFor connects with dial (dialSocket for the runtime's socket) for
// one exchange that lasts as long as ctx: ctx's deadline is the
// connection's, and ending ctx cuts short any read or write under way.
// hangUp closes the connection and lets go of ctx.
func dialFor(ctx context.Context, dial func(context.Context) (net.Conn, error)) (conn net.Conn, hangUp func(), err error) {
	conn, err = dial(ctx)
	if err != nil {
		return nil, nil, err
	}
	if dl, ok := ctx.Deadline(); ok {
		conn.SetDeadline(dl)
	}
	// A deadline in the past wakes every blocked read and write at once.
	stop := context.AfterFunc(ctx, func() { conn.SetDeadline(time.Unix(1, 0)) })
	return conn, func() {
		stop()
		conn.Close()
	}, nil
}

// notListening reports whether a connect failed because nothing listens
// at the socket path: no file, or a file nobody accepts on.
func notListening(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ENOENT)
}
