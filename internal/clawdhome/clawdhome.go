// Package clawdhome locates clawd's own folder: $CLAWD_HOME, else ~/.clawd.
// It holds runtime.json, the runtime's socket and lock, config.toml and
// the logs.
package clawdhome

import (
	"errors"
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

// ErrNotPrivate means a folder that must be the person's alone is not:
// someone else owns it, or others may write to it (for the clawd home:
// may enter it).
var ErrNotPrivate = errors.New("folder is not private")

// Ensure creates the clawd home with owner-only permissions (0700), or
// tightens an existing home that group or others may enter, and reports
// whether it had to. The home holds runtime.json (the API token), the
// runtime's socket and the logs. An error wrapping ErrNotPrivate says the
// home stays open to others: it belongs to someone else or its mode could
// not be changed; the caller warns and carries on.
func Ensure(dir string) (tightened bool, err error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return false, err
	}
	return tighten(dir)
}

// CheckPrivate checks that dir is a folder owned by this user that nobody
// else may write to: where the runtime's socket may live. The error wraps
// ErrNotPrivate and says what is wrong.
func CheckPrivate(dir string) error { return checkPrivate(dir) }

// CheckOwnFile checks that path is a regular file (not a link) owned by
// this user that nobody else may write to: a file whose content clawd
// acts on, such as a remote machine's runtime.json. The error wraps
// ErrNotPrivate, or fs.ErrNotExist when there is no file.
func CheckOwnFile(path string) error { return checkOwnFile(path) }
