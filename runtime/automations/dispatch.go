package automations

// The dispatcher: pending lifecycle events become runs, one per
// definition listening, under its most specific binding.

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"time"
)

// DispatchOnce resolves up to claimBatch pending events into runs: for
// each enabled definition listening, the most specific binding that
// matches the event decides; a run is created (skipped when the
// condition does not hold), and the event is marked resolved, all in one
// transaction. It returns how many events it resolved.
func (e *Engine) DispatchOnce(ctx context.Context) (int, error) {
	if e.paused.Load() {
		return 0, nil
	}
	now := e.o.Now()
	claimed, err := e.claimEvents(ctx, now)
	if err != nil || len(claimed) == 0 {
		return 0, err
	}
	set := e.defs.Load()
	created := 0
	for _, c := range claimed {
		var env Envelope
		if err := json.Unmarshal([]byte(c.envelope), &env); err != nil {
			e.o.Log.Warn("automations: unreadable event, dropped", "event", c.id, "err", err)
			if err := e.dropEvent(ctx, c.id, now); err != nil {
				e.o.Log.Warn("automations: drop an unreadable event", "event", c.id, "err", err)
			}
			continue
		}
		doc, err := document(&env)
		if err != nil {
			return 0, err
		}
		err = inTx(ctx, e.db, func(tx *sql.Tx) error {
			for _, d := range set.byEvent[env.EventName] {
				win, shadowed, ok := winningBinding(d, &env)
				if !ok {
					continue
				}
				r := newRun(d, &env, win, shadowed, now)
				if d.Condition != nil && !d.Condition.eval(doc) {
					r.State, r.ErrorCode = StateSkipped, CodeConditionNotMatched
					r.FinishedAt = now
				}
				if err := insertRun(ctx, tx, r, d); err != nil {
					return err
				}
				created++
			}
			return resolveEvent(ctx, tx, c.id, now)
		})
		if err != nil {
			return 0, err
		}
	}
	if created > 0 {
		e.wake(e.wakeWork)
	}
	return len(claimed), nil
}

// winningBinding picks d's most specific enabled binding that matches env,
// and the keys of the others that match, which it shadows.
func winningBinding(d *Definition, env *Envelope) (win Binding, shadowed []string, ok bool) {
	best := -1
	var matches []Binding
	for _, b := range d.bindings() {
		if !b.IsEnabled() || !b.matches(env) {
			continue
		}
		matches = append(matches, b)
		if r := scopeRank[b.Scope]; r > best {
			best, win = r, b
		}
	}
	if best < 0 {
		return win, nil, false
	}
	for _, b := range matches {
		if b.Key() != win.Key() {
			shadowed = append(shadowed, b.Key())
		}
	}
	return win, shadowed, true
}

// runID is a run's deterministic id: one run per event and definition.
func runID(eventID, automationID string) string {
	sum := sha256.Sum256([]byte(eventID + "\x00" + automationID))
	return "run_" + hex.EncodeToString(sum[:12])
}

func newRun(d *Definition, env *Envelope, win Binding, shadowed []string, now time.Time) *Run {
	return &Run{
		ID: runID(env.EventID, d.ID), AutomationID: d.ID, Hash: d.Hash(), Binding: win.Key(), Shadowed: shadowed,
		EventID: env.EventID, EventName: env.EventName, SessionID: env.Session.ID,
		State: StateQueued, CreatedAt: now, NextAt: now,
	}
}
