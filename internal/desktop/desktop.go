// Package desktop tells whether clawd runs where a person sits: a desktop
// session it can show a tray icon and notifications in. On Linux and the
// BSDs that means a reachable D-Bus session bus, checked without ever
// starting one: fyne.io/systray panics on Quit without a bus and beeep
// leaves a stray dbus-daemon behind per notification when it auto-launches
// one (research/go-deps.md §3).
package desktop

// Session describes the desktop clawd found.
type Session struct {
	// Available is true when a tray and notifications can be shown.
	Available bool
	// Why says what is missing when Available is false, in words for the
	// log ("no D-Bus session bus: ...").
	Why string
	// TrayHost reports whether a tray host (on Linux, the
	// org.kde.StatusNotifierWatcher) is there now. Without one the tray
	// still runs and shows up when a host appears later.
	TrayHost bool
	// Notifications reports whether a notification daemon is there now.
	Notifications bool
}
