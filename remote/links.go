package remote

import (
	"bufio"
	"context"
	"fmt"
	"log/slog"
	"net"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/clawdhq/clawd/runtime"
	"github.com/clawdhq/clawd/runtime/client"
)

// Reconnection backoff of a tunnel: it doubles from MinBackoff after each
// failed or lost connection up to MaxBackoff, and starts again from
// MinBackoff once a tunnel was up.
const (
	MinBackoff = time.Second
	MaxBackoff = 30 * time.Second
)

// Tunnel is one running `ssh -N -R`.
type Tunnel interface {
	PID() int
	// Lines delivers what ssh writes to its stderr, line by line, and is
	// closed when ssh closed it (it exited).
	Lines() <-chan string
	// Wait waits for ssh to exit, after Lines is closed.
	Wait() error
}

// Ingresser is the runtime as the links use it.
type Ingresser interface {
	ServeIngress(ctx context.Context, ln net.Listener, in *runtime.Ingress) error
	LinksChanged()
}

// ManagerOptions configure a Manager.
type ManagerOptions struct {
	// Home is the clawd home, whose remotes.json names the profiles.
	Home     string
	Programs Programs
	Log      *slog.Logger
	Now      func() time.Time
	// After is the backoff's timer; tests replace it.
	After func(time.Duration) <-chan time.Time
	// Start starts a tunnel: prog with args (default: ssh as a child
	// process); tests replace it.
	Start func(ctx context.Context, prog string, args []string) (Tunnel, error)
	// Listen opens an ingress listener (default net.Listen on tcp).
	Listen func(addr string) (net.Listener, error)
}

// Manager keeps one link per enabled profile while `clawd serve` runs:
// the profile's ingress, on its own loopback listener, and for SSH the
// tunnel that leads the remote's port to it, `ssh -N -R
// 127.0.0.1:<remote port>:127.0.0.1:<ingress port>` with
// ExitOnForwardFailure and keep-alives, restarted with backoff whenever
// it fails or drops. ssh never runs a command on the remote (-N).
type Manager struct {
	o ManagerOptions

	reloadMu sync.Mutex // serializes Reload

	mu    sync.Mutex
	links map[string]*link
	ctx   context.Context // Run's; nil before it
	srv   Ingresser
	wg    sync.WaitGroup
}

type link struct {
	p      Profile
	in     *runtime.Ingress
	cancel context.CancelFunc
	done   chan struct{}
	st     client.RemoteLink // guarded by Manager.mu
}

// NewManager returns a Manager; Run starts it.
func NewManager(o ManagerOptions) *Manager {
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.After == nil {
		o.After = time.After
	}
	if o.Start == nil {
		o.Start = startSSH
	}
	if o.Listen == nil {
		o.Listen = func(addr string) (net.Listener, error) { return net.Listen("tcp", addr) }
	}
	return &Manager{o: o, links: map[string]*link{}}
}

// Run starts the links of the profiles and keeps them until ctx ends,
// then stops them all and waits for them.
func (m *Manager) Run(ctx context.Context, srv Ingresser) {
	m.mu.Lock()
	m.ctx, m.srv = ctx, srv
	m.mu.Unlock()
	if err := m.Reload(ctx); err != nil {
		m.o.Log.Warn("remote links", "err", err)
	}
	<-ctx.Done()
	m.reloadMu.Lock()
	defer m.reloadMu.Unlock()
	m.mu.Lock()
	var all []*link
	for _, l := range m.links {
		all = append(all, l)
	}
	m.links = map[string]*link{}
	m.mu.Unlock()
	m.stop(all)
	m.wg.Wait()
}

// Reload reads the profiles again and brings the links in line: new ones
// start, removed or disabled ones stop, one whose connection changed
// restarts, and one with only a new token and generation takes those at
// once (the previous ones are refused from then on).
func (m *Manager) Reload(ctx context.Context) error {
	st, err := Load(m.o.Home)
	if err != nil {
		return err
	}
	m.reloadMu.Lock()
	defer m.reloadMu.Unlock()
	m.mu.Lock()
	if m.ctx == nil || m.ctx.Err() != nil {
		m.mu.Unlock()
		return nil // Run reads them when it starts
	}
	want := map[string]*Profile{}
	for _, p := range st.Profiles {
		if !p.Disabled {
			want[p.Name] = p
		}
	}
	var stop []*link
	var start []*Profile
	for name, l := range m.links {
		p := want[name]
		switch {
		case p == nil:
			stop = append(stop, l)
			delete(m.links, name)
		case sameConnection(&l.p, p):
			l.p = *p
			l.in.SetCredentials(p.Token, p.Generation)
			l.st.Generation = p.Generation
		default:
			stop = append(stop, l)
			delete(m.links, name)
			start = append(start, p)
		}
	}
	for name, p := range want {
		if _, ok := m.links[name]; !ok && !slices.Contains(start, p) {
			start = append(start, p)
		}
	}
	m.mu.Unlock()
	m.stop(stop)
	m.mu.Lock()
	for _, p := range start {
		m.startLocked(p)
	}
	m.mu.Unlock()
	m.changed()
	return nil
}

