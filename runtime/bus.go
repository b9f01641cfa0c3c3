package runtime

import (
	"sync"
)

// bus fans event records out to stream subscribers. Publishing never
// blocks ingest: a subscriber that falls behind loses records and is told
// how many.
type bus struct {
	mu   sync.Mutex
	subs map[*subscriber]struct{}
}

type subscriber struct {
	ch      chan []byte
	dropped int // guarded by bus.mu
}

func newBus() *bus { return &bus{subs: map[*subscriber]struct{}{}} }

func (b *bus) subscribe(buf int) *subscriber {
	s := &subscriber{ch: make(chan []byte, buf)}
	b.mu.Lock()
	b.subs[s] = struct{}{}
	b.mu.Unlock()
	return s
}

func (b *bus) unsubscribe(s *subscriber) {
	b.mu.Lock()
	delete(b.subs, s)
	b.mu.Unlock()
}

// active reports whether anyone listens, so ingest can skip encoding.
func (b *bus) active() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.subs) > 0
}

func (b *bus) publish(line []byte) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for s := range b.subs {
		select {
		case s.ch <- line:
		default:
			s.dropped++
		}
	}
}

// takeDropped returns and resets the count of records s missed.
func (b *bus) takeDropped(s *subscriber) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := s.dropped
	s.dropped = 0
	return n
}
