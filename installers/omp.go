package installers

import (
	_ "embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/clawdhq/clawd/agents"
)

// ompExtensionTS is the extension clawd writes into OMP's agent folder,
// with placeholders for what render fills in.
//
//go:embed omp_extension.ts
var ompExtensionTS string

// ompScript is clawd's OMP extension as the installer handles it.
var ompScript = ownScript{agent: agents.OMP, text: ompExtensionTS}

// ErrBeside reports another program's integration already reporting the
// same events to a desktop pet: clawd installs nothing beside it.
var ErrBeside = errors.New("another integration reports these events")

// OMP installs clawd's extension for OMP: extensions/clawd.ts in OMP's
// active agent folder (agents.OMP.ConfigDir), the OwnFile engine. It
// refuses while the community bridge (agents.OMPBridge) sits in the same
// folder: OMP would load both and report every event twice.
type OMP struct {
	*OwnFile
}

// NewOMP returns the installer of clawd's OMP extension for the
// environment getenv.
func NewOMP(getenv func(string) string) (*OMP, error) {
	p, err := OMPExtensionPath(getenv)
	if err != nil {
		return nil, err
	}
	return &OMP{ompScript.ownFile(p)}, nil
}

// OMPExtensionPath returns where clawd's OMP extension goes.
func OMPExtensionPath(getenv func(string) string) (string, error) {
	d, err := agents.OMP.ConfigDir(getenv)
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "extensions", "clawd.ts"), nil
}

// Install writes clawd's extension for binary, unless the community
// bridge is there.
func (o *OMP) Install(binary string, opts Options) (*Report, error) {
	bridge := filepath.Join(filepath.Dir(o.Path), agents.OMPBridge)
	if _, err := os.Lstat(bridge); err == nil {
		return nil, fmt.Errorf("%s: %w: the community bridge reports OMP's events already, and OMP would report each twice; remove it and run again (nothing was written)", bridge, ErrBeside)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("look for the community bridge: %w", err)
	}
	return o.OwnFile.Install(binary, opts)
}

// OMPExtension returns clawd's OMP extension for binary, and how many
// events it sends.
func OMPExtension(binary string) ([]byte, int) { return ompScript.render(binary) }
