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
	"github.com/clawdhq/clawd/runtime/client"
	"github.com/clawdhq/clawd/runtime/history"
	"github.com/clawdhq/clawd/statemachine"
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

// serveBench is startServer with the GC settings of `clawd serve`; it
// returns the runtime's socket, where hooks post.
func serveBench(b *testing.B) (*Server, string) {
	b.Helper()
	b.Cleanup(TuneGC())
	s, _, sock := startServer(b)
	return s, sock
}

// BenchmarkIngestHTTP is the runtime's throughput as hooks see it: 50
// sessions posting their turns at once over keep-alive connections to
// POST /api/v1/events on the runtime's socket, b.N events in all. Client and server share the
// machine's cores, as they do on a developer's laptop, so the client is
// lean: one raw connection per session writing prebuilt requests, not
// net/http's client, whose cost would otherwise be most of the figure.
func BenchmarkIngestHTTP(b *testing.B) {
	benchIngestHTTP(b, false)
}

// BenchmarkIngestHTTPWithSubscriber is BenchmarkIngestHTTP with one client
// following GET /api/v1/events, as `clawd events` or the tray does: the
// difference is the cost of encoding and publishing every record.
func BenchmarkIngestHTTPWithSubscriber(b *testing.B) {
	benchIngestHTTP(b, true)
}

// BenchmarkIngestHTTPNewConn is BenchmarkIngestHTTP with a new connection
// per event and "Connection: close", which is what the hook process does:
// the difference is the cost of a connect, an accept and the peer check
// per event.
func BenchmarkIngestHTTPNewConn(b *testing.B) {
	s, sock := serveBench(b)
	reqs := ingestRequests(b, true)
	var bad badPosts
	post := func(req []byte) bool {
		conn, err := net.Dial("unix", sock)
		if err != nil {
			bad.add(err)
			return false
		}
		defer conn.Close()
		conn.SetDeadline(time.Now().Add(10 * time.Second))
		if _, err := conn.Write(req); err != nil {
			bad.add(err)
			return false
		}
		br := bufio.NewReaderSize(conn, 512)
		if err := readIngestResponse(br); err != nil {
			bad.add(err)
			return false
		}
		// Wait for the server's close, so the TIME_WAIT is the server's
		// and a long run does not use up the client's ephemeral ports.
		if _, err := br.ReadByte(); err != io.EOF {
			bad.add(fmt.Errorf("want EOF after a response to Connection: close, got %v", err))
			return false
		}
		return true
	}
	eachSession(func(i int) { post(reqs.start[i]) })

	b.ResetTimer()
	eachSession(func(i int) {
		seq := reqs.turn[i]
		for j := range sessionShare(b.N, i) {
			if !post(seq[j%len(seq)]) {
				return
			}
		}
	})
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
	bad.check(b)
	checkIngested(b, s, int64(b.N)+ingestSessions)
}

func benchIngestHTTP(b *testing.B, subscribe bool) {
	s, sock := serveBench(b)
	reqs := ingestRequests(b, false)
	var bad badPosts

	var sub *streamCounter
	if subscribe {
		sub = followStream(b, s, sock)
	}
	// Open every connection before timing, and post each session's start
	// on it: the hooks of a busy machine post to a runtime that is already
	// warm.
	conns := make([]net.Conn, ingestSessions)
	readers := make([]*bufio.Reader, ingestSessions)
	eachSession(func(i int) {
		conn, err := net.Dial("unix", sock)
		if err != nil {
			bad.add(err)
			return
		}
		conns[i], readers[i] = conn, bufio.NewReaderSize(conn, 4096)
		if _, err := conn.Write(reqs.start[i]); err != nil {
			bad.add(err)
			return
		}
		if err := readIngestResponse(readers[i]); err != nil {
			bad.add(err)
		}
	})
	defer func() {
		for _, c := range conns {
			if c != nil {
				c.Close()
			}
		}
	}()
	bad.check(b)
	warm := int64(ingestSessions)

	b.ResetTimer()
	eachSession(func(i int) {
		conn, br, seq := conns[i], readers[i], reqs.turn[i]
		for j := range sessionShare(b.N, i) {
			if _, err := conn.Write(seq[j%len(seq)]); err != nil {
				bad.add(err)
				return
			}
			// A failed response leaves the connection mid-message:
			// this session stops, and the check below fails.
			if err := readIngestResponse(br); err != nil {
				bad.add(err)
				return
			}
		}
	})
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
	bad.check(b)
	checkIngested(b, s, int64(b.N)+warm)
	if sub != nil {
		got, dropped := sub.settle(b, int64(b.N)+warm)
		b.ReportMetric(float64(dropped)/float64(int64(b.N)+warm), "dropped/event")
		if got+dropped != int64(b.N)+warm {
			b.Fatalf("stream delivered %d and reported %d dropped of %d records", got, dropped, int64(b.N)+warm)
		}
	}
}

