package notify

import (
	"cmp"
	"slices"
	"time"

	"github.com/clawdhq/clawd/internal/config"
	"github.com/clawdhq/clawd/internal/i18n"
)

// Gate is the runtime-owned switches at a moment: do-not-disturb, and
// notifications paused (from the tray menu) until an instant.
type Gate struct {
	DND         bool
	PausedUntil time.Time
}

// Closed reports whether the gate lets nothing through at now.
func (g Gate) Closed(now time.Time) bool { return g.DND || now.Before(g.PausedUntil) }

// Bounds on what a Policy remembers. A session beyond them at worst
// notifies once more than its cooldown would allow, or loses a held Done.
const (
	maxHeld    = 256  // sessions with a Done waiting for its grace
	maxEntries = 1024 // cooldown entries per map: sessions × kinds
	// sweepEvery is how often expired cooldown entries are swept out.
	sweepEvery = time.Minute
)

// Policy decides which occurrences become notes: per-kind switches,
// headless and subagent sessions, do-not-disturb and pause, quiet hours,
// cooldowns per session and kind (one for popups, an independent one for
// sounds), and the grace that holds a Done back while the person may
// still be at the session.
//
// Policy is pure: the time is passed in, it starts no goroutines and does
// no I/O. It is not safe for concurrent use; one loop owns it.
type Policy struct {
	cfg    config.Notifications
	words  i18n.Printer              // the language of the notes
	popups map[cooldownKey]time.Time // when the last popup went out
	sounds map[cooldownKey]time.Time // when the last sound played
	held   map[sessionKey]held       // Done notes waiting for their grace
	swept  time.Time                 // the last sweep of expired cooldowns
}

type sessionKey struct{ agent, session string }

type cooldownKey struct {
	sessionKey
	kind Kind
}

type held struct {
	o   Occurrence
	due time.Time
}

// NewPolicy returns a Policy following cfg whose notes are in words's
// language.
func NewPolicy(cfg config.Notifications, words i18n.Printer) *Policy {
	return &Policy{
		cfg:    cfg,
		words:  words,
		popups: map[cooldownKey]time.Time{},
		sounds: map[cooldownKey]time.Time{},
		held:   map[sessionKey]held{},
	}
}

// Observe takes an occurrence and returns the notes to deliver now. A
// Done is held for the configured grace instead (Due delivers it), unless
// the grace is zero. Any other occurrence of a session drops its held
// Done: the session is busy again, so its finished turn is old news.
func (p *Policy) Observe(o Occurrence, g Gate, now time.Time) []Note {
	if g.Closed(now) {
		// Held Dones are dropped, not delivered when DND ends.
		clear(p.held)
		return nil
	}
	if o.Headless || o.Subagent {
		return nil
	}
	p.sweep(now)
	sk := sessionKey{o.Agent, o.SessionID}
	delete(p.held, sk)
	if o.Kind == Done && p.cfg.DoneGrace > 0 {
		if p.wants(Done) {
			p.hold(sk, held{o: o, due: now.Add(p.cfg.DoneGrace)})
		}
		return nil
	}
	return p.deliver(o, g, now)
}

// Activity tells the policy the session was used again (a new prompt, a
// tool start): a held Done of the session is dropped, since the person
// was right there.
func (p *Policy) Activity(agent, sessionID string, now time.Time) {
	delete(p.held, sessionKey{agent, sessionID})
	p.sweep(now)
}

// Due returns the notes of the held Dones whose grace has passed by now,
// in the order they fell due. Held Dones that fall due while the gate is
// closed or in quiet hours are dropped.
func (p *Policy) Due(g Gate, now time.Time) []Note {
	if g.Closed(now) {
		clear(p.held)
		return nil
	}
	var due []held
	for sk, h := range p.held {
		if !now.Before(h.due) {
			due = append(due, h)
			delete(p.held, sk)
		}
	}
	slices.SortFunc(due, func(a, b held) int {
		return cmp.Or(a.due.Compare(b.due), cmp.Compare(a.o.Agent, b.o.Agent), cmp.Compare(a.o.SessionID, b.o.SessionID))
	})
	var notes []Note
	for _, h := range due {
		notes = append(notes, p.deliver(h.o, g, now)...)
	}
	return notes
}

