package codex

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/clawdhq/clawd/agents"
)

// BenchmarkPoll reads a 50 MB rollout (the TUI session's turns over and
// over) from a fresh monitor until it has caught up: the cost of
// following a long session clawd finds running at start.
func BenchmarkPoll(b *testing.B) {
	data := readFixture(b, tuiFixture.file)
	i := bytes.IndexByte(data, '\n') + 1
	big := append([]byte{}, data[:i]...)
	for len(big) < 50<<20 {
		big = append(big, data[i:]...)
	}
	home := b.TempDir()
	now := at(b, "2026-11-30T03:22:00Z")
	path := filepath.Join(dayDir(filepath.Join(home, "sessions"), now), filepath.Base(tuiFixture.path))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(path, big, 0o644); err != nil {
		b.Fatal(err)
	}
	if err := os.Chtimes(path, now, now); err != nil {
		b.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		startAt time.Time
	}{
		// Every record live: the worst case, each becomes an event.
		{"live", now.Add(-time.Hour)},
		// Every record history: only the state at the end goes out.
		{"history", now},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(int64(len(big)))
			var n int
			for b.Loop() {
				m := New(Options{Home: home, Now: func() time.Time { return now }, StartAt: tc.startAt,
					Emit: func(agents.Event) { n++ }})
				for {
					behind, err := m.poll()
					if err != nil {
						b.Fatal(err)
					}
					if !behind {
						break
					}
				}
			}
			if n == 0 {
				b.Fatal("no events")
			}
		})
	}
}
