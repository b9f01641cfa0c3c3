package installers

import "github.com/clawdhq/clawd/agents"

// NewWorkBuddy returns the installer of clawd's hooks in WorkBuddy's
// settings.json (agents.WorkBuddy.ConfigDir): Claude Code's shape.
func NewWorkBuddy(getenv func(string) string) (*HooksFile, error) {
	return newHooksFile(agents.WorkBuddy, getenv, "settings.json", hooksConfig{})
}
