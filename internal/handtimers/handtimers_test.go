package handtimers

import (
	"testing"
	"time"
)

// TestFire: timers of D wait for Fire however many were started, and
// After does not block while nobody fires; other durations are real.
func TestFire(t *testing.T) {
	ts := &Timers{D: time.Hour}
	var cs []<-chan time.Time
	for range 1000 { // more than any buffer: After must not block
		cs = append(cs, ts.After(time.Hour))
	}
	select {
	case <-cs[0]:
		t.Fatal("a timer ended before Fire")
	default:
	}
	if n := ts.Fire(); n != 1000 {
		t.Fatalf("Fire ended %d timers, want 1000", n)
	}
	for i, c := range cs {
		select {
		case <-c:
		default:
			t.Fatalf("timer %d did not end on Fire", i)
		}
	}
	if n := ts.Fire(); n != 0 {
		t.Errorf("a second Fire ended %d timers, want 0", n)
	}
	select {
	case <-ts.After(time.Millisecond):
	case <-time.After(10 * time.Second):
		t.Fatal("a timer of another duration did not end on the real clock")
	}
}
