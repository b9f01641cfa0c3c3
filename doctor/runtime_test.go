package doctor

import (
	"context"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/clawdhq/clawd/internal/desktop"
	"github.com/clawdhq/clawd/internal/intrudertest"
	"github.com/clawdhq/clawd/runtime"
	"github.com/clawdhq/clawd/runtime/automations"
	"github.com/clawdhq/clawd/runtime/client"
)

// startRuntime runs a real runtime for the clawd home home on a port of
// the kernel's choosing, and returns what it wrote in runtime.json.
func startRuntime(t *testing.T, home string) client.Info {
	t.Helper()
	return startRuntimeWith(t, runtime.Config{Home: home, Version: "test"})
}

func startRuntimeWith(t *testing.T, cfg runtime.Config) client.Info {
	t.Helper()
	s := runtime.New(cfg)
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan client.Info, 1)
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx, 0, func(in client.Info) { ready <- in }) }()
	var info client.Info
	select {
	case info = <-ready:
	case err := <-done:
		t.Fatalf("runtime: %v", err)
	}
	t.Cleanup(func() {
		cancel()
		<-done
	})
	return info
}

// serveHTTP answers every request on a loopback port with status 200,
// with clawd's identity header when clawd is set, and returns the port.
func serveHTTP(t *testing.T, clawd bool) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if clawd {
			w.Header().Set(client.IdentityHeader, client.IdentityValue)
		}
		w.Write([]byte("{}"))
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return ln.Addr().(*net.TCPAddr).Port
}

// closedPort is a loopback port nothing listens on.
func closedPort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// runtimeChecks runs the runtime's checks for the clawd home home, with
// ports as the ports to look at.
func runtimeChecks(t *testing.T, home string, ports ...int) map[string]Check {
	t.Helper()
	o := Options{Home: home, Getenv: func(string) string { return "" }, Version: "test", Ports: ports}
	o.defaults()
	out := map[string]Check{}
	for _, c := range checkRuntime(context.Background(), o).checks {
		out[c.ID] = c
	}
	return out
}

func want(t *testing.T, checks map[string]Check, id string, s Status, finding string) {
	t.Helper()
	c, ok := checks[id]
	if !ok {
		t.Errorf("no %s in %+v", id, checks)
		return
	}
	if c.Status != s || !strings.Contains(c.Finding, finding) {
		t.Errorf("%s = %+v, want %s with %q", id, c, s, finding)
	}
}

