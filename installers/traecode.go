package installers

import "github.com/clawdhq/clawd/agents"

// NewTraeCode returns the installer of clawd's hooks in TraeCode's
// hooks.json (agents.TraeCode.ConfigDir): Claude Code's nested shape with
// no timeouts, as TraeCode documents.
func NewTraeCode(getenv func(string) string) (*HooksFile, error) {
	return newHooksFile(agents.TraeCode, getenv, "hooks.json", hooksConfig{noTimeout: true})
}
