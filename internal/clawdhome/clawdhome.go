// Package clawdhome locates clawd's own folder: $CLAWD_HOME, else ~/.clawd.
// It holds runtime.json, config.toml and the logs.
package clawdhome

import (
	"os"
	"path/filepath"
)

// Dir returns the clawd home for the given environment lookup.
func Dir(getenv func(string) string) string {
	if d := getenv("CLAWD_HOME"); d != "" {
		return d
	}
	home := getenv("HOME")
	if home == "" {
		home = getenv("USERPROFILE")
	}
	if home == "" {
		if h, err := os.UserHomeDir(); err == nil {
			home = h
		}
	}
	return filepath.Join(home, ".clawd")
}

// Ensure creates the clawd home with owner-only permissions.
func Ensure(dir string) error { return os.MkdirAll(dir, 0o700) }
