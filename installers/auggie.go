package installers

import (
	"time"

	"github.com/clawdhq/clawd/agents"
)

// NewAuggie returns the installer of clawd's hooks in Auggie's
// settings.json (agents.Auggie.ConfigDir): Claude Code's nested shape
// under "hooks", timeouts in milliseconds, as Auggie reads them.
func NewAuggie(getenv func(string) string) (*HooksFile, error) {
	return newHooksFile(agents.Auggie, getenv, "settings.json", hooksConfig{timeoutUnit: time.Millisecond})
}
