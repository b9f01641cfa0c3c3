package doctor

import (
	"context"
	"os"
)

// checkAutostart checks what starts clawd serve at login (clawd
// autostart): without it, after a reboot every hook fails open until the
// person starts clawd by hand; an entry whose binary moved or was deleted
// starts nothing. A machine whose hooks report to a desktop's runtime
// (remote mode) needs none.
func checkAutostart(ctx context.Context, o Options, rt *runtimeState) Check {
	c := Check{ID: "autostart"}
	if rt.remote != nil {
		c.Status, c.Finding = Skipped, "this machine's hooks report to a desktop's clawd serve: nothing here needs to start at login"
		return c
	}
	st, err := o.Autostart(ctx)
	switch {
	case err != nil:
		c.Status, c.Finding, c.Fix = Warn, "cannot read what starts clawd at login: "+err.Error(), "clawd autostart status"
	case !st.Enabled:
		c.Status, c.Finding, c.Fix = Warn,
			"nothing starts clawd serve at login: after a reboot every hook fails open until clawd serve runs",
			"clawd autostart enable"
	case st.Stale != "":
		c.Status, c.Finding, c.Fix = Warn, "the "+string(st.Kind)+" entry "+st.Path+" is stale: "+st.Stale, "clawd autostart enable"
		if _, err := os.Stat(st.Binary); err != nil {
			// It starts nothing at all.
			c.Status = Fail
		}
	default:
		c.Status, c.Finding = OK, "the "+string(st.Kind)+" entry "+st.Path+" starts "+st.Binary+" serve at login"
		if st.Running {
			c.Finding += "; it runs now"
		}
	}
	return c
}
