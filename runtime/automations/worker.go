package automations

// The worker: due runs are claimed, checked against the definitions and
// the trust in force, and their actions run under the policy.

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sync"
	"time"
)

// workLoop claims runs and starts them, and sleeps until the next one is
// due, a new one is queued, or pollEvery.
func (e *Engine) workLoop(ctx context.Context) {
	for {
		for {
			n, err := e.startDue(ctx)
			if err != nil && ctx.Err() == nil {
				e.o.Log.Warn("automations worker", "err", err)
			}
			if n == 0 || err != nil {
				break
			}
		}
		wait := pollEvery
		// With every worker busy, a finishing one wakes the loop; else
		// the earliest backoff does.
		if len(e.slots) < cap(e.slots) {
			if next, ok := e.nextDue(ctx); ok {
				wait = min(wait, max(0, next.Sub(e.o.Now())))
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-e.wakeWork:
		case <-e.o.After(wait):
		}
	}
}

// startDue claims the due runs a worker slot is free for and starts them.
// A serial definition's run waits while an earlier run of the same
// definition in the same session is queued or running.
func (e *Engine) startDue(ctx context.Context) (int, error) {
	if e.paused.Load() {
		return 0, nil
	}
	started := 0
	for {
		free := 0
	reserve:
		for free < cap(e.slots) {
			select {
			case e.slots <- struct{}{}:
				free++
			default:
				break reserve
			}
		}
		if free == 0 {
			return started, nil // all workers busy; a finishing one wakes us
		}
		cs, err := e.claim(ctx, free)
		for range free - len(cs) {
			<-e.slots
		}
		for _, c := range cs {
			started++
			e.inflight.Add(1)
			go func() {
				defer e.inflight.Done()
				defer func() { <-e.slots; e.wake(e.wakeWork) }()
				e.execute(ctx, c)
			}()
		}
		if err != nil || len(cs) < free {
			return started, err
		}
	}
}

// claimed is a run taken by a worker, with what it needs to run.
type claimed struct {
	run      Run
	def      Definition
	envelope string
}

// outcome is what an attempt came to.
type outcome struct {
	state, code, message string
	input, output        string
	retryable            bool
	// retryAfter is the least wait before the next attempt, when the
	// receiver asked for one (Retry-After).
	retryAfter time.Duration
}

// execute runs one claimed attempt and writes where it ended: a terminal
// state, or queued again with a backoff. When ctx ends (the runtime
// stops) the action is cancelled at once, a command's whole process group
// killed, and the run ends outcome_unknown, as after a crash: it may or
// may not have done its work. The store is written regardless.
func (e *Engine) execute(actx context.Context, c *claimed) {
	ctx := context.WithoutCancel(actx)
	stop := e.renewLease(ctx, c.run.ID)
	out := e.attempt(actx, c)
	stop()
	now := e.o.Now()
	p := c.def.Policy.withDefaults()
	if out.state == StateQueued {
		if err := e.requeueRun(ctx, c.run.ID, now); err != nil {
			e.o.Log.Warn("automations: requeue", "run", c.run.ID, "err", err)
		}
		return
	}
	if out.retryable && c.run.Attempts < p.MaxAttempts && (p.Retry == RetrySafe || p.Retry == RetryKeyed) {
		backoff := time.Duration(p.Backoff) << (c.run.Attempts - 1)
		if out.retryAfter > backoff {
			// Sooner would only be refused again (Slack's and Discord's 429s).
			backoff = out.retryAfter
		}
		if err := e.retryRunLater(ctx, c.run.ID, out, now.Add(backoff)); err != nil {
			e.o.Log.Warn("automations: requeue", "run", c.run.ID, "err", err)
		}
		e.o.Log.Info("automation retried later", "run", c.run.ID, "automation", c.run.AutomationID, "code", out.code, "backoff", backoff)
		return
	}
	if err := e.finishRun(ctx, c.run.ID, out, now); err != nil {
		e.o.Log.Warn("automations: finish", "run", c.run.ID, "err", err)
	}
	e.o.Log.Info("automation run", "run", c.run.ID, "automation", c.run.AutomationID, "event", c.run.EventName,
		"state", out.state, "code", out.code)
}

// renewLease keeps a running run's lease ahead of its expiry until the
// returned func is called.
func (e *Engine) renewLease(ctx context.Context, id string) func() {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case <-done:
				return
			case <-e.o.After(e.o.Lease / 3):
				// A lease not renewed runs out: another worker may then take
				// the run while its action still runs. Say so.
				if err := e.renewRunLease(ctx, id, e.o.Now().Add(e.o.Lease)); err != nil {
					e.o.Log.Warn("automations: renew the lease of a running run", "run", id, "err", err)
				}
			}
		}
	})
	return func() { close(done); wg.Wait() }
}

