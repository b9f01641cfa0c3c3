package automations

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/clawdhq/clawd/agents"
)

// benchEngine runs a real engine (real clock, its own loops) on a temp
// home with doc, every definition trusted.
func benchEngine(b *testing.B, doc string) *Engine {
	b.Helper()
	home := b.TempDir()
	if err := os.WriteFile(filepath.Join(home, File), []byte(doc), 0o600); err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	e, err := Open(ctx, Options{Home: home, RepoRoot: func(string) string { return "" }})
	if err != nil {
		b.Fatal(err)
	}
	for _, d := range e.defs.Load().list {
		if err := e.Trust(ctx, d.ID, d.Hash()); err != nil {
			b.Fatal(err)
		}
	}
	done := make(chan struct{})
	go func() { e.Run(ctx); close(done) }()
	b.Cleanup(func() { cancel(); <-done; e.Close() })
	return e
}

// BenchmarkEventToAction is the latency from a lifecycle event to its
// webhook reaching a local receiver, one event at a time (the targets:
// p50 ≤ 20 ms, p99 ≤ 100 ms).
func BenchmarkEventToAction(b *testing.B) {
	got := make(chan time.Time, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got <- time.Now()
	}))
	defer srv.Close()
	e := benchEngine(b, webhookDef("w", srv.URL, `policy = { concurrency = "parallel" }`+"\n"))
	ctx := context.Background()
	var lat []time.Duration
	i := 0
	for b.Loop() {
		i++
		start := time.Now()
		if err := e.Observe(ctx, completed("s", fmt.Sprint("t", i), start)); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, (<-got).Sub(start))
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
}

// BenchmarkRuns100Definitions is sustained throughput: 100 definitions
// listen to every turn.completed; it reports runs completed per second.
func BenchmarkRuns100Definitions(b *testing.B) {
	var calls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { calls.Add(1) }))
	defer srv.Close()
	var doc strings.Builder
	for i := range 100 {
		doc.WriteString(webhookDef(fmt.Sprint("w", i), srv.URL, `policy = { concurrency = "parallel" }`+"\n"))
	}
	e := benchEngine(b, doc.String())
	ctx := context.Background()
	start := time.Now()
	n := 0
	for b.Loop() {
		n++
		if err := e.Observe(ctx, completed(fmt.Sprint("s", n), "t", time.Now())); err != nil {
			b.Fatal(err)
		}
	}
	for calls.Load() < int64(n*100) {
		time.Sleep(time.Millisecond)
	}
	b.ReportMetric(float64(n*100)/time.Since(start).Seconds(), "runs/s")
}

// BenchmarkRecord256Definitions is the hook's cost of automations: 256
// definitions (the most a file may hold) listen to turn.completed, Run
// dispatches and runs them in the background, and each op records one
// turn's end as the runtime does on a hook's request path. "queued" is
// Record (the queue); "observe" writes the event to the store at once,
// as Record did before, waiting behind the dispatcher. It reports the
// p50 and p99 of one call and the events a full queue dropped.
func BenchmarkRecord256Definitions(b *testing.B) {
	var doc strings.Builder
	for i := range MaxDefinitions {
		doc.WriteString(fmt.Sprintf("[[automation]]\nid = \"d%d\"\nevent = \"turn.completed\"\naction = { type = \"sound\" }\n", i))
	}
	for _, path := range []string{"queued", "observe"} {
		b.Run(path, func(b *testing.B) {
			e := benchEngine(b, doc.String())
			ctx := context.Background()
			var lat []time.Duration
			n := 0
			for b.Loop() {
				n++
				sid := fmt.Sprint("s", n)
				start := time.Now()
				if path == "queued" {
					e.Record(ctx, Fact{Event: agents.Event{Agent: "claude", Kind: agents.KindTurnEnd, SessionID: sid, TurnID: "t", Time: start}})
				} else if err := e.Observe(ctx, completed(sid, "t", start)); err != nil {
					b.Fatal(err)
				}
				lat = append(lat, time.Since(start))
			}
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds())/1000, "p50-µs")
			b.ReportMetric(float64(lat[len(lat)*99/100].Nanoseconds())/1000, "p99-µs")
			b.ReportMetric(float64(e.Backlog().Dropped), "dropped")
		})
	}
}