// benchRequests are the requests of the ingest benchmarks, prebuilt so the
// client spends its time sending, not encoding: per session, the
// session.start posted before timing and the turn posted over and over.
type benchRequests struct {
	start [][]byte
	turn  [][][]byte
}

// ingestRequests builds the requests for ingestSessions sessions as the hook
// sends them to the runtime's socket, with "Connection: close" if
// closeConn.
func ingestRequests(b *testing.B, closeConn bool) benchRequests {
	b.Helper()
	now := time.Now().UTC()
	r := benchRequests{start: make([][]byte, ingestSessions), turn: make([][][]byte, ingestSessions)}
	for i := range ingestSessions {
		sid := fmt.Sprintf("bench-%02d", i)
		r.start[i] = ingestRequest(mustJSON(b, agents.Event{Agent: "claude",
			Kind: agents.KindSessionStart, SessionID: sid, Time: now, Source: "startup"}), closeConn)
		for _, e := range turn(sid, now) {
			r.turn[i] = append(r.turn[i], ingestRequest(mustJSON(b, e), closeConn))
		}
	}
	return r
}

// ingestRequest is one whole POST /api/v1/events, with the headers the hook
// sends.
func ingestRequest(body []byte, closeConn bool) []byte {
	conn := "keep-alive"
	if closeConn {
		conn = "close"
	}
	var req bytes.Buffer
	fmt.Fprintf(&req, "POST /api/v1/events HTTP/1.1\r\nHost: clawd\r\nConnection: %s\r\n"+
		"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n", conn, len(body))
	req.Write(body)
	return req.Bytes()
}

// readIngestResponse reads one answer to an ingest POST from br: the status
// must be 204 and the runtime must identify itself. A 204 has no body, so
// the response ends at the blank line after the headers.
func readIngestResponse(br *bufio.Reader) error {
	line, err := br.ReadSlice('\n')
	if err != nil {
		return fmt.Errorf("read status line: %w", err)
	}
	if !bytes.HasPrefix(line, []byte("HTTP/1.1 204 ")) {
		return fmt.Errorf("status %q, want 204", bytes.TrimSpace(line))
	}
	identity := false
	for {
		line, err := br.ReadSlice('\n')
		if err != nil {
			return fmt.Errorf("read headers: %w", err)
		}
		if len(bytes.TrimRight(line, "\r\n")) == 0 {
			break
		}
		name, value, ok := bytes.Cut(line, []byte(":"))
		if ok && bytes.EqualFold(name, []byte(client.IdentityHeader)) &&
			string(bytes.TrimSpace(value)) == client.IdentityValue {
			identity = true
		}
	}
	if !identity {
		return fmt.Errorf("no %s: %s header in the response", client.IdentityHeader, client.IdentityValue)
	}
	return nil
}

// eachSession runs f once per session, concurrently, and waits.
func eachSession(f func(i int)) {
	var wg sync.WaitGroup
	for i := range ingestSessions {
		wg.Go(func() { f(i) })
	}
	wg.Wait()
}

// sessionShare is how many of n events session i posts.
func sessionShare(n, i int) int {
	k := n / ingestSessions
	if i < n%ingestSessions {
		k++
	}
	return k
}

// badPosts counts the posts that failed and keeps the first error.
type badPosts struct {
	n     atomic.Int64
	first atomic.Value
}

func (p *badPosts) add(err error) {
	if p.n.Add(1) == 1 {
		p.first.Store(err)
	}
}

