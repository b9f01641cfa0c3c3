//go:build unix

package bench

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clawdhq/clawd/agents"
)

// BenchmarkDoctor runs a whole `clawd doctor` as a process with every
// agent clawd knows installed and a runtime up, so that every check runs,
// the connection tests included (one hook process per agent), and reports
// its wall time (the target: 1 s at most). Each connection test must
// arrive.
func BenchmarkDoctor(b *testing.B) {
	bin := clawdBinary(b)
	home := b.TempDir()
	clawdHome := filepath.Join(home, ".clawd")
	env := append(os.Environ(), "HOME="+home, "CLAWD_HOME="+clawdHome, "CLAUDE_CONFIG_DIR=", "CODEX_HOME=",
		"GEMINI_CLI_HOME=", "OPENCODE_CONFIG_DIR=", "XDG_CONFIG_HOME=")
	for _, a := range agents.All() {
		dir, err := a.ConfigDir(func(k string) string {
			if k == "HOME" {
				return home
			}
			return ""
		})
		if err != nil {
			b.Fatal(err)
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
	}
	install := exec.Command(bin, "install", "--all")
	install.Env = env
	if out, err := install.CombinedOutput(); err != nil {
		b.Fatalf("clawd install --all: %v\n%s", err, out)
	}
	ctx, cancel := context.WithCancel(context.Background())
	_, runErr := runRuntime(ctx, cancel, b, clawdHome)
	defer func() {
		cancel()
		<-runErr
	}()

	var total time.Duration
	var last []byte
	for b.Loop() {
		cmd := exec.Command(bin, "doctor", "--json")
		cmd.Env = env
		start := time.Now()
		out, err := cmd.Output()
		total += time.Since(start)
		if err != nil {
			b.Fatalf("clawd doctor: %v\n%s", err, out)
		}
		last = out
	}
	var rep struct {
		Checks []struct{ ID, Status, Finding string }
	}
	if err := json.Unmarshal(last, &rep); err != nil {
		b.Fatalf("clawd doctor --json: %v\n%s", err, last)
	}
	arrived := 0
	for _, c := range rep.Checks {
		if strings.HasSuffix(c.ID, ".connection") {
			if c.Status != "ok" {
				b.Errorf("%s: %s %s", c.ID, c.Status, c.Finding)
			}
			arrived++
		}
	}
	if arrived != len(agents.All()) {
		b.Errorf("%d connection tests, want one per agent (%d):\n%s", arrived, len(agents.All()), last)
	}
	b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "doctor-ms/op")
}
