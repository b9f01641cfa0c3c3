//go:build unix

// Package bench measures clawd the way an agent meets it: one whole
// `clawd hook claude` process per hook event, payload on stdin, wall time
// until it exits. The baselines are /bin/true (the floor of any hook) and a
// minimal Node hook like the original app's (testdata/hook.js). Run
//
//	go test -run '^$' -bench . ./bench/
//
// or bash bench/run.sh for the summary against the targets. Nothing here
// runs under plain `go test ./...`: the build, the runtime and the processes
// all live inside the Benchmark functions.
package bench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/internal/spool"
	"github.com/clawdhq/clawd/runtime"
	"github.com/clawdhq/clawd/runtime/client"
)

// fixture is the payload every process gets: Stop is a non-blocking event
// (no decision to wait for), so its cost is the hook's own.
const fixture = "Stop.json"

// syncSession is the session of the events that prove the stream
// subscription is live; the hook's events never use it.
const syncSession = "bench-sync"

var build struct {
	once     sync.Once
	dir, bin string
	err      error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if build.dir != "" {
		os.RemoveAll(build.dir)
	}
	os.Exit(code)
}

// clawdBinary builds clawd once per test binary with the release flags
// (goreleaser.yaml: CGO_ENABLED=0, -trimpath, -ldflags "-s -w"): a static,
// stripped binary starts faster than a test build, and it is what people
// install, so it is the one to time.
func clawdBinary(b *testing.B) string {
	b.Helper()
	build.once.Do(func() {
		root, err := filepath.Abs("..")
		if err != nil {
			build.err = err
			return
		}
		if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
			build.err = fmt.Errorf("module root not found from %s: %w", root, err)
			return
		}
		goBin, err := exec.LookPath("go")
		if err != nil {
			build.err = fmt.Errorf("go tool not on PATH: %w", err)
			return
		}
		if build.dir, err = os.MkdirTemp("", "clawd-bench-"); err != nil {
			build.err = err
			return
		}
		build.bin = filepath.Join(build.dir, "clawd")
		cmd := exec.Command(goBin, "build", "-trimpath", "-ldflags=-s -w", "-o", build.bin, ".")
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			build.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if build.err != nil {
		b.Fatal(build.err)
	}
	return build.bin
}

func payload(b *testing.B) []byte {
	b.Helper()
	p, err := os.ReadFile(filepath.Join("..", "testdata", "claude", "hooks", fixture))
	if err != nil {
		b.Fatal(err)
	}
	return p
}

// hookEnv is this process's environment with CLAWD_HOME set to home, as
// Claude Code passes its own environment on to hooks.
func hookEnv(home string) []string {
	return append(os.Environ(), "CLAWD_HOME="+home)
}

// runProcesses spawns name with args b.N times the way an agent runs a
// hook (payload on a stdin pipe, stdout and stderr captured, wait for the
// exit) and reports the wall time and the child's CPU time per process. A
// non-zero exit or anything on stderr fails the benchmark: a hook that
// complains is not a hook that worked fast.
func runProcesses(b *testing.B, env []string, in []byte, name string, args ...string) {
	b.Helper()
	var cpu time.Duration
	var stdout, stderr bytes.Buffer
	for b.Loop() {
		stdout.Reset()
		stderr.Reset()
		cmd := exec.Command(name, args...)
		cmd.Env = env
		cmd.Stdin = bytes.NewReader(in)
		cmd.Stdout = &stdout
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil {
			b.Fatalf("%s %v: %v\nstderr: %s", name, args, err, stderr.Bytes())
		}
		if stderr.Len() > 0 {
			b.Fatalf("%s %v wrote to stderr: %s", name, args, stderr.Bytes())
		}
		cpu += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	}
	n := float64(b.N)
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1e3/n, "ms/op")
	b.ReportMetric(float64(cpu.Microseconds())/1e3/n, "cpu-ms/op")
}

// BenchmarkProcessTrue is the floor: spawning a process that does nothing
// with the same stdin.
func BenchmarkProcessTrue(b *testing.B) {
	runProcesses(b, hookEnv(b.TempDir()), payload(b), "/bin/true")
}

// BenchmarkProcessHookRuntimeDown is the hook with no runtime: nothing on
// the clawd home's socket, so it appends its event to the spool for the
// next runtime (internal/spool) and exits 0. Every event must be there.
func BenchmarkProcessHookRuntimeDown(b *testing.B) {
	bin := clawdBinary(b)
	home := b.TempDir()
	runProcesses(b, hookEnv(home), payload(b), bin, "hook", "claude")
	lines := 0
	for _, name := range []string{spool.OldFile, spool.File} {
		data, _ := os.ReadFile(filepath.Join(home, name))
		lines += bytes.Count(data, []byte{'\n'})
	}
	// Past its cap the spool drops its oldest half (and has an OldFile).
	_, err := os.Stat(filepath.Join(home, spool.OldFile))
	if lines > b.N || err != nil && lines != b.N {
		b.Fatalf("spool holds %d events of %d hooks", lines, b.N)
	}
}

// BenchmarkProcessHookRuntimeUp is the hook delivering to a live runtime
// on the clawd home's socket. Every event must arrive.
func BenchmarkProcessHookRuntimeUp(b *testing.B) {
	bin := clawdBinary(b)
	home := b.TempDir()
	rt := startRuntime(b, home)
	runProcesses(b, hookEnv(home), payload(b), bin, "hook", "claude")
	rt.waitDelivered(b, b.N)
}

