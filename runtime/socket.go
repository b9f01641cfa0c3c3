package runtime

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"os"
	"path/filepath"

	"github.com/clawdhq/clawd/internal/clawdhome"
	"github.com/clawdhq/clawd/internal/peercred"
)

// ListenSocket opens the runtime's Unix socket at path (client.SocketPath
// of the clawd home) for hooks and the CLI. The folder is created 0700 if
// missing and must then pass clawdhome.CheckPrivate; a socket file left by
// a runtime that died is replaced (the caller holds the home's lock, so no
// live runtime owns it). The listener hands out only connections from
// processes of this user where the platform says who connects.
func ListenSocket(path string, log *slog.Logger) (net.Listener, error) {
	dir := filepath.Dir(path)
	if _, err := clawdhome.Ensure(dir); err != nil && !errors.Is(err, clawdhome.ErrNotPrivate) {
		return nil, fmt.Errorf("socket folder: %w", err)
	}
	if err := clawdhome.CheckPrivate(dir); err != nil {
		return nil, fmt.Errorf("socket folder: %w: use a CLAWD_HOME of your own", err)
	}
	if fi, err := os.Lstat(path); err == nil {
		if fi.Mode()&(fs.ModeSocket|fs.ModeIrregular) == 0 {
			return nil, fmt.Errorf("%s exists and is not a socket: move it away", path)
		}
		if err := os.Remove(path); err != nil {
			return nil, fmt.Errorf("remove stale socket: %w", err)
		}
	}
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, err
	}
	// The folder keeps others out already; the mode says the same.
	os.Chmod(path, 0o600)
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &peerListener{Listener: ln, uid: os.Geteuid(), log: log}, nil
}

// peerListener accepts only connections whose peer runs as uid. The check
// comes before net/http reads a byte: another user's process gets its
// connection closed, nothing else. Where the platform cannot tell
// (peercred.ErrUnsupported), the socket's private folder is the guard.
type peerListener struct {
	net.Listener
	uid int
	log *slog.Logger
}

func (l *peerListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		uid, err := peercred.Conn(c)
		if errors.Is(err, peercred.ErrUnsupported) || err == nil && uid == l.uid {
			return c, nil
		}
		l.log.Warn("refused a socket connection from another user", "uid", uid, "err", err)
		c.Close()
	}
}