// TestRuntimeChecks: each of the runtime's checks passes on a runtime that
// is fine, and fires on the fault it is there for.
func TestRuntimeChecks(t *testing.T) {
	t.Run("fine", func(t *testing.T) {
		home := filepath.Join(t.TempDir(), ".clawd")
		info := startRuntime(t, home)
		checks := runtimeChecks(t, home, closedPort(t))
		want(t, checks, "runtime.reachable", OK, "clawd serve test (pid "+strconv.Itoa(os.Getpid())+") answers on ")
		want(t, checks, "runtime.info", OK, "describes the runtime")
		want(t, checks, "runtime.token", OK, "readable by its owner only")
		want(t, checks, "runtime.port", OK, "the runtime answers on 127.0.0.1:"+strconv.Itoa(info.Port))
		want(t, checks, "runtime.ports", OK, "no other program holds clawd's ports")
	})

	t.Run("token readable by others", func(t *testing.T) {
		home := filepath.Join(t.TempDir(), ".clawd")
		startRuntime(t, home)
		path := filepath.Join(home, client.InfoFile)
		if err := os.Chmod(path, 0o644); err != nil {
			t.Fatal(err)
		}
		checks := runtimeChecks(t, home)
		want(t, checks, "runtime.token", Fail, "has mode 0644: other users can read the token in it")
		if c := checks["runtime.token"]; c.Fix != "chmod 600 "+path {
			t.Errorf("runtime.token's fix = %q, want chmod 600 %s", c.Fix, path)
		}
	})

	t.Run("runtime.json of another process", func(t *testing.T) {
		home := filepath.Join(t.TempDir(), ".clawd")
		info := startRuntime(t, home)
		info.PID++
		if err := client.WriteInfo(home, info); err != nil {
			t.Fatal(err)
		}
		want(t, runtimeChecks(t, home), "runtime.info", Fail, "names pid "+strconv.Itoa(info.PID)+", but the runtime is pid "+strconv.Itoa(os.Getpid()))
	})

	t.Run("runtime.json's port is not clawd's", func(t *testing.T) {
		home := filepath.Join(t.TempDir(), ".clawd")
		info := startRuntime(t, home)
		info.Port = serveHTTP(t, false)
		if err := client.WriteInfo(home, info); err != nil {
			t.Fatal(err)
		}
		want(t, runtimeChecks(t, home), "runtime.port", Fail, "no clawd answers on 127.0.0.1:"+strconv.Itoa(info.Port))
	})

	t.Run("runtime.json's port held by a program that says it is clawd", func(t *testing.T) {
		// Anything can send clawd's identity header; only the runtime
		// answers the nonce with the token's proof.
		home := filepath.Join(t.TempDir(), ".clawd")
		info := startRuntime(t, home)
		info.Port = serveHTTP(t, true)
		if err := client.WriteInfo(home, info); err != nil {
			t.Fatal(err)
		}
		want(t, runtimeChecks(t, home), "runtime.port", Fail, "cannot prove it is this runtime")
	})

	t.Run("no TCP port", func(t *testing.T) {
		home := filepath.Join(t.TempDir(), ".clawd")
		info := startRuntime(t, home)
		info.Port = 0
		if err := client.WriteInfo(home, info); err != nil {
			t.Fatal(err)
		}
		want(t, runtimeChecks(t, home, closedPort(t)), "runtime.port", Warn, "the runtime has no TCP port")
	})

	t.Run("automations store unreadable", func(t *testing.T) {
		// The runtime moved a damaged automations.db aside: doctor says
		// so, as the runtime words it.
		home := filepath.Join(t.TempDir(), ".clawd")
		if err := os.MkdirAll(home, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(home, automations.StoreFile), []byte("not a database, not at all: garbage"), 0o600); err != nil {
			t.Fatal(err)
		}
		startRuntimeWith(t, runtime.Config{Home: home, Version: "test",
			OpenAutomations: func(ctx context.Context) (*automations.Engine, error) {
				return automations.Open(ctx, automations.Options{Home: home})
			}})
		want(t, runtimeChecks(t, home), "runtime.automations.store", Warn, "automations.db was unreadable")
	})

	t.Run("left over", func(t *testing.T) {
		home := filepath.Join(t.TempDir(), ".clawd")
		if err := client.WriteInfo(home, client.Info{PID: 999999, Port: closedPort(t), Token: "t"}); err != nil {
			t.Fatal(err)
		}
		checks := runtimeChecks(t, home)
		// Nothing reaches the person without it: a failure, with how to
		// start it.
		want(t, checks, "runtime.reachable", Fail, "clawd serve is not running for "+home)
		if fix := checks["runtime.reachable"].Fix; !strings.Contains(fix, "clawd serve") || !strings.Contains(fix, "clawd autostart enable") {
			t.Errorf("runtime.reachable's fix = %q, want clawd serve and clawd autostart enable", fix)
		}
		want(t, checks, "runtime.info", Warn, "is left from a runtime that is gone (pid 999999)")
		if _, ok := checks["runtime.port"]; ok {
			t.Errorf("runtime.port checked with no runtime: %+v", checks["runtime.port"])
		}
	})

	t.Run("home open to others", func(t *testing.T) {
		// Others may write to the clawd home: whoever listens on its
		// socket may not be this user's runtime.
		home := filepath.Join(t.TempDir(), ".clawd")
		startRuntime(t, home)
		if err := os.Chmod(home, 0o777); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Chmod(home, 0o700) })
		checks := runtimeChecks(t, home)
		want(t, checks, "runtime.reachable", Fail, "is not this user's")
		if c := checks["runtime.reachable"]; !strings.HasPrefix(c.Fix, "remove ") {
			t.Errorf("runtime.reachable's fix = %q", c.Fix)
		}
	})

	t.Run("another program on clawd's ports", func(t *testing.T) {
		home := filepath.Join(t.TempDir(), ".clawd")
		foreign, clawd, free := serveHTTP(t, false), serveHTTP(t, true), closedPort(t)
		checks := runtimeChecks(t, home, foreign, clawd, free)
		want(t, checks, "runtime.ports", Warn, "another program holds clawd's port 127.0.0.1:"+strconv.Itoa(foreign)+":")
		if f := checks["runtime.ports"].Finding; strings.Contains(f, strconv.Itoa(clawd)) || strings.Contains(f, strconv.Itoa(free)) {
			t.Errorf("runtime.ports names a clawd's or a free port: %q", f)
		}
		want(t, runtimeChecks(t, home, foreign), "runtime.ports", Warn, "other programs hold every one of clawd's ports")
	})

	t.Run("another user's program on clawd's ports, saying it is clawd", func(t *testing.T) {
		// nobody's fake clawd answers with clawd's header: what another
		// user runs is never this person's clawd.
		if why := intrudertest.Available(); why != "" {
			t.Skip(why)
		}
		squat := intrudertest.Serve(t, "doctor")
		p := squat.Ports[len(squat.Ports)-1] // the one of the kernel's choosing
		home := filepath.Join(t.TempDir(), ".clawd")
		want(t, runtimeChecks(t, home, p), "runtime.ports", Warn, strconv.Itoa(p)+" (uid 65534")
	})
}

