package runtime

import (
	"time"

	"github.com/clawdhq/clawd/runtime/client"
)

// Change is one item of an in-process Feed: what just changed in the
// runtime. Exactly one of Event, Permission, Settings or Display is set.
type Change struct {
	// Event is an agent event the runtime applied.
	Event *client.EventRecord
	// Permission is a permission request added or closed, or one left to
	// the agent's own dialog without being shown (TypeUnshown).
	Permission *client.PermissionChange
	// Settings is set when do-not-disturb or the notification pause
	// changed.
	Settings bool
	// Display is set when the clock changed a session or the display
	// without an event: a one-shot state ran out, a session went stale or
	// its agent process died.
	Display bool
	// Dropped counts the changes this feed lost before this one because
	// its reader fell behind. A reader that cares (the tray does not: it
	// rebuilds from a snapshot anyway) can resynchronize.
	Dropped int
}

// TypeUnshown is the PermissionChange type, on feeds only, of a request
// the runtime answered "no decision" at once because permission handling
// is off for its agent: the agent asks in its terminal.
const TypeUnshown = "unshown"

// Feed delivers the runtime's changes in process, in order, to one
// reader: the tray and the notifier follow the runtime through it, as the
// CLI follows the HTTP streams. Publishing never blocks the runtime: when
// C is full, changes are dropped and counted on the next one delivered.
type Feed struct {
	// C delivers the changes. It is not closed by Close: a reader
	// selects on its own context too.
	C <-chan Change

	sub *subscription[Change]
}

// Close stops the feed.
func (f *Feed) Close() { f.sub.close() }

// newFeedHub is the hub of the in-process feeds: a change after a loss
// carries the count in Dropped.
func newFeedHub() *hub[Change] {
	return newHub(func(c Change, dropped int) Change {
		c.Dropped = dropped
		return c
	})
}

// Subscribe returns a feed of every change from now on, with room for buf
// changes before it drops.
func (s *Server) Subscribe(buf int) *Feed {
	sub := s.feeds.subscribe(buf)
	return &Feed{C: sub.C, sub: sub}
}

// PauseNotifications pauses desktop notifications until the given time
// (the zero time resumes them). The runtime only keeps the setting, for
// every UI to show and obey; it does not touch permission requests.
func (s *Server) PauseNotifications(until time.Time) {
	s.settingsMu.Lock()
	s.pausedUntil = until
	s.settingsMu.Unlock()
	s.log.Info("notifications paused", "until", until)
	s.feeds.publish(Change{Settings: true})
}

// NotificationsPausedUntil returns the end of the notification pause; it
// is in the past (or zero) when notifications are not paused.
func (s *Server) NotificationsPausedUntil() time.Time {
	s.settingsMu.Lock()
	defer s.settingsMu.Unlock()
	return s.pausedUntil
}
