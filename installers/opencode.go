package installers

import (
	_ "embed"
	"path/filepath"

	"github.com/clawdhq/clawd/agents"
)

// opencodePluginJS is the plugin clawd writes into opencode's config,
// with placeholders for what Render fills in.
//
//go:embed opencode_plugin.js
var opencodePluginJS string

// opencodeScript is clawd's opencode plugin as the installer handles it.
var opencodeScript = ownScript{agent: opencodeV1Agent, text: opencodePluginJS}

// opencodeMarker is the first line of clawd's plugin file: with the
// command line below it, how clawd knows the file for its own.
var opencodeMarker = opencodeScript.marker()

// NewOpencode returns the installer of clawd's plugin for opencode:
// plugin/clawd.js in the config folder getenv points at
// (agents.Opencode.ConfigDir). opencode loads every .js file there at
// start.
func NewOpencode(getenv func(string) string) (*OwnFile, error) {
	p, err := OpencodePluginPath(getenv)
	if err != nil {
		return nil, err
	}
	return opencodeScript.ownFile(p), nil
}

// OpencodePluginPath returns where clawd's opencode plugin goes.
func OpencodePluginPath(getenv func(string) string) (string, error) {
	d, err := agents.Opencode.ConfigDir(getenv)
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "plugin", "clawd.js"), nil
}

// OpencodePlugin returns clawd's opencode plugin for binary, and how many
// events it hooks (see ownScript.render).
func OpencodePlugin(binary string) ([]byte, int) { return opencodeScript.render(binary) }

// opencodeOurs reports whether data is a plugin clawd wrote (see
// ownScript.ours).
func opencodeOurs(data []byte, known Known) (int, bool) { return opencodeScript.ours(data, known) }
