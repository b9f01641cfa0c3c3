package runtime

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	goruntime "runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/clawdhq/clawd/agents"
)

// ingestSessions is how many agent sessions post at once: far more than a
// person runs, so ingest has headroom for bursts (parallel tool calls,
// subagents) from all of them.
const ingestSessions = 50

// turn is one realistic Claude Code turn, event by event, for session sid:
// a prompt, a tool call announced and finished, the batch that closes it,
// and the end of the turn.
func turn(sid string, now time.Time) []agents.Event {
	tool := "toolu_" + sid
	base := agents.Event{Agent: "claude", SessionID: sid, Time: now, Cwd: "/home/user/project/" + sid}
	with := func(f func(e *agents.Event)) agents.Event {
		e := base
		f(&e)
		return e
	}
	return []agents.Event{
		with(func(e *agents.Event) {
			e.Kind, e.HookEvent = agents.KindPromptSubmit, "UserPromptSubmit"
			e.Title, e.TitleSource = "fix the flaky test", agents.TitleFromPrompt
		}),
		with(func(e *agents.Event) {
			e.Kind, e.HookEvent = agents.KindToolStart, "PreToolUse"
			e.ToolName, e.ToolUseID, e.InputHash = "Bash", tool, "3f2a9c1e5b7d4a60"
		}),
		with(func(e *agents.Event) {
			e.Kind, e.HookEvent = agents.KindToolEnd, "PostToolUse"
			e.ToolName, e.ToolUseID = "Bash", tool
		}),
		with(func(e *agents.Event) {
			e.Kind, e.HookEvent = agents.KindToolBatch, "PostToolBatch"
			e.ToolUseIDs = []string{tool}
		}),
		with(func(e *agents.Event) {
			e.Kind, e.HookEvent = agents.KindTurnEnd, "Stop"
		}),
	}
}

// serveBench runs a runtime on a free loopback port until the benchmark
// ends. It is startServer for a *testing.B.
func serveBench(b *testing.B) (*Server, int) {
	b.Helper()
	s := New(Config{Home: b.TempDir(), Version: "bench", Alive: func(int) bool { return true }})
	ln, err := Listen(0)
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, ln) }()
	b.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			b.Errorf("Serve: %v", err)
		}
	})
	return s, ln.Addr().(*net.TCPAddr).Port
}

// BenchmarkIngestHTTP is the runtime's throughput as hooks see it: 50
// sessions posting their turns at once over keep-alive connections to
// POST /api/v1/events, b.N events in all. Client and server share the
// machine's cores, as they do on a developer's laptop.
func BenchmarkIngestHTTP(b *testing.B) {
	benchIngestHTTP(b, false)
}

// BenchmarkIngestHTTPWithSubscriber is BenchmarkIngestHTTP with one client
// following GET /api/v1/events, as `clawd events` or the tray does: the
// difference is the cost of encoding and publishing every record.
func BenchmarkIngestHTTPWithSubscriber(b *testing.B) {
	benchIngestHTTP(b, true)
}

