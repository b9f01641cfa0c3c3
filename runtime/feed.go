package runtime

import (
	"time"

	"github.com/clawdhq/clawd/internal/focus"
	"github.com/clawdhq/clawd/runtime/client"
	"github.com/clawdhq/clawd/runtime/sessions"
	"github.com/clawdhq/clawd/statemachine"
)

// Subscribe returns the runtime's changes from now on, in order, with room
// for buf of them before the subscriber loses any (see client.Change's
// Dropped), and cancel, which ends the subscription. The tray and the
// notifier follow the runtime through it, as the CLI follows the HTTP
// streams: publishing never waits for a reader. The channel is not closed:
// a reader selects on its own end too.
func (s *Server) Subscribe(buf int) (changes <-chan client.Change, cancel func()) {
	sub := s.sessions.Subscribe(buf)
	return sub.C, sub.Close
}

// View returns everything a UI shows, at one moment (see client.View):
// the requests and the sessions agree (see sessions.Broker.View).
func (s *Server) View() client.View {
	v := s.perms.View()
	v.NotificationsPausedUntil = s.NotificationsPausedUntil()
	v.Integrations = s.integrations()
	v.Remotes = s.links()
	return v
}

// PauseNotifications pauses desktop notifications until the given time
// (the zero time resumes them). The runtime only keeps the setting, for
// every UI to show and obey; it does not touch permission requests.
func (s *Server) PauseNotifications(until time.Time) {
	s.settingsMu.Lock()
	s.pausedUntil = until
	s.settingsMu.Unlock()
	s.log.Info("notifications paused", "until", until)
	s.sessions.Announce(client.Change{Settings: true})
}

// NotificationsPausedUntil returns the end of the notification pause; it
// is in the past (or zero) when notifications are not paused.
func (s *Server) NotificationsPausedUntil() time.Time {
	s.settingsMu.Lock()
	defer s.settingsMu.Unlock()
	return s.pausedUntil
}

// The dashboard's side of the runtime (dashStore), besides View and
// PauseNotifications.

// session returns the tracked session k as clients see it.
func (s *Server) session(k statemachine.Key) (client.SessionView, bool) {
	ss, ok := s.sessions.Session(k)
	if !ok {
		return client.SessionView{}, false
	}
	return sessions.ClientSession(ss), true
}

// hasHistory reports whether the runtime keeps the history.
func (s *Server) hasHistory() bool { return s.sessions.History() != nil }

// followChanges follows the in-process feeds with the backlog start asked
// for (see sessions.Store.FollowChanges).
func (s *Server) followChanges(start sessions.Start, buf int) (*sessions.Subscription[client.Change], []client.EventRecord, *sessions.Gap) {
	return s.sessions.FollowChanges(start, buf)
}

// newDashAPI builds the dashboard's data routes on s, its dashStore.
func (s *Server) newDashAPI() *dashAPI {
	fo := s.cfg.Focus
	if fo == nil {
		fo = focus.Focus
	}
	return &dashAPI{
		store: s, now: s.cfg.Now, printer: s.cfg.Printer, log: s.log,
		agents: s.cfg.Agents, doctor: s.cfg.Doctor, focus: fo,
		automations: func() bool { return s.auto.Load() != nil },
		stream:      s.stream,
		done:        s.done,
	}
}