func (p *badPosts) check(b *testing.B) {
	b.Helper()
	if n := p.n.Load(); n > 0 {
		b.Fatalf("%d posts failed; first: %v", n, p.first.Load())
	}
}

// checkIngested fails b unless the runtime applied exactly want events and
// holds the benchmark's 50 sessions: a 204 alone does not show the work
// was done. The runtime runs with its defaults, as `clawd serve` does.
func checkIngested(b *testing.B, s *Server, want int64) {
	b.Helper()
	seq := s.sessions.Seq()
	if int64(seq) != want {
		b.Fatalf("runtime ingested %d events, want %d", seq, want)
	}
	sessions := s.Snapshot().Sessions
	if n, held := len(sessions), min(ingestSessions, statemachine.DefaultOptions().MaxSessions); n != held {
		b.Fatalf("runtime holds %d sessions, want %d", n, held)
	}
	for _, ss := range sessions {
		if !strings.HasPrefix(ss.SessionID, "bench-") {
			b.Fatalf("runtime holds session %q, not one of the benchmark's", ss.SessionID)
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

// followStream subscribes one client to the event stream on the socket
// until the benchmark ends and returns once the subscription is live.
func followStream(b *testing.B, s *Server, sock string) *streamCounter {
	b.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://clawd/api/v1/events", nil)
	if err != nil {
		b.Fatal(err)
	}
	hc := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, "unix", sock)
	}}}
	resp, err := hc.Do(req)
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
	eventually(b, "the event stream subscribed", s.sessions.Streaming)
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
	benchIngestDirect(b, New(Config{Home: b.TempDir(), Version: "bench", Alive: func(int) bool { return true }}))
}

// BenchmarkIngestDirectHistory is BenchmarkIngestDirect with the history
// kept, as `clawd serve` keeps it: the recap's tally of every event under
// the session lock (writing it is the journal's, off the ingest path).
func BenchmarkIngestDirectHistory(b *testing.B) {
	home := b.TempDir()
	st, err := history.Open(context.Background(), history.Options{Home: home})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	benchIngestDirect(b, New(Config{Home: home, Version: "bench", Alive: func(int) bool { return true }, History: st}))
}

func benchIngestDirect(b *testing.B, s *Server) {
	b.Cleanup(TuneGC())
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

// BenchmarkIngestSubscribers is BenchmarkIngestHTTP with N stream
// subscribers on the socket that connect and never read, as a stalled
// `clawd events` (piped into a pager nobody scrolls) would: ingest must
// not slow down for them.
func BenchmarkIngestSubscribers(b *testing.B) {
	for _, n := range []int{0, 500} {
		b.Run(fmt.Sprint(n), func(b *testing.B) { benchIngestIdleSubscribers(b, n) })
	}
}

func benchIngestIdleSubscribers(b *testing.B, n int) {
	_, sock := serveBench(b)
	reqs := ingestRequests(b, false)
	var bad badPosts
	for range n {
		conn, err := net.Dial("unix", sock)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { conn.Close() })
		fmt.Fprintf(conn, "GET /api/v1/events HTTP/1.1\r\nHost: clawd\r\n\r\n")
	}
	conns := make([]net.Conn, ingestSessions)
	readers := make([]*bufio.Reader, ingestSessions)
	eachSession(func(i int) {
		conn, err := net.Dial("unix", sock)
		if err != nil {
			bad.add(err)
			return
		}
		conns[i], readers[i] = conn, bufio.NewReaderSize(conn, 4096)
		if _, err := conn.Write(reqs.start[i]); err != nil {
			bad.add(err)
			return
		}
		if err := readIngestResponse(readers[i]); err != nil {
			bad.add(err)
		}
	})
	defer func() {
		for _, c := range conns {
			if c != nil {
				c.Close()
			}
		}
	}()
	bad.check(b)
	b.ResetTimer()
	eachSession(func(i int) {
		conn, br, seq := conns[i], readers[i], reqs.turn[i]
		for j := range sessionShare(b.N, i) {
			if _, err := conn.Write(seq[j%len(seq)]); err != nil {
				bad.add(err)
				return
			}
			if err := readIngestResponse(br); err != nil {
				bad.add(err)
				return
			}
		}
	})
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
	bad.check(b)
}
