package runtime

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/runtime/client"
)

// startServer runs a runtime for the test's life on a free loopback port
// and on a socket in a temp dir, with mods applied to its Config, and
// returns the port and the socket.
func startServer(t testing.TB, mods ...func(*Config)) (*Server, int, string) {
	t.Helper()
	home := t.TempDir()
	cfg := Config{Home: home, Version: "test", Alive: func(int) bool { return true }}
	for _, mod := range mods {
		mod(&cfg)
	}
	s := New(cfg)
	ln, err := Listen(0)
	if err != nil {
		t.Fatal(err)
	}
	sock := client.SocketPath(home)
	sln, err := ListenSocket(sock, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, ln, sln) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return s, ln.Addr().(*net.TCPAddr).Port, sock
}

// eventually waits until cond holds, polling, and fails the test when it
// has not within 10 s.
func eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("not within 10 s: %s", what)
		}
	}
}

// rawRequest sends bytes as they are to the TCP port, so a test controls
// every header (duplicates included), and returns the status code and
// body.
func rawRequest(t *testing.T, port int, req string) (int, http.Header, string) {
	t.Helper()
	return rawRequestOn(t, "tcp", fmt.Sprintf("127.0.0.1:%d", port), req)
}

// rawSocketRequest is rawRequest over the runtime's socket.
func rawSocketRequest(t *testing.T, sock, req string) (int, http.Header, string) {
	t.Helper()
	return rawRequestOn(t, "unix", sock, req)
}

