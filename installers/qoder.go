package installers

import "github.com/clawdhq/clawd/agents"

// NewQoder returns the installer of clawd's hooks in Qoder CLI's
// settings.json (agents.Qoder.ConfigDir): Claude Code's nested shape, each
// group matching "*" and its handler named "clawd", as Qoder documents.
func NewQoder(getenv func(string) string) (*HooksFile, error) {
	return newHooksFile(agents.Qoder, getenv, "settings.json", hooksConfig{name: "clawd", matcher: "*"})
}
