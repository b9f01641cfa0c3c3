package runtime

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/runtime/client"
)

// marked is a hub value that says how many its subscriber lost before it.
type marked struct {
	n       int
	dropped int
}

func newMarkedHub() *hub[marked] {
	return newHub(func(v marked, dropped int) marked {
		v.dropped = dropped
		return v
	})
}

// received drains what s has queued.
func received(s *subscription[marked]) []marked {
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
	if h.active() {
		t.Fatal("active() with no subscriber = true")
	}
	slow, fast := h.subscribe(2), h.subscribe(100)
	if !h.active() {
		t.Fatal("active() with subscribers = false")
	}
	for i := range 5 {
		h.publish(marked{n: i})
	}
	if got := received(slow); len(got) != 2 || got[0] != (marked{n: 0}) || got[1] != (marked{n: 1}) {
		t.Fatalf("the slow subscriber got %+v, want 0 and 1 unmarked", got)
	}
	h.publish(marked{n: 5})
	h.publish(marked{n: 6})
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
		h.publish(marked{n: 10 + i})
	}
	received(slow)
	for i := range 3 {
		h.publish(marked{n: 20 + i})
	}
	if got := received(slow); len(got) != 2 || got[0].dropped != 2 || got[1].dropped != 0 {
		t.Fatalf("slow subscriber after two losses = %+v, want the first marked dropped 2", got)
	}

	received(fast)
	slow.close()
	fast.close()
	h.publish(marked{n: 99})
	if h.active() || len(received(slow)) != 0 || len(received(fast)) != 0 {
		t.Error("a closed subscription still gets values")
	}
}

// TestStreamReportsEveryLoss: a stream reader that stalls loses records,
// and the lag lines account for every one: lines read plus lines reported
// lost is what was published.
func TestStreamReportsEveryLoss(t *testing.T) {
	// The reader stalls for as long as the ingest below takes (seconds
	// under -race on a loaded machine): it must lose records, not be cut
	// off by the write timeout meant for readers that are gone.
	s, _, sock := startServer(t, func(c *Config) { c.StreamWriteTimeout = time.Hour })
	conn, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "GET /api/v1/events HTTP/1.1\r\nHost: clawd\r\n\r\n")
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /api/v1/events = %v, %v", resp, err)
	}
	eventually(t, "the stream subscribed", s.sessions.streaming)
	// Far more than the socket's buffer and the subscription's queue
	// (4096) hold while nobody reads.
	const n = 20000
	ingest := func(id string) {
		s.Ingest(agents.Event{Agent: "claude", Kind: agents.KindToolStart, SessionID: id, ToolName: "Bash", Time: time.Now()})
	}
	for range n {
		ingest("s")
	}
	// Then markers, one every few milliseconds, until one gets through:
	// what was lost last is reported on the next record delivered.
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for k := 0; ; k++ {
			ingest(fmt.Sprintf("marker-%d", k))
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	}()
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	sc := bufio.NewScanner(resp.Body)
	var lines, lost int
	marker := -1
	for marker < 0 && sc.Scan() {
		var rec struct {
			Kind      string `json:"kind"`
			SessionID string `json:"session_id"`
			Dropped   int    `json:"dropped"`
		}
		if len(sc.Bytes()) == 0 {
			continue // a heartbeat
		}
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatalf("stream line %q: %v", sc.Bytes(), err)
		}
		switch {
		case rec.Kind == client.StreamLagged:
			lost += rec.Dropped
		case strings.HasPrefix(rec.SessionID, "marker-"):
			marker, _ = strconv.Atoi(strings.TrimPrefix(rec.SessionID, "marker-"))
		default:
			lines++
		}
	}
	if marker < 0 {
		t.Fatalf("the stream ended before a marker: %v (%d read, %d reported lost)", sc.Err(), lines, lost)
	}
	if lost == 0 {
		t.Errorf("a stalled reader lost nothing of %d records: the test proves nothing", n)
	}
	// Before marker k: the n records and the k markers lost before it.
	if lines+lost != n+marker {
		t.Errorf("read %d and %d reported lost before marker %d, want %d in all", lines, lost, marker, n+marker)
	}
}
