// Package monitors lists the agents' own logs that clawd follows besides
// their hooks: for each agent that has one, its monitor as a
// runtime.Source. Adding a monitor for an agent is a package of its own
// under monitors/ (as codex) and a line here.
package monitors

import (
	"log/slog"
	"time"

	"github.com/clawdhq/clawd/runtime"
	"github.com/clawdhq/clawd/runtime/monitors/codex"
)

// All returns the sources for the environment getenv: Codex's rollout
// files under $CODEX_HOME. A source whose folder cannot be found is left
// out, and logged.
func All(getenv func(string) string, now func() time.Time, log *slog.Logger) []runtime.Source {
	var out []runtime.Source
	if home, err := codex.Home(getenv); err == nil {
		out = append(out, codex.NewSource(codex.Options{Home: home, Now: now, Log: log}))
	} else {
		log.Info("codex rollout monitor off", "err", err)
	}
	return out
}
