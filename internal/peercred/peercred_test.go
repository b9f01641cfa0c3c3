//go:build linux || darwin

package peercred

import (
	"net"
	"os"
	"path/filepath"
	"testing"
)

func TestConn(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.sock")
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := ln.Accept()
		if err == nil {
			accepted <- c
		}
	}()
	c, err := net.Dial("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s := <-accepted
	defer s.Close()
	for name, conn := range map[string]net.Conn{"client side": c, "server side": s} {
		if uid, err := Conn(conn); err != nil || uid != os.Geteuid() {
			t.Errorf("Conn(%s) = %d, %v; want %d", name, uid, err, os.Geteuid())
		}
	}
}
