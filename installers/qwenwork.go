package installers

import "github.com/clawdhq/clawd/agents"

// NewQwenWork returns the installer of clawd's hooks in QwenWork's
// settings.json (agents.QwenWork.ConfigDir): Claude Code's nested shape,
// each group matching "*" and its handler named "clawd" (what QwenWork's
// hooksConfig.disabled takes), as QwenWork documents.
func NewQwenWork(getenv func(string) string) (*HooksFile, error) {
	return newHooksFile(agents.QwenWork, getenv, "settings.json", hooksConfig{name: "clawd", matcher: "*"})
}
