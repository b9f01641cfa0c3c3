//go:build windows

package autostart

import (
	"context"
	"errors"

	"golang.org/x/sys/windows/registry"
)

const runKey = `Software\Microsoft\Windows\CurrentVersion\Run`

// Enable sets the HKCU Run value that starts o.Binary's serve at login.
// A Run value cannot set CLAWD_HOME: the entry serves the clawd home the
// user's environment names. start is not used: the next login starts it.
func Enable(ctx context.Context, o Options, start bool) (Status, error) {
	if err := o.check(); err != nil {
		return Status{}, err
	}
	k, _, err := registry.CreateKey(registry.CURRENT_USER, runKey, registry.SET_VALUE)
	if err != nil {
		return Status{}, err
	}
	defer k.Close()
	if err := k.SetStringValue(RunValueName, RunValue(o.Binary)); err != nil {
		return Status{}, err
	}
	return Status{Enabled: true, Kind: Registry, Path: `HKCU\` + runKey + `\` + RunValueName, Binary: o.Binary}, nil
}

// Disable deletes the Run value and returns what was there. stop is not
// used: a running serve runs on.
func Disable(ctx context.Context, o Options, stop bool) (Status, error) {
	st, err := Check(ctx, o)
	if err != nil || !st.Enabled {
		return st, err
	}
	k, err := registry.OpenKey(registry.CURRENT_USER, runKey, registry.SET_VALUE)
	if err != nil {
		return st, err
	}
	defer k.Close()
	if err := k.DeleteValue(RunValueName); err != nil && !errors.Is(err, registry.ErrNotExist) {
		return st, err
	}
	return st, nil
}

// Check reads the Run value, and whether it still starts o.Binary.
func Check(ctx context.Context, o Options) (Status, error) {
	k, err := registry.OpenKey(registry.CURRENT_USER, runKey, registry.QUERY_VALUE)
	if errors.Is(err, registry.ErrNotExist) {
		return Status{}, nil
	}
	if err != nil {
		return Status{}, err
	}
	defer k.Close()
	v, _, err := k.GetStringValue(RunValueName)
	if errors.Is(err, registry.ErrNotExist) {
		return Status{}, nil
	}
	if err != nil {
		return Status{}, err
	}
	st := Status{Enabled: true, Kind: Registry, Path: `HKCU\` + runKey + `\` + RunValueName, Binary: runValueBinary(v)}
	st.Stale = stale(st.Binary, o.Binary)
	return st, nil
}
