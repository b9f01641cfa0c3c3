package doctor

import (
	"context"
	"os"

	"github.com/clawdhq/clawd/internal/health"
	"github.com/clawdhq/clawd/internal/i18n"
)

// checkAutostart checks what starts clawd serve at login (clawd
// autostart): without it, after a reboot every hook fails open until the
// person starts clawd by hand; an entry whose binary moved or was deleted
// starts nothing. A machine whose hooks report to a desktop's runtime
// (remote mode) needs none.
func checkAutostart(ctx context.Context, o Options, rt *runtimeState) Check {
	c := func(s Status, finding, fix i18n.Msg) Check { return health.New("autostart", "", s, finding, fix) }
	if rt.remote != nil {
		return c(Skipped, i18n.M("doctor.finding.autostart_remote"), i18n.Msg{})
	}
	enable := i18n.Literal("clawd autostart enable")
	st, err := o.Autostart(ctx)
	switch {
	case err != nil:
		return c(Warn, i18n.M("doctor.finding.autostart_unreadable", err.Error()), i18n.Literal("clawd autostart status"))
	case !st.Enabled:
		return c(Warn, i18n.M("doctor.finding.autostart_none"), enable)
	case st.Stale != "":
		s := Warn
		if _, err := os.Stat(st.Binary); err != nil {
			// It starts nothing at all.
			s = Fail
		}
		return c(s, i18n.M("doctor.finding.autostart_stale", string(st.Kind), st.Path, st.Stale), enable)
	case st.Running:
		return c(OK, i18n.M("doctor.finding.autostart_runs", string(st.Kind), st.Path, st.Binary), i18n.Msg{})
	}
	return c(OK, i18n.M("doctor.finding.autostart_ok", string(st.Kind), st.Path, st.Binary), i18n.Msg{})
}
