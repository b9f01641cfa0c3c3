// Package intrudertest runs internal/intruder as another local user
// (nobody, through setpriv) for tests: the fake clawd a local attacker
// would run on the runtime's port range, and the client a local attacker
// would point at this user's runtime.
package intrudertest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"
)

// Available reports why intruders cannot run here, or "" when they can:
// the tests must run as root, with setpriv (util-linux) on PATH.
func Available() string {
	if runtime.GOOS != "linux" {
		return "intruder tests play another user with setpriv, on Linux only"
	}
	if os.Geteuid() != 0 {
		return "intruder tests play another user with setpriv, which needs root (CI runs as root)"
	}
	if _, err := exec.LookPath("setpriv"); err != nil {
		return "setpriv (util-linux) not found"
	}
	return ""
}

// Binary builds the intruder into a folder of the test's that nobody may
// read and run (go build's cache makes every build after the first
// cheap), and returns its path.
func Binary(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	// nobody must get through the test's temp folders to the binary.
	for _, d := range []string{filepath.Dir(dir), dir} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	bin := filepath.Join(dir, "intruder")
	cmd := exec.Command("go", "build", "-o", bin, "github.com/clawdhq/clawd/internal/intruder")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build the intruder: %v\n%s", err, out)
	}
	return bin
}

// intruderBin builds the intruder once per test.
func intruderBin(t testing.TB) string {
	t.Helper()
	mu.Lock()
	defer mu.Unlock()
	if bin, ok := built[t.Name()]; ok {
		return bin
	}
	bin := Binary(t)
	built[t.Name()] = bin
	t.Cleanup(func() {
		mu.Lock()
		delete(built, t.Name())
		mu.Unlock()
	})
	return bin
}

var (
	mu    sync.Mutex
	built = map[string]string{}
)

// Command returns the intruder with args, run as nobody:nogroup with no
// supplementary groups.
func Command(t testing.TB, args ...string) *exec.Cmd {
	t.Helper()
	if why := Available(); why != "" {
		t.Skip(why)
	}
	bin := intruderBin(t)
	full := append([]string{"--reuid=nobody", "--regid=nogroup", "--clear-groups", bin}, args...)
	cmd := exec.Command("setpriv", full...)
	cmd.Dir = "/"
	cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=/nonexistent"}
	return cmd
}

// Run runs a one-shot intruder mode (socket, http) and returns its one
// report.
func Run(t testing.TB, args ...string) map[string]any {
	t.Helper()
	cmd := Command(t, args...)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("intruder %v: %v (%s)", args, err, out)
	}
	var r map[string]any
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("intruder %v printed %q: %v", args, out, err)
	}
	return r
}

// Server is a running `intruder serve`.
type Server struct {
	// Ports are the ports of 23333-23337 it listens on, and last one
	// the kernel chose.
	Ports []int
	stdin io.Closer
	cmd   *exec.Cmd
	lines chan map[string]any
	// seen holds every report but the sentinels' requests; rounds counts
	// the earlier Intrusions calls, whose sentinels' accepts are in seen.
	seen   []map[string]any
	rounds int
	once   sync.Once
}

// Stop ends the intruder: its ports are free once Stop returns.
func (s *Server) Stop() {
	s.once.Do(func() {
		s.stdin.Close()
		done := make(chan struct{})
		go func() { s.cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			s.cmd.Process.Kill()
			<-done
		}
	})
}

// Serve starts `intruder serve marker` as nobody and waits until it
// listens. It stops when the test ends.
func Serve(t testing.TB, marker string) *Server {
	t.Helper()
	cmd := Command(t, "serve", marker)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &Server{stdin: stdin, cmd: cmd, lines: make(chan map[string]any, 1024)}
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			var m map[string]any
			if json.Unmarshal(sc.Bytes(), &m) == nil {
				s.lines <- m
			}
		}
		close(s.lines)
	}()
	t.Cleanup(s.Stop)
	select {
	case m, ok := <-s.lines:
		if !ok {
			t.Fatal("the intruder exited before listening")
		}
		for _, p := range m["listening"].([]any) {
			s.Ports = append(s.Ports, int(p.(float64)))
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the intruder did not start within 30 s")
	}
	return s
}

// Intrusions returns the requests that reached the intruder so far
// carrying the test's marker, and how many connections it accepted from
// anything at all (other programs on the machine may probe the range).
// To be sure it reported every connection made before the call, it sends
// a sentinel request to each port and waits for it: the intruder reports
// accepts in order, before reading.
func (s *Server) Intrusions(t testing.TB) (marked []map[string]any, conns int) {
	t.Helper()
	waiting := map[int]bool{}
	for _, p := range s.Ports {
		c, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(p), 5*time.Second)
		if err != nil {
			t.Fatalf("sentinel connection to %d: %v", p, err)
		}
		defer c.Close()
		fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: sentinel\r\n\r\n", sentinelPath)
		waiting[p] = true
	}
	deadline := time.After(30 * time.Second)
	for len(waiting) > 0 {
		select {
		case m, ok := <-s.lines:
			if !ok {
				t.Fatal("the intruder exited")
			}
			if p, ok := m["request"].(float64); ok && m["path"] == sentinelPath {
				delete(waiting, int(p))
				continue
			}
			s.seen = append(s.seen, m)
		case <-deadline:
			t.Fatalf("the intruder did not see the sentinels within 30 s; seen %v", s.seen)
		}
	}
	s.rounds++
	for _, m := range s.seen {
		if _, ok := m["accepted"]; ok {
			conns++
		}
		if m["marked"] == true {
			marked = append(marked, m)
		}
	}
	// Each round's sentinels were accepted too.
	return marked, conns - len(s.Ports)*s.rounds
}

const sentinelPath = "/intrudertest-sentinel"
