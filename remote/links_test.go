package remote

import (
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clawdhq/clawd/runtime"
	"github.com/clawdhq/clawd/runtime/client"
)

// fakeRuntime serves nothing on the ingress: it holds the listener until
// told to stop, as the runtime would.
type fakeRuntime struct {
	mu      sync.Mutex
	serving map[string]*runtime.Ingress
	changed chan struct{}
}

func (f *fakeRuntime) ServeIngress(ctx context.Context, ln net.Listener, in *runtime.Ingress) error {
	f.mu.Lock()
	f.serving[in.Label] = in
	f.mu.Unlock()
	<-ctx.Done()
	f.mu.Lock()
	delete(f.serving, in.Label)
	f.mu.Unlock()
	return ln.Close()
}

func (f *fakeRuntime) LinksChanged() {
	select {
	case f.changed <- struct{}{}:
	default:
	}
}

// fakeTunnel is an ssh the test drives: what it says, when it exits.
type fakeTunnel struct {
	ctx   context.Context
	args  []string
	lines chan string
	once  sync.Once
}

func (f *fakeTunnel) PID() int             { return 4242 }
func (f *fakeTunnel) Lines() <-chan string { return f.lines }
func (f *fakeTunnel) Wait() error          { return errors.New("exit status 255") }
func (f *fakeTunnel) exit()                { f.once.Do(func() { close(f.lines) }) }

// timer is one backoff wait the manager asked for.
type timer struct {
	d    time.Duration
	fire chan time.Time
}

func TestManagerKeepsTheTunnel(t *testing.T) {
	home := t.TempDir()
	st, _ := Load(home)
	p := &Profile{Name: "box", Kind: client.LinkSSH, Target: "me@box.example", Port: 2222, Identity: "/k/id",
		RemotePort: 41000, Token: "tok", Generation: 1}
	st.Put(p)
	if err := st.Save(); err != nil {
		t.Fatal(err)
	}
	started := make(chan *fakeTunnel, 8)
	timers := make(chan timer, 8)
	rt := &fakeRuntime{serving: map[string]*runtime.Ingress{}, changed: make(chan struct{}, 1)}
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	m := NewManager(ManagerOptions{
		Home: home,
		Now:  func() time.Time { return now },
		After: func(d time.Duration) <-chan time.Time {
			c := make(chan time.Time, 1)
			timers <- timer{d, c}
			return c
		},
		Start: func(ctx context.Context, prog string, args []string) (Tunnel, error) {
			if prog != "ssh" {
				t.Errorf("tunnel program %q, want ssh", prog)
			}
			f := &fakeTunnel{ctx: ctx, args: args, lines: make(chan string, 8)}
			go func() {
				<-ctx.Done()
				f.exit()
			}()
			started <- f
			return f, nil
		},
	})
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan struct{})
	go func() {
		defer close(ran)
		m.Run(ctx, rt)
	}()
	link := func() client.RemoteLink {
		t.Helper()
		l := m.Links()
		if len(l) != 1 {
			t.Fatalf("Links() = %+v, want one", l)
		}
		return l[0]
	}
	waitState := func(state string) client.RemoteLink {
		t.Helper()
		deadline := time.After(10 * time.Second)
		for {
			if l := m.Links(); len(l) == 1 && l[0].State == state {
				return l[0]
			}
			select {
			case <-rt.changed:
			case <-deadline:
				t.Fatalf("link not %s: %+v", state, m.Links())
			}
		}
	}
	nextTunnel := func() *fakeTunnel {
		t.Helper()
		select {
		case f := <-started:
			return f
		case <-time.After(10 * time.Second):
			t.Fatal("no tunnel started")
			return nil
		}
	}
	nextTimer := func(want time.Duration) timer {
		t.Helper()
		select {
		case tm := <-timers:
			if tm.d != want {
				t.Errorf("backoff %v, want %v", tm.d, want)
			}
			return tm
		case <-time.After(10 * time.Second):
			t.Fatalf("no backoff of %v", want)
			return timer{}
		}
	}

	f := nextTunnel()
	ingress := link().Ingress
	wantR := fmt.Sprintf("127.0.0.1:41000:%s", ingress)
	if i := slices.Index(f.args, "-R"); i < 0 || f.args[i+1] != wantR {
		t.Errorf("tunnel args %q, want -R %s", f.args, wantR)
	}
	for _, want := range []string{"-N", "ExitOnForwardFailure=yes", "ServerAliveInterval=15", "BatchMode=yes", "ControlMaster=no"} {
		if !slices.Contains(f.args, want) {
			t.Errorf("tunnel args %q lack %s", f.args, want)
		}
	}
	// No command on the remote: the target is the last argument.
	if f.args[len(f.args)-1] != "me@box.example" || f.args[len(f.args)-2] != "--" {
		t.Errorf("tunnel args %q: want `-- me@box.example` last, and no command", f.args)
	}
	// The tunnel's pid is noted once Start returned it.
	deadline := time.After(10 * time.Second)
	for l := link(); l.TunnelPID == 0; l = link() {
		select {
		case <-rt.changed:
		case <-deadline:
			t.Fatalf("the link never noted its tunnel's pid: %+v", l)
		}
	}
	if l := link(); l.State != client.LinkConnecting || l.Attempts != 1 || l.TunnelPID != 4242 {
		t.Errorf("link while ssh connects = %+v", l)
	}

	f.lines <- "debug1: Authenticated to box.example ([10.0.0.1]:2222) using \"publickey\"."
	f.lines <- "debug1: remote forward success for: listen 127.0.0.1:41000, connect " + ingress
	waitState(client.LinkUp)

	// The connection drops: down, with what ssh said, retried after the
	// first backoff.
	f.lines <- "Timeout, server box.example not responding."
	f.exit()
	l := waitState(client.LinkDown)
	if l.Error != "Timeout, server box.example not responding." || !l.NextTry.Equal(now.Add(MinBackoff)) {
		t.Errorf("link after the drop = %+v", l)
	}
	// Failures double the backoff up to the cap.
	tm := nextTimer(MinBackoff)
	for _, want := range []time.Duration{2 * time.Second, 4 * time.Second, 8 * time.Second, 16 * time.Second, MaxBackoff, MaxBackoff} {
		tm.fire <- now
		f = nextTunnel()
		f.lines <- "ssh: connect to host box.example port 2222: Connection refused"
		f.exit()
		tm = nextTimer(want)
	}
	if l := waitState(client.LinkDown); l.Attempts != 6 || !strings.Contains(l.Error, "Connection refused") {
		t.Errorf("link after 6 failed attempts since it was up = %+v", l)
	}
	// Up again: the backoff starts over.
	tm.fire <- now
	f = nextTunnel()
	f.lines <- "debug1: remote forward success for: listen 127.0.0.1:41000, connect " + ingress
	waitState(client.LinkUp)
	f.exit()
	tm = nextTimer(MinBackoff)

	// A new token and generation only: the link takes them, and keeps
	// its tunnel.
	tm.fire <- now
	f = nextTunnel()
	p.Token, p.Generation = "tok2", 2
	st.Put(p)
	st.Save()
	if err := m.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	if f.ctx.Err() != nil {
		t.Errorf("a new generation restarted the tunnel")
	}
	if l := link(); l.Generation != 2 {
		t.Errorf("link generation %d after the reload, want 2", l.Generation)
	}
	// Another remote port: the tunnel restarts with it.
	p.RemotePort = 42000
	st.Put(p)
	st.Save()
	if err := m.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	if f.ctx.Err() == nil {
		t.Errorf("a new remote port kept the old tunnel")
	}
	f = nextTunnel()
	if i := slices.Index(f.args, "-R"); i < 0 || !strings.HasPrefix(f.args[i+1], "127.0.0.1:42000:") {
		t.Errorf("tunnel args after the port change: %q", f.args)
	}
	// Removed: the link and its ingress stop.
	st.Delete("box")
	st.Save()
	if err := m.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	if l := m.Links(); len(l) != 0 || f.ctx.Err() == nil {
		t.Errorf("after the profile went: links %+v, tunnel running %v", l, f.ctx.Err() == nil)
	}
	rt.mu.Lock()
	if len(rt.serving) != 0 {
		t.Errorf("ingresses still served after the profile went: %v", rt.serving)
	}
	rt.mu.Unlock()
	cancel()
	<-ran
}

