package cmd

import (
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/clawdhq/clawd/internal/text"
	"github.com/clawdhq/clawd/runtime/client"
)

// TestStatusOnTerminal: on a terminal, status fits the terminal's width
// and colours the states; with NO_COLOR it fits and is plain; $COLUMNS
// overrides the terminal's width; into a pipe nothing is cut or coloured.
func TestStatusOnTerminal(t *testing.T) {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	long := "Fix the login bug in the checkout page, then add the tests that were missing"
	snap := client.Snapshot{Sessions: []client.SessionView{
		{Agent: "claude", SessionID: "a", State: "waiting", BaseState: "working", Pending: 1, Title: long, Cwd: "/home/ann/shop", UpdatedAt: now},
		{Agent: "codex", SessionID: "b", State: "idle", BaseState: "idle", Outcome: "failed", OutcomeAt: now, Title: "deploy", Cwd: "/home/ann/api", UpdatedAt: now},
	}}
	render := func(cols int, vars map[string]string) string {
		t.Helper()
		master, tty := openPTY(t)
		if err := unix.IoctlSetWinsize(int(tty.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Col: uint16(cols), Row: 30}); err != nil {
			t.Fatal(err)
		}
		vars["HOME"], vars["LANG"] = "/home/ann", "C.UTF-8"
		e, _, _ := testEnv(t, t.TempDir(), nil, vars)
		e.stdout, e.now = tty, func() time.Time { return now }
		renderStatus(e, snap)
		tty.Close()
		var b strings.Builder
		buf := make([]byte, 4096)
		for {
			n, err := master.Read(buf)
			b.Write(buf[:n])
			if err != nil {
				break
			}
		}
		return strings.ReplaceAll(b.String(), "\r\n", "\n")
	}
	check := func(name, out string, width int, coloured bool) {
		t.Helper()
		if got := strings.Contains(out, "\x1b["); got != coloured {
			t.Errorf("%s: coloured = %v, want %v:\n%q", name, got, coloured, out)
		}
		plain := out
		for _, sgr := range []string{"\x1b[1;33m", "\x1b[31m", "\x1b[2m", "\x1b[0m"} {
			plain = strings.ReplaceAll(plain, sgr, "")
		}
		if !strings.HasPrefix(plain, "1 needs you · 1 failed → clawd permissions\n") {
			t.Errorf("%s: status starts %q", name, plain)
		}
		for _, l := range strings.Split(strings.TrimSuffix(plain, "\n"), "\n") {
			if w := text.Width(l); w > width {
				t.Errorf("%s: line %q is %d columns, the terminal %d", name, l, w, width)
			}
		}
		if !strings.Contains(plain, "Fix the login") || !strings.Contains(plain, text.Ellipsis) || !strings.Contains(plain, "~/shop") {
			t.Errorf("%s: want the title cut, the folder whole:\n%s", name, plain)
		}
	}
	check("80 columns", render(80, map[string]string{}), 80, true)
	check("NO_COLOR", render(80, map[string]string{"NO_COLOR": "1"}), 80, false)
	check("COLUMNS=60", render(120, map[string]string{"COLUMNS": "60"}), 60, true)

	e, out, _ := testEnv(t, t.TempDir(), nil, map[string]string{"HOME": "/home/ann", "LANG": "C.UTF-8"})
	e.now = func() time.Time { return now }
	renderStatus(e, snap)
	if strings.Contains(out.String(), "\x1b[") || !strings.Contains(out.String(), long) {
		t.Errorf("status into a pipe = %q, want whole lines and no colour", out)
	}
}
