//go:build unix

package client

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestRemoteSaysNothingToAStranger: whatever listens on the remote port
// without the profile's token (someone else's server while the tunnel is
// down) gets the hello, a random nonce, and nothing else: not the token,
// not the event.
func TestRemoteSaysNothingToAStranger(t *testing.T) {
	for _, answer := range []string{
		"HTTP/1.1 204 No Content\r\nX-Clawd-Server: clawd\r\nX-Clawd-Proof: 00\r\n\r\n",
		"HTTP/1.1 204 No Content\r\nX-Clawd-Server: clawd\r\n\r\n",
		"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n",
		"garbage\r\n\r\n",
	} {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		got := make(chan string, 1)
		go func() {
			c, err := ln.Accept()
			if err != nil {
				got <- ""
				return
			}
			defer c.Close()
			c.SetDeadline(time.Now().Add(5 * time.Second))
			r := bufio.NewReader(c)
			var head strings.Builder
			for {
				line, err := r.ReadString('\n')
				head.WriteString(line)
				if err != nil || line == "\r\n" {
					break
				}
			}
			io.WriteString(c, answer)
			rest, _ := io.ReadAll(r)
			got <- head.String() + string(rest)
		}()
		r := Remote{Profile: "box", Port: ln.Addr().(*net.TCPAddr).Port, Token: "the-secret-token", Generation: 1}
		err = r.PostEvent(context.Background(), []byte(`{"session_id":"private-session"}`))
		if !errors.Is(err, ErrBadProof) {
			t.Errorf("answer %q: PostEvent = %v, want ErrBadProof", answer, err)
		}
		sent := <-got
		ln.Close()
		if !strings.HasPrefix(sent, "GET "+RemoteHelloPath) {
			t.Errorf("answer %q: the stranger got %q, want the hello", answer, sent)
		}
		for _, secret := range []string{"the-secret-token", "private-session", "Authorization"} {
			if strings.Contains(sent, secret) {
				t.Errorf("answer %q: the stranger got %q: %q", answer, secret, sent)
			}
		}
	}
}

// TestRemoteTunnelDown: nothing listens on the remote port: ErrNotRunning
// at once.
func TestRemoteTunnelDown(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	err = Remote{Port: port, Token: "t", Generation: 1}.PostEvent(context.Background(), []byte(`{}`))
	if !errors.Is(err, ErrNotRunning) {
		t.Errorf("PostEvent with nothing on the port = %v, want ErrNotRunning", err)
	}
}

// TestReadRemote: only a remote-mode runtime.json of this user's, in a
// private clawd home, leads anywhere.
func TestReadRemote(t *testing.T) {
	write := func(t *testing.T, content string, mode os.FileMode) string {
		home := filepath.Join(t.TempDir(), ".clawd")
		if err := os.Mkdir(home, 0o700); err != nil {
			t.Fatal(err)
		}
		if content != "" {
			if err := os.WriteFile(filepath.Join(home, InfoFile), []byte(content), mode); err != nil {
				t.Fatal(err)
			}
			os.Chmod(filepath.Join(home, InfoFile), mode)
		}
		return home
	}
	const good = `{"mode":"remote","profile":"box","generation":2,"port":41000,"token":"tok","version":"dev"}`
	r, err := ReadRemote(write(t, good, 0o600))
	if err != nil || r != (Remote{Profile: "box", Port: 41000, Token: "tok", Generation: 2}) {
		t.Errorf("ReadRemote(good) = %+v, %v", r, err)
	}
	for _, c := range []struct {
		name, content string
		mode          os.FileMode
		want          error
	}{
		{"no runtime.json", "", 0, ErrNoInfo},
		{"a desktop's runtime.json", `{"port":23333,"socket":"/x.sock","token":"t"}`, 0o600, ErrNoRemote},
		{"a runtime.json others may write", good, 0o622, ErrNotOurs},
		{"remote mode without a generation", `{"mode":"remote","profile":"box","port":41000,"token":"tok"}`, 0o600, nil},
		{"not JSON", `{"mode":`, 0o600, nil},
	} {
		_, err := ReadRemote(write(t, c.content, c.mode))
		if err == nil || c.want != nil && !errors.Is(err, c.want) {
			t.Errorf("ReadRemote(%s) = %v, want %v", c.name, err, c.want)
		}
	}
	// A clawd home that is someone else's leads nowhere either.
	home := write(t, good, 0o600)
	if err := os.Chmod(home, 0o777); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadRemote(home); !errors.Is(err, ErrNotOurs) {
		t.Errorf("ReadRemote(a home others may write to) = %v, want ErrNotOurs", err)
	}
}
