package installers

import (
	_ "embed"
	"path/filepath"

	"github.com/clawdhq/clawd/agents"
)

// piExtensionTS is the extension clawd writes into Pi's agent folder,
// with placeholders for what render fills in.
//
//go:embed pi_extension.ts
var piExtensionTS string

// piScript is clawd's Pi extension as the installer handles it.
var piScript = ownScript{agent: agents.Pi, text: piExtensionTS}

// NewPi returns the installer of clawd's Pi extension:
// extensions/clawd.ts in the agent folder getenv points at
// (agents.Pi.ConfigDir). Pi loads every .ts file there at start.
func NewPi(getenv func(string) string) (*OwnFile, error) {
	p, err := PiExtensionPath(getenv)
	if err != nil {
		return nil, err
	}
	return piScript.ownFile(p), nil
}

// PiExtensionPath returns where clawd's Pi extension goes.
func PiExtensionPath(getenv func(string) string) (string, error) {
	d, err := agents.Pi.ConfigDir(getenv)
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "extensions", "clawd.ts"), nil
}

// PiExtension returns clawd's Pi extension for binary, and how many
// events it sends.
func PiExtension(binary string) ([]byte, int) { return piScript.render(binary) }