func rawRequestOn(t *testing.T, network, addr, req string) (int, http.Header, string) {
	t.Helper()
	conn, err := net.Dial(network, addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.WriteString(conn, req); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("read response: %v", err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}

func eventJSON(t *testing.T, sid string) string {
	t.Helper()
	b, err := json.Marshal(agents.Event{Agent: "claude", Kind: agents.KindPromptSubmit, SessionID: sid,
		Time: time.Now().UTC(), Title: "hello", TitleSource: agents.TitleFromPrompt, Cwd: "/tmp/p"})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func post(path, host string, headers []string, body string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "POST %s HTTP/1.1\r\nHost: %s\r\n", path, host)
	for _, h := range headers {
		b.WriteString(h + "\r\n")
	}
	fmt.Fprintf(&b, "Content-Length: %d\r\nConnection: close\r\n\r\n%s", len(body), body)
	return b.String()
}

func TestGuard(t *testing.T) {
	s, port, _ := startServer(t)
	host := fmt.Sprintf("127.0.0.1:%d", port)
	json := "Content-Type: application/json"
	cases := []struct {
		name    string
		host    string
		headers []string
		want    int
	}{
		{"ok", host, []string{json}, http.StatusOK},
		{"ok with charset", host, []string{"Content-Type: application/json; charset=utf-8"}, http.StatusOK},
		{"ok localhost", fmt.Sprintf("localhost:%d", port), []string{json}, http.StatusOK},
		{"ok ipv6 loopback", fmt.Sprintf("[::1]:%d", port), []string{json}, http.StatusOK},
		{"origin", host, []string{json, "Origin: http://evil.example"}, http.StatusForbidden},
		{"origin null", host, []string{json, "Origin: null"}, http.StatusForbidden},
		{"origin empty", host, []string{json, "Origin: "}, http.StatusForbidden},
		{"origin loopback", host, []string{json, "Origin: http://" + host}, http.StatusForbidden},
		{"referer", host, []string{json, "Referer: http://evil.example/page"}, http.StatusForbidden},
		{"fetch metadata cross-site", host, []string{json, "Sec-Fetch-Site: cross-site"}, http.StatusForbidden},
		{"fetch metadata same-site", host, []string{json, "Sec-Fetch-Site: same-site"}, http.StatusForbidden},
		{"fetch metadata same-origin", host, []string{json, "Sec-Fetch-Site: same-origin"}, http.StatusOK},
		{"foreign host", fmt.Sprintf("evil.example:%d", port), []string{json}, http.StatusForbidden},
		{"rebinding host", "evil.example", []string{json}, http.StatusForbidden},
		{"wrong port", "127.0.0.1:1", []string{json}, http.StatusForbidden},
		{"lan address", fmt.Sprintf("192.168.1.2:%d", port), []string{json}, http.StatusForbidden},
		{"forwarded grants nothing", "evil.example", []string{json, "Forwarded: host=127.0.0.1", "X-Forwarded-Host: " + host, "X-Forwarded-For: 127.0.0.1"}, http.StatusForbidden},
		{"text/plain", host, []string{"Content-Type: text/plain"}, http.StatusUnsupportedMediaType},
		{"form", host, []string{"Content-Type: application/x-www-form-urlencoded"}, http.StatusUnsupportedMediaType},
		{"no content type", host, nil, http.StatusUnsupportedMediaType},
		{"duplicate content type", host, []string{json, json}, http.StatusBadRequest},
		{"duplicate host", host, []string{json, "Host: " + host}, http.StatusBadRequest},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sid := fmt.Sprintf("guard-%d", i)
			// POST /state is the TCP port's one route without a token:
			// the guard alone stands before it.
			code, hdr, body := rawRequest(t, port, post("/state", c.host, c.headers, `{"state":"working","session_id":"`+sid+`"}`))
			if code != c.want {
				t.Fatalf("POST with %s = %d, want %d (body %q)", c.name, code, c.want, body)
			}
			found := false
			for _, ss := range s.Snapshot().Sessions {
				found = found || ss.SessionID == sid
			}
			if c.want >= 400 {
				// net/http itself refuses a second Host header, with its
				// own plain-text "400 Bad Request" body, before any
				// handler runs.
				if body != "" && c.name != "duplicate host" {
					t.Errorf("rejection body = %q, want empty", body)
				}
				if found {
					t.Errorf("rejected request created session %s", sid)
				}
			} else {
				if !found {
					t.Errorf("accepted request did not create session %s", sid)
				}
				if hdr.Get(client.IdentityHeader) != client.IdentityValue {
					t.Errorf("identity header = %q", hdr.Get(client.IdentityHeader))
				}
			}
		})
	}
	t.Run("options preflight", func(t *testing.T) {
		code, hdr, _ := rawRequest(t, port, "OPTIONS /api/v1/events HTTP/1.1\r\nHost: "+host+
			"\r\nAccess-Control-Request-Method: POST\r\nConnection: close\r\n\r\n")
		if code != http.StatusMethodNotAllowed || hdr.Get("Access-Control-Allow-Origin") != "" {
			t.Fatalf("OPTIONS = %d (ACAO %q), want 405 without CORS", code, hdr.Get("Access-Control-Allow-Origin"))
		}
	})
	t.Run("stream get from a page without origin or referer", func(t *testing.T) {
		code, _, body := rawRequest(t, port, "GET /api/v1/events HTTP/1.1\r\nHost: "+host+
			"\r\nSec-Fetch-Site: cross-site\r\nSec-Fetch-Mode: no-cors\r\nConnection: close\r\n\r\n")
		if code != http.StatusForbidden || body != "" {
			t.Fatalf("no-cors stream GET = %d %q, want empty 403", code, body)
		}
	})
	t.Run("get with origin", func(t *testing.T) {
		code, _, body := rawRequest(t, port, "GET /api/v1/sessions HTTP/1.1\r\nHost: "+host+
			"\r\nOrigin: http://evil.example\r\nConnection: close\r\n\r\n")
		if code != http.StatusForbidden || body != "" {
			t.Fatalf("GET sessions with Origin = %d %q, want empty 403", code, body)
		}
	})
}

func TestPostEventErrors(t *testing.T) {
	_, _, sock := startServer(t)
	host := "clawd"
	ct := []string{"Content-Type: application/json"}
	cases := []struct {
		name, body string
		want       int
		msg        string
	}{
		{"bad json", `{"agent":`, 400, "bad json"},
		{"unknown agent", `{"agent":"nope","kind":"turn.end","session_id":"s","time":"2026-01-01T00:00:00Z"}`, 400, "unknown agent"},
		{"unknown kind", `{"agent":"claude","kind":"explode","session_id":"s","time":"2026-01-01T00:00:00Z"}`, 400, "unknown kind"},
		{"no session", `{"agent":"claude","kind":"turn.end","time":"2026-01-01T00:00:00Z"}`, 400, "session_id"},
		{"too large", `{"agent":"claude","pad":"` + strings.Repeat("x", maxEventBody) + `"}`, 413, "larger than"},
	}
	for _, c := range cases {
		code, _, body := rawSocketRequest(t, sock, post("/api/v1/events", host, ct, c.body))
		if code != c.want || !strings.Contains(body, c.msg) {
			t.Errorf("%s: POST = %d %q, want %d containing %q", c.name, code, body, c.want, c.msg)
		}
	}
	code, _, body := rawSocketRequest(t, sock, "GET /nope HTTP/1.1\r\nHost: "+host+"\r\nConnection: close\r\n\r\n")
	if code != 404 || !strings.Contains(body, "no such route") {
		t.Errorf("GET /nope = %d %q", code, body)
	}
}

