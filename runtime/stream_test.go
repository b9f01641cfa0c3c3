package runtime

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/runtime/client"
	"github.com/clawdhq/clawd/runtime/sessions"
)

// openStream sends a stream GET over the socket and returns the connection
// and the response status, leaving the body unread.
func openStream(t *testing.T, sock, path string) (net.Conn, int) {
	t.Helper()
	c, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: clawd\r\n\r\n", path)
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReaderSize(c, 64), nil)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	c.SetReadDeadline(time.Time{})
	return c, resp.StatusCode
}

// TestStreamSubscriberCap: at most maxStreams streams run at once, event
// and permission streams together; the next is refused with 503 until
// one ends.
func TestStreamSubscriberCap(t *testing.T) {
	s, _, sock := startServer(t)
	var conns []net.Conn
	for i := range maxStreams {
		path := "/api/v1/events"
		if i%2 == 1 {
			path = "/api/v1/permissions/events"
		}
		c, code := openStream(t, sock, path)
		if code != http.StatusOK {
			t.Fatalf("stream %d = %d, want 200", i, code)
		}
		conns = append(conns, c)
	}
	for _, path := range []string{"/api/v1/events", "/api/v1/permissions/events"} {
		c, code := openStream(t, sock, path)
		if code != http.StatusServiceUnavailable {
			t.Errorf("stream past the cap: GET %s = %d, want 503", path, code)
		}
		// The refused connection is closed, not kept alive on a slot.
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		if _, err := io.Copy(io.Discard, c); err != nil {
			t.Errorf("the refused stream's connection: %v, want closed by the runtime", err)
		}
	}
	conns[0].Close()
	eventually(t, "a closed stream stops counting", func() bool { return s.streams.Load() < maxStreams })
	if _, code := openStream(t, sock, "/api/v1/events"); code != http.StatusOK {
		t.Errorf("stream after one ended = %d, want 200", code)
	}
}

// TestStalledStreamDropped: a subscriber that stops reading is dropped
// once a write to it has waited StreamWriteTimeout, and ingest goes on
// meanwhile; one that keeps reading stays.
func TestStalledStreamDropped(t *testing.T) {
	home := t.TempDir()
	s := New(Config{Home: home, Version: "test", Alive: func(int) bool { return true }, StreamWriteTimeout: 200 * time.Millisecond})
	sock := client.SocketPath(home)
	ln, err := ListenSocket(sock, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, nil, ln) }()
	defer func() {
		cancel()
		<-done
	}()

	stalled, _ := openStream(t, sock, "/api/v1/events")
	reader, _ := openStream(t, sock, "/api/v1/events")
	read := make(chan int64, 1)
	go func() {
		n, _ := io.Copy(io.Discard, reader)
		read <- n
	}()
	eventually(t, "both streams subscribed", func() bool { return s.streams.Load() >= 2 && s.sessions.Streaming() })
	// Far more than the socket buffers hold: the stalled subscriber's
	// writes block.
	title := strings.Repeat("x", agents.MaxTitleLen)
	start := time.Now()
	for deadline := time.Now().Add(20 * time.Second); s.streams.Load() > 1; {
		for i := range 2000 {
			s.Ingest(agents.Event{Agent: "claude", Kind: agents.KindPromptSubmit, SessionID: fmt.Sprintf("s%d", i%50),
				Time: time.Now(), Title: title, TitleSource: agents.TitleFromPrompt, Cwd: "/home/user/" + strings.Repeat("p", 200)})
		}
		if time.Now().After(deadline) {
			t.Fatalf("the stalled subscriber is still there after 20 s (%d streams)", s.streams.Load())
		}
	}
	t.Logf("the stalled subscriber was dropped %v after ingest began", time.Since(start).Round(time.Millisecond))
	// Its connection is closed: what the kernel buffered drains, then EOF.
	stalled.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.Copy(io.Discard, stalled); err != nil {
		t.Errorf("the stalled subscriber's connection: %v, want EOF", err)
	}
	select {
	case n := <-read:
		t.Errorf("the reading subscriber was dropped too, after %d bytes", n)
	default:
	}
}

// streamLines opens GET /api/v1/events+query over the socket (with
// header h, when set) and returns its lines as they come.
func streamLines(t *testing.T, sock, query string, h map[string]string) (<-chan string, func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	hc := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, "unix", sock)
	}}}
	req, _ := http.NewRequestWithContext(ctx, "GET", "http://clawd/api/v1/events"+query, nil)
	for k, v := range h {
		req.Header.Set(k, v)
	}
	resp, err := hc.Do(req)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		cancel()
		t.Fatalf("GET /api/v1/events%s = %d %s", query, resp.StatusCode, b)
	}
	lines := make(chan string, 8192)
	go func() {
		defer resp.Body.Close()
		defer close(lines)
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if l := strings.TrimSpace(sc.Text()); l != "" {
				lines <- l
			}
		}
	}()
	return lines, cancel
}

