//go:build linux

package e2e

import (
	"bufio"
	"bytes"
	"context"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// maxHookInitAllocs bounds what clawd's own packages allocate at init, in
// every clawd process and so in every hook, which must start in a few
// milliseconds: 316 today (mostly the agents' event tables). A regexp or
// a template built at package init costs hundreds (build it on first use:
// internal/lazy, sync.OnceValue); before that rule the hook's inits took
// ~4,000 allocations and 1 ms of its 4.5.
const maxHookInitAllocs = 500

// TestHookInitIsLean runs a real hook with the Go runtime's init trace
// and adds up the allocations of clawd's packages' inits.
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
	total, packages := 0, 0
	var heavy []string
	trace := stderr.String()
	sc := bufio.NewScanner(strings.NewReader(trace))
	for sc.Scan() {
		// init github.com/clawdhq/clawd/agents @1.7 ms, 0.093 ms clock, 20720 bytes, 150 allocs
		f := strings.Fields(sc.Text())
		if len(f) < 11 || f[0] != "init" || f[10] != "allocs" || !strings.HasPrefix(f[1], "github.com/clawdhq/clawd") {
			continue
		}
		n, err := strconv.Atoi(f[9])
		if err != nil {
			t.Fatalf("init trace line %q: %v", sc.Text(), err)
		}
		packages++
		total += n
		if n > 50 {
			heavy = append(heavy, f[1]+" "+f[9])
		}
	}
	if packages < 5 {
		t.Fatalf("the init trace named %d of clawd's packages, want them all:\n%s", packages, trace)
	}
	if total > maxHookInitAllocs {
		t.Errorf("clawd's packages allocate %d times at init (over %d); the heaviest: %s", total, maxHookInitAllocs, strings.Join(heavy, ", "))
	}
	t.Logf("%d of clawd's packages: %d allocations at init", packages, total)
}