func TestPostStateCompat(t *testing.T) {
	s, port, _ := startServer(t)
	host := fmt.Sprintf("127.0.0.1:%d", port)
	ct := []string{"Content-Type: application/json"}
	code, _, body := rawRequest(t, port, post("/state", host, ct,
		`{"state":"working","session_id":"legacy-1","event":"PreToolUse","agent_id":"claude-code","cwd":"/tmp/x","source_pid":1,"claude_pid":4242,"svg":"x.svg"}`))
	if code != 200 {
		t.Fatalf("POST /state = %d %q", code, body)
	}
	var got *client.SessionView
	for _, ss := range s.Snapshot().Sessions {
		if ss.SessionID == "legacy-1" {
			got = &ss
		}
	}
	if got == nil || got.State != "working" || got.Cwd != "/tmp/x" || got.AgentPID != 4242 || got.Agent != "claude" {
		t.Fatalf("session after POST /state = %+v", got)
	}
	// An explicit state without an event.
	if code, _, body := rawRequest(t, port, post("/state", host, ct, `{"state":"thinking","session_id":"legacy-2"}`)); code != 200 {
		t.Fatalf("POST /state thinking = %d %q", code, body)
	}
	for _, c := range []struct{ body, msg string }{
		{`{"state":"dancing"}`, "unknown state"},
		{`{"state":"idle","agent_id":"ghost"}`, "unknown agent_id"},
		{`not json`, "bad json"},
	} {
		if code, _, body := rawRequest(t, port, post("/state", host, ct, c.body)); code != 400 || !strings.Contains(body, c.msg) {
			t.Errorf("POST /state %s = %d %q, want 400 %q", c.body, code, body, c.msg)
		}
	}
	if code, _, _ := rawRequest(t, port, post("/state", host, ct, `{"state":"idle","x":"`+strings.Repeat("y", maxStateBody)+`"}`)); code != 413 {
		t.Errorf("oversized POST /state = %d, want 413", code)
	}
	// GET /state is the original app's health check.
	code, hdr, body := rawRequest(t, port, "GET /state HTTP/1.1\r\nHost: "+host+"\r\nConnection: close\r\n\r\n")
	if code != 200 || !strings.Contains(body, `"app":"clawd"`) || hdr.Get(client.IdentityHeader) != "clawd" {
		t.Errorf("GET /state = %d %q", code, body)
	}
}

