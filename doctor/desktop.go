package doctor

import (
	"github.com/clawdhq/clawd/internal/health"
	"github.com/clawdhq/clawd/internal/i18n"
)

// checkDesktop checks what the tray and notifications need: on Linux a
// session bus, a tray host and a notification daemon on it. A machine
// reached over SSH without a desktop skips them: clawd serves there
// without a tray.
func checkDesktop(o Options) []Check {
	d := o.Desktop()
	c := func(id string, s Status, finding, fix i18n.Msg) Check {
		return health.New("desktop."+id, "", s, finding, fix)
	}
	var none i18n.Msg
	if !d.Available {
		if o.Getenv("SSH_CONNECTION") != "" || o.Getenv("SSH_TTY") != "" {
			return []Check{c("session", Skipped, i18n.M("doctor.finding.desktop_ssh", d.Why), none)}
		}
		return []Check{c("session", Warn, i18n.M("doctor.finding.desktop_none", d.Why),
			i18n.M("doctor.fixes.desktop_none"))}
	}
	out := []Check{c("session", OK, i18n.M("doctor.finding.desktop_ok"), none)}
	if d.TrayHost {
		out = append(out, c("tray", OK, i18n.M("doctor.finding.tray_ok"), none))
	} else {
		out = append(out, c("tray", Warn, i18n.M("doctor.finding.tray_none"),
			i18n.M("doctor.fixes.tray_none")))
	}
	if d.Notifications {
		out = append(out, c("notifications", OK, i18n.M("doctor.finding.notify_ok"), none))
	} else {
		out = append(out, c("notifications", Warn, i18n.M("doctor.finding.notify_none"), i18n.M("doctor.fixes.notify_none")))
	}
	return out
}
