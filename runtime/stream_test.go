package runtime

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/runtime/client"
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
	eventually(t, "both streams subscribed", func() bool { return s.streams.Load() >= 2 && s.events.active() })
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
