package desktop

import (
	"context"
	"os"
	"os/user"
	"path/filepath"
	"testing"
	"time"

	"github.com/clawdhq/clawd/internal/fakedesktop"
)

// fakeDBusLaunch puts a dbus-launch first on PATH that leaves a mark when
// run: the probe must never start a bus (beeep and systray would, through
// godbus's SessionBus, and leave a dbus-daemon behind).
func fakeDBusLaunch(t *testing.T) (mark string) {
	t.Helper()
	dir := t.TempDir()
	mark = filepath.Join(dir, "dbus-launch-ran")
	script := "#!/bin/sh\ntouch " + mark + "\nexit 1\n"
	if err := os.WriteFile(filepath.Join(dir, "dbus-launch"), []byte(script), 0o700); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	return mark
}

func TestProbeNoBus(t *testing.T) {
	mark := fakeDBusLaunch(t)
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "")
	s := Probe()
	// godbus also looks at the standard per-user socket; on a machine
	// with a desktop session that is a real bus and the probe finds it.
	u, err := user.Current()
	if err != nil {
		t.Fatal(err)
	}
	_, statErr := os.Stat("/run/user/" + u.Uid + "/bus")
	if want := statErr == nil; s.Available != want {
		t.Errorf("Probe() without DBUS_SESSION_BUS_ADDRESS = %+v, want Available %v", s, want)
	}
	if !s.Available && s.Why == "" {
		t.Errorf("Probe() = %+v, want a reason", s)
	}
	if _, err := os.Stat(mark); err == nil {
		t.Error("Probe() ran dbus-launch: it must never start a session bus")
	}
}

func TestProbeDeadBus(t *testing.T) {
	mark := fakeDBusLaunch(t)
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path="+filepath.Join(t.TempDir(), "gone"))
	if s := Probe(); s.Available || s.Why == "" {
		t.Errorf("Probe() with a dead bus address = %+v, want unavailable with a reason", s)
	}
	if _, err := os.Stat(mark); err == nil {
		t.Error("Probe() ran dbus-launch")
	}
}

func TestProbeFakeDesktop(t *testing.T) {
	b := fakedesktop.StartBus(t)
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", b.Address())
	if s := Probe(); !s.Available || s.TrayHost || s.Notifications {
		t.Errorf("Probe() on a bare bus = %+v, want available, no tray host, no notifications", s)
	}
	fakedesktop.StartWatcher(t, b)
	fakedesktop.StartNotifier(t, b)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var s Session
	err := fakedesktop.Eventually(ctx, 20*time.Millisecond, func() (bool, error) {
		s = Probe()
		return s.TrayHost && s.Notifications, nil
	})
	if err != nil || !s.Available {
		t.Errorf("Probe() with a watcher and a notification daemon = %+v (%v), want all true", s, err)
	}
	// The probe closes its connection: after more probes the bus is back
	// to the connections it had.
	conn := b.Conn(t)
	connections := func() int {
		var names []string
		if err := conn.BusObject().Call("org.freedesktop.DBus.ListNames", 0).Store(&names); err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, name := range names {
			if name != "" && name[0] == ':' {
				n++
			}
		}
		return n
	}
	base := connections()
	for range 5 {
		Probe()
	}
	err = fakedesktop.Eventually(ctx, 20*time.Millisecond, func() (bool, error) { return connections() == base, nil })
	if err != nil {
		t.Errorf("after 5 probes the bus has %d connections, want %d as before: %v", connections(), base, err)
	}
}
