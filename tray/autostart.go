package tray

import (
	"context"
	"os"
	"path/filepath"

	"github.com/clawdhq/clawd/internal/autostart"
)

// LoginEntry is the entry that starts clawd at login, which "Start at
// login" shows and toggles. loginEntry (internal/autostart, the entry
// `clawd autostart` writes) is the default.
type LoginEntry interface {
	// Status reads the entry as it is now.
	Status(ctx context.Context) (autostart.Status, error)
	// Set writes the entry (on) or removes it. It starts and stops
	// nothing: this runtime runs already.
	Set(ctx context.Context, on bool) error
}

// loginEntry is internal/autostart's entry for one clawd binary and home.
type loginEntry struct{ o autostart.Options }

func (e loginEntry) Status(ctx context.Context) (autostart.Status, error) {
	return autostart.Check(ctx, e.o)
}

func (e loginEntry) Set(ctx context.Context, on bool) error {
	if on {
		_, err := autostart.Enable(ctx, e.o, false)
		return err
	}
	_, err := autostart.Disable(ctx, e.o, false)
	return err
}

// defaultLoginEntry is the entry `clawd autostart enable` would write from
// this process: this binary (symlinks resolved), serving home. nil when
// either the binary or the person's home folder is unknown.
func defaultLoginEntry(home string) LoginEntry {
	bin, err := os.Executable()
	if err != nil {
		return nil
	}
	if r, err := filepath.EvalSymlinks(bin); err == nil {
		bin = r
	}
	userHome, err := os.UserHomeDir()
	if err != nil || userHome == "" {
		return nil
	}
	if home != "" {
		if abs, err := filepath.Abs(home); err == nil {
			home = abs
		}
	}
	return loginEntry{autostart.Options{Home: userHome, Getenv: os.Getenv, Binary: bin, ClawdHome: home}}
}
