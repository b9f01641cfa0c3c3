// Package autostart starts `clawd serve` at login, the way each platform
// does it for a person's own programs:
//
//   - Linux with a systemd user manager: a user unit,
//     ~/.config/systemd/user/clawd.service (Restart=on-failure), enabled
//     and started with `systemctl --user`;
//   - Linux and other Unixes without one: an XDG autostart entry,
//     ~/.config/autostart/clawd.desktop, which the desktop session starts;
//   - macOS: a LaunchAgent, ~/Library/LaunchAgents/com.clawdhq.clawd.plist
//     (RunAtLoad; KeepAlive only after a failed exit), loaded with
//     launchctl;
//   - Windows: the "clawd" value of HKCU\...\CurrentVersion\Run.
//
// Every entry runs the absolute path of the clawd binary that wrote it,
// with the clawd home it was written for. Check tells whether the entry
// still starts this clawd (doctor calls it): an entry whose binary moved
// or is gone is stale, and enabling again from the new binary repairs it.
// A quit from the tray exits 0 and stays quit until the next login; a
// crash or a failed start is restarted.
package autostart

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Kind is how an entry starts clawd.
type Kind string

// The kinds of entries.
const (
	Systemd  Kind = "systemd"  // a systemd user unit
	XDG      Kind = "xdg"      // an XDG autostart .desktop entry
	Launchd  Kind = "launchd"  // a macOS LaunchAgent
	Registry Kind = "registry" // the Windows HKCU Run value
)

// Label names clawd's entry: the unit (clawd.service), the .desktop file,
// the LaunchAgent's label and plist, the Run value.
const (
	Unit         = "clawd.service"
	DesktopFile  = "clawd.desktop"
	LaunchLabel  = "com.clawdhq.clawd"
	RunValueName = "clawd"
)

// Options say whose login starts which clawd.
type Options struct {
	// Home is the person's home folder.
	Home string
	// Getenv reads XDG_CONFIG_HOME and the like.
	Getenv func(string) string
	// Binary is the absolute path of the clawd to start.
	Binary string
	// ClawdHome is the clawd home the entry serves; "" or the default
	// home writes no CLAWD_HOME into the entry.
	ClawdHome string
	// Run runs a platform tool (systemctl, launchctl) and returns its
	// combined output; default exec. Tests replace it.
	Run func(ctx context.Context, name string, args ...string) ([]byte, error)
}

func (o *Options) run(ctx context.Context, name string, args ...string) ([]byte, error) {
	if o.Run != nil {
		return o.Run(ctx, name, args...)
	}
	out, err := exec.CommandContext(ctx, name, args...).CombinedOutput()
	if err != nil {
		return out, fmt.Errorf("%s %s: %w: %s", name, strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	return out, nil
}

// env is the environment the entry sets: CLAWD_HOME when it is not the
// default.
func (o *Options) env() []string {
	if o.ClawdHome == "" || o.ClawdHome == filepath.Join(o.Home, ".clawd") {
		return nil
	}
	return []string{"CLAWD_HOME=" + o.ClawdHome}
}

// Status is what is set up to start clawd at login.
type Status struct {
	// Enabled is true when an entry of clawd's exists.
	Enabled bool `json:"enabled"`
	// Kind and Path say which entry and where (a file, or the registry
	// value's key and name).
	Kind Kind   `json:"kind,omitempty"`
	Path string `json:"path,omitempty"`
	// Binary is the clawd the entry starts, as written in it.
	Binary string `json:"binary,omitempty"`
	// Stale says why the entry no longer starts this clawd ("" when it
	// does): its binary is gone, or is another one than this.
	Stale string `json:"stale,omitempty"`
	// Running is set for a systemd unit: the user manager runs it now.
	Running bool `json:"running,omitempty"`
}

// stale says whether an entry that starts binary still starts want.
func stale(binary, want string) string {
	if binary == "" {
		return "the entry names no clawd binary"
	}
	if _, err := os.Stat(binary); err != nil {
		return fmt.Sprintf("its binary %s is gone (moved or deleted): run `clawd autostart enable` from where clawd is now", binary)
	}
	if want != "" && !sameFile(binary, want) {
		return fmt.Sprintf("it starts %s, not this clawd (%s): run `clawd autostart enable` to switch", binary, want)
	}
	return ""
}

func sameFile(a, b string) bool {
	if a == b {
		return true
	}
	fa, err1 := os.Stat(a)
	fb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(fa, fb)
}

// ErrNotAbsolute is returned for a binary path that is not absolute: an
// entry must name clawd wherever the session starts it.
var ErrNotAbsolute = errors.New("the clawd binary's path is not absolute")

func (o *Options) check() error {
	if !filepath.IsAbs(o.Binary) {
		return fmt.Errorf("%w: %q", ErrNotAbsolute, o.Binary)
	}
	if o.Home == "" {
		return errors.New("no home folder: set HOME")
	}
	return nil
}

// configHome is $XDG_CONFIG_HOME, else ~/.config.
func (o *Options) configHome() string {
	if o.Getenv != nil {
		if d := o.Getenv("XDG_CONFIG_HOME"); filepath.IsAbs(d) {
			return d
		}
	}
	return filepath.Join(o.Home, ".config")
}

// UnitPath is where the systemd user unit goes.
func (o *Options) UnitPath() string { return filepath.Join(o.configHome(), "systemd", "user", Unit) }

// DesktopPath is where the XDG autostart entry goes.
func (o *Options) DesktopPath() string {
	return filepath.Join(o.configHome(), "autostart", DesktopFile)
}

// PlistPath is where the LaunchAgent goes.
func (o *Options) PlistPath() string {
	return filepath.Join(o.Home, "Library", "LaunchAgents", LaunchLabel+".plist")
}

// writeFile writes an entry file, owner-writable, replacing it whole.
func writeFile(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// removeFile removes path; a missing file is no error.
func removeFile(path string) (bool, error) {
	err := os.Remove(path)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, os.ErrNotExist):
		return false, nil
	}
	return false, err
}
