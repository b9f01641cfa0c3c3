package telegram

import (
	"strconv"
	"sync"
	"testing"
)

// TestStatusFileEndsOnTheLastChange: the poller's state changes and the
// sender's send errors race (a revoked token fails both at once); the
// status file must end saying what the channel says, never an older
// snapshot written last (seen as "ok" after token_rejected).
func TestStatusFileEndsOnTheLastChange(t *testing.T) {
	for round := range 10 {
		c := New(Options{Home: t.TempDir()})
		var wg sync.WaitGroup
		for i := range 4 {
			wg.Go(func() {
				for j := range 6 {
					why := strconv.Itoa(round) + "-" + strconv.Itoa(i) + "-" + strconv.Itoa(j)
					if i%2 == 0 {
						c.setStatus([]string{StateOK, StateFailing, StateTokenRejected}[j%3], why)
					} else {
						c.setSendError(why)
					}
				}
			})
		}
		wg.Wait()
		got, ok, err := ReadStatus(c.o.Home)
		c.mu.Lock()
		want := c.status
		c.mu.Unlock()
		if err != nil || !ok || got.State != want.State || got.Error != want.Error || got.SendError != want.SendError {
			t.Fatalf("round %d: the file says %+v (%v, %v), the channel %+v", round, got, ok, err, want)
		}
	}
}
