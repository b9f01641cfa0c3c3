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
	eventually(t, "the stream subscribed", s.sessions.Streaming)
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
