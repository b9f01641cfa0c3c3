package sessions

import "sync"

// Hub fans values out to subscribers: the event stream's lines, the
// permission stream's lines and the in-process change feed are one each.
// Publishing never blocks the publisher (ingest, the broker): a subscriber
// whose queue is full loses the value, and the next value it does get is
// marked with how many it lost (lagged), so it can say so or catch up.
// Streams add the rest of what a remote subscriber needs, a cap and a
// write deadline (see the runtime's Server.stream).
type Hub[T any] struct {
	// lagged returns v marked as the first value its subscriber gets
	// after losing dropped ones.
	lagged func(v T, dropped int) T

	mu   sync.Mutex
	subs map[*Subscription[T]]struct{}
}

// Subscription is one subscriber of a hub: its queue and its losses.
type Subscription[T any] struct {
	// C delivers the values, in the order they were published. It is
	// never closed: a reader selects on its own end too.
	C <-chan T

	ch      chan T
	hub     *Hub[T]
	dropped int // guarded by hub.mu
}

// NewHub returns a hub whose values after a loss are made by lagged.
func NewHub[T any](lagged func(v T, dropped int) T) *Hub[T] {
	return &Hub[T]{lagged: lagged, subs: map[*Subscription[T]]struct{}{}}
}

// Subscribe returns a subscription to every value published from now on,
// with room for buf values (at least one) before it loses any.
func (h *Hub[T]) Subscribe(buf int) *Subscription[T] {
	ch := make(chan T, max(buf, 1))
	s := &Subscription[T]{C: ch, ch: ch, hub: h}
	h.mu.Lock()
	h.subs[s] = struct{}{}
	h.mu.Unlock()
	return s
}

// Close ends the subscription: nothing more is queued for it.
func (s *Subscription[T]) Close() {
	s.hub.mu.Lock()
	delete(s.hub.subs, s)
	s.hub.mu.Unlock()
}

// Active reports whether anyone listens, so a publisher can skip the work
// of making a value nobody gets (encoding a record, say).
func (h *Hub[T]) Active() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.subs) > 0
}

// Publish queues v for every subscriber that has room, and counts it lost
// for every other.
func (h *Hub[T]) Publish(v T) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for s := range h.subs {
		out := v
		if s.dropped > 0 {
			out = h.lagged(v, s.dropped)
		}
		select {
		case s.ch <- out:
			s.dropped = 0
		default:
			s.dropped++
		}
	}
}
