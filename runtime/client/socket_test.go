//go:build unix

package client

import (
	"context"
	"errors"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestSocketPath(t *testing.T) {
	short := t.TempDir()
	if got, want := SocketPath(short), filepath.Join(short, SocketName); got != want {
		t.Errorf("SocketPath(%s) = %s, want %s", short, got, want)
	}
	long := filepath.Join(short, strings.Repeat("d", 120))
	got := SocketPath(long)
	if len(got) > maxSocketPath || filepath.Dir(got) != socketDir() || !strings.HasSuffix(got, ".sock") {
		t.Errorf("SocketPath(a %d-byte home) = %s, want a short path in %s", len(long), got, socketDir())
	}
	if SocketPath(long) != got || SocketPath(long+"x") == got {
		t.Error("SocketPath of a long home is not one stable path per home")
	}
	rel, _ := filepath.Rel(mustGetwd(t), short)
	if SocketPath(rel) != SocketPath(short) {
		t.Errorf("SocketPath(%s) = %s, want the absolute home's %s", rel, SocketPath(rel), SocketPath(short))
	}
}

func mustGetwd(t *testing.T) string {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return wd
}

// TestDialRefusesForeignFolders: nothing is sent to a socket whose folder
// someone else owns or may write to, whoever listens there.
func TestDialRefusesForeignFolders(t *testing.T) {
	got := make(chan string, 8)
	serve := func(dir string) string {
		sock := filepath.Join(dir, SocketName)
		ln, err := net.Listen("unix", sock)
		if err != nil {
			t.Fatal(err)
		}
		srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			got <- r.URL.Path
			w.Header().Set(IdentityHeader, IdentityValue)
		})}
		go srv.Serve(ln)
		t.Cleanup(func() { srv.Close() })
		return sock
	}
	open := t.TempDir()
	os.Chmod(open, 0o777)
	foreign := t.TempDir()
	sockForeign := serve(foreign)
	sockOpen := serve(open)
	if err := os.Chown(foreign, 65534, 65534); err != nil {
		t.Skipf("chown: %v (runs as root in CI)", err)
	}
	for name, sock := range map[string]string{"world-writable folder": sockOpen, "someone else's folder": sockForeign} {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		if _, err := AskPermission(ctx, sock, []byte(`{"secret":1}`)); !errors.Is(err, ErrNotOurs) {
			t.Errorf("AskPermission in a %s = %v, want ErrNotOurs", name, err)
		}
		cancel()
		if err := PostEventBlocking(sock, []byte(`{"secret":1}`), time.Now().Add(time.Second)); !errors.Is(err, ErrNotOurs) {
			t.Errorf("PostEventBlocking in a %s = %v, want ErrNotOurs", name, err)
		}
		if err := NewSocket(sock, Options{}).Ping(context.Background()); !errors.Is(err, ErrNotOurs) {
			t.Errorf("Ping in a %s = %v, want ErrNotOurs", name, err)
		}
	}
	select {
	case p := <-got:
		t.Errorf("a request reached the server: %s", p)
	default:
	}
}

func TestDialNothingListening(t *testing.T) {
	home := t.TempDir()
	sock := SocketPath(home)
	if err := PostEventBlocking(sock, []byte(`{}`), time.Now().Add(time.Second)); !errors.Is(err, ErrNotRunning) {
		t.Errorf("PostEventBlocking with no socket = %v, want ErrNotRunning", err)
	}
	os.WriteFile(sock, nil, 0o600) // a leftover that nobody listens on
	if err := PostEventBlocking(sock, []byte(`{}`), time.Now().Add(time.Second)); !errors.Is(err, ErrNotRunning) {
		t.Errorf("PostEventBlocking with a dead socket file = %v, want ErrNotRunning", err)
	}
	if _, err := AskPermission(context.Background(), sock, []byte(`{}`)); !errors.Is(err, ErrNotRunning) {
		t.Errorf("AskPermission with a dead socket file = %v, want ErrNotRunning", err)
	}
	if _, err := Discover(context.Background(), filepath.Join(home, "missing"), Options{}); !errors.Is(err, ErrNotRunning) {
		t.Errorf("Discover without a home = %v, want ErrNotRunning", err)
	}
}
