package doctor

// checkDesktop checks what the tray and notifications need: on Linux a
// session bus, a tray host and a notification daemon on it. A machine
// reached over SSH without a desktop skips them: clawd serves there
// without a tray.
func checkDesktop(o Options) []Check {
	d := o.Desktop()
	c := func(id string, s Status, finding, fix string) Check {
		return Check{ID: "desktop." + id, Status: s, Finding: finding, Fix: fix}
	}
	if !d.Available {
		if o.Getenv("SSH_CONNECTION") != "" || o.Getenv("SSH_TTY") != "" {
			return []Check{c("session", Skipped, "no desktop session (an SSH login): clawd serves without a tray and notifications; "+d.Why, "")}
		}
		return []Check{c("session", Warn, "no desktop session: clawd serves without a tray and notifications; "+d.Why,
			"run clawd serve inside your desktop session (DBUS_SESSION_BUS_ADDRESS set)")}
	}
	out := []Check{c("session", OK, "a desktop session: the tray and notifications can show", "")}
	if d.TrayHost {
		out = append(out, c("tray", OK, "a tray host is there (StatusNotifierWatcher)", ""))
	} else {
		out = append(out, c("tray", Warn, "no tray host (StatusNotifierWatcher) on the session bus: the icon shows when one starts",
			"on GNOME, enable the AppIndicator extension"))
	}
	if d.Notifications {
		out = append(out, c("notifications", OK, "a notification daemon is there", ""))
	} else {
		out = append(out, c("notifications", Warn, "no notification daemon on the session bus: no popups", "start your desktop's notification daemon"))
	}
	return out
}
