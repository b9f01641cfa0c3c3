package installers

import (
	"path/filepath"
	"strings"
	"sync"

	"github.com/clawdhq/clawd/agents"
)

// kiloPluginJS is clawd's opencode plugin made Kilo Code's: its first
// line names Kilo's install, and it runs `clawd hook kilo <event>`. Kilo
// is a fork of opencode with the same plugin API (agents.Kilo).
func kiloPluginJS() string {
	_, rest, _ := strings.Cut(opencodePluginJS, "\n")
	return "// clawd's plugin for Kilo Code, written by `clawd install kilo`: clawd rewrites and deletes this file, do not edit it.\n" +
		strings.Replace(rest, `spawn(CLAWD, ["hook", "opencode", name]`, `spawn(CLAWD, ["hook", "kilo", name]`, 1)
}

// kiloScript is clawd's Kilo plugin as the installer handles it, made on
// first use: the text is a copy of opencode's plugin.
var kiloScript = sync.OnceValue(func() ownScript { return ownScript{agent: agents.Kilo, text: kiloPluginJS()} })

// NewKilo returns the installer of clawd's plugin for Kilo Code:
// plugin/clawd.js in the config folder getenv points at
// (agents.Kilo.ConfigDir), which Kilo loads at start.
func NewKilo(getenv func(string) string) (*OwnFile, error) {
	d, err := agents.Kilo.ConfigDir(getenv)
	if err != nil {
		return nil, err
	}
	return kiloScript().ownFile(filepath.Join(d, "plugin", "clawd.js")), nil
}
