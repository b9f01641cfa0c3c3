package peercred

import (
	"errors"
	"net"
	"os"
	"testing"
)

// TestTCP: the owner of a loopback connection's client and of a listener
// are this process's user; a port nothing listens on has none.
func TestTCP(t *testing.T) {
	for _, network := range []string{"tcp4", "tcp6"} {
		t.Run(network, func(t *testing.T) {
			host := "127.0.0.1"
			if network == "tcp6" {
				host = "::1"
			}
			ln, err := net.Listen(network, net.JoinHostPort(host, "0"))
			if err != nil {
				t.Skipf("no %s loopback here: %v", network, err) // IPv6 may be off in a container
			}
			defer ln.Close()
			accepted := make(chan net.Conn, 1)
			go func() {
				c, err := ln.Accept()
				if err == nil {
					accepted <- c
				}
			}()
			c, err := net.Dial(network, ln.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			s := <-accepted
			defer s.Close()
			if uid, err := TCP(s); err != nil || uid != os.Geteuid() {
				t.Errorf("TCP(accepted) = %d, %v; want %d", uid, err, os.Geteuid())
			}
			if uid, err := TCPListener(ln.Addr().(*net.TCPAddr)); err != nil || uid != os.Geteuid() {
				t.Errorf("TCPListener(%v) = %d, %v; want %d", ln.Addr(), uid, err, os.Geteuid())
			}
		})
	}
	// A port nobody listens on: take one and let it go.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().(*net.TCPAddr)
	ln.Close()
	if uid, err := TCPListener(addr); !errors.Is(err, ErrNoSocket) {
		t.Errorf("TCPListener(%v) after close = %d, %v; want ErrNoSocket", addr, uid, err)
	}
}

// TestSameAddr reads the kernel's spelling of addresses.
func TestSameAddr(t *testing.T) {
	v4 := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 23333}
	for _, c := range []struct {
		field string
		a     *net.TCPAddr
		want  bool
	}{
		{"0100007F:5B25", v4, true},
		{"0100007F:5B26", v4, false},
		{"0200007F:5B25", v4, false},
		{"0000000000000000FFFF00000100007F:5B25", v4, true}, // IPv4-mapped
		{"00000000000000000000000001000000:5B25", &net.TCPAddr{IP: net.IPv6loopback, Port: 23333}, true},
		{"garbage", v4, false},
	} {
		if got := sameAddr(c.field, c.a); got != c.want {
			t.Errorf("sameAddr(%q, %v) = %v, want %v", c.field, c.a, got, c.want)
		}
	}
}