// NextWake returns when the earliest held Done falls due: the caller
// calls Due then. It is zero when nothing is held.
func (p *Policy) NextWake() time.Time {
	var next time.Time
	for _, h := range p.held {
		if next.IsZero() || h.due.Before(next) {
			next = h.due
		}
	}
	return next
}

// wants reports whether an occurrence of kind could make any note.
func (p *Policy) wants(k Kind) bool {
	var on bool
	switch k {
	case Done:
		on = p.cfg.Done
	case Permission:
		on = p.cfg.Permission
	case Question:
		on = p.cfg.Question
	case Failure:
		on = p.cfg.Error
	}
	return on && (p.cfg.Enabled || p.cfg.Sound)
}

// deliver makes the note for o at now, if anything lets it through, and
// starts the cooldowns of what it carries.
func (p *Policy) deliver(o Occurrence, g Gate, now time.Time) []Note {
	if g.Closed(now) || !p.wants(o.Kind) || p.cfg.QuietHours.Contains(now) {
		return nil
	}
	k := cooldownKey{sessionKey{o.Agent, o.SessionID}, o.Kind}
	popup := p.cfg.Enabled && !cooling(p.popups, k, now, p.cfg.Cooldown)
	sound := p.cfg.Sound && !cooling(p.sounds, k, now, p.cfg.SoundCooldown)
	if !popup && !sound {
		return nil
	}
	if popup {
		p.record(p.popups, k, now)
	}
	if sound {
		p.record(p.sounds, k, now)
	}
	return []Note{{
		Kind:       o.Kind,
		Summary:    summary(p.words, o),
		Body:       body(o),
		Popup:      popup,
		Sound:      sound,
		SessionKey: o.Agent + "/" + o.SessionID,
	}}
}

// cooling reports whether k's last note in m is less than cooldown before
// now. A last note "in the future" (the clock went back) does not count.
func cooling(m map[cooldownKey]time.Time, k cooldownKey, now time.Time, cooldown time.Duration) bool {
	last, ok := m[k]
	if !ok {
		return false
	}
	elapsed := now.Sub(last)
	return elapsed >= 0 && elapsed < cooldown
}

// record notes k's note at now in m, keeping m within maxEntries: when
// full, the expired entries go, then the oldest down to 7/8 of the limit,
// so the next inserts need no scan.
func (p *Policy) record(m map[cooldownKey]time.Time, k cooldownKey, now time.Time) {
	m[k] = now
	if len(m) <= maxEntries {
		return
	}
	p.forget(now)
	if len(m) <= maxEntries {
		return
	}
	keys := make([]cooldownKey, 0, len(m))
	for k2 := range m {
		keys = append(keys, k2)
	}
	slices.SortFunc(keys, func(a, b cooldownKey) int { return m[a].Compare(m[b]) })
	for _, k2 := range keys[:len(keys)-maxEntries*7/8] {
		delete(m, k2)
	}
}

// sweep forgets expired cooldowns now and then: often enough to keep the
// maps small, rarely enough to cost nothing per event.
func (p *Policy) sweep(now time.Time) {
	if d := now.Sub(p.swept); d >= 0 && d < sweepEvery {
		return
	}
	p.swept = now
	p.forget(now)
}

// forget drops the cooldown entries that no longer hold anything back.
func (p *Policy) forget(now time.Time) {
	for _, c := range []struct {
		m        map[cooldownKey]time.Time
		cooldown time.Duration
	}{{p.popups, p.cfg.Cooldown}, {p.sounds, p.cfg.SoundCooldown}} {
		for k := range c.m {
			if !cooling(c.m, k, now, c.cooldown) {
				delete(c.m, k)
			}
		}
	}
}

// hold keeps h until its grace passes, keeping at most maxHeld: the one
// due first gives way to a newer one.
func (p *Policy) hold(sk sessionKey, h held) {
	p.held[sk] = h
	for len(p.held) > maxHeld {
		var first sessionKey
		var due time.Time
		for k, h2 := range p.held {
			if due.IsZero() || h2.due.Before(due) {
				first, due = k, h2.due
			}
		}
		delete(p.held, first)
	}
}
