// Package fakedesktop stands in for a Linux desktop on a private D-Bus session
// bus, so that the tray (StatusNotifierItem + com.canonical.dbusmenu) and
// desktop notifications (org.freedesktop.Notifications) can be tested for
// real in CI, without X, GTK or a notification daemon.
//
// A test starts a Bus (its own dbus-daemon), then the services it needs: a
// Watcher that owns org.kde.StatusNotifierWatcher and reads and clicks the
// menus of the items that register with it, and a Notifier that records every
// notification. The code under test runs in a child process started with
// Bus.Start (or with Bus.Env), so that its session bus is the private one.
// Everything is stopped and waited for in t.Cleanup.
package fakedesktop

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
)

// busConfig is a minimal session-bus configuration. It replaces the system's
// session.conf on purpose: that one lists service directories, so a name
// nobody owns on the test bus (say org.freedesktop.Notifications) could be
// auto-started from whatever is installed on the machine.
const busConfig = `<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>%s</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
`

// maxSocketPath is the usable length of sun_path on Linux (108 bytes with
// the terminating NUL).
const maxSocketPath = 107

// startTimeout bounds how long StartBus waits for dbus-daemon to print its
// address.
const startTimeout = 10 * time.Second

// Bus is a private dbus-daemon started for one test.
type Bus struct {
	addr string
}

// StartBus starts a dbus-daemon with a session-bus configuration that
// listens on a socket in a fresh temporary directory and activates no
// services. The daemon is killed and waited for in t.Cleanup. StartBus fails
// the test if dbus-daemon is not on PATH.
func StartBus(t testing.TB) *Bus {
	t.Helper()
	daemon, err := exec.LookPath("dbus-daemon")
	if err != nil {
		t.Fatalf("fakedesktop: dbus-daemon is needed for this test and is not on PATH "+
			"(Debian/Ubuntu: apt-get install dbus): %v", err)
	}
	// Not t.TempDir: its path holds the test name and can overflow the
	// socket path limit.
	dir, err := os.MkdirTemp("", "fakedesktop")
	if err != nil {
		t.Fatalf("fakedesktop: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	sock := filepath.Join(dir, "bus")
	if len(sock) > maxSocketPath {
		t.Fatalf("fakedesktop: socket path %s is longer than %d bytes; set TMPDIR to a shorter directory", sock, maxSocketPath)
	}
	conf := filepath.Join(dir, "bus.conf")
	if err := os.WriteFile(conf, []byte(fmt.Sprintf(busConfig, "unix:path="+sock)), 0o600); err != nil {
		t.Fatalf("fakedesktop: %v", err)
	}

	// The daemon prints its address on fd 3; --nofork keeps it our child,
	// so killing and waiting for it leaves nothing behind.
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatalf("fakedesktop: %v", err)
	}
	defer r.Close()
	var stderr bytes.Buffer
	cmd := exec.Command(daemon, "--config-file="+conf, "--nofork", "--nopidfile", "--print-address=3")
	cmd.ExtraFiles = []*os.File{w}
	cmd.Stderr = &stderr
	cmd.SysProcAttr = sysProcAttr()
	if err := cmd.Start(); err != nil {
		w.Close()
		t.Fatalf("fakedesktop: start %s: %v", daemon, err)
	}
	w.Close()
	exited := make(chan struct{})
	go func() {
		cmd.Wait()
		close(exited)
	}()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-exited
	})

	type line struct {
		s   string
		err error
	}
	got := make(chan line, 1)
	go func() {
		s, err := bufio.NewReader(r).ReadString('\n')
		got <- line{s, err}
	}()
	select {
	case l := <-got:
		addr := strings.TrimSpace(l.s)
		if addr == "" {
			select { // the pipe closed: the daemon is exiting; let stderr complete
			case <-exited:
			case <-time.After(startTimeout):
			}
			t.Fatalf("fakedesktop: dbus-daemon printed no address (%v): %s", l.err, stderr.String())
		}
		return &Bus{addr: addr}
	case <-time.After(startTimeout):
		t.Fatalf("fakedesktop: dbus-daemon printed no address within %v", startTimeout)
		return nil
	}
}

// Address returns the bus address, the value for DBUS_SESSION_BUS_ADDRESS.
func (b *Bus) Address() string { return b.addr }

// Env returns os.Environ() pointed at this bus: DBUS_SESSION_BUS_ADDRESS is
// set, and DISPLAY and WAYLAND_DISPLAY are removed so that nothing in the
// child reaches the real desktop. NO_AT_BRIDGE=1 keeps GTK programs from
// starting an accessibility bus beside it.
func (b *Bus) Env() []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "DBUS_SESSION_BUS_ADDRESS", "DISPLAY", "WAYLAND_DISPLAY", "NO_AT_BRIDGE":
			continue
		}
		env = append(env, kv)
	}
	return append(env, "DBUS_SESSION_BUS_ADDRESS="+b.addr, "NO_AT_BRIDGE=1")
}

