package installers

import "github.com/clawdhq/clawd/agents"

// NewZCode returns the installer of clawd's hooks in ZCode's config.json
// (agents.ZCode.ConfigDir): Claude Code's nested shape under
// "hooks": {"enabled": true, "events": ...}, handlers with type, command
// and timeout only (ZCode rejects any other key), as ZCode documents.
func NewZCode(getenv func(string) string) (*HooksFile, error) {
	return newHooksFile(agents.ZCode, getenv, "config.json", hooksConfig{events: "events", enabled: true})
}
