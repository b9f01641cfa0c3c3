package runtime

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/runtime/client"
	"github.com/clawdhq/clawd/runtime/sessions"
)

// smallDisk mounts a tmpfs of size bytes for the test's life and returns
// its path: a real file system that fills up.
func smallDisk(t *testing.T, size int) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("mounting a small tmpfs needs root (CI runs as root)")
	}
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", fmt.Sprintf("size=%d,mode=0700", size), "tmpfs", dir).CombinedOutput(); err != nil {
		t.Fatalf("mount a tmpfs: %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", "-l", dir).Run() })
	return dir
}

// fill writes a file at path until the disk is full.
func fill(t *testing.T, path string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	chunk := make([]byte, 4096)
	for {
		if _, err := f.Write(chunk); err != nil {
			return
		}
	}
}

// TestHistoryWaitsForDiskSpace: sessions that end while the clawd home's
// disk is full are not lost: the snapshot says the history cannot be
// written and how many wait, and once there is room again (the next try)
// every one of them is in the history and the problem is gone.
func TestHistoryWaitsForDiskSpace(t *testing.T) {
	ctx := context.Background()
	disk := smallDisk(t, 8<<20)
	home := filepath.Join(disk, "home")
	retry := make(chan time.Time)
	s, c, _ := runWithHistory(t, home, func(cfg *Config) {
		cfg.After = func(d time.Duration) <-chan time.Time {
			if d == sessions.RetryEvery {
				return retry
			}
			return time.After(d)
		}
	})
	filler := filepath.Join(disk, "filler")
	fill(t, filler)
	const n = 20
	for i := range n {
		id := fmt.Sprintf("full-%02d-%s", i, strings.Repeat("x", 200))
		for _, k := range []agents.Kind{agents.KindSessionStart, agents.KindPromptSubmit, agents.KindSessionEnd} {
			s.Ingest(agents.Event{Agent: "claude", Kind: k, SessionID: id, Time: time.Now(), Cwd: "/home/u/shop",
				Title: strings.Repeat("a long title ", 3), TitleSource: agents.TitleFromPrompt})
		}
	}
	var problem client.Problem
	eventually(t, "the history's problem naming the sessions waiting", func() bool {
		for _, p := range s.Snapshot().Problems {
			if p.ID == ProblemHistory && strings.Contains(p.Text, fmt.Sprintf("%d ended sessions wait", n)) {
				problem = p
				return true
			}
		}
		return false
	})
	t.Logf("while the disk is full: %s", problem.Text)
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	eventually(t, "every session in the history once there is room", func() bool {
		select {
		case retry <- time.Now(): // the journal's next try, whenever it waits for one
		default:
		}
		h, err := c.History(ctx, client.HistoryQuery{})
		return err == nil && len(h.Sessions) == n
	})
	eventually(t, "the problem gone", func() bool { return len(s.Snapshot().Problems) == 0 })
}
