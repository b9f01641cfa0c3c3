package client

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
	"strconv"
	"time"

	"github.com/clawdhq/clawd/agents"
)

// ErrNotRunning means no clawd runtime answered: nothing listens on the
// clawd home's socket.
var ErrNotRunning = errors.New("clawd is not running")

// Client talks to one runtime: over its socket (NewSocket, Discover), as
// hooks, the CLI and the tray do, or over its loopback TCP port with the
// API token from runtime.json (New), as a browser-side client would.
type Client struct {
	base  string
	token string
	hc    *http.Client
}

// Options tunes a Client.
type Options struct {
	// DialTimeout bounds each connect; a socket nobody listens on refuses
	// at once, so it only matters for a wedged machine.
	DialTimeout time.Duration
	// ProbeTimeout bounds Discover's health check.
	ProbeTimeout time.Duration
}

func (o Options) withDefaults() Options {
	if o.DialTimeout == 0 {
		o.DialTimeout = 200 * time.Millisecond
	}
	if o.ProbeTimeout == 0 {
		o.ProbeTimeout = 200 * time.Millisecond
	}
	return o
}

func newHTTPClient(dial func(ctx context.Context, network, addr string) (net.Conn, error)) *http.Client {
	return &http.Client{Transport: &http.Transport{
		DialContext:         dial,
		Proxy:               nil, // loopback only: never through a proxy
		MaxIdleConnsPerHost: 4,
		DisableCompression:  true,
	}}
}

// New returns a client for a runtime's TCP port on 127.0.0.1. Every
// /api/v1 route there needs the API token; event and permission-request
// posts are refused there whatever the token (they go over the socket).
func New(port int, token string, o Options) *Client {
	d := &net.Dialer{Timeout: o.withDefaults().DialTimeout}
	return &Client{
		base:  "http://127.0.0.1:" + strconv.Itoa(port),
		token: token,
		hc:    newHTTPClient(d.DialContext),
	}
}

// NewSocket returns a client for the runtime listening on the socket at
// sock (SocketPath). Every connection checks the socket's folder and the
// listening process's user first (see dialSocket); no token is sent.
func NewSocket(sock string, o Options) *Client {
	o = o.withDefaults()
	return &Client{
		base: "http://" + socketHost,
		hc: newHTTPClient(func(ctx context.Context, _, _ string) (net.Conn, error) {
			ctx, cancel := context.WithTimeout(ctx, o.DialTimeout)
			defer cancel()
			return dialSocket(ctx, sock)
		}),
	}
}

// Discover finds the runtime of the clawd home on its socket and checks
// that it answers as clawd. It never looks anywhere else: a hook or the
// CLI talks to this user's runtime or to nobody. The error wraps
// ErrNotRunning when nothing listens, ErrNotOurs when the socket or the
// process behind it is not this user's.
func Discover(ctx context.Context, home string, o Options) (*Client, error) {
	o = o.withDefaults()
	c := NewSocket(SocketPath(home), o)
	pctx, cancel := context.WithTimeout(ctx, o.ProbeTimeout)
	defer cancel()
	if err := c.Ping(pctx); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if errors.Is(err, ErrNotOurs) || errors.Is(err, ErrNotRunning) {
			return nil, err
		}
		return nil, fmt.Errorf("%w: %v", ErrNotRunning, err)
	}
	return c, nil
}

// Base returns the runtime's base URL.
func (c *Client) Base() string { return c.base }

// Ping checks that a clawd runtime answers at the client's address.
func (c *Client) Ping(ctx context.Context) error {
	resp, err := c.do(ctx, http.MethodGet, "/api/v1/health", nil)
	if err != nil {
		return err
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, 4096))
	resp.Body.Close()
	return nil
}

// ErrNotClawd means something answered that is not a clawd runtime.
var ErrNotClawd = errors.New("the server is not clawd")

// APIError is a non-2xx answer of the runtime.
type APIError struct {
	Status  int
	Message string
}

