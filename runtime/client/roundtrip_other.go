//go:build !unix

package client

import (
	"context"
	"time"
)

// roundTrip sends req to the runtime's socket at sock and returns the
// response head, all before deadline.
func roundTrip(sock string, req []byte, deadline time.Time) ([]byte, error) {
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	conn, err := dialSocket(ctx, sock)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	conn.SetDeadline(deadline)
	if _, err := conn.Write(req); err != nil {
		return nil, err
	}
	return readHead(conn.Read)
}
