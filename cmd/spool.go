package cmd

import (
	"errors"
	"log/slog"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/internal/spool"
)

// errNoRuntime wraps postEvent's client.ErrNotRunning when nothing
// listens on this machine's socket and no remote desktop stands in for
// it: the event was surely not delivered, and the next `clawd serve`
// replays it from the spool. Any other failure (a runtime that took the
// request and answered late, a remote one that is down) is not spooled:
// it may have arrived, and a remote home has no serve of its own.
var errNoRuntime = errors.New("no clawd runtime on this machine")

// spoolEvent keeps a non-blocking event that found no runtime in the
// clawd home's spool (internal/spool): one file append, nothing logged
// unless the append fails or the spool was full. Permission requests are
// never spooled: their answer is worth nothing later.
func spoolEvent(home string, ev agents.Event, log func() *slog.Logger) {
	dropped, err := spool.Append(home, ev)
	if err != nil {
		log().Warn("runtime not reachable and the event could not be kept for it; dropped",
			"event", ev.HookEvent, "session", ev.SessionID, "err", err)
		return
	}
	if dropped > 0 {
		log().Warn("runtime not reachable for long: the spool is full, its oldest events dropped",
			"dropped", dropped, "cap_bytes", spool.MaxBytes)
	}
}
