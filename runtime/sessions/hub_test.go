package sessions

import "testing"

// marked is a hub value that says how many its subscriber lost before it.
type marked struct {
	n       int
	dropped int
}

func newMarkedHub() *Hub[marked] {
	return NewHub(func(v marked, dropped int) marked {
		v.dropped = dropped
		return v
	})
}

// received drains what s has queued.
func received(s *Subscription[marked]) []marked {
	var got []marked
	for {
		select {
		case v := <-s.C:
			got = append(got, v)
		default:
			return got
		}
	}
}

// TestHubDropCounting: a subscriber with a full queue loses values without
// holding up the publisher or the other subscribers, and the next value it
// gets says how many it lost; the count starts again from there.
func TestHubDropCounting(t *testing.T) {
	h := newMarkedHub()
	if h.Active() {
		t.Fatal("Active() with no subscriber = true")
	}
	slow, fast := h.Subscribe(2), h.Subscribe(100)
	if !h.Active() {
		t.Fatal("Active() with subscribers = false")
	}
	for i := range 5 {
		h.Publish(marked{n: i})
	}
	if got := received(slow); len(got) != 2 || got[0] != (marked{n: 0}) || got[1] != (marked{n: 1}) {
		t.Fatalf("the slow subscriber got %+v, want 0 and 1 unmarked", got)
	}
	h.Publish(marked{n: 5})
	h.Publish(marked{n: 6})
	if got := received(slow); len(got) != 2 || got[0] != (marked{n: 5, dropped: 3}) || got[1] != (marked{n: 6}) {
		t.Fatalf("after losing 2, 3 and 4 the slow subscriber got %+v, want 5 marked dropped 3, then 6 unmarked", got)
	}
	got := received(fast)
	if len(got) != 7 {
		t.Fatalf("the fast subscriber got %d values, want all 7", len(got))
	}
	for i, v := range got {
		if v != (marked{n: i}) {
			t.Errorf("the fast subscriber's value %d = %+v, want %d unmarked", i, v, i)
		}
	}

	// Losses go on counting across publishes until one is delivered.
	for i := range 4 {
		h.Publish(marked{n: 10 + i})
	}
	received(slow)
	for i := range 3 {
		h.Publish(marked{n: 20 + i})
	}
	if got := received(slow); len(got) != 2 || got[0].dropped != 2 || got[1].dropped != 0 {
		t.Fatalf("slow subscriber after two losses = %+v, want the first marked dropped 2", got)
	}

	received(fast)
	slow.Close()
	fast.Close()
	h.Publish(marked{n: 99})
	if h.Active() || len(received(slow)) != 0 || len(received(fast)) != 0 {
		t.Error("a closed subscription still gets values")
	}
}
