package client

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"time"
)

// The hook process sends each event to the runtime's socket with one
// hand-written HTTP/1.1 request: a single request needs none of net/http's
// pooling, and the hook's whole run is on the agent's critical path. What
// differs between the two ways is whether the wait can be interrupted:
//
//   - PostEventBlocking: a plain blocking socket, bounded by a deadline and
//     nothing else. It never starts Go's network poller, which is the
//     cheapest way for a process that sends one request and exits. For
//     non-blocking events.
//   - PostEventInterruptible: the same request over package net, cut short
//     when ctx ends. For a wait a signal must be able to end (the agent's
//     SIGTERM).
//
// Both return an *APIError for a non-2xx answer and ErrNotClawd when the
// server does not identify as clawd.

// eventsPath is the route events are posted to.
const eventsPath = "/api/v1/events"

// maxResponseHead bounds what is read of an answer: its status line and
// headers. The runtime's answers to these requests carry no body that
// matters.
const maxResponseHead = 4 << 10

// PostEventBlocking posts one encoded event to the runtime's socket at
// sock and reads the status line and headers, all before deadline.
func PostEventBlocking(sock string, event []byte, deadline time.Time) error {
	head, err := roundTrip(sock, buildRequest(http.MethodPost, eventsPath, event), deadline)
	if err != nil {
		return err
	}
	return checkResponseHead(head)
}

// PostEventInterruptible posts one encoded event to the runtime's socket
// at sock over a fresh connection, given up when ctx ends.
func PostEventInterruptible(ctx context.Context, sock string, event []byte) error {
	return socketEndpoint(sock).postEvent(ctx, event)
}

// endpoint is where a hook's exchange goes: the runtime's socket, or, in
// remote mode, a profile's ingress on the desktop through the tunnel (see
// Remote).
type endpoint struct {
	// dial connects and checks who is at the other end before a byte
	// of the request is written.
	dial func(ctx context.Context) (net.Conn, error)
	// host is the request's Host header; header holds further header
	// lines, each ending in CRLF.
	host, header string
}

// socketEndpoint is the runtime's socket at sock.
func socketEndpoint(sock string) endpoint {
	return endpoint{
		dial: func(ctx context.Context) (net.Conn, error) { return dialSocket(ctx, sock) },
		host: socketHost,
	}
}

// postEvent posts one encoded event over a fresh connection, given up
// when ctx ends.
func (ep endpoint) postEvent(ctx context.Context, event []byte) error {
	conn, hangUp, err := dialFor(ctx, ep.dial)
	if err != nil {
		return err
	}
	defer hangUp()
	if _, err := conn.Write(ep.request(http.MethodPost, eventsPath, event)); err != nil {
		return ctxErr(ctx, err)
	}
	head, err := readHead(conn.Read)
	if err != nil {
		return ctxErr(ctx, err)
	}
	return checkResponseHead(head)
}

// socketHost is the Host header of requests over the socket, which has no
// host name of its own.
const socketHost = "clawd"

// buildRequest is one whole HTTP/1.1 request to the runtime's socket. It
// carries no token: the socket's peer check is what lets it in.
func buildRequest(method, path string, body []byte) []byte {
	return endpoint{host: socketHost}.request(method, path, body)
}

// request is one whole HTTP/1.1 request to ep.
func (ep endpoint) request(method, path string, body []byte) []byte {
	var req bytes.Buffer
	req.Grow(len(body) + 256 + len(ep.header))
	req.WriteString(method + " " + path + " HTTP/1.1\r\nHost: " + ep.host + "\r\nConnection: close\r\n" + ep.header)
	if body != nil {
		req.WriteString("Content-Type: application/json\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n")
	}
	req.WriteString("\r\n")
	req.Write(body)
	return req.Bytes()
}

// readHead reads up to the blank line that ends the headers.
func readHead(read func([]byte) (int, error)) ([]byte, error) {
	buf := make([]byte, 0, 512)
	for {
		if i := bytes.Index(buf, []byte("\r\n\r\n")); i >= 0 {
			return buf[:i+2], nil
		}
		if len(buf) >= maxResponseHead {
			return nil, errors.New("response headers too long")
		}
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err != nil {
			if n > 0 {
				continue
			}
			return nil, err
		}
		if n == 0 {
			return nil, errors.New("connection closed before the response headers")
		}
	}
}

// checkResponseHead parses "HTTP/1.1 204 No Content\r\nX-Clawd-Server: clawd\r\n...".
func checkResponseHead(head []byte) error {
	line, rest, _ := bytes.Cut(head, []byte("\r\n"))
	proto, after, ok := bytes.Cut(line, []byte(" "))
	if !ok || !bytes.HasPrefix(proto, []byte("HTTP/1.")) || len(after) < 3 {
		return fmt.Errorf("bad status line %q", line)
	}
	code, err := strconv.Atoi(string(after[:3]))
	if err != nil {
		return fmt.Errorf("bad status line %q", line)
	}
	identified := false
	for len(rest) > 0 {
		var h []byte
		h, rest, _ = bytes.Cut(rest, []byte("\r\n"))
		name, value, ok := bytes.Cut(h, []byte(":"))
		if ok && bytes.EqualFold(bytes.TrimSpace(name), []byte(IdentityHeader)) &&
			string(bytes.TrimSpace(value)) == IdentityValue {
			identified = true
		}
	}
	if !identified {
		return ErrNotClawd
	}
	if code/100 != 2 {
		return &APIError{Status: code}
	}
	return nil
}

func ctxErr(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}
