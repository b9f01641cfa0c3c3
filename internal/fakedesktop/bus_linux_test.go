package fakedesktop

import (
	"errors"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/godbus/dbus/v5"
)

func TestStartBus(t *testing.T) {
	t.Setenv("DISPLAY", ":42")
	t.Setenv("WAYLAND_DISPLAY", "wayland-42")
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path=/nonexistent/real-session-bus")

	var addr string
	t.Run("running", func(t *testing.T) {
		bus := StartBus(t)
		addr = bus.Address()
		if !strings.HasPrefix(addr, "unix:path=") {
			t.Errorf("Address() = %q, want unix:path=...", addr)
		}
		conn := bus.Conn(t)
		if names := conn.Names(); len(names) == 0 || !strings.HasPrefix(names[0], ":") {
			t.Errorf("Conn().Names() = %v, want a unique name", names)
		}

		env := bus.Env()
		want := "DBUS_SESSION_BUS_ADDRESS=" + addr
		if !slices.Contains(env, want) {
			t.Errorf("Env() lacks %s", want)
		}
		for _, kv := range env {
			k, _, _ := strings.Cut(kv, "=")
			if k == "DISPLAY" || k == "WAYLAND_DISPLAY" || kv == "DBUS_SESSION_BUS_ADDRESS=unix:path=/nonexistent/real-session-bus" {
				t.Errorf("Env() keeps %s", kv)
			}
		}

		// Another connection sees the first: it is one bus.
		var has bool
		err := bus.Conn(t).BusObject().Call("org.freedesktop.DBus.NameHasOwner", 0, conn.Names()[0]).Store(&has)
		if err != nil || !has {
			t.Errorf("NameHasOwner(%s) = %v, %v; want true", conn.Names()[0], has, err)
		}
	})
	// The subtest's cleanup has run: the daemon must be gone.
	if conn, err := dbus.Connect(addr); err == nil {
		conn.Close()
		t.Errorf("Connect(%s) after cleanup succeeded, want the daemon gone", addr)
	}
}

func TestProc(t *testing.T) {
	bus := StartBus(t)
	ctx := testContext(t)

	t.Run("output and exit", func(t *testing.T) {
		cmd := exec.Command("sh", "-c", `echo "bus=$DBUS_SESSION_BUS_ADDRESS"; echo "x=$X"; echo to-stderr >&2; exit 3`)
		cmd.Env = []string{"X=1", "X=2"}
		p := bus.Start(t, cmd)
		for _, want := range []string{"bus=" + bus.Address(), "x=2", "to-stderr"} {
			if line, err := p.WaitLine(ctx, want); err != nil || line != want {
				t.Errorf("WaitLine(%q) = %q, %v; want the line", want, line, err)
			}
		}
		var exit *exec.ExitError
		if err := p.Wait(ctx); !errors.As(err, &exit) || exit.ExitCode() != 3 {
			t.Errorf("Wait() = %v, want exit status 3", err)
		}
		if _, err := p.WaitLine(ctx, "never printed"); err == nil || !strings.Contains(err.Error(), "exited") {
			t.Errorf("WaitLine after exit = %v, want an error saying it exited", err)
		}
	})

	var p *Proc
	t.Run("killed at cleanup", func(t *testing.T) {
		p = bus.Start(t, exec.Command("sleep", "600"))
	})
	select {
	case <-p.exited:
	default:
		t.Fatal("process still running after its test's cleanup")
	}
}
