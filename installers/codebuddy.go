package installers

import "github.com/clawdhq/clawd/agents"

// NewCodeBuddy returns the installer of clawd's hooks in CodeBuddy's
// settings.json (agents.CodeBuddy.ConfigDir): Claude Code's shape.
func NewCodeBuddy(getenv func(string) string) (*HooksFile, error) {
	return newHooksFile(agents.CodeBuddy, getenv, "settings.json", hooksConfig{})
}
