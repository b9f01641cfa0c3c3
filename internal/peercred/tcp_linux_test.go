package peercred

import (
	"errors"
	"net"
	"os"
	"strconv"
	"testing"

	"golang.org/x/sys/unix"
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

// TestDiagOwner: the kernel's socket diagnostics find a loopback
// connection's client by its addresses, in its own family, IPv4-mapped
// too, and nothing for addresses no socket has.
func TestDiagOwner(t *testing.T) {
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 2)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted <- c
		}
	}()
	for _, network := range []string{"tcp4", "tcp6"} {
		d := net.Dialer{}
		addr := ln.Addr().String()
		if network == "tcp6" {
			addr = "[::ffff:127.0.0.1]:" + strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
		}
		c, err := d.Dial(network, addr)
		if err != nil {
			t.Logf("%s: %v", network, err) // a kernel without dual-stack sockets
			continue
		}
		defer c.Close()
		s := <-accepted
		defer s.Close()
		if uid, err := TCP(s); err != nil || uid != os.Geteuid() {
			t.Errorf("TCP(%s client) = %d, %v; want %d", network, uid, err, os.Geteuid())
		}
	}
	local := ln.Addr().(*net.TCPAddr)
	if uid, err := diagOwner(unix.AF_INET, &net.TCPAddr{IP: local.IP, Port: 1}, local); !errors.Is(err, ErrNoSocket) {
		t.Errorf("diagOwner(no such socket) = %d, %v; want ErrNoSocket", uid, err)
	}
	// The lookup itself, not the /proc fallback, answers here.
	c, err := net.Dial("tcp4", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s := <-accepted
	defer s.Close()
	if uid, err := diagOwner(unix.AF_INET, s.RemoteAddr().(*net.TCPAddr), s.LocalAddr().(*net.TCPAddr)); err != nil || uid != os.Geteuid() {
		t.Errorf("diagOwner = %d, %v; want %d", uid, err, os.Geteuid())
	}
}

// BenchmarkTCP: one owner lookup with 2,000 other connections open (the
// flood a lookup must not slow down with).
func BenchmarkTCP(b *testing.B) {
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer ln.Close()
	var conns []net.Conn
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns = append(conns, c)
		}
	}()
	var clients []net.Conn
	for range 2000 {
		c, err := net.Dial("tcp4", ln.Addr().String())
		if err != nil {
			b.Fatal(err)
		}
		clients = append(clients, c)
	}
	defer func() {
		for _, c := range clients {
			c.Close()
		}
	}()
	c := clients[len(clients)-1]
	remote, local := c.LocalAddr().(*net.TCPAddr), c.RemoteAddr().(*net.TCPAddr)
	b.Run("diag", func(b *testing.B) {
		for b.Loop() {
			if _, err := diagOwner(unix.AF_INET, remote, local); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("proc", func(b *testing.B) {
		for b.Loop() {
			if _, err := scanTCP("/proc/net/tcp", remote, local, false); err != nil {
				b.Fatal(err)
			}
		}
	})
}
