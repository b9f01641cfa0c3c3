package focus

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// terminalID is the fallback when no ancestor lives in an app bundle (the
// agent runs under tmux or screen, whose server is a child of launchd).
const terminalID = "com.apple.Terminal"

// helperApps maps executables outside any bundle that host terminal
// sessions to the app that shows them.
var helperApps = map[string]string{
	"iTermServer": "com.googlecode.iterm2", // iTerm2 runs its shells under iTermServer-<version>
}

// errStop ends the walk up the process tree once the app is known.
var errStop = errors.New("stop")

// focusMac activates the app whose bundle holds the nearest ancestor of
// t.PID (Terminal, iTerm2, VS Code, ...), by bundle id through osascript.
// macOS gives no way to raise one window of another app without the
// Accessibility permission, so the app comes to the front with its last
// used window.
func focusMac(ctx context.Context, t Target, s system) error {
	var app string // bundle path or bundle id
	ancestry(t.PID, func(pid int) (int, error) {
		out, err := s.run(ctx, "ps", "-o", "ppid=,comm=", "-p", strconv.Itoa(pid))
		if err != nil {
			return 0, err
		}
		ppid, comm, err := parsePs(out)
		if err != nil {
			return 0, err
		}
		if app = bundleOf(comm); app != "" {
			return 0, errStop
		}
		for name, id := range helperApps {
			if strings.HasPrefix(lastElem(comm), name) {
				app = id
				return 0, errStop
			}
		}
		return ppid, nil
	})
	if err := ctx.Err(); err != nil {
		return err
	}

	id := terminalID
	if strings.HasSuffix(app, ".app") {
		out, err := s.run(ctx, "defaults", "read", app+"/Contents/Info", "CFBundleIdentifier")
		if err := ctx.Err(); err != nil {
			return err
		}
		if got := strings.TrimSpace(string(out)); err == nil && got != "" {
			id = got
		} else {
			// Without an id, the app's name works as long as it is
			// unique.
			return activate(ctx, s, "tell application "+appleString(strings.TrimSuffix(lastElem(app), ".app"))+" to activate")
		}
	} else if app != "" {
		id = app
	}
	return activate(ctx, s, "tell application id "+appleString(id)+" to activate")
}

func activate(ctx context.Context, s system, script string) error {
	if _, err := s.run(ctx, "osascript", "-e", script); err != nil {
		return fmt.Errorf("activate the terminal: %w", err)
	}
	return nil
}

// parsePs parses one line of `ps -o ppid=,comm=`: the parent pid, then the
// executable's path, which may hold spaces.
func parsePs(out []byte) (ppid int, comm string, err error) {
	line := strings.TrimSpace(string(out))
	f, rest, _ := strings.Cut(line, " ")
	ppid, err = strconv.Atoi(f)
	if err != nil || ppid < 0 {
		return 0, "", fmt.Errorf("bad ps line %q", line)
	}
	return ppid, strings.TrimSpace(rest), nil
}

// bundleOf returns the outermost .app bundle in an executable's path ("" if
// none): helpers nest bundles inside their app's, and the app is the outer
// one.
func bundleOf(path string) string {
	i := strings.Index(path, ".app/")
	if i < 0 {
		return ""
	}
	return path[:i+len(".app")]
}

func lastElem(path string) string {
	return path[strings.LastIndexByte(path, '/')+1:]
}

// appleString quotes s as an AppleScript string literal.
func appleString(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}