// links are remote links as clawd serve's link manager reports them.
type links []client.RemoteLink

func (l links) Links() []client.RemoteLink     { return l }
func (links) Reload(ctx context.Context) error { return nil }

// TestRemoteLinkChecks: each link of the runtime to a remote machine is
// a check: up is ok; down or still connecting is a warning with why and
// the command that tests it.
func TestRemoteLinkChecks(t *testing.T) {
	home := filepath.Join(t.TempDir(), ".clawd")
	startRuntimeWith(t, runtime.Config{Home: home, Version: "test", Remotes: links{
		{Profile: "box", Kind: client.LinkSSH, State: client.LinkUp},
		{Profile: "ubuntu", Kind: client.LinkWSL, State: client.LinkDown, Error: "wsl.exe: exit status 1"},
		{Profile: "far", Kind: client.LinkSSH, State: client.LinkConnecting},
	}})
	checks := runtimeChecks(t, home)
	want(t, checks, "remote.box.link", OK, "the link to box (ssh) is up")
	want(t, checks, "remote.ubuntu.link", Warn, "the link to ubuntu (wsl) is down: its agents' hooks deliver nothing meanwhile (wsl.exe: exit status 1)")
	want(t, checks, "remote.far.link", Warn, "the link to far (ssh) is connecting")
	if c := checks["remote.ubuntu.link"]; c.Fix != "clawd remote test ubuntu" {
		t.Errorf("remote.ubuntu.link's fix = %q", c.Fix)
	}
}

// TestDesktopChecks: a desktop with a tray host and a notification daemon
// passes; each missing part is a warning with its fix; no desktop over
// SSH is skipped, and elsewhere a warning.
func TestDesktopChecks(t *testing.T) {
	for _, c := range []struct {
		name string
		d    desktop.Session
		ssh  bool
		want []string // "id status"
	}{
		{"whole", desktop.Session{Available: true, TrayHost: true, Notifications: true}, false,
			[]string{"desktop.session ok", "desktop.tray ok", "desktop.notifications ok"}},
		{"no tray host", desktop.Session{Available: true, Notifications: true}, false,
			[]string{"desktop.session ok", "desktop.tray warn", "desktop.notifications ok"}},
		{"no notification daemon", desktop.Session{Available: true, TrayHost: true}, false,
			[]string{"desktop.session ok", "desktop.tray ok", "desktop.notifications warn"}},
		{"no session bus", desktop.Session{Why: "no D-Bus session bus"}, false, []string{"desktop.session warn"}},
		{"an SSH login", desktop.Session{Why: "no D-Bus session bus"}, true, []string{"desktop.session skipped"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := Options{
				Desktop: func() desktop.Session { return c.d },
				Getenv: func(k string) string {
					if k == "SSH_CONNECTION" && c.ssh {
						return "10.0.0.1 5555 10.0.0.2 22"
					}
					return ""
				},
			}
			var got []string
			for _, ch := range checkDesktop(o) {
				got = append(got, ch.ID+" "+string(ch.Status))
				if ch.Status == Warn && ch.Fix == "" {
					t.Errorf("%s warns without a fix", ch.ID)
				}
				if !c.d.Available && !strings.Contains(ch.Finding, c.d.Why) {
					t.Errorf("%s = %q, want why: %q", ch.ID, ch.Finding, c.d.Why)
				}
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("checkDesktop(%+v, ssh %v) = %v, want %v", c.d, c.ssh, got, c.want)
			}
		})
	}
}
