// Package fakeapi is what the fake model APIs (fakeanthropic, fakegemini,
// fakeopenai) share: an HTTP server on a free port of 127.0.0.1, the log
// of the requests it answered, and a counter for the ids of its replies.
// Each fake embeds a *Base of its own request type and serves its API's
// routes with the handler it gives New.
package fakeapi

import (
	"net/http"
	"net/http/httptest"
	"sync"
)

// Base is a fake API's server and request log; R is the fake's record of
// one request.
type Base[R any] struct {
	srv *httptest.Server

	mu       sync.Mutex
	requests []R
	seq      int
}

// New returns a server answering with h; call Start before use.
func New[R any](h http.Handler) *Base[R] {
	return &Base[R]{srv: httptest.NewUnstartedServer(h)}
}

// Start starts listening on a free port of 127.0.0.1.
func (b *Base[R]) Start() { b.srv.Start() }

// URL returns the base URL, e.g. http://127.0.0.1:41234 (no trailing
// slash).
func (b *Base[R]) URL() string { return b.srv.URL }

// Close stops the server: it cuts the agents' open connections (a
// streamed reply the agent still reads) and waits for running requests.
func (b *Base[R]) Close() {
	b.srv.CloseClientConnections()
	b.srv.Close()
}

// Requests returns a copy of every request recorded so far, in arrival
// order.
func (b *Base[R]) Requests() []R {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]R(nil), b.requests...)
}

// Where returns the recorded requests keep holds of, in arrival order.
func (b *Base[R]) Where(keep func(R) bool) []R {
	var out []R
	for _, r := range b.Requests() {
		if keep(r) {
			out = append(out, r)
		}
	}
	return out
}

// Record adds r to the log.
func (b *Base[R]) Record(r R) {
	b.mu.Lock()
	b.requests = append(b.requests, r)
	b.mu.Unlock()
}

// Next returns 1, 2, 3… on successive calls: the numbers in a fake's
// reply ids.
func (b *Base[R]) Next() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.seq++
	return b.seq
}
