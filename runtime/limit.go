package runtime

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"os"
	"sync"

	"github.com/clawdhq/clawd/internal/peercred"
)

// limitListener serves at most n connections of ln at once: Accept waits
// for one to close first, leaving the rest in the kernel's backlog (as
// golang.org/x/net/netutil.LimitListener, whose dozen lines do not justify
// the dependency).
func limitListener(ln net.Listener, n int) net.Listener {
	return &limited{Listener: ln, own: make(chan struct{}, n), done: make(chan struct{})}
}

// Who is at the other end of a TCP connection. Anything on the machine
// can connect to the runtime's loopback ports; on Linux the kernel says
// which user did (peercred.TCP), elsewhere nobody can tell.
type peer uint8

const (
	// peerUnknown: the platform does not say (macOS, Windows). Such
	// connections are served as this user's, and only a token or a
	// dashboard login tells them apart.
	peerUnknown peer = iota
	// peerUser: a process of the user the runtime runs as.
	peerUser
	// peerOther: another user's process, or one whose owner could not be
	// found (it hung up already).
	peerOther
)

// userListener is limitListener for a TCP listener anything on the
// machine can reach: this user's connections take up to own slots (more
// wait in the backlog, as limitListener's), every other user's share
// foreign slots, and one more of theirs is closed at once. So no other
// user can hold the connections the person's browser and tools need: 128
// keep-alive connections of nobody's used to lock the dashboard out.
func userListener(ln net.Listener, own, foreign int, log *slog.Logger) net.Listener {
	return &limited{
		Listener: ln, own: make(chan struct{}, own), foreign: make(chan struct{}, foreign),
		done: make(chan struct{}), uid: os.Geteuid(), classify: true, log: log,
	}
}

type limited struct {
	net.Listener
	own, foreign chan struct{}
	done         chan struct{}
	closeOnce    sync.Once
	// classify asks the kernel who connected (userListener); uid is this
	// user's.
	classify bool
	uid      int
	log      *slog.Logger
}

func (l *limited) Accept() (net.Conn, error) {
	if !l.classify {
		if !l.take(l.own) {
			return nil, net.ErrClosed
		}
		c, err := l.Listener.Accept()
		if err != nil {
			<-l.own
			return nil, err
		}
		return &limitedConn{Conn: c, release: func() { <-l.own }}, nil
	}
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		p := l.peerOf(c)
		if p == peerOther {
			select {
			case l.foreign <- struct{}{}:
				return &limitedConn{Conn: c, peer: p, release: func() { <-l.foreign }}, nil
			default:
				c.Close() // their slots are taken: nothing of the person's waits for them
				continue
			}
		}
		if !l.take(l.own) {
			c.Close()
			return nil, net.ErrClosed
		}
		return &limitedConn{Conn: c, peer: p, release: func() { <-l.own }}, nil
	}
}

// take waits for a slot of sem, false when the listener closed meanwhile.
func (l *limited) take(sem chan struct{}) bool {
	select {
	case sem <- struct{}{}:
		return true
	case <-l.done:
		return false
	}
}

// peerOf asks the kernel whose process c is.
func (l *limited) peerOf(c net.Conn) peer {
	uid, err := peercred.TCP(c)
	switch {
	case errors.Is(err, peercred.ErrUnsupported):
		return peerUnknown
	case err == nil && uid == l.uid:
		return peerUser
	case err != nil && l.log != nil:
		l.log.Debug("owner of a TCP connection not found", "remote", c.RemoteAddr().String(), "err", err)
	}
	return peerOther
}

func (l *limited) Close() error {
	l.closeOnce.Do(func() { close(l.done) })
	return l.Listener.Close()
}

type limitedConn struct {
	net.Conn
	peer    peer
	once    sync.Once
	release func()
}

func (c *limitedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
}

// peerKey is the context key of a request's peer (see connPeer).
type peerKey struct{}

// connPeer is the http.Server's ConnContext: it hands each request the
// peer its connection came from.
func connPeer(ctx context.Context, c net.Conn) context.Context {
	if lc, ok := c.(*limitedConn); ok {
		return context.WithValue(ctx, peerKey{}, lc.peer)
	}
	return ctx
}

// peerOfRequest is the peer of the connection ctx's request came on;
// peerUnknown where nobody said.
func peerOfRequest(ctx context.Context) peer {
	p, _ := ctx.Value(peerKey{}).(peer)
	return p
}
