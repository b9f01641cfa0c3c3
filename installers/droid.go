package installers

import "github.com/clawdhq/clawd/agents"

// NewDroid returns the installer of clawd's hooks in Factory Droid's
// hooks.json (agents.Droid.ConfigDir): Claude Code's nested groups keyed
// by event at the file's top level, timeouts in seconds. Droid reads the
// "hooks" of its settings.json only when there is no hooks.json, so
// clawd's go in hooks.json, which install creates when it is missing.
func NewDroid(getenv func(string) string) (*HooksFile, error) {
	return newHooksFile(agents.Droid, getenv, "hooks.json", hooksConfig{root: true})
}
