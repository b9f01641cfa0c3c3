//go:build linux

package e2e

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// maxHookInitAllocs bounds what clawd's own packages allocate at init, in
// every clawd process and so in every hook, which must start in a few
// milliseconds: 277 today (half of them the sync.OnceValue wrappers of
// the agents' tables). A regexp or a template built at package init costs
// hundreds (build it on first use: internal/lazy, sync.OnceValue); before
// that rule the hook's inits took ~4,000 allocations and 1 ms of its 4.5.
const maxHookInitAllocs = 310

// maxBinaryInitAllocs bounds the allocations of every package's init in
// the binary, the Go runtime's, the standard library's and the
// dependencies' included: 775-780 today (html/template 90, net/http 49,
// go-udiff 28, BurntSushi/toml 26 of them). A dependency that does heavy
// work at init costs every hook (bench/run.sh: the hook against an empty
// static Go binary); a new one that pushes this over wants a look at
// what it does there before the bound moves.
const maxBinaryInitAllocs = 840

// initTrace is what GODEBUG=inittrace=1 says of one package's init.
type initTrace struct {
	pkg    string
	allocs int
}

// TestHookInitIsLean runs a real hook with the Go runtime's init trace
// and adds up the allocations of the packages' inits: clawd's, and the
// whole binary's.
func TestHookInitIsLean(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	w := newWorld(t)
	cmd := exec.CommandContext(ctx, clawdBin, "hook", "claude", "SessionStart")
	cmd.Env = append(w.clawdEnv(), "GODEBUG=inittrace=1")
	cmd.Stdin = strings.NewReader(string(hookPayload(t, "SessionStart", "init-trace")))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("clawd hook: %v\n%s", err, stderr.String())
	}
	trace := stderr.String()
	inits, err := parseInitTrace(trace)
	if err != nil {
		t.Fatal(err)
	}
	var ours []initTrace
	for _, in := range inits {
		if strings.HasPrefix(in.pkg, "github.com/clawdhq/clawd") {
			ours = append(ours, in)
		}
	}
	if len(ours) < 5 || len(inits) < 50 {
		t.Fatalf("the init trace named %d packages, %d of them clawd's; want them all:\n%s", len(inits), len(ours), trace)
	}
	if total := initAllocs(ours); total > maxHookInitAllocs {
		t.Errorf("clawd's packages allocate %d times at init (over %d); the heaviest: %s", total, maxHookInitAllocs, heaviestInits(ours, 5))
	}
	if total := initAllocs(inits); total > maxBinaryInitAllocs {
		t.Errorf("the binary's packages allocate %d times at init (over %d); the heaviest: %s", total, maxBinaryInitAllocs, heaviestInits(inits, 8))
	}
	t.Logf("%d of clawd's packages: %d allocations at init; all %d packages: %d", len(ours), initAllocs(ours), len(inits), initAllocs(inits))
}

// parseInitTrace reads the init lines of a GODEBUG=inittrace=1 trace:
//
//	init github.com/clawdhq/clawd/agents @1.7 ms, 0.093 ms clock, 20720 bytes, 150 allocs
func parseInitTrace(trace string) ([]initTrace, error) {
	var out []initTrace
	sc := bufio.NewScanner(strings.NewReader(trace))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 11 || f[0] != "init" || f[10] != "allocs" {
			continue
		}
		n, err := strconv.Atoi(f[9])
		if err != nil {
			return nil, fmt.Errorf("init trace line %q: %v", sc.Text(), err)
		}
		out = append(out, initTrace{pkg: f[1], allocs: n})
	}
	return out, sc.Err()
}

func initAllocs(inits []initTrace) int {
	total := 0
	for _, in := range inits {
		total += in.allocs
	}
	return total
}

// heaviestInits names the n packages that allocate most at init.
func heaviestInits(inits []initTrace, n int) string {
	inits = slices.Clone(inits)
	slices.SortStableFunc(inits, func(a, b initTrace) int { return b.allocs - a.allocs })
	var names []string
	for _, in := range inits[:min(n, len(inits))] {
		names = append(names, fmt.Sprintf("%s %d", in.pkg, in.allocs))
	}
	return strings.Join(names, ", ")
}

// TestParseInitTrace checks the trace reader on lines of a real trace,
// and that a bound over the total names the heaviest package.
func TestParseInitTrace(t *testing.T) {
	trace := `init internal/bytealg @0.009 ms, 0 ms clock, 0 bytes, 0 allocs
init runtime @0.053 ms, 0.062 ms clock, 0 bytes, 0 allocs
GODEBUG: something the runtime says in passing
init html/template @2.8 ms, 0.11 ms clock, 17944 bytes, 90 allocs
init github.com/clawdhq/clawd/agents @3.1 ms, 0.093 ms clock, 29088 bytes, 218 allocs
`
	inits, err := parseInitTrace(trace)
	if err != nil {
		t.Fatal(err)
	}
	if len(inits) != 4 || initAllocs(inits) != 308 {
		t.Fatalf("parseInitTrace = %v, want 4 packages, 308 allocations", inits)
	}
	if got, want := heaviestInits(inits, 2), "github.com/clawdhq/clawd/agents 218, html/template 90"; got != want {
		t.Errorf("heaviestInits = %q, want %q", got, want)
	}
	if _, err := parseInitTrace("init runtime @0.05 ms, 0.06 ms clock, 0 bytes, many allocs\n"); err == nil {
		t.Error("parseInitTrace took a count that is no number")
	}
}