// attempt checks that the run may still act (definition there, enabled
// and unchanged, its binding trusted for its hash, the switch on), maps
// its input and runs its action under the policy's timeout.
func (e *Engine) attempt(ctx context.Context, c *claimed) outcome {
	set := e.defs.Load()
	cur := set.byID[c.run.AutomationID]
	switch {
	case c.run.Test:
	case cur == nil:
		return outcome{state: StateSkipped, code: CodeDefinitionRemoved, message: "the definition was removed"}
	case !cur.IsEnabled():
		return outcome{state: StateSkipped, code: CodeDefinitionDisabled, message: "the definition is disabled"}
	case cur.Hash() != c.run.Hash:
		return outcome{state: StateBlocked, code: CodeTrustRequired, message: "the definition changed since this run was queued: review and trust it (clawd automations trust " + c.run.AutomationID + ")"}
	default:
		trusted, err := e.trustedHash(context.WithoutCancel(ctx), c.run.AutomationID, c.run.Binding)
		if err != nil {
			return outcome{state: StateFailed, code: CodeActionFailed, message: "read trust: " + err.Error()}
		}
		if trusted != c.run.Hash {
			return outcome{state: StateBlocked, code: CodeTrustRequired, message: "binding " + c.run.Binding + " is not trusted for this definition: clawd automations trust " + c.run.AutomationID}
		}
	}
	if c.envelope == "" {
		return outcome{state: StateFailed, code: CodeActionFailed, message: "the event is gone from the store"}
	}
	var env Envelope
	if err := json.Unmarshal([]byte(c.envelope), &env); err != nil {
		return outcome{state: StateFailed, code: CodeActionFailed, message: "unreadable event: " + err.Error()}
	}
	doc, err := document(&env)
	if err != nil {
		return outcome{state: StateFailed, code: CodeActionFailed, message: err.Error()}
	}
	input, err := c.def.Input.eval(doc)
	if err != nil {
		return outcome{state: StateFailed, code: CodeMappingFailed, message: err.Error()}
	}
	if ctx.Err() != nil {
		// Stopping before the action began: nothing happened, so the run
		// waits for the next start.
		return outcome{state: StateQueued, code: CodeShutdown, message: "clawd stopped before the action ran"}
	}
	p := c.def.Policy.withDefaults()
	actx, cancel := context.WithTimeout(ctx, time.Duration(p.Timeout))
	defer cancel()
	key := ""
	if p.Retry == RetryKeyed {
		key = idempotencyKey(env.EventID, c.def.ID, c.def.Action)
	}
	res := e.act(actx, &c.def, &env, doc, input, key)
	out := outcome{input: summarize(input), output: res.output}
	switch {
	case res.err == nil:
		out.state = StateSucceeded
	case actx.Err() == context.DeadlineExceeded && ctx.Err() == nil:
		out.state, out.code, out.message, out.retryable = StateFailed, CodeTimeout, fmt.Sprintf("no answer within %v", time.Duration(p.Timeout)), true
	case ctx.Err() != nil:
		out.state, out.code, out.message = StateOutcomeUnknown, CodeShutdown, "clawd stopped while the action ran"
	case res.transient:
		out.state, out.code, out.message, out.retryable = StateFailed, CodeTransient, res.err.Error(), true
		out.retryAfter = res.retryAfter
	default:
		out.state, out.code, out.message = StateFailed, CodeActionFailed, res.err.Error()
	}
	return out
}

// idempotencyKey is the same for every attempt of one event's run of one
// action: what a receiver deduplicates keyed retries by.
func idempotencyKey(eventID, automationID string, a Action) string {
	sum := sha256.Sum256(canonicalJSON(struct {
		EventID      string `json:"eventId"`
		AutomationID string `json:"automationId"`
		Action       Action `json:"action"`
	}{eventID, automationID, a}))
	return hex.EncodeToString(sum[:])
}
