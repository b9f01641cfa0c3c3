//go:build darwin

package autostart

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
)

func (o *Options) domain() string { return "gui/" + strconv.Itoa(os.Getuid()) }

func (o *Options) logPath() string {
	home := o.ClawdHome
	if home == "" {
		home = filepath.Join(o.Home, ".clawd")
	}
	return filepath.Join(home, "serve.log")
}

// Enable writes the LaunchAgent that starts o.Binary's serve at login
// and, when start is set, loads it now (which starts it; an older one is
// unloaded first).
func Enable(ctx context.Context, o Options, start bool) (Status, error) {
	if err := o.check(); err != nil {
		return Status{}, err
	}
	path := o.PlistPath()
	if err := writeFile(path, LaunchAgent(o.Binary, o.env(), o.logPath())); err != nil {
		return Status{}, err
	}
	st := Status{Enabled: true, Kind: Launchd, Path: path, Binary: o.Binary}
	if start {
		// Not loaded is fine: bootout only makes room for the new one.
		o.run(ctx, "launchctl", "bootout", o.domain()+"/"+LaunchLabel)
		if _, err := o.run(ctx, "launchctl", "bootstrap", o.domain(), path); err != nil {
			return st, err
		}
		st.Running = true
	}
	return st, nil
}

// Disable removes the LaunchAgent and returns what was there; with stop
// it is unloaded too, which stops the serve it runs.
func Disable(ctx context.Context, o Options, stop bool) (Status, error) {
	st, err := Check(ctx, o)
	if err != nil || !st.Enabled {
		return st, err
	}
	if stop {
		o.run(ctx, "launchctl", "bootout", o.domain()+"/"+LaunchLabel)
	}
	_, err = removeFile(o.PlistPath())
	return st, err
}

// Check reads the LaunchAgent, and whether it still starts o.Binary.
func Check(ctx context.Context, o Options) (Status, error) {
	data, err := os.ReadFile(o.PlistPath())
	if errors.Is(err, os.ErrNotExist) {
		return Status{}, nil
	}
	if err != nil {
		return Status{}, err
	}
	st := Status{Enabled: true, Kind: Launchd, Path: o.PlistPath(), Binary: plistBinary(data)}
	st.Stale = stale(st.Binary, o.Binary)
	_, err = o.run(ctx, "launchctl", "print", o.domain()+"/"+LaunchLabel)
	st.Running = err == nil
	return st, nil
}