// nextLine returns the stream's next line, failing after 10 s.
func nextLine(t *testing.T, lines <-chan string) string {
	t.Helper()
	select {
	case l, ok := <-lines:
		if !ok {
			t.Fatal("the stream ended")
		}
		return l
	case <-time.After(10 * time.Second):
		t.Fatal("no line within 10 s")
	}
	return ""
}

// seqOf is a record line's seq and kind.
func seqOf(t *testing.T, line string) (uint64, string) {
	t.Helper()
	var r client.EventRecord
	if err := json.Unmarshal([]byte(line), &r); err != nil {
		t.Fatalf("line %s: %v", line, err)
	}
	return r.Seq, string(r.Kind)
}

func start(agent, sid string) agents.Event {
	return agents.Event{Agent: agent, Kind: agents.KindSessionStart, SessionID: sid, Time: time.Now().UTC()}
}

// TestBacklogPerAgent: the backlog keeps the last client.EventBacklog
// records of each agent, a chatty one pushing out only its own; a stream
// starts with them in seq order, and a reader resuming after a record
// pushed out is told how many it lost.
func TestBacklogPerAgent(t *testing.T) {
	s, _, sock := startServer(t)
	for i := range 5 {
		s.Ingest(start("codex", fmt.Sprintf("c%d", i))) // seqs 1-5
	}
	chatty := client.EventBacklog + 50
	for i := range chatty {
		s.Ingest(start("claude", fmt.Sprintf("s%d", i))) // seqs 6-255
	}
	recs := held(s)
	if len(recs) != 5+client.EventBacklog {
		t.Fatalf("backlog holds %d records, want %d", len(recs), 5+client.EventBacklog)
	}
	for i, r := range recs {
		want := uint64(i + 1)
		if i >= 5 {
			want = uint64(i + 1 + 50) // claude's first 50 are gone
		}
		if r.Seq != want {
			t.Fatalf("backlog[%d] = seq %d (%s), want %d", i, r.Seq, r.Agent, want)
		}
	}

	lines, cancel := streamLines(t, sock, "", nil)
	for i := range len(recs) {
		if seq, _ := seqOf(t, nextLine(t, lines)); seq != recs[i].Seq {
			t.Fatalf("backlog line %d: seq %d, want %d", i, seq, recs[i].Seq)
		}
	}
	s.Ingest(start("claude", "live"))
	if seq, _ := seqOf(t, nextLine(t, lines)); seq != 256 {
		t.Errorf("the first live line: seq %d, want 256", seq)
	}
	cancel()

	// After seq 10, claude's 11-56 are gone: 46 lost, then 57 on.
	lines, cancel = streamLines(t, sock, "?since=10", nil)
	defer cancel()
	if l := nextLine(t, lines); l != `{"kind":"stream.missed","missed":46}` {
		t.Errorf("first line after a lost stretch = %s, want it counted", l)
	}
	if seq, _ := seqOf(t, nextLine(t, lines)); seq != 57 {
		t.Errorf("first record after seq 10: %d, want 57", seq)
	}

	// Nothing lost after 200: no such line.
	lines2, cancel2 := streamLines(t, sock, "?since=200", nil)
	defer cancel2()
	if seq, _ := seqOf(t, nextLine(t, lines2)); seq != 201 {
		t.Errorf("first record after seq 200: %d, want 201", seq)
	}

	// A seq this runtime never gave: numbers from an earlier runtime.
	lines3, cancel3 := streamLines(t, sock, "?since=9999", nil)
	defer cancel3()
	if l := nextLine(t, lines3); l != `{"kind":"stream.missed","missed":0,"reset":true}` {
		t.Errorf("first line after an unknown seq = %s, want a reset", l)
	}
	if seq, _ := seqOf(t, nextLine(t, lines3)); seq != 1 {
		t.Errorf("first record after a reset: %d, want the whole backlog from 1", seq)
	}

	// Live only.
	lines4, cancel4 := streamLines(t, sock, "?backlog=0", nil)
	defer cancel4()
	eventually(t, "the live stream subscribed", func() bool { return s.streams.Load() >= 4 })
	s.Ingest(start("claude", "live2"))
	if seq, _ := seqOf(t, nextLine(t, lines4)); seq != 257 {
		t.Errorf("first line live only: seq %d, want 257", seq)
	}
}

