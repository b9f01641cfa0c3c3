// Package focus brings the terminal window that runs an agent session to the
// front, where the platform allows it: on Linux through xdotool or wmctrl
// (X11, or X clients under XWayland), on macOS by activating the app bundle
// the agent runs in, on Windows through the window of one of the agent's
// ancestor processes.
//
// It is best effort by nature. The tray calls Focus in a goroutine with a
// short deadline and, when it fails, leaves things as they are.
package focus

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"
)

// Target says which session's terminal to find.
type Target struct {
	// PID is the agent's process id, 0 when unknown. The terminal is the
	// window of the nearest ancestor that has one.
	PID int
	// Cwd is the session's working directory (unused so far: a directory
	// names no window).
	Cwd string
	// Title is the session title. Agents such as Claude Code put it in the
	// terminal's title, so a window whose title contains it is a match when
	// no ancestor has a window, and the tie-breaker between several windows
	// of one terminal process.
	Title string
}

// Sentinel errors, checked with errors.Is.
var (
	// ErrUnsupported means this platform or desktop gives no way to focus a
	// window (no display, no xdotool or wmctrl, ...).
	ErrUnsupported = errors.New("focusing a terminal window is not supported here")
	// ErrNotFound means no window belongs to the session.
	ErrNotFound = errors.New("no terminal window found for the session")
)

// Focus tries to bring the terminal window of t to the front. It returns by
// ctx's deadline, with ctx's error if the tools it runs took too long.
func Focus(ctx context.Context, t Target) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return platformFocus(ctx, t, defaultSystem())
}

// system is what focusing needs from the machine; tests replace it.
type system struct {
	run      func(ctx context.Context, name string, args ...string) ([]byte, error)
	lookPath func(name string) (string, error)
	getenv   func(name string) string
	procRoot string // Linux: where /proc is
}

func defaultSystem() system {
	return system{run: run, lookPath: exec.LookPath, getenv: os.Getenv, procRoot: "/proc"}
}

// waitDelay bounds how long a killed command may keep its output open (a
// shell script's own children hold it), so Focus still returns by the
// deadline.
const waitDelay = 100 * time.Millisecond

// run runs a command and returns its standard output.
func run(ctx context.Context, name string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.WaitDelay = waitDelay
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	err := cmd.Run()
	if ctx.Err() != nil {
		return nil, fmt.Errorf("%s: %w", name, ctx.Err())
	}
	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		if len(msg) > 200 {
			msg = msg[:200]
		}
		return stdout.Bytes(), &cmdError{name: name, args: args, err: err, stderr: msg}
	}
	return stdout.Bytes(), nil
}

// cmdError is a command that ran and failed.
type cmdError struct {
	name   string
	args   []string
	err    error
	stderr string
}

func (e *cmdError) Error() string {
	s := fmt.Sprintf("%s %s: %v", e.name, strings.Join(e.args, " "), e.err)
	if e.stderr != "" {
		s += ": " + e.stderr
	}
	return s
}

func (e *cmdError) Unwrap() error { return e.err }

// maxAncestors bounds the walk up the process tree; real ones are a few
// levels deep.
const maxAncestors = 64

// ancestry returns pid and its ancestors, nearest first, as far as parent
// can tell: it stops before init (pid 1) and pid 0, at a pid whose parent
// cannot be read (so a pid that does not exist gives nothing), and at a
// loop.
func ancestry(pid int, parent func(pid int) (int, error)) []int {
	var out []int
	seen := map[int]bool{}
	for pid > 1 && !seen[pid] && len(out) < maxAncestors {
		ppid, err := parent(pid)
		if err != nil {
			break
		}
		seen[pid] = true
		out = append(out, pid)
		pid = ppid
	}
	return out
}

// window is a top-level window as a window lister reports it.
type window struct {
	id    string
	pid   int
	title string
}

// pick returns the window of the nearest ancestor, preferring among that
// ancestor's windows one whose title contains title; failing that, a window
// whose title contains title. ok is false when nothing matches.
func pick(ancestors []int, windows []window, title string) (w window, ok bool) {
	for _, pid := range ancestors {
		var mine []window
		for _, w := range windows {
			if w.pid == pid {
				mine = append(mine, w)
			}
		}
		if len(mine) == 0 {
			continue
		}
		if w, ok := byTitle(mine, title); ok {
			return w, true
		}
		return mine[0], true
	}
	return byTitle(windows, title)
}

// byTitle returns the first window whose title contains title.
func byTitle(windows []window, title string) (window, bool) {
	if title == "" {
		return window{}, false
	}
	for _, w := range windows {
		if strings.Contains(w.title, title) {
			return w, true
		}
	}
	return window{}, false
}

// terminalHosts are the processes whose windows show Windows console
// sessions; their window is the last resort when no ancestor has one.
var terminalHosts = []string{"windowsterminal.exe", "openconsole.exe", "conhost.exe"}

// hostWindow returns the first window of a terminal host, by the host's
// preference order.
func hostWindow(windows []window, exe func(pid int) string) (window, bool) {
	for _, host := range terminalHosts {
		for _, w := range windows {
			if strings.EqualFold(exe(w.pid), host) {
				return w, true
			}
		}
	}
	return window{}, false
}
