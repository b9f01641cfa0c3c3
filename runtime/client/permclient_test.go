package client

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// askServer serves h on a socket in a private temp folder and returns its
// path.
func askServer(t *testing.T, h http.HandlerFunc) string {
	t.Helper()
	sock := filepath.Join(t.TempDir(), "clawd.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return sock
}

func TestAskPermission(t *testing.T) {
	identify := func(w http.ResponseWriter) { w.Header().Set(IdentityHeader, IdentityValue) }
	cases := []struct {
		name  string
		h     http.HandlerFunc
		check func(a Answer, err error) bool
	}{
		{"allow", func(w http.ResponseWriter, r *http.Request) {
			identify(w)
			io.WriteString(w, `{"id":"p1","decision":{"behavior":"allow"}}`)
		}, func(a Answer, err error) bool { return err == nil && a.ID == "p1" && a.Decision.Behavior == Allow }},
		{"chunked answer", func(w http.ResponseWriter, r *http.Request) {
			identify(w)
			io.WriteString(w, `{"decision":{"behavior":"deny",`)
			w.(http.Flusher).Flush()
			io.WriteString(w, `"message":"no"}}`)
		}, func(a Answer, err error) bool {
			return err == nil && a.Decision.Behavior == Deny && a.Decision.Message == "no"
		}},
		{"no decision", func(w http.ResponseWriter, r *http.Request) {
			identify(w)
			io.WriteString(w, `{"decision":null,"reason":"dnd"}`)
		}, func(a Answer, err error) bool { return err == nil && a.Decision == nil && a.Reason == ReasonDND }},
		{"not clawd", func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, `{"decision":{"behavior":"allow"}}`)
		}, func(a Answer, err error) bool { return errors.Is(err, ErrNotClawd) }},
		{"500", func(w http.ResponseWriter, r *http.Request) {
			identify(w)
			w.WriteHeader(500)
			io.WriteString(w, `{"error":"boom"}`)
		}, func(a Answer, err error) bool {
			var e *APIError
			return errors.As(err, &e) && e.Status == 500 && e.Message == "boom"
		}},
		{"answer too large", func(w http.ResponseWriter, r *http.Request) {
			identify(w)
			io.WriteString(w, `{"reason":"`+strings.Repeat("x", MaxAnswerBody)+`"}`)
		}, func(a Answer, err error) bool { return errors.Is(err, ErrBadAnswer) }},
		{"not JSON", func(w http.ResponseWriter, r *http.Request) {
			identify(w)
			io.WriteString(w, `allow`)
		}, func(a Answer, err error) bool { return errors.Is(err, ErrBadAnswer) }},
	}
	for _, c := range cases {
		sock := askServer(t, c.h)
		a, err := AskPermission(context.Background(), sock, []byte(`{}`))
		if !c.check(a, err) {
			t.Errorf("%s: AskPermission = %+v, %v", c.name, a, err)
		}
	}
}

func TestAskPermissionWaitEnds(t *testing.T) {
	gone := make(chan struct{})
	sock := askServer(t, func(w http.ResponseWriter, r *http.Request) {
		io.ReadAll(r.Body)
		<-r.Context().Done() // the hook hanging up withdraws the request
		close(gone)
	})
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if _, err := AskPermission(ctx, sock, []byte(`{}`)); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("AskPermission past the wait = %v, want context.DeadlineExceeded", err)
	}
	select {
	case <-gone:
	case <-time.After(5 * time.Second):
		t.Error("the connection stayed open after the wait")
	}
}