// BenchmarkProcessNodeHookRuntimeUp is the Node baseline posting the
// original's /state body to the same live runtime. Every event must
// arrive.
func BenchmarkProcessNodeHookRuntimeUp(b *testing.B) {
	node, err := exec.LookPath("node")
	if err != nil {
		b.Fatalf("node is needed for the Node baseline: %v", err)
	}
	script, err := filepath.Abs(filepath.Join("testdata", "hook.js"))
	if err != nil {
		b.Fatal(err)
	}
	home := b.TempDir()
	rt := startRuntime(b, home)
	runProcesses(b, hookEnv(home), payload(b), node, script)
	rt.waitDelivered(b, b.N)
}

// liveRuntime is a runtime running in the benchmark process, with a
// follower of its event stream that counts what it ingested.
type liveRuntime struct {
	session   string
	delivered atomic.Int64
	wrongKind atomic.Int64
}

// runRuntime starts a real runtime for home on its socket and a free
// loopback port (Run writes runtime.json there, as `clawd serve` does) and
// waits until it listens. It stops when ctx ends; its result arrives on the channel.
// cancel is called before failing b.
func runRuntime(ctx context.Context, cancel context.CancelFunc, b *testing.B, home string) (client.Info, <-chan error) {
	b.Helper()
	s := runtime.New(runtime.Config{Home: home, Version: "bench"})
	ready := make(chan client.Info, 1)
	runErr := make(chan error, 1)
	go func() { runErr <- s.Run(ctx, 0, func(in client.Info) { ready <- in }) }()
	select {
	case info := <-ready:
		return info, runErr
	case err := <-runErr:
		cancel()
		b.Fatalf("runtime: %v", err)
	case <-time.After(10 * time.Second):
		cancel()
		<-runErr
		b.Fatal("runtime did not start in 10 s")
	}
	return client.Info{}, nil
}

// startRuntime runs a real runtime on a free loopback port with home as its
// clawd home (Run writes runtime.json there, as `clawd serve` does) and
// follows its event stream until the benchmark ends.
func startRuntime(b *testing.B, home string) *liveRuntime {
	b.Helper()
	ev, err := agents.Claude.Decode(payload(b), "", func(string) string { return "" }, time.Now())
	if err != nil {
		b.Fatalf("decode %s: %v", fixture, err)
	}
	rt := &liveRuntime{session: ev.SessionID}

	ctx, cancel := context.WithCancel(context.Background())
	info, runErr := runRuntime(ctx, cancel, b, home)

	c := client.NewSocket(info.Socket, client.Options{})
	synced := make(chan struct{}, 1)
	streamErr := make(chan error, 1)
	go func() {
		streamErr <- c.StreamEvents(ctx, client.EventsFrom{Live: true}, func(_ []byte, rec client.EventRecord) error {
			switch rec.SessionID {
			case syncSession:
				select {
				case synced <- struct{}{}:
				default:
				}
			case rt.session:
				rt.delivered.Add(1)
				if rec.Kind != ev.Kind {
					rt.wrongKind.Add(1)
				}
			}
			return nil
		})
	}()
	b.Cleanup(func() {
		cancel()
		if err := <-streamErr; err != nil && !errors.Is(err, context.Canceled) {
			b.Errorf("event stream: %v", err)
		}
		if err := <-runErr; err != nil {
			b.Errorf("runtime: %v", err)
		}
	})

	// The stream subscribes after it answers, so the subscription is live
	// only once an event posted now comes back on it.
	hello := agents.Event{Agent: "claude", Kind: agents.KindSessionStart, SessionID: syncSession, Time: time.Now()}
	deadline := time.After(10 * time.Second)
	for {
		if err := c.PostEvent(ctx, hello); err != nil {
			b.Fatalf("post sync event: %v", err)
		}
		select {
		case <-synced:
			return rt
		case <-time.After(50 * time.Millisecond):
		case <-deadline:
			b.Fatal("event stream not live after 10 s")
		}
	}
}

// waitDelivered fails the benchmark unless the runtime ingested exactly
// want events of the fixture's session and kind.
func (rt *liveRuntime) waitDelivered(b *testing.B, want int) {
	b.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for rt.delivered.Load() < int64(want) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if got := rt.delivered.Load(); got != int64(want) {
		b.Fatalf("runtime ingested %d events of session %s, want %d", got, rt.session, want)
	}
	if n := rt.wrongKind.Load(); n > 0 {
		b.Fatalf("%d of the ingested events had the wrong kind", n)
	}
}

// bigPrompt is a UserPromptSubmit payload whose prompt is one line just
// short of the hook's 4 MiB stdin cap: the most text a hook ever cleans
// for a title.
func bigPrompt(b *testing.B) []byte {
	b.Helper()
	p, err := os.ReadFile(filepath.Join("..", "testdata", "claude", "hooks", "UserPromptSubmit.json"))
	if err != nil {
		b.Fatal(err)
	}
	line := bytes.Repeat([]byte("refactor the lexer and the parser "), (4<<20-4<<10)/34)
	out := bytes.Replace(p, []byte(`"CAPTURE_ALL please"`), append(append([]byte(`"`), line...), '"'), 1)
	if len(out) >= 4<<20 || len(out) < 4<<20-8<<10 {
		b.Fatalf("big prompt payload is %d bytes, want just under 4 MiB", len(out))
	}
	return out
}

// BenchmarkProcessHookBigPrompt is the hook delivering a prompt event whose
// prompt is one 4 MiB line to a live runtime: the title is cut from it, so
// its cost must not grow with the prompt.
func BenchmarkProcessHookBigPrompt(b *testing.B) {
	bin := clawdBinary(b)
	home := b.TempDir()
	in := bigPrompt(b)
	rt := startRuntime(b, home)
	runProcesses(b, hookEnv(home), in, bin, "hook", "claude")
	_ = rt
}
