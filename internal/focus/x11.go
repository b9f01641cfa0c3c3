package focus

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// focusX11 focuses the window of t's nearest ancestor with xdotool, or
// with wmctrl when xdotool is missing. Both need an X server (XWayland
// counts); on a display-less session there is nothing to focus.
func focusX11(ctx context.Context, t Target, s system) error {
	if s.getenv("DISPLAY") == "" && s.getenv("WAYLAND_DISPLAY") == "" {
		return fmt.Errorf("%w: neither DISPLAY nor WAYLAND_DISPLAY is set", ErrUnsupported)
	}
	xdotool, xerr := s.lookPath("xdotool")
	wmctrl, werr := s.lookPath("wmctrl")
	if xerr != nil && werr != nil {
		return fmt.Errorf("%w: install xdotool or wmctrl to focus terminals", ErrUnsupported)
	}
	ancestors := ancestry(t.PID, func(pid int) (int, error) { return procParent(s.procRoot, pid) })
	if len(ancestors) == 0 && t.Title == "" {
		return fmt.Errorf("%w: process %d is not running and the session has no title", ErrNotFound, t.PID)
	}
	if xerr == nil {
		return viaXdotool(ctx, s, xdotool, ancestors, t.Title)
	}
	return viaWmctrl(ctx, s, wmctrl, ancestors, t.Title)
}

// viaXdotool asks xdotool for the windows of each ancestor in turn (their
// _NET_WM_PID), then for a window by title, and activates the first found.
func viaXdotool(ctx context.Context, s system, xdotool string, ancestors []int, title string) error {
	var lastErr error
	search := func(args ...string) []string {
		out, err := s.run(ctx, xdotool, append([]string{"search"}, args...)...)
		ids := strings.Fields(string(out))
		if len(ids) == 0 && err != nil && !isExitCode(err, 1) { // 1: nothing matched
			lastErr = err
		}
		return ids
	}
	activate := func(id string) error {
		if _, err := s.run(ctx, xdotool, "windowactivate", id); err != nil {
			return fmt.Errorf("focus window %s: %w", id, err)
		}
		return nil
	}
	for _, pid := range ancestors {
		ids := search("--pid", strconv.Itoa(pid))
		if err := ctx.Err(); err != nil {
			return err
		}
		if len(ids) == 0 {
			continue
		}
		id := ids[0]
		if len(ids) > 1 && title != "" {
			// One terminal process, several windows: the title tells.
			for _, c := range ids {
				name, err := s.run(ctx, xdotool, "getwindowname", c)
				if err == nil && strings.Contains(string(name), title) {
					id = c
					break
				}
			}
		}
		return activate(id)
	}
	if title != "" {
		ids := search("--name", regexp.QuoteMeta(title))
		if err := ctx.Err(); err != nil {
			return err
		}
		if len(ids) > 0 {
			return activate(ids[0])
		}
	}
	if lastErr != nil {
		return lastErr
	}
	return fmt.Errorf("%w: no window of processes %v or titled %q", ErrNotFound, ancestors, title)
}

// viaWmctrl lists the windows with their pids and activates the one of the
// nearest ancestor, or the one with the session's title.
func viaWmctrl(ctx context.Context, s system, wmctrl string, ancestors []int, title string) error {
	out, err := s.run(ctx, wmctrl, "-lp")
	if err != nil {
		return fmt.Errorf("list windows: %w", err)
	}
	w, ok := pick(ancestors, parseWmctrl(out), title)
	if !ok {
		return fmt.Errorf("%w: no window of processes %v or titled %q", ErrNotFound, ancestors, title)
	}
	if _, err := s.run(ctx, wmctrl, "-ia", w.id); err != nil {
		return fmt.Errorf("focus window %s: %w", w.id, err)
	}
	return nil
}

func isExitCode(err error, code int) bool {
	var exit *exec.ExitError
	return errors.As(err, &exit) && exit.ExitCode() == code
}

// procParent reads pid's parent from <root>/<pid>/stat.
func procParent(root string, pid int) (int, error) {
	data, err := os.ReadFile(filepath.Join(root, strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0, err
	}
	_, ppid, err := parseStat(data)
	if err != nil {
		return 0, fmt.Errorf("%s/%d/stat: %w", root, pid, err)
	}
	return ppid, nil
}

// parseStat returns the command name and parent pid from a /proc/<pid>/stat
// line: "pid (comm) state ppid ...". comm is whatever the process named
// itself, spaces and parentheses included, so it runs to the last ')'.
func parseStat(data []byte) (comm string, ppid int, err error) {
	open := bytes.IndexByte(data, '(')
	end := bytes.LastIndexByte(data, ')')
	if open < 0 || end < open {
		return "", 0, fmt.Errorf("no (comm) in %q", data)
	}
	rest := strings.Fields(string(data[end+1:]))
	if len(rest) < 2 {
		return "", 0, fmt.Errorf("no parent pid in %q", data)
	}
	ppid, err = strconv.Atoi(rest[1])
	if err != nil || ppid < 0 {
		return "", 0, fmt.Errorf("bad parent pid %q", rest[1])
	}
	return string(data[open+1 : end]), ppid, nil
}

// parseWmctrl parses `wmctrl -lp`: one window a line, "id desktop pid host
// title", where the desktop is -1 for sticky windows, the pid 0 when
// unknown, and the title may be empty or hold any spaces. Lines that do not
// fit are skipped.
func parseWmctrl(out []byte) []window {
	var windows []window
	for _, line := range strings.Split(string(out), "\n") {
		var f [4]string
		rest := line
		for i := range f {
			rest = strings.TrimLeft(rest, " \t")
			n := strings.IndexAny(rest, " \t")
			if n < 0 {
				n = len(rest)
			}
			f[i], rest = rest[:n], rest[n:]
		}
		if f[3] == "" || !strings.HasPrefix(f[0], "0x") {
			continue
		}
		if _, err := strconv.Atoi(f[1]); err != nil {
			continue
		}
		pid, err := strconv.Atoi(f[2])
		if err != nil {
			continue
		}
		// One space separates the host from the title.
		title := strings.TrimSuffix(strings.TrimPrefix(rest, " "), "\r")
		windows = append(windows, window{id: f[0], pid: pid, title: title})
	}
	return windows
}