func TestStreamAndSnapshotThroughClient(t *testing.T) {
	_, _, sock := startServer(t)
	c := client.NewSocket(sock, client.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	got := make(chan client.EventRecord, 16)
	streamErr := make(chan error, 1)
	go func() {
		streamErr <- c.StreamEvents(ctx, client.EventsFrom{Live: true}, func(_ []byte, r client.EventRecord) error {
			got <- r
			return nil
		})
	}()
	// The subscription is live once a posted event comes back; retry until
	// then.
	payload, err := os.ReadFile(filepath.Join("..", "testdata", "claude", "hooks", "UserPromptSubmit.json"))
	if err != nil {
		t.Fatal(err)
	}
	env := func(k string) string {
		return map[string]string{"CLAUDE_CODE_SESSION_ATTENDED": "1", "CLAUDE_PID": "999"}[k]
	}
	ev, err := agents.Claude.Decode(payload, "", env, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	var rec client.EventRecord
	for rec.SessionID == "" {
		if err := c.PostEvent(ctx, ev); err != nil {
			t.Fatal(err)
		}
		select {
		case rec = <-got:
		case <-time.After(200 * time.Millisecond):
		case <-ctx.Done():
			t.Fatal("no event on the stream")
		}
	}
	if rec.Agent != "claude" || rec.Kind != agents.KindPromptSubmit || rec.State != "thinking" || rec.Title != "CAPTURE_ALL please" || rec.Seq == 0 {
		t.Errorf("stream record = %+v", rec)
	}
	snap, err := c.Sessions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(snap.Sessions) != 1 || snap.Sessions[0].State != "thinking" || snap.DisplayState != "thinking" ||
		snap.Sessions[0].Cwd != "/home/user/project" || snap.Sessions[0].Headless {
		t.Errorf("snapshot = %+v", snap)
	}
	cancel()
	if err := <-streamErr; err != nil && !errors.Is(err, context.Canceled) {
		t.Errorf("StreamEvents = %v", err)
	}
}

func TestSSEStream(t *testing.T) {
	s, port, _ := startServer(t)
	req, _ := http.NewRequest("GET", fmt.Sprintf("http://127.0.0.1:%d/api/v1/events", port), nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Authorization", "Bearer "+s.Token())
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("Content-Type = %q", ct)
	}
	eventually(t, "the stream subscribed", s.sessions.Streaming)
	s.Ingest(agents.Event{Agent: "claude", Kind: agents.KindSessionStart, SessionID: "sse", Time: time.Now()})
	br := bufio.NewReader(resp.Body)
	// Each record has its seq as its SSE id, for Last-Event-ID.
	if line, err := br.ReadString('\n'); err != nil || line != "id: 1\n" {
		t.Fatalf("first SSE line = %q, %v, want the record's id", line, err)
	}
	line, err := br.ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "data: {") || !strings.Contains(line, `"session_id":"sse"`) {
		t.Fatalf("second SSE line = %q, %v", line, err)
	}
}

func TestRunWritesAndRemovesRuntimeJSON(t *testing.T) {
	home := t.TempDir()
	s := New(Config{Home: home, Version: "v-test"})
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan client.Info, 1)
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx, 0, func(in client.Info) { ready <- in }) }()
	var in client.Info
	select {
	case in = <-ready:
	case err := <-done:
		t.Fatalf("Run: %v", err)
	}
	path := filepath.Join(home, client.InfoFile)
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("runtime.json mode = %v, want 0600", fi.Mode().Perm())
	}
	disk, err := client.ReadInfo(home)
	if err != nil || disk.Port != in.Port || disk.PID != os.Getpid() || disk.Version != "v-test" || len(disk.Token) != 64 ||
		disk.Socket != client.SocketPath(home) {
		t.Errorf("runtime.json = %+v, %v", disk, err)
	}
	// A second runtime for the same home refuses to start, naming the
	// first one.
	err = New(Config{Home: home}).Run(context.Background(), 0, nil)
	var already *ErrAlreadyRunning
	if !errors.As(err, &already) || already.PID != os.Getpid() {
		t.Errorf("second Run = %v, want ErrAlreadyRunning with pid %d", err, os.Getpid())
	}
	if pid, inUse, err := HomeInUse(home); pid != os.Getpid() || !inUse || err != nil {
		t.Errorf("HomeInUse while it runs = %d, %v, %v; want %d, true", pid, inUse, err, os.Getpid())
	}
	// Discovery finds it on the home's socket.
	c, err := client.Discover(context.Background(), home, client.Options{})
	if err != nil || c.Ping(context.Background()) != nil {
		t.Errorf("Discover = %v, %v", c, err)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Run returned %v", err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("runtime.json still there after shutdown: %v", err)
	}
	if _, inUse, err := HomeInUse(home); inUse || err != nil {
		t.Errorf("HomeInUse after shutdown = %v, %v; want false", inUse, err)
	}
	if _, err := os.Stat(client.SocketPath(home)); !os.IsNotExist(err) {
		t.Errorf("the socket is still there after shutdown: %v", err)
	}
}

func TestDiscoverIgnoresForeignServer(t *testing.T) {
	// Something that is not clawd listens where runtime.json points.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	foreign := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"ok":true}`))
	})}
	go foreign.Serve(ln)
	defer foreign.Close()
	home := t.TempDir()
	if err := client.WriteInfo(home, client.Info{Port: ln.Addr().(*net.TCPAddr).Port, PID: 1}); err != nil {
		t.Fatal(err)
	}
	c := client.New(ln.Addr().(*net.TCPAddr).Port, "", client.Options{})
	if err := c.Ping(context.Background()); !errors.Is(err, client.ErrNotClawd) {
		t.Errorf("Ping(foreign) = %v, want ErrNotClawd", err)
	}
}

