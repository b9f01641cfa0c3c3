//go:build unix

package bench

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/runtime/client"
)

// BenchmarkDecisionToHookStdout measures what the person waits for after
// clicking allow: from the decision's POST to the runtime until the
// blocked `clawd hook claude` has printed the whole decision line on its
// stdout, which is when Claude Code can go on. Each iteration starts a
// real hook process with the recorded PermissionRequest payload, waits
// until its request is pending, then decides. Only the decision → stdout
// span is timed; p50 and p99 go into the note. Run
//
//	go test -run '^$' -bench DecisionToHookStdout -benchtime 200x ./bench/
func BenchmarkDecisionToHookStdout(b *testing.B) {
	bin := clawdBinary(b)
	in, err := os.ReadFile(filepath.Join("..", "testdata", "claude", "hooks", "PermissionRequest.json"))
	if err != nil {
		b.Fatal(err)
	}
	want := agents.Claude.Render("PermissionRequest", &agents.Decision{Allow: true})
	home := b.TempDir()
	// An attended session, whatever this process's own environment says
	// (a benchmark run from inside Claude Code inherits its variables): a
	// headless one is answered with no decision at once.
	env := append(hookEnv(home), "CLAUDE_CODE_SESSION_ATTENDED=1")

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c, added := startDecisionRuntime(ctx, b, home)

	var lat []time.Duration
	var stderr bytes.Buffer
	for b.Loop() {
		stderr.Reset()
		cmd := exec.CommandContext(ctx, bin, "hook", "claude")
		cmd.Env = env
		cmd.Stdin = bytes.NewReader(in)
		cmd.Stderr = &stderr
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			b.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		var id string
		select {
		case id = <-added:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			cmd.Wait()
			b.Fatalf("the hook's request was not pending within 10 s; stderr: %s", stderr.Bytes())
		}

		t0 := time.Now()
		if _, err := c.Decide(ctx, id, client.DecisionBody{Behavior: client.Allow, Via: "bench"}); err != nil {
			b.Fatalf("decide %s: %v", id, err)
		}
		line, err := bufio.NewReader(stdout).ReadBytes('\n')
		lat = append(lat, time.Since(t0))
		if err != nil {
			b.Fatalf("read the hook's stdout: %v (got %q)", err, line)
		}
		if err := cmd.Wait(); err != nil {
			b.Fatalf("clawd hook claude: %v\nstderr: %s", err, stderr.Bytes())
		}
		if !bytes.Equal(line, want) {
			b.Fatalf("hook stdout = %q, want %q", line, want)
		}
		if stderr.Len() > 0 {
			b.Fatalf("clawd hook claude wrote to stderr: %s", stderr.Bytes())
		}
	}
	slices.Sort(lat)
	b.ReportMetric(ms(percentile(lat, 50)), "p50-ms")
	b.ReportMetric(ms(percentile(lat, 99)), "p99-ms")
	b.ReportMetric(ms(lat[len(lat)-1]), "max-ms")
}

// percentile is the nearest-rank p-th percentile of sorted durations.
func percentile(sorted []time.Duration, p int) time.Duration {
	i := (len(sorted)*p + 99) / 100
	return sorted[max(i, 1)-1]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1e3 }

// startDecisionRuntime runs a real runtime with home as its clawd home
// (the hook finds its socket there) and follows its permission
// stream, sending the id of every request that becomes pending on the
// returned channel. Both stop when the benchmark ends.
func startDecisionRuntime(ctx context.Context, b *testing.B, home string) (*client.Client, <-chan string) {
	b.Helper()
	ctx, cancel := context.WithCancel(ctx)
	info, runErr := runRuntime(ctx, cancel, b, home)

	c := client.NewSocket(info.Socket, client.Options{})
	added := make(chan string, 1)
	streamErr := make(chan error, 1)
	go func() {
		streamErr <- c.PermissionEvents(ctx, func(ch client.PermissionChange) error {
			if ch.Type == "added" {
				select {
				case added <- ch.Permission.ID:
				case <-ctx.Done():
				}
			}
			return nil
		})
	}()
	b.Cleanup(func() {
		cancel()
		if err := <-streamErr; err != nil && !errors.Is(err, context.Canceled) {
			b.Errorf("permission stream: %v", err)
		}
		if err := <-runErr; err != nil {
			b.Errorf("runtime: %v", err)
		}
	})
	return c, added
}