// sameConnection reports whether a and b reach the remote the same way.
func sameConnection(a, b *Profile) bool {
	return a.Kind == b.Kind && a.Target == b.Target && a.Port == b.Port && a.Identity == b.Identity &&
		a.SSHConfig == b.SSHConfig && a.Distro == b.Distro && a.RemotePort == b.RemotePort
}

func (m *Manager) stop(links []*link) {
	for _, l := range links {
		l.cancel()
	}
	for _, l := range links {
		<-l.done
	}
}

// startLocked starts p's link. The caller holds mu.
func (m *Manager) startLocked(p *Profile) {
	ctx, cancel := context.WithCancel(m.ctx)
	l := &link{p: *p, cancel: cancel, done: make(chan struct{})}
	l.in = &runtime.Ingress{Label: p.Label(), Port: p.RemotePort}
	if p.Kind == client.LinkWSL {
		l.in.Distro = p.Distro
	}
	l.in.SetCredentials(p.Token, p.Generation)
	l.in.Tested = func(t client.RemoteTest) {
		m.update(l, func(st *client.RemoteLink) {
			st.LastTest = &client.RemoteTestNote{Nonce: t.Nonce, At: m.o.Now().UTC()}
		})
	}
	l.st = client.RemoteLink{
		Profile: p.Name, Label: p.Label(), Kind: p.Kind, State: client.LinkConnecting,
		Since: m.o.Now().UTC(), RemotePort: p.RemotePort, Generation: p.Generation,
	}
	m.links[p.Name] = l
	m.wg.Go(func() {
		defer close(l.done)
		m.runLink(ctx, l)
	})
}

// Links returns the state of every link, by profile name.
func (m *Manager) Links() []client.RemoteLink {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]client.RemoteLink, 0, len(m.links))
	for _, l := range m.links {
		st := l.st
		if st.LastTest != nil {
			t := *st.LastTest
			st.LastTest = &t
		}
		out = append(out, st)
	}
	slices.SortFunc(out, func(a, b client.RemoteLink) int { return strings.Compare(a.Profile, b.Profile) })
	return out
}

// update changes l's state and tells the runtime's UIs.
func (m *Manager) update(l *link, f func(st *client.RemoteLink)) {
	m.mu.Lock()
	f(&l.st)
	m.mu.Unlock()
	m.changed()
}

// setState moves l into state (a new state starts a new Since).
func (m *Manager) setState(l *link, state, why string, f func(st *client.RemoteLink)) {
	m.update(l, func(st *client.RemoteLink) {
		if st.State != state {
			st.Since = m.o.Now().UTC()
		}
		st.State, st.Error = state, why
		if f != nil {
			f(st)
		}
	})
	if state == client.LinkDown {
		m.o.Log.Warn("remote link down", "profile", l.p.Name, "err", why)
	} else {
		m.o.Log.Info("remote link", "profile", l.p.Name, "state", state)
	}
}

func (m *Manager) changed() {
	m.mu.Lock()
	srv := m.srv
	m.mu.Unlock()
	if srv != nil {
		srv.LinksChanged()
	}
}

// wait waits d (the backoff) or until ctx ends, which it reports.
func (m *Manager) wait(ctx context.Context, d time.Duration) bool {
	select {
	case <-ctx.Done():
		return false
	case <-m.o.After(d):
		return true
	}
}

