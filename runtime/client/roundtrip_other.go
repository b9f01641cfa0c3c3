//go:build !unix

package client

import (
	"net"
	"strconv"
	"time"
)

// roundTrip sends req to 127.0.0.1:port and returns the response head,
// all before deadline.
func roundTrip(port int, req []byte, deadline time.Time) ([]byte, error) {
	conn, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(port), time.Until(deadline))
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
