package installers

import (
	"path/filepath"

	"github.com/clawdhq/clawd/agents"
)

// NewGrok returns the installer of clawd's hooks file for Grok Build,
// hooks/clawd.json in Grok's home (agents.Grok.ConfigDir): a file of
// clawd's own in Claude Code's shape, which install creates and uninstall
// deletes; Grok reads every file of that folder.
func NewGrok(getenv func(string) string) (*HooksFile, error) {
	return newHooksFile(agents.Grok, getenv, filepath.Join("hooks", "clawd.json"), hooksConfig{})
}