// runLink keeps l until ctx ends: its ingress, and for SSH its tunnel.
func (m *Manager) runLink(ctx context.Context, l *link) {
	addr := "127.0.0.1:0"
	if l.p.Kind == client.LinkWSL {
		// The distro's hooks connect to this very port.
		addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(l.p.RemotePort))
	}
	var ln net.Listener
	for backoff := MinBackoff; ; backoff = min(2*backoff, MaxBackoff) {
		var err error
		if ln, err = m.o.Listen(addr); err == nil {
			break
		}
		m.setState(l, client.LinkDown, fmt.Sprintf("listen on %s: %v", addr, err), func(st *client.RemoteLink) {
			st.NextTry = m.o.Now().Add(backoff).UTC()
		})
		if !m.wait(ctx, backoff) {
			return
		}
	}
	ictx, stopIngress := context.WithCancel(ctx)
	var iwg sync.WaitGroup
	iwg.Go(func() {
		if err := m.srv.ServeIngress(ictx, ln, l.in); err != nil {
			m.o.Log.Warn("remote ingress stopped", "profile", l.p.Name, "err", err)
		}
	})
	defer func() {
		stopIngress()
		iwg.Wait()
	}()
	ingress := ln.Addr().(*net.TCPAddr)
	m.update(l, func(st *client.RemoteLink) { st.Ingress = ingress.String() })
	if l.p.Kind == client.LinkWSL {
		m.setState(l, client.LinkUp, "", nil)
		<-ctx.Done()
		return
	}
	m.tunnel(ctx, l, ingress.Port)
}

// TunnelArgs are the arguments of ssh for p's tunnel to the ingress on
// port: no command (-N), no terminal, no question; it exits when the
// remote port cannot be forwarded, and when the connection stops
// answering keep-alives (45 s); -v makes it say when the forward is up.
// The person's connection sharing is left out: the tunnel is a
// connection of its own.
func TunnelArgs(p *Profile, port int) []string {
	args := sshOptions(p)
	return append(args, "-N", "-T", "-v",
		"-o", "ExitOnForwardFailure=yes",
		"-o", "ServerAliveInterval=15", "-o", "ServerAliveCountMax=3",
		"-o", "ControlMaster=no", "-o", "ControlPath=none",
		"-R", fmt.Sprintf("127.0.0.1:%d:127.0.0.1:%d", p.RemotePort, port),
		"--", p.Target)
}

// forwardUp is what ssh -v says once the remote port is forwarded
// (OpenSSH: "remote forward success for: listen 127.0.0.1:P, connect ...").
const forwardUp = "remote forward success for: listen"

// tunnel runs l's ssh again and again until ctx ends.
func (m *Manager) tunnel(ctx context.Context, l *link, port int) {
	args := TunnelArgs(&l.p, port)
	prog := m.o.Programs.ssh()
	attempts := 0
	backoff := MinBackoff
	for {
		attempts++
		n := attempts
		m.setState(l, client.LinkConnecting, "", func(st *client.RemoteLink) {
			st.Attempts, st.NextTry, st.TunnelPID = n, time.Time{}, 0
		})
		why := ""
		t, err := m.o.Start(ctx, prog, args)
		if err != nil {
			why = err.Error()
		} else {
			m.update(l, func(st *client.RemoteLink) { st.TunnelPID = t.PID() })
			for line := range t.Lines() {
				switch {
				case strings.Contains(line, forwardUp):
					attempts, backoff = 0, MinBackoff
					m.setState(l, client.LinkUp, "", func(st *client.RemoteLink) { st.Attempts = 0 })
				case sshNoise(line):
				default:
					why = line
				}
			}
			if err := t.Wait(); err != nil && why == "" {
				why = "ssh: " + err.Error()
			}
		}
		if ctx.Err() != nil {
			return
		}
		if why == "" {
			why = "ssh exited"
		}
		next := m.o.Now().Add(backoff).UTC()
		m.setState(l, client.LinkDown, why, func(st *client.RemoteLink) {
			st.NextTry, st.TunnelPID = next, 0
		})
		if !m.wait(ctx, backoff) {
			return
		}
		backoff = min(2*backoff, MaxBackoff)
	}
}

// sshNoise reports whether a line of ssh -v is chatter rather than what
// went wrong.
func sshNoise(line string) bool {
	for _, p := range []string{"debug", "OpenSSH_", "Authenticated to ", "Transferred: ", "Warning: Permanently added"} {
		if strings.HasPrefix(line, p) {
			return true
		}
	}
	return strings.TrimSpace(line) == ""
}

// sshTunnel is a Tunnel run as a child process.
type sshTunnel struct {
	cmd   *exec.Cmd
	lines chan string
}

func startSSH(ctx context.Context, prog string, args []string) (Tunnel, error) {
	cmd := exec.CommandContext(ctx, prog, args...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	cmd.WaitDelay = time.Second
	dieWithParent(cmd)
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	t := &sshTunnel{cmd: cmd, lines: make(chan string, 64)}
	go func() {
		defer close(t.lines)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			t.lines <- sc.Text()
		}
	}()
	return t, nil
}

func (t *sshTunnel) PID() int             { return t.cmd.Process.Pid }
func (t *sshTunnel) Lines() <-chan string { return t.lines }
func (t *sshTunnel) Wait() error          { return t.cmd.Wait() }