// TestRunOneAtATime: eight runtimes of one clawd home started together:
// exactly one runs, every other says which pid does.
func TestRunOneAtATime(t *testing.T) {
	home := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	const n = 8
	type outcome struct {
		err   error
		ready bool
	}
	results := make(chan outcome, 2*n)
	start := make(chan struct{})
	for range n {
		go func() {
			<-start
			err := New(Config{Home: home, Version: "test"}).Run(ctx, 0, func(client.Info) { results <- outcome{ready: true} })
			results <- outcome{err: err}
		}()
	}
	close(start)
	ready, refused := 0, 0
	for ready+refused < n {
		o := <-results
		var already *ErrAlreadyRunning
		switch {
		case o.ready:
			ready++
		case errors.As(o.err, &already):
			refused++
			if already.PID != os.Getpid() || !strings.Contains(o.err.Error(), fmt.Sprintf("pid %d", os.Getpid())) {
				t.Errorf("refusal = %v, want it to name pid %d", o.err, os.Getpid())
			}
		default:
			t.Fatalf("Run = %v, want it to serve or be refused", o.err)
		}
	}
	if ready != 1 || refused != n-1 {
		t.Fatalf("%d runtimes serve and %d were refused, want 1 and %d", ready, refused, n-1)
	}
	cancel()
	if o := <-results; o.err != nil {
		t.Errorf("the runtime that served: %v", o.err)
	}
	// Once it stopped, the home is free again.
	ctx2, cancel2 := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- New(Config{Home: home}).Run(ctx2, 0, func(client.Info) { cancel2() }) }()
	if err := <-done; err != nil {
		t.Errorf("Run after the first stopped = %v", err)
	}
}

