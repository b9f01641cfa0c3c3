package installers

import "github.com/clawdhq/clawd/agents"

// NewReasonix returns the installer of clawd's hooks in Reasonix's
// settings.json (agents.Reasonix.ConfigDir): each event a list of
// `{"command": ..., "match": "*"}` without timeout.
func NewReasonix(getenv func(string) string) (*HooksFile, error) {
	return newHooksFile(agents.Reasonix, getenv, "settings.json", hooksConfig{flat: true, noType: true, noTimeout: true, extra: object{{"match", "*"}}})
}
