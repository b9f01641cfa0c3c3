//go:build !linux

package e2e

import "context"

// desktop is the fake desktop of a world: Linux only (a private D-Bus
// session bus); elsewhere worlds run headless.
type desktop struct{}

// env is empty: there is no desktop off Linux.
func (d *desktop) env() []string { return nil }

// attachDesktop does nothing off Linux.
func (w *world) attachDesktop() {}

// startTrayHost does nothing off Linux.
func (w *world) startTrayHost(ctx context.Context) {}

// trayMenu is "" off Linux: no tray host.
func (w *world) trayMenu(ctx context.Context) string { return "" }

// notifications is 0 off Linux.
func (w *world) notifications() int { return 0 }