// TestRunTightensHome: a clawd home others may enter is made 0700 before
// runtime.json and the socket go into it.
func TestRunTightensHome(t *testing.T) {
	home := t.TempDir()
	if err := os.Chmod(home, 0o777); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var logs strings.Builder
	var mu sync.Mutex
	log := slog.New(slog.NewTextHandler(writerFunc(func(p []byte) (int, error) {
		mu.Lock()
		defer mu.Unlock()
		return logs.Write(p)
	}), nil))
	done := make(chan error, 1)
	go func() { done <- New(Config{Home: home, Logger: log}).Run(ctx, 0, func(client.Info) { cancel() }) }()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(home); fi.Mode().Perm() != 0o700 {
		t.Errorf("home mode = %v after Run, want 0700", fi.Mode().Perm())
	}
	mu.Lock()
	defer mu.Unlock()
	if !strings.Contains(logs.String(), "made it 0700") {
		t.Errorf("Run did not say it tightened the home:\n%s", logs.String())
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// TestRunLongHome: a clawd home whose socket path would not fit a socket
// address gets its socket in the short per-user folder, which runtime.json
// names and clients find from the home alone.
func TestRunLongHome(t *testing.T) {
	home := filepath.Join(t.TempDir(), strings.Repeat("long-folder-name-", 8))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ready := make(chan client.Info, 1)
	done := make(chan error, 1)
	go func() {
		done <- New(Config{Home: home, Version: "test"}).Run(ctx, 0, func(in client.Info) { ready <- in })
	}()
	var in client.Info
	select {
	case in = <-ready:
	case err := <-done:
		t.Fatalf("Run: %v", err)
	}
	if len(filepath.Join(home, client.SocketName)) <= 103 || in.Socket == filepath.Join(home, client.SocketName) || len(in.Socket) > 103 {
		t.Errorf("socket = %s for a %d-byte home, want a short path outside it", in.Socket, len(home))
	}
	fi, err := os.Stat(filepath.Dir(in.Socket))
	if err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("socket folder %s: %v, %v; want mode 0700", filepath.Dir(in.Socket), fi, err)
	}
	c, err := client.Discover(context.Background(), home, client.Options{})
	if err != nil {
		t.Fatalf("Discover(long home) = %v", err)
	}
	if err := c.Ping(context.Background()); err != nil {
		t.Errorf("Ping = %v", err)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Run = %v", err)
	}
	if _, err := os.Stat(in.Socket); !os.IsNotExist(err) {
		t.Errorf("socket %s still there after shutdown: %v", in.Socket, err)
	}
}

// TestRunWithoutTCPPort: when the TCP port is held by another program,
// the runtime serves its socket anyway, says why the dashboard is
// unavailable (runtime.json with port 0, a problem in the snapshot), and
// takes the port once it is free: runtime.json names it, the problem is
// gone, the port answers.
func TestRunWithoutTCPPort(t *testing.T) {
	squat, err := Listen(0)
	if err != nil {
		t.Fatal(err)
	}
	port := squat.Addr().(*net.TCPAddr).Port
	retry := make(chan time.Time)
	asked := make(chan time.Duration, 16)
	home := t.TempDir()
	s := New(Config{Home: home, Version: "test", After: func(d time.Duration) <-chan time.Time {
		if d == relistenEvery {
			asked <- d
			return retry
		}
		return time.After(d)
	}})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ready := make(chan client.Info, 1)
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx, port, func(in client.Info) { ready <- in }) }()
	var in client.Info
	select {
	case in = <-ready:
	case err := <-done:
		t.Fatalf("Run with its port held = %v, want it to serve the socket", err)
	}
	if in.Port != 0 {
		t.Errorf("ready's port = %d, want 0", in.Port)
	}
	if disk, err := client.ReadInfo(home); err != nil || disk.Port != 0 {
		t.Errorf("runtime.json = %+v, %v; want port 0", disk, err)
	}
	c := client.NewSocket(in.Socket, client.Options{})
	snap, err := c.Sessions(ctx)
	if err != nil {
		t.Fatalf("the socket without a TCP port: %v", err)
	}
	if len(snap.Problems) != 1 || snap.Problems[0].ID != ProblemDashboard ||
		!strings.Contains(snap.Problems[0].Text, fmt.Sprintf("port %d", port)) {
		t.Errorf("problems = %+v, want the dashboard's naming port %d", snap.Problems, port)
	}
	if _, err := c.DashboardLogin(ctx); err == nil {
		t.Error("a dashboard login minted without a TCP port")
	}

	<-asked
	retry <- time.Now() // still held: it asks again
	<-asked
	squat.Close()
	retry <- time.Now()
	eventually(t, "runtime.json naming the port", func() bool {
		disk, err := client.ReadInfo(home)
		return err == nil && disk.Port == port
	})
	if snap, err := c.Sessions(ctx); err != nil || len(snap.Problems) != 0 {
		t.Errorf("problems once the port is taken = %+v, %v; want none", snap.Problems, err)
	}
	code, _, _ := rawRequest(t, port, "GET /state HTTP/1.1\r\nHost: 127.0.0.1:"+strconv.Itoa(port)+"\r\nConnection: close\r\n\r\n")
	if code != 200 {
		t.Errorf("GET /state on the port taken late = %d", code)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Run: %v", err)
	}
}

// TestLockWaitsForAStoppingRuntime: a runtime started while another of
// the same home stops waits for its lock and serves; one started beside a
// runtime that keeps running is refused at once.
func TestLockWaitsForAStoppingRuntime(t *testing.T) {
	home := t.TempDir()
	first, err := lockHome(home, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if _, err := lockHome(home, 5*time.Second); err == nil {
		t.Fatal("a second lock while the first runtime runs")
	} else if waited := time.Since(start); waited > 2*time.Second {
		t.Errorf("refused after %v, want at once while the holder is not stopping", waited)
	}
	first.stopping()
	waiting := make(chan struct{}, 1)
	poll := lockPoll
	lockPoll = func() {
		select {
		case waiting <- struct{}{}:
		default:
		}
		poll()
	}
	defer func() { lockPoll = poll }()
	got := make(chan error, 1)
	go func() {
		l, err := lockHome(home, 5*time.Second)
		if err == nil {
			l.release()
		}
		got <- err
	}()
	select {
	case err := <-got:
		t.Fatalf("lockHome beside a stopping runtime returned %v before it let go", err)
	case <-waiting:
	}
	first.release()
	if err := <-got; err != nil {
		t.Errorf("lockHome once the stopping runtime let go: %v", err)
	}
}
