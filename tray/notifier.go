package tray

import (
	"cmp"
	"context"
	"errors"
	"log/slog"
	"strings"
	"time"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/internal/config"
	"github.com/clawdhq/clawd/internal/i18n"
	"github.com/clawdhq/clawd/internal/present"
	"github.com/clawdhq/clawd/runtime/client"
	"github.com/clawdhq/clawd/statemachine"
	"github.com/clawdhq/clawd/tray/notify"
)

// Sender delivers notes to the desktop; *notify.Desktop is one.
type Sender interface {
	Send(ctx context.Context, n notify.Note) error
}

// NotifierOptions configure a Notifier.
type NotifierOptions struct {
	Runtime Feed
	Config  config.Notifications
	// Printer is the language of the notes (the zero Printer is English).
	Printer i18n.Printer
	Sender  Sender
	Log     *slog.Logger
	// Now and After are the clock and the timer (default time.Now and
	// time.After); tests replace them.
	Now   func() time.Time
	After func(time.Duration) <-chan time.Time
}

// Notifier turns what needs the person into desktop notifications and
// sounds, through notify.Policy's noise control. It runs with or without
// the tray icon.
type Notifier struct {
	o       NotifierOptions
	changes <-chan client.Change
	cancel  func()
}

// NewNotifier returns a notifier following the runtime from now on: it
// subscribes at once, so nothing that happens before Run is missed.
func NewNotifier(o NotifierOptions) *Notifier {
	o.Log = cmp.Or(o.Log, discard)
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.After == nil {
		o.After = time.After
	}
	nt := &Notifier{o: o}
	nt.changes, nt.cancel = o.Runtime.Subscribe(1024)
	return nt
}

// Run notifies until ctx ends.
func (nt *Notifier) Run(ctx context.Context) {
	o := nt.o
	defer nt.cancel()
	p := notify.NewPolicy(o.Config, o.Printer)
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
	for {
		wake := time.Hour
		if next := p.NextWake(); !next.IsZero() {
			wake = max(next.Sub(o.Now()), 0)
		}
		select {
		case <-ctx.Done():
			return
		case c := <-nt.changes:
			now := o.Now()
			if oc, ok := occurrence(o.Printer, c); ok {
				// The gate and what the session knows, at this moment.
				v := o.Runtime.View()
				fromSession(&oc, v)
				g := gate(v)
				notes := p.Observe(oc, g, now)
				// Why a popup did not come is a common question.
				o.Log.Debug("occurrence", "kind", oc.Kind, "agent", oc.Agent, "session", oc.SessionID,
					"notes", len(notes), "closed", g.Closed(now))
				send(notes)
			} else if c.Event != nil && activity(c.Event.Kind) {
				p.Activity(c.Event.Agent, c.Event.SessionID, now)
			}
		case <-o.After(wake):
			send(p.Due(gate(o.Runtime.View()), o.Now()))
		}
	}
}

// gate is what the runtime's settings let through.
func gate(v client.View) notify.Gate {
	return notify.Gate{DND: v.DND, PausedUntil: v.NotificationsPausedUntil}
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
func occurrence(words i18n.Printer, c client.Change) (notify.Occurrence, bool) {
	switch {
	case c.Permission != nil && (c.Permission.Type == client.ChangeAdded || c.Permission.Type == client.ChangeUnshown):
		p := c.Permission.Permission
		oc := notify.Occurrence{
			Kind: notify.Permission, Agent: p.Agent, AgentName: present.Requester(words, p),
			SessionID: p.SessionID, Title: p.Title, Cwd: p.Cwd, Detail: present.RequestSummary(p), Headless: p.Headless,
		}
		switch p.Kind {
		case client.KindQuestion:
			oc.Kind, oc.Detail = notify.Question, p.Summary
		case client.KindPlan:
			oc.Detail = words.T("notify.review_plan")
		}
		withRequestCard(&oc, p)
		return oc, true
	case c.Event != nil:
		e := c.Event
		var kind notify.Kind
		var detail string
		switch e.Kind {
		case agents.KindTurnEnd:
			if e.Reason == agents.ReasonInterrupt {
				// The person stopped it: they are right there.
				return notify.Occurrence{}, false
			}
			kind = notify.Done
		case agents.KindTurnFailure:
			// Why, in the agent's words, as the session keeps it.
			kind, detail = notify.Failure, statemachine.FailReason(&e.Event)
		default:
			return notify.Occurrence{}, false
		}
		return notify.Occurrence{
			Kind: kind, Agent: e.Agent, AgentName: present.AgentName(e.Agent), SessionID: e.SessionID,
			Title: e.Title, Cwd: e.Cwd, Detail: detail, Headless: e.Headless,
			Subagent: e.SubagentID != "",
		}, true
	}
	return notify.Occurrence{}, false
}

// withRequestCard makes a request's note say where it runs, its folder
// (by its repository) before the session's title, and for a permission
// what it would do (an edit by its file, see present.RequestWhat) and
// what the agent says it is for: "shop/api · Fix login — Bash: npm test
// — Run the unit tests".
func withRequestCard(oc *notify.Occurrence, p client.PermissionView) {
	if p.Folder != "" {
		oc.Title = strings.TrimSuffix(p.Folder+" · "+p.Title, " · ")
	}
	if p.Kind != client.KindPermission {
		return
	}
	oc.Detail = present.RequestWhat(p)
	if p.Description != "" {
		oc.Detail += " — " + p.Description
	}
}

// fromSession completes an event's occurrence with what its session knows
// from earlier events: an event carries only what its payload had, the
// session its title and whether it is headless.
func fromSession(oc *notify.Occurrence, v client.View) {
	if oc.Kind == notify.Permission || oc.Kind == notify.Question {
		return // a request's view says it all
	}
	for _, s := range v.Sessions {
		if s.Agent == oc.Agent && s.SessionID == oc.SessionID {
			oc.Title = s.Title
			if oc.Cwd == "" {
				oc.Cwd = s.Cwd
			}
			oc.Headless = oc.Headless || s.Headless
			return
		}
	}
}