func benchIngestHTTP(b *testing.B, subscribe bool) {
	s, port := serveBench(b)
	url := fmt.Sprintf("http://127.0.0.1:%d/api/v1/events", port)
	hc := &http.Client{Transport: &http.Transport{
		Proxy:               nil,
		MaxIdleConns:        2 * ingestSessions,
		MaxIdleConnsPerHost: 2 * ingestSessions,
		DisableCompression:  true,
	}}
	defer hc.CloseIdleConnections()

	now := time.Now().UTC()
	bodies := make([][][]byte, ingestSessions)
	for i := range bodies {
		for _, e := range turn(fmt.Sprintf("bench-%02d", i), now) {
			body, err := json.Marshal(e)
			if err != nil {
				b.Fatal(err)
			}
			bodies[i] = append(bodies[i], body)
		}
	}
	var bad atomic.Int64
	var firstBad atomic.Value
	postOne := func(body []byte) {
		req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
		if err != nil {
			b.Error(err)
			return
		}
		req.Header.Set("Content-Type", "application/json")
		resp, err := hc.Do(req)
		if err != nil {
			if bad.Add(1) == 1 {
				firstBad.Store(err.Error())
			}
			return
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusNoContent {
			if bad.Add(1) == 1 {
				firstBad.Store(resp.Status)
			}
		}
	}
	// each runs f once per session, concurrently, and waits.
	each := func(f func(i int)) {
		var wg sync.WaitGroup
		for i := range ingestSessions {
			wg.Go(func() { f(i) })
		}
		wg.Wait()
	}

	var sub *streamCounter
	if subscribe {
		sub = followStream(b, s, port)
	}
	// Open every connection before timing: the hooks of a busy machine
	// post to a runtime that is already warm.
	starts := make([][]byte, ingestSessions)
	for i := range starts {
		starts[i] = mustJSON(b, agents.Event{Agent: "claude", Kind: agents.KindSessionStart,
			SessionID: fmt.Sprintf("bench-%02d", i), Time: now, Source: "startup"})
	}
	each(func(i int) { postOne(starts[i]) })
	warm := int64(ingestSessions)

	b.ResetTimer()
	each(func(i int) {
		n := b.N / ingestSessions
		if i < b.N%ingestSessions {
			n++
		}
		seq := bodies[i]
		for j := range n {
			postOne(seq[j%len(seq)])
		}
	})
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
	if n := bad.Load(); n > 0 {
		b.Fatalf("%d of %d posts were not answered 204; first: %v", n, int64(b.N)+warm, firstBad.Load())
	}
	if sub != nil {
		got, dropped := sub.settle(b, int64(b.N)+warm)
		b.ReportMetric(float64(dropped)/float64(int64(b.N)+warm), "dropped/event")
		if got+dropped != int64(b.N)+warm {
			b.Fatalf("stream delivered %d and reported %d dropped of %d records", got, dropped, int64(b.N)+warm)
		}
	}
}

func mustJSON(b *testing.B, v any) []byte {
	b.Helper()
	body, err := json.Marshal(v)
	if err != nil {
		b.Fatal(err)
	}
	return body
}

// streamCounter follows GET /api/v1/events and counts its lines.
type streamCounter struct {
	s       *Server
	lines   atomic.Int64 // records of the benchmark's sessions
	dropped atomic.Int64 // records the stream reported lost to lag
	markers atomic.Int64 // records of the marker session
}

// markerSession tags the events that show where the stream is; the
// benchmark's own sessions never use it.
const markerSession = "bench-marker"

// followStream subscribes one client to the event stream until the
// benchmark ends and returns once the subscription is live.
func followStream(b *testing.B, s *Server, port int) *streamCounter {
	b.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, fmt.Sprintf("http://127.0.0.1:%d/api/v1/events", port), nil)
	if err != nil {
		b.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		b.Fatalf("GET /api/v1/events = %s", resp.Status)
	}
	c := &streamCounter{s: s}
	done := make(chan error, 1)
	go func() {
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 64<<10), 4<<20)
		for sc.Scan() {
			line := sc.Bytes()
			switch {
			case len(bytes.TrimSpace(line)) == 0: // heartbeat
			case bytes.Contains(line, []byte(`"kind":"stream.lagged"`)):
				var lag struct{ Dropped int64 }
				if err := json.Unmarshal(line, &lag); err != nil {
					done <- err
					return
				}
				c.dropped.Add(lag.Dropped)
			case bytes.Contains(line, []byte(`"session_id":"`+markerSession+`"`)):
				c.markers.Add(1)
			default:
				c.lines.Add(1)
			}
		}
		done <- sc.Err()
	}()
	b.Cleanup(func() {
		cancel()
		if err := <-done; err != nil && !errors.Is(err, context.Canceled) && !strings.Contains(err.Error(), "canceled") {
			b.Errorf("event stream: %v", err)
		}
	})
	// The handler subscribes right after it answers.
	for deadline := time.Now().Add(10 * time.Second); !s.bus.active(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			b.Fatal("event stream not subscribed after 10 s")
		}
	}
	return c
}

// settle waits until the stream has caught up with the server, which a
// marker event ingested after the benchmark's shows, and returns the
// records it delivered and the ones it reported lost (a lagging stream
// reports its losses before the next record, here the marker's).
func (c *streamCounter) settle(b *testing.B, want int64) (got, dropped int64) {
	b.Helper()
	before := c.markers.Load()
	c.s.Ingest(agents.Event{Agent: "claude", Kind: agents.KindSessionStart, SessionID: markerSession, Time: time.Now()})
	deadline := time.Now().Add(10 * time.Second)
	for c.markers.Load() == before {
		if time.Now().After(deadline) {
			b.Fatalf("stream did not catch up in 10 s: %d of %d records delivered", c.lines.Load(), want)
		}
		time.Sleep(time.Millisecond)
	}
	return c.lines.Load(), c.dropped.Load()
}

// BenchmarkIngestDirect is ingest without HTTP: 50 goroutines, one session
// each, calling Ingest with a turn's events. It is the state machine and
// the lock, the ceiling of what HTTP ingest can reach.
func BenchmarkIngestDirect(b *testing.B) {
	s := New(Config{Home: b.TempDir(), Version: "bench", Alive: func(int) bool { return true }})
	now := time.Now().UTC()
	turns := make([][]agents.Event, ingestSessions)
	for i := range turns {
		turns[i] = turn(fmt.Sprintf("bench-%02d", i), now)
	}
	procs := goruntime.GOMAXPROCS(0)
	b.SetParallelism((ingestSessions + procs - 1) / procs)
	var next atomic.Int64
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		t := turns[int(next.Add(1)-1)%ingestSessions]
		for j := 0; pb.Next(); j++ {
			s.Ingest(t[j%len(t)])
		}
	})
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
}
