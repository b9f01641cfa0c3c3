//go:build unix

package bench

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// emptyGo builds `package main; func main() {}` statically (CGO_ENABLED=0,
// the release flags) in a temporary module: the floor of any Go process,
// the runtime's own start-up and nothing else.
func emptyGo(b *testing.B) string {
	return goProgram(b, "empty", "package main\n\nfunc main() {}\n")
}

// stdServeGo builds, like emptyGo, a program that only links the
// standard packages the runtime's server needs (net/http, html/template,
// database/sql, crypto/tls, encoding/json, log/slog): their package
// initialisation and the runtime's start-up over their tables are the
// floor of any one binary that both serves and runs the hook.
func stdServeGo(b *testing.B) string {
	return goProgram(b, "stdserve", `package main

import (
	_ "crypto/tls"
	_ "database/sql"
	_ "encoding/json"
	_ "html/template"
	_ "log/slog"
	_ "net/http"
)

func main() {}
`)
}

// goProgram builds the one-file program main.go in a temporary module
// with the release's flags, statically.
func goProgram(b *testing.B, name, main string) string {
	b.Helper()
	dir := b.TempDir()
	for file, text := range map[string]string{
		"go.mod":  "module " + name + "\n\ngo 1.26\n",
		"main.go": main,
	} {
		if err := os.WriteFile(filepath.Join(dir, file), []byte(text), 0o600); err != nil {
			b.Fatal(err)
		}
	}
	bin := filepath.Join(dir, name)
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags=-s -w", "-o", bin, ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOWORK=off", "GOFLAGS=")
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("build the %s Go program: %v\n%s", name, err, out)
	}
	return bin
}

// floorRun is one kind of process of BenchmarkFloor and its timings.
type floorRun struct {
	name string
	env  []string
	argv []string
	wall []time.Duration
	cpu  time.Duration
}

func (r *floorRun) once(b *testing.B, in []byte) {
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(r.argv[0], r.argv[1:]...)
	cmd.Env = r.env
	cmd.Stdin = bytes.NewReader(in)
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	start := time.Now()
	err := cmd.Run()
	r.wall = append(r.wall, time.Since(start))
	if err != nil || stderr.Len() > 0 {
		b.Fatalf("%s: %v\nstderr: %s", r.name, err, stderr.Bytes())
	}
	r.cpu += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
}

// median is the median wall time of the runs, in ms.
func (r *floorRun) median() float64 {
	w := slices.Clone(r.wall)
	slices.Sort(w)
	return float64(w[len(w)/2].Microseconds()) / 1e3
}

// BenchmarkFloor times the hook against the floor side by side: each
// round runs /bin/true, the empty static Go program, the one linking the
// server's standard packages (stdServeGo), and `clawd hook claude` with
// the runtime down and up, in turn, so a busy machine slows
// them alike. It reports each one's median wall time and mean CPU time
// per process, and the ratios of the hook to the empty Go program (the
// issue's target: at most 1.6). With CLAWD_BENCH_BEFORE set to another
// clawd binary (bench/run.sh builds one of an older commit), that one
// runs in the same rounds ("before-down", "before-up").
func BenchmarkFloor(b *testing.B) {
	in := payload(b)
	empty := emptyGo(b)
	bin := clawdBinary(b)
	down, up := b.TempDir(), b.TempDir()
	rt := startRuntime(b, up)
	runs := []*floorRun{
		{name: "true", env: hookEnv(down), argv: []string{"/bin/true"}},
		{name: "empty", env: hookEnv(down), argv: []string{empty}},
		{name: "stdserve", env: hookEnv(down), argv: []string{stdServeGo(b)}},
		{name: "down", env: hookEnv(down), argv: []string{bin, "hook", "claude"}},
		{name: "up", env: hookEnv(up), argv: []string{bin, "hook", "claude"}},
	}
	hooksUp := 1
	if before := os.Getenv("CLAWD_BENCH_BEFORE"); before != "" {
		runs = append(runs,
			&floorRun{name: "before-down", env: hookEnv(b.TempDir()), argv: []string{before, "hook", "claude"}},
			&floorRun{name: "before-up", env: hookEnv(up), argv: []string{before, "hook", "claude"}})
		hooksUp++
	}
	for _, r := range runs { // warm the page cache and the runtime's connection path
		r.once(b, in)
		r.wall, r.cpu = nil, 0
	}
	rounds := 0
	for b.Loop() {
		for _, r := range runs {
			r.once(b, in)
		}
		rounds++
	}
	rt.waitDelivered(b, hooksUp*(rounds+1))
	var emptyMS float64
	for _, r := range runs {
		m := r.median()
		if r.name == "empty" {
			emptyMS = m
		}
		b.ReportMetric(m, r.name+"-ms")
		b.ReportMetric(float64(r.cpu.Microseconds())/1e3/float64(rounds), r.name+"-cpu-ms")
	}
	for _, r := range runs {
		if r.name != "true" && r.name != "empty" {
			b.ReportMetric(r.median()/emptyMS, r.name+"/empty")
		}
	}
	b.ReportMetric(0, "ns/op") // a round is several processes: its time says nothing
}
