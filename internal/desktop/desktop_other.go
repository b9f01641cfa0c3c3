//go:build windows || darwin

package desktop

// Probe reports a desktop: Windows and macOS sessions that run clawd have
// one, and their tray and notification APIs need no bus.
func Probe() Session {
	return Session{Available: true, TrayHost: true, Notifications: true}
}
