package automations

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuffer is a log sink the engine's goroutines write to while a test
// reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestLeaseRenewalErrorLogged: a lease that cannot be renewed (here the
// store refuses: its context is done) is logged with the run's id, not
// dropped: another worker may take the run once the lease runs out.
func TestLeaseRenewalErrorLogged(t *testing.T) {
	clock := newFakeClock()
	e := testEngine(t, clock, "")
	var logs syncBuffer
	e.o.Log = slog.New(slog.NewTextHandler(&logs, nil))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	stop := e.renewLease(ctx, "run_x")
	defer stop()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(logs.String(), "renew") {
		if time.Now().After(deadline) {
			t.Fatalf("no log of the failed renewal; logs:\n%s", logs.String())
		}
		clock.Advance(e.o.Lease / 3)
		time.Sleep(time.Millisecond) // the renewal goroutine takes its turn
	}
	if l := logs.String(); !strings.Contains(l, "run=run_x") || !strings.Contains(l, "context canceled") {
		t.Errorf("renewal log = %q, want the run and the error", l)
	}
}
