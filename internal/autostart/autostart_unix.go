//go:build unix && !darwin

package autostart

import (
	"context"
	"errors"
	"os"
	"strings"
)

// userManager reports whether a systemd user manager runs for this user:
// then the unit is the entry, else the XDG autostart file.
func (o *Options) userManager(ctx context.Context) bool {
	_, err := o.run(ctx, "systemctl", "--user", "show-environment")
	return err == nil
}

// Enable writes the entry that starts o.Binary's serve at login: the
// systemd user unit, enabled, when a user manager runs (and started, or
// restarted onto this binary, when start is set); else the XDG
// autostart file, which the next desktop login starts. An entry of the
// other kind from an earlier enable is removed.
func Enable(ctx context.Context, o Options, start bool) (Status, error) {
	if err := o.check(); err != nil {
		return Status{}, err
	}
	if !o.userManager(ctx) {
		path := o.DesktopPath()
		if err := writeFile(path, DesktopEntry(o.Binary, o.env())); err != nil {
			return Status{}, err
		}
		return Status{Enabled: true, Kind: XDG, Path: path, Binary: o.Binary}, nil
	}
	path := o.UnitPath()
	if err := writeFile(path, SystemdUnit(o.Binary, o.env())); err != nil {
		return Status{}, err
	}
	if _, err := removeFile(o.DesktopPath()); err != nil {
		return Status{}, err
	}
	st := Status{Enabled: true, Kind: Systemd, Path: path, Binary: o.Binary}
	for _, args := range [][]string{{"daemon-reload"}, {"enable", Unit}} {
		if _, err := o.run(ctx, "systemctl", append([]string{"--user"}, args...)...); err != nil {
			return st, err
		}
	}
	if start {
		if _, err := o.run(ctx, "systemctl", "--user", "restart", Unit); err != nil {
			return st, err
		}
		st.Running = true
	}
	return st, nil
}

// Disable removes clawd's entries (both kinds) and returns what was
// there. The unit is disabled first; with stop, the serve it runs is
// stopped too, else it runs on until logout.
func Disable(ctx context.Context, o Options, stop bool) (Status, error) {
	st, err := Check(ctx, o)
	if err != nil {
		return st, err
	}
	if _, err := os.Stat(o.UnitPath()); err == nil && o.userManager(ctx) {
		args := []string{"--user", "disable", Unit}
		if stop {
			args = []string{"--user", "disable", "--now", Unit}
		}
		if _, err := o.run(ctx, "systemctl", args...); err != nil {
			return st, err
		}
	}
	var errs []error
	for _, p := range []string{o.UnitPath(), o.DesktopPath()} {
		if _, err := removeFile(p); err != nil {
			errs = append(errs, err)
		}
	}
	if st.Kind == Systemd && o.userManager(ctx) {
		if _, err := o.run(ctx, "systemctl", "--user", "daemon-reload"); err != nil {
			errs = append(errs, err)
		}
	}
	return st, errors.Join(errs...)
}

// Check reads which entry starts clawd at login, and whether it still
// starts o.Binary.
func Check(ctx context.Context, o Options) (Status, error) {
	if data, err := os.ReadFile(o.UnitPath()); err == nil {
		st := Status{Enabled: true, Kind: Systemd, Path: o.UnitPath(), Binary: unitBinary(data)}
		st.Stale = stale(st.Binary, o.Binary)
		if out, err := o.run(ctx, "systemctl", "--user", "is-active", Unit); err == nil {
			st.Running = strings.TrimSpace(string(out)) == "active"
		}
		return st, nil
	} else if !errors.Is(err, os.ErrNotExist) {
		return Status{}, err
	}
	if data, err := os.ReadFile(o.DesktopPath()); err == nil {
		st := Status{Enabled: true, Kind: XDG, Path: o.DesktopPath(), Binary: desktopBinary(data)}
		st.Stale = stale(st.Binary, o.Binary)
		return st, nil
	} else if !errors.Is(err, os.ErrNotExist) {
		return Status{}, err
	}
	return Status{}, nil
}