// TestManagerWSL: a WSL profile has no tunnel: its ingress listens on the
// profile's own port, which the distro's hooks reach over loopback.
func TestManagerWSL(t *testing.T) {
	home := t.TempDir()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	st, _ := Load(home)
	st.Put(&Profile{Name: "ubuntu", Kind: client.LinkWSL, Distro: "Ubuntu", RemotePort: port, Token: "tok", Generation: 1})
	st.Save()
	rt := &fakeRuntime{serving: map[string]*runtime.Ingress{}, changed: make(chan struct{}, 1)}
	m := NewManager(ManagerOptions{Home: home, Start: func(context.Context, string, []string) (Tunnel, error) {
		t.Error("a WSL profile started a tunnel")
		return nil, errors.New("no")
	}})
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan struct{})
	go func() {
		defer close(ran)
		m.Run(ctx, rt)
	}()
	deadline := time.After(10 * time.Second)
	for l := m.Links(); len(l) != 1 || l[0].State != client.LinkUp; l = m.Links() {
		select {
		case <-rt.changed:
		case <-deadline:
			t.Fatalf("WSL link not up: %+v", m.Links())
		}
	}
	l := m.Links()[0]
	if l.Label != "wsl:Ubuntu" || l.Ingress != fmt.Sprintf("127.0.0.1:%d", port) {
		t.Errorf("WSL link = %+v, want wsl:Ubuntu listening on 127.0.0.1:%d", l, port)
	}
	var in *runtime.Ingress
	for end := time.Now().Add(10 * time.Second); in == nil && time.Now().Before(end); time.Sleep(time.Millisecond) {
		rt.mu.Lock()
		in = rt.serving["wsl:Ubuntu"]
		rt.mu.Unlock()
	}
	if in == nil || in.Distro != "Ubuntu" || in.Port != port {
		t.Errorf("WSL ingress = %+v", in)
	}
	cancel()
	<-ran
}