func (e *APIError) Error() string {
	if e.Message == "" {
		return fmt.Sprintf("runtime answered %d", e.Status)
	}
	return fmt.Sprintf("runtime answered %d: %s", e.Status, e.Message)
}

func (c *Client) do(ctx context.Context, method, path string, body []byte) (*http.Response, error) {
	var r io.Reader
	if body != nil {
		r = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, r)
	if err != nil {
		return nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.Header.Get(IdentityHeader) != IdentityValue {
		resp.Body.Close()
		return nil, ErrNotClawd
	}
	if resp.StatusCode/100 != 2 {
		defer resp.Body.Close()
		var e struct {
			Error string `json:"error"`
		}
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		json.Unmarshal(b, &e)
		return nil, &APIError{Status: resp.StatusCode, Message: e.Error}
	}
	return resp, nil
}

// PostEvent sends one normalized event.
func (c *Client) PostEvent(ctx context.Context, e agents.Event) error {
	b, err := json.Marshal(e)
	if err != nil {
		return err
	}
	resp, err := c.do(ctx, http.MethodPost, eventsPath, b)
	if err != nil {
		return err
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, 4096))
	return resp.Body.Close()
}

// Sessions fetches the session snapshot.
func (c *Client) Sessions(ctx context.Context) (Snapshot, error) {
	var s Snapshot
	resp, err := c.do(ctx, http.MethodGet, "/api/v1/sessions", nil)
	if err != nil {
		return s, err
	}
	defer resp.Body.Close()
	err = json.NewDecoder(io.LimitReader(resp.Body, 16<<20)).Decode(&s)
	return s, err
}

// EventsFrom is where StreamEvents starts (see the event stream).
type EventsFrom struct {
	// Since, when Resume is set, is the seq of the last record read: the
	// stream starts after it.
	Since  uint64
	Resume bool
	// Live skips the backlog: only records from now on.
	Live bool
}

// query is from as the event stream's query string.
func (from EventsFrom) query() string {
	switch {
	case from.Resume:
		return "?since=" + strconv.FormatUint(from.Since, 10)
	case from.Live:
		return "?backlog=0"
	}
	return ""
}

// StreamEvents follows the runtime's event stream from where from says,
// calling fn with each event record (and with the StreamMissed and
// StreamLagged lines, whose Kind says so), until ctx ends, the runtime
// closes the stream or fn returns an error.
func (c *Client) StreamEvents(ctx context.Context, from EventsFrom, fn func(raw []byte, rec EventRecord) error) error {
	return c.follow(ctx, eventsPath+from.query(), func(line []byte) error {
		var rec EventRecord
		if err := json.Unmarshal(line, &rec); err != nil {
			return fmt.Errorf("bad stream line: %w", err)
		}
		return fn(line, rec)
	})
}

// follow reads one of the runtime's streams, calling fn with each JSON
// line, until ctx ends (it returns ctx's error; nil when the runtime
// closed the stream) or fn returns an error (which it returns).
// Heartbeats are skipped, and Server-Sent Events framing ("data:" lines,
// ":" comments, "event:" lines) is unwrapped as well as NDJSON.
func (c *Client) follow(ctx context.Context, path string, fn func(line []byte) error) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+path, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/x-ndjson")
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return ctxErr(ctx, err)
	}
	defer resp.Body.Close()
	if resp.Header.Get(IdentityHeader) != IdentityValue {
		return ErrNotClawd
	}
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		return &APIError{Status: resp.StatusCode, Message: errorMessage(b)}
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 || line[0] == ':' {
			continue // heartbeat
		}
		if rest, ok := bytes.CutPrefix(line, []byte("data:")); ok {
			line = bytes.TrimSpace(rest)
		}
		if len(line) == 0 || line[0] != '{' {
			continue // e.g. an SSE "event:" line
		}
		if err := fn(line); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil && ctx.Err() == nil {
		return err
	}
	return ctx.Err()
}
