package client

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/textproto"
	"strconv"
	"strings"
	"time"
)

// FastPost sends one JSON POST to a runtime on 127.0.0.1:port over a fresh
// connection and waits for the status line and headers only. It is what the
// hook process uses: a single request needs none of net/http's connection
// pooling, and the hook's whole run is on the agent's critical path.
//
// It returns an *APIError for a non-2xx answer and ErrNotClawd when the
// server does not identify as clawd.
func FastPost(ctx context.Context, port int, token, path string, body []byte) error {
	return fastRequest(ctx, "POST", port, token, path, body)
}

// FastPing checks, the same way, that a clawd runtime answers on port.
func FastPing(ctx context.Context, port int) error {
	return fastRequest(ctx, "GET", port, "", "/api/v1/health", nil)
}

func fastRequest(ctx context.Context, method string, port int, token, path string, body []byte) error {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", "127.0.0.1:"+strconv.Itoa(port))
	if err != nil {
		return err
	}
	defer conn.Close()
	if dl, ok := ctx.Deadline(); ok {
		conn.SetDeadline(dl)
	} else {
		conn.SetDeadline(time.Now().Add(5 * time.Second))
	}
	stop := context.AfterFunc(ctx, func() { conn.SetDeadline(time.Unix(1, 0)) })
	defer stop()

	var req bytes.Buffer
	req.Grow(len(body) + 256)
	fmt.Fprintf(&req, "%s %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nConnection: close\r\n", method, path, port)
	if body != nil {
		fmt.Fprintf(&req, "Content-Type: application/json\r\nContent-Length: %d\r\n", len(body))
	}
	if token != "" {
		req.WriteString("Authorization: Bearer " + token + "\r\n")
	}
	req.WriteString("\r\n")
	req.Write(body)
	if _, err := conn.Write(req.Bytes()); err != nil {
		return ctxErr(ctx, err)
	}
	tp := textproto.NewReader(bufio.NewReaderSize(conn, 1024))
	status, err := tp.ReadLine()
	if err != nil {
		return ctxErr(ctx, err)
	}
	// "HTTP/1.1 204 No Content"
	parts := strings.SplitN(status, " ", 3)
	if len(parts) < 2 || !strings.HasPrefix(parts[0], "HTTP/1.") {
		return fmt.Errorf("bad status line %q", status)
	}
	code, err := strconv.Atoi(parts[1])
	if err != nil {
		return fmt.Errorf("bad status line %q", status)
	}
	hdr, err := tp.ReadMIMEHeader()
	if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
		return ctxErr(ctx, err)
	}
	if hdr.Get(IdentityHeader) != IdentityValue {
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