// Conn returns a new private connection to the bus, closed in t.Cleanup.
func (b *Bus) Conn(t testing.TB) *dbus.Conn {
	t.Helper()
	conn, err := dbus.Connect(b.addr)
	if err != nil {
		t.Fatalf("fakedesktop: connect to %s: %v", b.addr, err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// Proc is a child process started on the bus with Bus.Start.
type Proc struct {
	cmd    *exec.Cmd
	out    *lineBuffer
	exited chan struct{}
	err    error // cmd.Wait's result, set before exited is closed
}

// Start starts cmd with its environment pointed at the bus: cmd.Env is
// appended to b.Env(), so entries in cmd.Env win. cmd.Stdout and cmd.Stderr
// must be nil: both are collected for Proc.WaitLine and Proc.Output. A
// process still running at the end of the test is killed, and waited for in
// every case.
func (b *Bus) Start(t testing.TB, cmd *exec.Cmd) *Proc {
	t.Helper()
	if cmd.Stdout != nil || cmd.Stderr != nil {
		t.Fatalf("fakedesktop: Start %s: Stdout and Stderr must be nil", cmd.Path)
	}
	p := &Proc{cmd: cmd, out: newLineBuffer(), exited: make(chan struct{})}
	cmd.Env = append(b.Env(), cmd.Env...)
	cmd.Stdout = p.out
	cmd.Stderr = p.out
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = sysProcAttr()
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("fakedesktop: start %s: %v", cmd.Path, err)
	}
	go func() {
		p.err = cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(func() {
		select {
		case <-p.exited:
		default:
			cmd.Process.Kill()
			<-p.exited
		}
	})
	return p
}

// Wait waits for the process to exit and returns its exit error (nil for
// exit status 0), or ctx's error if it is still running.
func (p *Proc) Wait(ctx context.Context) error {
	select {
	case <-p.exited:
		return p.err
	case <-ctx.Done():
		return fmt.Errorf("wait for %s: %w", p.cmd.Path, ctx.Err())
	}
}

// WaitLine waits for a line of the process's output (stdout and stderr
// together) that contains substr, and returns that line. Lines already
// printed count.
func (p *Proc) WaitLine(ctx context.Context, substr string) (string, error) {
	for {
		lines, changed := p.out.snapshot()
		for _, l := range lines {
			if strings.Contains(l, substr) {
				return l, nil
			}
		}
		select {
		case <-changed:
		case <-p.exited:
			// One more look: the last lines may have arrived with the exit.
			lines, _ := p.out.snapshot()
			for _, l := range lines {
				if strings.Contains(l, substr) {
					return l, nil
				}
			}
			return "", fmt.Errorf("%s exited (%v) without printing %q", p.cmd.Path, p.err, substr)
		case <-ctx.Done():
			return "", fmt.Errorf("wait for %q from %s: %w", substr, p.cmd.Path, ctx.Err())
		}
	}
}

// Output returns everything the process printed so far, for failure
// messages.
func (p *Proc) Output() string {
	return p.out.String()
}

// lineBuffer collects a process's output and tells waiters about new lines.
type lineBuffer struct {
	mu      sync.Mutex
	all     bytes.Buffer
	lines   []string
	partial []byte
	changed chan struct{}
}

func newLineBuffer() *lineBuffer { return &lineBuffer{changed: make(chan struct{})} }

func (b *lineBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.all.Write(p)
	b.partial = append(b.partial, p...)
	for {
		i := bytes.IndexByte(b.partial, '\n')
		if i < 0 {
			break
		}
		b.lines = append(b.lines, string(b.partial[:i]))
		b.partial = b.partial[i+1:]
	}
	close(b.changed)
	b.changed = make(chan struct{})
	return len(p), nil
}

// snapshot returns the complete lines so far, the unfinished one included,
// and a channel closed on the next write.
func (b *lineBuffer) snapshot() ([]string, <-chan struct{}) {
	b.mu.Lock()
	defer b.mu.Unlock()
	lines := append([]string(nil), b.lines...)
	if len(b.partial) > 0 {
		lines = append(lines, string(b.partial))
	}
	return lines, b.changed
}

func (b *lineBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.all.String()
}

// ErrTimeout is wrapped by Eventually when ctx ends before the condition
// holds.
var ErrTimeout = errors.New("condition not met")

// Eventually calls f every interval until it reports true, returns an error,
// or ctx ends. It is for state that changes without a signal to wait for.
func Eventually(ctx context.Context, every time.Duration, f func() (bool, error)) error {
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		ok, err := f()
		if err != nil {
			return err
		}
		if ok {
			return nil
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
			return fmt.Errorf("%w: %w", ErrTimeout, ctx.Err())
		}
	}
}

// AddMatches returns the match rules connections add on the bus from now
// on, seen from a monitor connection: a test can tell when a client has
// subscribed to a signal, fyne.io/systray to the watcher's name among them.
func (bus *Bus) AddMatches(t testing.TB) <-chan string {
	t.Helper()
	conn := bus.Conn(t)
	err := conn.BusObject().Call("org.freedesktop.DBus.Monitoring.BecomeMonitor", 0,
		[]string{"type='method_call',interface='org.freedesktop.DBus',member='AddMatch'"}, uint32(0)).Err
	if err != nil {
		t.Fatal(err)
	}
	msgs := make(chan *dbus.Message, 64)
	conn.Eavesdrop(msgs)
	rules := make(chan string, 64)
	go func() {
		for m := range msgs {
			if len(m.Body) == 1 {
				if r, ok := m.Body[0].(string); ok {
					select {
					case rules <- r:
					default: // nobody reads this many; don't block the close
					}
				}
			}
		}
	}()
	return rules
}
