package tray

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/internal/config"
	"github.com/clawdhq/clawd/runtime"
	"github.com/clawdhq/clawd/runtime/client"
	"github.com/clawdhq/clawd/tray/notify"
)

// Sender delivers notes to the desktop; *notify.Desktop is one.
type Sender interface {
	Send(ctx context.Context, n notify.Note) error
}

// NotifierOptions configure a Notifier.
type NotifierOptions struct {
	Runtime Runtime
	Config  config.Notifications
	Sender  Sender
	Log     *slog.Logger
	Now     func() time.Time
}

// Notifier turns what needs the person into desktop notifications and
// sounds, through notify.Policy's noise control. It runs with or without
// the tray icon.
type Notifier struct {
	o    NotifierOptions
	feed *runtime.Feed
}

// NewNotifier returns a notifier following the runtime from now on: it
// subscribes at once, so nothing that happens before Run is missed.
func NewNotifier(o NotifierOptions) *Notifier {
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return &Notifier{o: o, feed: o.Runtime.Subscribe(1024)}
}

// Run notifies until ctx ends.
func (nt *Notifier) Run(ctx context.Context) {
	o, feed := nt.o, nt.feed
	defer feed.Close()
	p := notify.NewPolicy(o.Config)
	// One sender goroutine, so a slow notification daemon delays notes
	// but never the feed; the queue is short and drops when full.
	out := make(chan notify.Note, 32)
	done := make(chan struct{})
	go func() {
		defer close(done)
		noPlayerSaid := false
		for {
			select {
			case <-ctx.Done():
				return
			case n := <-out:
				err := o.Sender.Send(ctx, n)
				switch {
				case err == nil:
				case errors.Is(err, notify.ErrNoPlayer):
					// Said once: a machine without a player stays without.
					if !noPlayerSaid {
						o.Log.Info("no sound player found: notifications stay silent", "err", err)
						noPlayerSaid = true
					}
				default:
					o.Log.Info("notification not shown", "kind", n.Kind, "err", err)
				}
			}
		}
	}()
	defer func() { <-done }()
	send := func(notes []notify.Note) {
		for _, n := range notes {
			select {
			case out <- n:
			default:
				o.Log.Warn("notification dropped: the desktop is not keeping up", "kind", n.Kind)
			}
		}
	}
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		wake := time.Hour
		if next := p.NextWake(); !next.IsZero() {
			wake = max(next.Sub(o.Now()), 0)
		}
		timer.Reset(wake)
		select {
		case <-ctx.Done():
			return
		case c := <-feed.C:
			gate := notify.Gate{DND: o.Runtime.DND(), PausedUntil: o.Runtime.NotificationsPausedUntil()}
			now := o.Now()
			if oc, ok := occurrence(c, o.Runtime); ok {
				send(p.Observe(oc, gate, now))
			} else if c.Event != nil && activity(c.Event.Kind) {
				p.Activity(c.Event.Agent, c.Event.SessionID, now)
			}
		case <-timer.C:
			gate := notify.Gate{DND: o.Runtime.DND(), PausedUntil: o.Runtime.NotificationsPausedUntil()}
			send(p.Due(gate, o.Now()))
		}
	}
}

// activity reports whether an event shows the session in use again, so a
// turn-end notification still held back is pointless.
func activity(k agents.Kind) bool {
	switch k {
	case agents.KindPromptSubmit, agents.KindToolStart, agents.KindSessionEnd,
		agents.KindSessionStart, agents.KindCompactStart, agents.KindTurnEnd:
		// A turn end that reaches here was interrupted by the person.
		return true
	}
	return false
}

// occurrence maps a change onto what may deserve a notification.
func occurrence(c runtime.Change, rt Runtime) (notify.Occurrence, bool) {
	switch {
	case c.Permission != nil && (c.Permission.Type == client.ChangeAdded || c.Permission.Type == runtime.TypeUnshown):
		p := c.Permission.Permission
		oc := notify.Occurrence{
			Kind: notify.Permission, Agent: p.Agent, AgentName: AgentName(p.Agent),
			SessionID: p.SessionID, Title: p.Title, Cwd: p.Cwd, Detail: RequestSummary(p), Headless: p.Headless,
		}
		switch p.Kind {
		case client.KindQuestion:
			oc.Kind, oc.Detail = notify.Question, p.Summary
		case client.KindPlan:
			oc.Detail = "review the plan"
		}
		return oc, true
	case c.Event != nil:
		e := c.Event
		var kind notify.Kind
		switch e.Kind {
		case agents.KindTurnEnd:
			if e.Reason == agents.ReasonInterrupt {
				// The person stopped it: they are right there.
				return notify.Occurrence{}, false
			}
			kind = notify.Done
		case agents.KindTurnFailure:
			kind = notify.Failure
		default:
			return notify.Occurrence{}, false
		}
		oc := notify.Occurrence{
			Kind: kind, Agent: e.Agent, AgentName: AgentName(e.Agent), SessionID: e.SessionID,
			Title: e.Title, Cwd: e.Cwd, Detail: e.ErrorKind, Headless: e.Headless,
			Subagent: e.SubagentID != "",
		}
		// The event carries what its payload had; the session knows its
		// title and whether it is headless from earlier events.
		for _, s := range rt.Snapshot().Sessions {
			if s.Agent == e.Agent && s.SessionID == e.SessionID {
				oc.Title = s.Title
				if oc.Cwd == "" {
					oc.Cwd = s.Cwd
				}
				oc.Headless = oc.Headless || s.Headless
				break
			}
		}
		return oc, true
	}
	return notify.Occurrence{}, false
}
