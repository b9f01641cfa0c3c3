package installers

import "github.com/clawdhq/clawd/agents"

// NewCrush returns the installer of clawd's hook in Crush's crush.json
// (agents.Crush.ConfigDir): a flat list under "hooks", each entry
// {"name", "command", "timeout"} (seconds), as Crush documents; the file
// may have comments, which stay.
func NewCrush(getenv func(string) string) (*HooksFile, error) {
	return newHooksFile(agents.Crush, getenv, "crush.json", hooksConfig{flat: true, noType: true, name: "clawd", jsonc: true})
}
