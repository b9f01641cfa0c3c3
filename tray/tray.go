// Package tray is the tray icon and menu of `clawd serve`, and its desktop
// notifications. Like the CLI, it is a client of the runtime: one event
// loop follows the runtime's change feed, rebuilds the menu from a fresh
// View with the pure Build and hands clicks back to the runtime. It holds
// no state of its own but the options ticked in a question's submenu
// before they are sent (Picks), and it knows the runtime only by the client types
// of runtime/client and the small interfaces below, so it could as well
// follow a runtime over its local API.
//
// The platform part is fyne.io/systray: D-Bus StatusNotifierItem with
// com.canonical.dbusmenu on Linux, the notification area on Windows, and
// Cocoa on macOS, where it needs cgo; a CGO_ENABLED=0 darwin build has no
// tray (tray_nocgo_darwin.go).
package tray

import (
	"cmp"
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/clawdhq/clawd/internal/focus"
	"github.com/clawdhq/clawd/internal/i18n"
	"github.com/clawdhq/clawd/internal/launch"
	"github.com/clawdhq/clawd/runtime/client"
)

// Feed is what the notifier follows of the runtime; *runtime.Server has
// it.
type Feed interface {
	// View is everything the runtime shows, at one moment.
	View() client.View
	// Subscribe follows the runtime's changes until cancel.
	Subscribe(buf int) (changes <-chan client.Change, cancel func())
}

// Runtime is what the tray needs of the runtime: its feed and the
// person's answers; *runtime.Server has it.
type Runtime interface {
	Feed
	Decide(id string, d client.DecisionBody) (client.PermissionView, error)
	SetDND(on bool)
	PauseNotifications(until time.Time)
}

// Options configure the tray.
type Options struct {
	Runtime Runtime
	// Home is the clawd home, which "Open config folder" opens.
	Home string
	// Quit stops the runtime; the tray goes away when ctx ends.
	Quit func()
	Log  *slog.Logger
	// Now and After are the clock and the timer (default time.Now and
	// time.After): the refresh of the ages and of the login entry, the
	// settling of a burst of changes and the end of a pause run on After;
	// tests replace them.
	Now   func() time.Time
	After func(time.Duration) <-chan time.Time
	// Printer is the language of the menu (the zero Printer is English).
	Printer i18n.Printer
	// Focus brings a session's terminal to the front; default focus.Focus.
	Focus func(ctx context.Context, t focus.Target) error
	// Open opens a folder in the file manager or a URL in the browser;
	// default launch.Open.
	Open func(ctx context.Context, path string) error
	// Dashboard opens the web dashboard in the browser (a fresh login);
	// nil: the menu does not offer it.
	Dashboard func(ctx context.Context) error
	// LoginEntry is what "Start at login" toggles; default the entry
	// `clawd autostart enable` writes for this binary and Home. NoLoginEntry
	// leaves the item out.
	LoginEntry   LoginEntry
	NoLoginEntry bool
}

// ErrUnavailable means this build has no tray.
var ErrUnavailable = errors.New("this build of clawd has no tray (macOS builds need cgo)")

// discard is the logger of a tray or a notifier given none.
var discard = slog.New(slog.DiscardHandler)

func (o *Options) defaults() {
	o.Log = cmp.Or(o.Log, discard)
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.After == nil {
		o.After = time.After
	}
	if o.Focus == nil {
		o.Focus = focus.Focus
	}
	if o.Open == nil {
		o.Open = launch.Open
	}
	if o.Quit == nil {
		o.Quit = func() {}
	}
	if o.LoginEntry == nil && !o.NoLoginEntry {
		o.LoginEntry = defaultLoginEntry(o.Home)
	}
}
