// Package handtimers is a time.After for tests whose timers of one
// duration the test ends by hand, all at once, while every other wait
// keeps the real clock. After never blocks: code that starts a timer per
// event it sees (a file watcher) may start any number, and a blocked
// caller would hang its own shutdown.
package handtimers

import (
	"sync"
	"time"
)

// Timers holds the started timers of duration D not yet fired.
type Timers struct {
	D time.Duration

	mu      sync.Mutex
	pending []chan time.Time
}

// After is time.After, except that a timer of t.D waits for Fire.
func (t *Timers) After(d time.Duration) <-chan time.Time {
	if d != t.D {
		return time.After(d)
	}
	c := make(chan time.Time, 1)
	t.mu.Lock()
	t.pending = append(t.pending, c)
	t.mu.Unlock()
	return c
}

// Fire ends every timer of t.D started so far and says how many.
func (t *Timers) Fire() int {
	t.mu.Lock()
	pending := t.pending
	t.pending = nil
	t.mu.Unlock()
	for _, c := range pending {
		c <- time.Now()
	}
	return len(pending)
}
