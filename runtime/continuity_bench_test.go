package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/clawdhq/clawd/internal/spool"
	"github.com/clawdhq/clawd/runtime/client"
	"github.com/clawdhq/clawd/runtime/history"
)

// startupFiles are the journal of sessions and the spool a runtime finds
// at start, made once per benchmark and copied into each run's home.
type startupFiles struct {
	journal []byte
	spool   [][2][]byte // name, content
	events  int
}

// makeStartupFiles makes a journal of sessions sessions (half of them
// with this process as their agent, which is alive and the same process,
// half without a pid) and, when full, a spool filled to its cap with
// turns of 50 sessions.
func makeStartupFiles(b *testing.B, sessions int, full bool) startupFiles {
	b.Helper()
	var f startupFiles
	now := time.Now()
	if sessions > 0 {
		mine, err := processStart(os.Getpid())
		if err != nil {
			b.Fatal(err)
		}
		jf := journalFile{Version: journalVersion, Written: now}
		for i := range sessions {
			r := savedSession{Agent: "claude", ID: fmt.Sprintf("journal-%04d", i), State: "working",
				PromptTitle: "fix the flaky test", AgentTitle: "Flaky test hunt", Cwd: "/home/user/project/" + fmt.Sprint(i),
				Tool: "Bash", LastKind: "tool.start", Turns: 3, HistoryTurns: 1,
				StartedAt: now.Add(-time.Hour), UpdatedAt: now.Add(-time.Duration(i) * time.Second),
				TurnIDs: []savedTurnID{{ID: "9a0a0000-0000-4000-8000-000000000001"}, {ID: "9a0a0000-0000-4000-8000-000000000002", Open: true}}}
			if i%2 == 0 {
				r.AgentPID, r.AgentStart = os.Getpid(), mine
			}
			jf.Sessions = append(jf.Sessions, r)
		}
		if f.journal, err = json.Marshal(jf); err != nil {
			b.Fatal(err)
		}
	}
	if full {
		home := b.TempDir()
	fill:
		for i := 0; ; i++ {
			for _, e := range turn(fmt.Sprintf("spool-%02d", i%50), now.Add(-time.Minute+time.Duration(i)*time.Millisecond)) {
				line, err := spool.Line(e)
				if err != nil {
					b.Fatal(err)
				}
				// Full: both files, the current one as far as it goes
				// before the next line would drop the oldest.
				_, oldErr := os.Stat(filepath.Join(home, spool.OldFile))
				if cur, err := os.Stat(filepath.Join(home, spool.File)); oldErr == nil && err == nil &&
					cur.Size()+int64(len(line)) > spool.MaxBytes/2 {
					break fill
				}
				if _, err := spool.AppendLine(home, line, spool.MaxBytes); err != nil {
					b.Fatal(err)
				}
				f.events++
			}
		}
		for _, name := range []string{spool.OldFile, spool.File} {
			data, err := os.ReadFile(filepath.Join(home, name))
			if err != nil {
				b.Fatal(err)
			}
			f.spool = append(f.spool, [2][]byte{[]byte(name), data})
		}
	}
	return f
}

// BenchmarkStartup is `clawd serve`'s start, from Run to ready (the
// socket and the port take requests, runtime.json is written), with its
// history, for a home holding a journal of sessions and a spool or not.
func BenchmarkStartup(b *testing.B) {
	for _, bc := range []struct {
		name     string
		sessions int
		full     bool
	}{
		{"empty", 0, false},
		{"journal500", 500, false},
		{"spoolFull", 0, true},
		{"journal500+spoolFull", 500, true},
	} {
		b.Run(bc.name, func(b *testing.B) {
			files := makeStartupFiles(b, bc.sessions, bc.full)
			var spooled int64
			for _, s := range files.spool {
				spooled += int64(len(s[1]))
			}
			var total time.Duration
			for range b.N {
				home := b.TempDir()
				if files.journal != nil {
					os.WriteFile(filepath.Join(home, SessionsFile), files.journal, 0o600)
				}
				for _, s := range files.spool {
					os.WriteFile(filepath.Join(home, string(s[0])), s[1], 0o600)
				}
				s := New(Config{Home: home, Version: "bench", OpenHistory: func(ctx context.Context) (*history.Store, error) {
					return history.Open(ctx, history.Options{Home: home})
				}})
				ctx, cancel := context.WithCancel(context.Background())
				ready := make(chan struct{})
				done := make(chan error, 1)
				start := time.Now()
				go func() { done <- s.Run(ctx, 0, func(client.Info) { close(ready) }) }()
				select {
				case <-ready:
				case err := <-done:
					b.Fatalf("Run: %v", err)
				}
				total += time.Since(start)
				if got, want := len(s.Snapshot().Sessions), min(bc.sessions+map[bool]int{true: 50}[bc.full], 256); got != want {
					b.Fatalf("%d sessions after the start, want %d", got, want)
				}
				cancel()
				if err := <-done; err != nil {
					b.Fatalf("Run: %v", err)
				}
			}
			b.ReportMetric(float64(total.Microseconds())/1e3/float64(b.N), "ms/start")
			b.ReportMetric(float64(files.events), "spooled-events")
			b.ReportMetric(float64(spooled)/(1<<10), "spool-KiB")
		})
	}
}
