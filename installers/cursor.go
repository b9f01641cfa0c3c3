package installers

import "github.com/clawdhq/clawd/agents"

// NewCursor returns the installer of clawd's hooks in Cursor's hooks.json
// (agents.Cursor.ConfigDir): each event a list of `{"command": ...}`, a
// new file starting with `"version": 1`, as Cursor documents.
func NewCursor(getenv func(string) string) (*HooksFile, error) {
	return newHooksFile(agents.Cursor, getenv, "hooks.json", hooksConfig{flat: true, noType: true, noTimeout: true, version: 1})
}
