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
		}, func(a Answer, err error) bool { return err == nil && a.ID == "p1" && a.Decision.Allow }},
		{"chunked answer", func(w http.ResponseWriter, r *http.Request) {
			identify(w)
			io.WriteString(w, `{"decision":{"behavior":"deny",`)
			w.(http.Flusher).Flush()
			io.WriteString(w, `"message":"no"}}`)
		}, func(a Answer, err error) bool {
			return err == nil && !a.Decision.Allow && a.Decision.Message == "no"
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
		{"an answer of the largest line the runtime sends", func(w http.ResponseWriter, r *http.Request) {
			identify(w)
			// A question's answer carries the tool's whole input back
			// (agents.MaxRequestInput) and the answers; the heartbeats
			// of an hour's wait come before it.
			io.WriteString(w, strings.Repeat("\n", 3600))
			pad := strings.Repeat("x", MaxAnswerLine-len(`{"decision":{"behavior":"allow","updated_input":{"x":""}}}`))
			io.WriteString(w, `{"decision":{"behavior":"allow","updated_input":{"x":"`+pad+`"}}}`)
		}, func(a Answer, err error) bool {
			return err == nil && a.Decision != nil && a.Decision.Allow && len(a.Decision.UpdatedInput) > MaxAnswerLine-64
		}},
		{"answer too large", func(w http.ResponseWriter, r *http.Request) {
			identify(w)
			io.WriteString(w, `{"reason":"`+strings.Repeat("x", MaxAnswerBody)+`"}`)
		}, func(a Answer, err error) bool { return errors.Is(err, ErrBadAnswer) }},
		{"unknown verdict", func(w http.ResponseWriter, r *http.Request) {
			identify(w)
			io.WriteString(w, `{"decision":{"behavior":"ask"}}`)
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

// shortHeartbeat shortens the ack and heartbeat limits for a test.
func shortHeartbeat(t *testing.T, ack, loss time.Duration) {
	t.Helper()
	oldAck, oldLoss := AckTimeout, HeartbeatLoss
	AckTimeout, HeartbeatLoss = ack, loss
	t.Cleanup(func() { AckTimeout, HeartbeatLoss = oldAck, oldLoss })
}

// TestAskPermissionNoAck: a runtime that takes the request and does not
// acknowledge it (stopped, wedged) is given up on after AckTimeout, long
// before the wait.
func TestAskPermissionNoAck(t *testing.T) {
	shortHeartbeat(t, 200*time.Millisecond, 300*time.Millisecond)
	sock := askServer(t, func(w http.ResponseWriter, r *http.Request) {
		io.ReadAll(r.Body)
		<-r.Context().Done()
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	start := time.Now()
	if _, err := AskPermission(ctx, sock, []byte(`{}`)); !errors.Is(err, ErrNoAck) {
		t.Errorf("AskPermission without an acknowledgement = %v, want ErrNoAck", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("gave up after %v, want about AckTimeout", d)
	}
}

// TestAskPermissionHeartbeatLost: a runtime that acknowledged and then
// fell silent is given up on after HeartbeatLoss.
func TestAskPermissionHeartbeatLost(t *testing.T) {
	shortHeartbeat(t, 200*time.Millisecond, 300*time.Millisecond)
	sock := askServer(t, func(w http.ResponseWriter, r *http.Request) {
		io.ReadAll(r.Body)
		w.Header().Set(IdentityHeader, IdentityValue)
		w.WriteHeader(http.StatusOK)
		io.WriteString(w, "\n")
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	start := time.Now()
	if _, err := AskPermission(ctx, sock, []byte(`{}`)); !errors.Is(err, ErrHeartbeatLost) {
		t.Errorf("AskPermission after the heartbeat stopped = %v, want ErrHeartbeatLost", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("gave up after %v, want about HeartbeatLoss", d)
	}
}

// TestAskPermissionHeartbeats: a runtime that keeps its heartbeat is waited
// for well past HeartbeatLoss, and its answer read after the heartbeats.
func TestAskPermissionHeartbeats(t *testing.T) {
	shortHeartbeat(t, 200*time.Millisecond, 300*time.Millisecond)
	sock := askServer(t, func(w http.ResponseWriter, r *http.Request) {
		io.ReadAll(r.Body)
		w.Header().Set(IdentityHeader, IdentityValue)
		w.WriteHeader(http.StatusOK)
		for range 20 {
			io.WriteString(w, "\n")
			w.(http.Flusher).Flush()
			time.Sleep(50 * time.Millisecond)
		}
		io.WriteString(w, `{"id":"p1","decision":{"behavior":"allow"}}`+"\n")
	})
	a, err := AskPermission(context.Background(), sock, []byte(`{}`))
	if err != nil || a.ID != "p1" || a.Decision == nil || !a.Decision.Allow {
		t.Errorf("AskPermission with heartbeats = %+v, %v; want p1 allowed", a, err)
	}
}
