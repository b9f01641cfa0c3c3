//go:build darwin && !cgo

package tray

import "context"

// Available reports whether this build has a tray: a CGO_ENABLED=0 macOS
// build has none (fyne.io/systray needs Cocoa through cgo there).
func Available() bool { return false }

// Run returns ErrUnavailable at once: the caller serves headless.
func Run(ctx context.Context, o Options) error { return ErrUnavailable }
