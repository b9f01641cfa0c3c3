//go:build !windows && !darwin

package desktop

import (
	"fmt"

	"github.com/godbus/dbus/v5"
)

// Names clawd looks for on the session bus.
const (
	watcherName = "org.kde.StatusNotifierWatcher"
	notifyName  = "org.freedesktop.Notifications"
)

// Probe looks for a D-Bus session bus without auto-launching one:
// SessionBusPrivateNoAutoStartup reads DBUS_SESSION_BUS_ADDRESS or the
// standard per-user socket, and never runs dbus-launch.
func Probe() Session {
	conn, err := dbus.SessionBusPrivateNoAutoStartup()
	if err != nil {
		return Session{Why: fmt.Sprintf("no D-Bus session bus: %v", err)}
	}
	defer conn.Close()
	if err := conn.Auth(nil); err != nil {
		return Session{Why: fmt.Sprintf("D-Bus session bus refused us: %v", err)}
	}
	if err := conn.Hello(); err != nil {
		return Session{Why: fmt.Sprintf("D-Bus session bus did not answer: %v", err)}
	}
	s := Session{Available: true}
	s.TrayHost = hasOwner(conn, watcherName)
	s.Notifications = hasOwner(conn, notifyName)
	return s
}

func hasOwner(conn *dbus.Conn, name string) bool {
	var ok bool
	err := conn.BusObject().Call("org.freedesktop.DBus.NameHasOwner", 0, name).Store(&ok)
	return err == nil && ok
}