// TestStreamStartErrors: a start the runtime cannot honour is refused
// with what to send instead.
func TestStreamStartErrors(t *testing.T) {
	for _, q := range []string{"?since=x", "?since=-1", "?backlog=maybe", "?since=3&backlog=0"} {
		r := httptest.NewRequest("GET", "/api/v1/events"+q, nil)
		if _, err := startOf(r); err == nil {
			t.Errorf("startOf(%s) = nil error, want one", q)
		}
	}
	r := httptest.NewRequest("GET", "/api/v1/events", nil)
	r.Header.Set("Last-Event-ID", "7")
	if st, err := startOf(r); err != nil || st != (sessions.Start{Backlog: true, Since: 7, Resumed: true}) {
		t.Errorf("startOf(Last-Event-ID: 7) = %+v, %v, want after 7", st, err)
	}
}

// TestStreamLastEventID: an EventSource that reconnects sends the id of
// the last record it read; the stream goes on right after it.
func TestStreamLastEventID(t *testing.T) {
	s, _, sock := startServer(t)
	for i := range 3 {
		s.Ingest(start("claude", fmt.Sprintf("s%d", i)))
	}
	lines, cancel := streamLines(t, sock, "", map[string]string{"Accept": "text/event-stream", "Last-Event-ID": "2"})
	defer cancel()
	if l := nextLine(t, lines); l != "id: 3" {
		t.Errorf("first SSE line = %q, want id: 3", l)
	}
	if l := nextLine(t, lines); !strings.HasPrefix(l, "data: {") || !strings.Contains(l, `"session_id":"s2"`) {
		t.Errorf("second SSE line = %q, want the third record", l)
	}
}

// TestStreamHandoverExactlyOnce: streams opened while agents post get
// every record once, in order: the backlog up to the moment they
// subscribed, then the live ones, nothing between them lost or repeated.
func TestStreamHandoverExactlyOnce(t *testing.T) {
	s, _, sock := startServer(t)
	names := []string{"claude", "codex", "gemini", "qwen"}
	per := client.EventBacklog - 50 // the backlog holds them all
	total := uint64(len(names) * per)
	var wg sync.WaitGroup
	for _, a := range names {
		wg.Go(func() {
			for i := range per {
				s.Ingest(start(a, fmt.Sprintf("%s-%d", a, i)))
			}
		})
	}
	readers := 8
	errs := make(chan error, readers)
	for r := range readers {
		wg.Go(func() {
			lines, cancel := streamLines(t, sock, "", nil)
			defer cancel()
			want := uint64(1)
			for want <= total {
				select {
				case l, ok := <-lines:
					if !ok {
						errs <- fmt.Errorf("reader %d: the stream ended at %d", r, want)
						return
					}
					var rec client.EventRecord
					json.Unmarshal([]byte(l), &rec)
					if rec.Seq != want {
						errs <- fmt.Errorf("reader %d: seq %d (%s), want %d", r, rec.Seq, rec.Kind, want)
						return
					}
					want++
				case <-time.After(20 * time.Second):
					errs <- fmt.Errorf("reader %d: stuck at %d", r, want)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestStreamResumeExactlyOnce: a reader that keeps dropping its stream
// and resuming after the last seq it read, while agents post, reads every
// record exactly once and in order (the backlog holds them all: what it
// no longer holds, TestBacklogPerAgent counts).
func TestStreamResumeExactlyOnce(t *testing.T) {
	s, _, sock := startServer(t)
	names := []string{"claude", "codex", "gemini"}
	per := client.EventBacklog - 10
	total := uint64(len(names) * per)
	var wg sync.WaitGroup
	defer wg.Wait()
	for _, a := range names {
		wg.Go(func() {
			for i := range per {
				s.Ingest(start(a, fmt.Sprintf("%s-%d", a, i%40)))
			}
		})
	}
	var last uint64
	resumes := 0
	for n := 1; last < total; n++ {
		query := ""
		if last > 0 {
			query = fmt.Sprintf("?since=%d", last)
			resumes++
		}
		lines, cancel := streamLines(t, sock, query, nil)
		for i := 0; i < n%37+1 && last < total; i++ {
			seq, kind := seqOf(t, nextLine(t, lines))
			if seq != last+1 {
				t.Fatalf("after %d: %s seq %d (stream from %q, line %d)", last, kind, seq, query, i)
			}
			last = seq
		}
		cancel()
	}
	t.Logf("%d records read over %d resumptions", total, resumes)
}
