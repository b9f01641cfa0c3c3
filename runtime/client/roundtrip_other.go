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
	conn, hangUp, err := dialFor(ctx, socketEndpoint(sock).dial)
	if err != nil {
		return nil, err
	}
	defer hangUp()
	if _, err := conn.Write(req); err != nil {
		return nil, err
	}
	return readHead(conn.Read)
}
