//go:build !windows

package runtime

import (
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/clawdhq/clawd/agents"
)

// TestTitleFileFIFO: a FIFO in a transcript's place is refused at once;
// the reader goes on to the next session's file instead of blocking.
func TestTitleFileFIFO(t *testing.T) {
	s, _, _ := startServer(t)
	dir := t.TempDir()
	fifo := filepath.Join(dir, "s1.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(dir, "s2.jsonl")
	appendLines(t, other, customTitle("Read after the FIFO", "s2"))
	s.Ingest(agents.Event{Agent: "claude", Kind: agents.KindSessionStart, SessionID: "s1", Time: time.Now(), Transcript: fifo})
	s.Ingest(agents.Event{Agent: "claude", Kind: agents.KindSessionStart, SessionID: "s2", Time: time.Now(), Transcript: other})
	titleOf(t, s, "s2", "Read after the FIFO")
}
