//go:build !windows

package e2e

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// tmux drives one interactive program in a detached tmux session on a
// private tmux server (tmux -L), the way a person would at a terminal:
// keys in, screen out. The server dies with the test.
type tmux struct {
	t        *testing.T
	socket   string
	target   string
	sockPath string    // the server's socket file, removed at the end
	deadline time.Time // no wait goes past it; zero means none
}

// exitMarker is printed in the pane when the program ends; the pane then
// stays open so its last screen can be read.
const exitMarker = "[clawd-e2e: exited rc="

var exitedRe = regexp.MustCompile(regexp.QuoteMeta(exitMarker) + `(\d+)\]`)

// startTmux runs argv in dir on a new private tmux server, in a window of
// width × height, with exactly env as its environment (env -i): nothing of
// the test's own environment, nor tmux's TMUX variables, leaks in.
func startTmux(t *testing.T, dir string, width, height int, env, argv []string) *tmux {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Fatalf("tmux not found (%v): run scripts/install-agents.sh", err)
	}
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatal(err)
	}
	tm := &tmux{t: t, socket: fmt.Sprintf("clawd-e2e-%d-%s", os.Getpid(), hex.EncodeToString(b[:])), target: "main"}
	t.Cleanup(tm.kill)

	words := append([]string{"env", "-i"}, env...)
	words = append(words, argv...)
	quoted := make([]string, len(words))
	for i, w := range words {
		quoted[i] = shellQuote(w)
	}
	// The shell stays after the program so the pane (and its last screen)
	// survives the exit; kill-server ends the sleep.
	script := fmt.Sprintf(`%s; echo "%s$?]"; exec sleep 3600`, strings.Join(quoted, " "), exitMarker)
	tm.run("-f", "/dev/null", "new-session", "-d", "-s", tm.target,
		"-x", fmt.Sprint(width), "-y", fmt.Sprint(height), "-c", dir, "/bin/sh", "-c", script)
	tm.sockPath = strings.TrimSpace(tm.run("display-message", "-p", "#{socket_path}"))
	return tm
}

// shellQuote quotes s for /bin/sh.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_=./:,+@%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// command is a tmux client command on this server.
func (tm *tmux) command(args ...string) *exec.Cmd {
	cmd := exec.Command("tmux", append([]string{"-L", tm.socket}, args...)...)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "TMUX=") && !strings.HasPrefix(kv, "TMUX_PANE=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	return cmd
}

func (tm *tmux) run(args ...string) string {
	tm.t.Helper()
	cmd := tm.command(args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Run(); err != nil {
		tm.t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return stdout.String()
}

// SendKeys sends tmux key names (Enter, Escape, C-c, "1", ...).
func (tm *tmux) SendKeys(keys ...string) {
	tm.t.Helper()
	tm.run(append([]string{"send-keys", "-t", tm.target}, keys...)...)
}

// Type types text literally, without Enter.
func (tm *tmux) Type(text string) {
	tm.t.Helper()
	tm.run("send-keys", "-t", tm.target, "-l", text)
}

// Capture returns the visible screen, one line per row.
func (tm *tmux) Capture() string {
	tm.t.Helper()
	return tm.run("capture-pane", "-p", "-t", tm.target)
}

// await polls the screen every 100 ms until re matches it or timeout (cut
// to the deadline) passes. It returns the last screen and whether it did.
func (tm *tmux) await(re *regexp.Regexp, timeout time.Duration) (string, bool) {
	tm.t.Helper()
	end := time.Now().Add(timeout)
	if !tm.deadline.IsZero() && tm.deadline.Before(end) {
		end = tm.deadline
	}
	for {
		s := tm.Capture()
		if re.MatchString(s) {
			return s, true
		}
		if time.Now().After(end) {
			return s, false
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// WaitFor waits until re matches the screen and returns the screen; it
// fails the test with the last screen when that does not happen in time.
func (tm *tmux) WaitFor(re *regexp.Regexp, timeout time.Duration) string {
	tm.t.Helper()
	start := time.Now()
	s, ok := tm.await(re, timeout)
	if !ok {
		tm.t.Fatalf("screen did not match %q within %v; screen:\n%s", re, time.Since(start).Round(time.Millisecond), s)
	}
	return s
}

// WaitExit waits until the program has ended and returns its exit code.
func (tm *tmux) WaitExit(timeout time.Duration) int {
	tm.t.Helper()
	m := exitedRe.FindStringSubmatch(tm.WaitFor(exitedRe, timeout))
	var rc int
	fmt.Sscan(m[1], &rc)
	return rc
}

// kill stops the tmux server and with it the program; on failure it logs
// the last screen first.
func (tm *tmux) kill() {
	if tm.t.Failed() {
		if out, err := tm.command("capture-pane", "-p", "-t", tm.target).Output(); err == nil {
			tm.t.Logf("last screen:\n%s", out)
		}
	}
	_ = tm.command("kill-server").Run()
	// tmux leaves the socket file of a killed server behind.
	if strings.Contains(filepath.Base(tm.sockPath), "clawd-e2e-") {
		_ = os.Remove(tm.sockPath)
	}
}

// interactiveClaude is Claude Code's TUI running under tmux in the world.
type interactiveClaude struct {
	*tmux
	debugFile string
}

// debug returns Claude Code's debug log so far.
func (c *interactiveClaude) debug() string {
	data, err := os.ReadFile(c.debugFile)
	if err != nil {
		c.t.Errorf("claude wrote no debug log: %v", err)
	}
	return string(data)
}

// claudeCLIVersion asks the CLI for its version ("2.1.328 (Claude Code)").
func claudeCLIVersion(t *testing.T, bin string) string {
	t.Helper()
	out, err := exec.Command(bin, "--version").Output()
	fields := strings.Fields(string(out))
	if err != nil || len(fields) == 0 {
		t.Fatalf("%s --version: %v (%q)", bin, err, out)
	}
	return fields[0]
}

// writeInteractiveState writes the ~/.claude.json that lets the TUI start
// offline and straight to the prompt: onboarding done (else it checks the
// real API host and quits), the dummy API key approved (else it asks
// whether to use it) and the project trusted (else the trust dialog).
func (w *world) writeInteractiveState(version string) {
	w.t.Helper()
	state := map[string]any{
		"hasCompletedOnboarding": true,
		"lastOnboardingVersion":  version,
		"theme":                  "dark",
		"customApiKeyResponses": map[string]any{
			"approved": []string{fakeAPIKey[len(fakeAPIKey)-20:]},
			"rejected": []string{},
		},
		"projects": map[string]any{
			w.project: map[string]any{"hasTrustDialogAccepted": true, "allowedTools": []string{}},
		},
	}
	data, err := json.MarshalIndent(state, "", "  ")
	if err != nil {
		w.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(w.home, ".claude.json"), data, 0o600); err != nil {
		w.t.Fatal(err)
	}
}

// claudePrompt is the TUI's empty input line, ready for a prompt.
var claudePrompt = regexp.MustCompile(`\? for shortcuts`)

// startInteractiveClaude starts `claude --permission-mode default` (the
// default auto mode needs a server-side classifier the fake API lacks) as
// session id in the project folder under tmux, with its debug log on, and
// waits for the prompt. Waits end by deadline.
func (w *world) startInteractiveClaude(id string, deadline time.Time, args ...string) *interactiveClaude {
	w.t.Helper()
	bin := claudePath(w.t)
	w.writeInteractiveState(claudeCLIVersion(w.t, bin))
	w.claudeRun++
	debugFile := filepath.Join(w.dir, fmt.Sprintf("claude-debug-%d.log", w.claudeRun))
	argv := append([]string{bin, "--permission-mode", "default", "--session-id", id, "--debug-file", debugFile}, args...)
	c := &interactiveClaude{tmux: startTmux(w.t, w.project, 160, 50, w.claudeEnv(), argv), debugFile: debugFile}
	c.deadline = deadline
	start := time.Now()
	c.WaitFor(claudePrompt, 60*time.Second)
	w.t.Logf("interactive claude ready after %v", time.Since(start).Round(time.Millisecond))
	return c
}

// submit types a prompt, waits until it shows, then presses Enter: keys
// sent in one burst can arrive as a paste, whose Enter does not submit.
func (c *interactiveClaude) submit(prompt string) {
	c.t.Helper()
	c.Type(prompt)
	c.WaitFor(regexp.MustCompile(regexp.QuoteMeta(prompt)), 10*time.Second)
	time.Sleep(200 * time.Millisecond)
	c.SendKeys("Enter")
}

// exit types /exit and waits for claude to end; it returns the exit code.
func (c *interactiveClaude) exit() int {
	c.t.Helper()
	c.Type("/exit")
	c.WaitFor(regexp.MustCompile(`/exit`), 10*time.Second)
	time.Sleep(300 * time.Millisecond)
	c.SendKeys("Enter")
	return c.WaitExit(30 * time.Second)
}

// TestShellQuote checks the quoting of the tmux command line, which
// carries paths and environment values.
func TestShellQuote(t *testing.T) {
	for in, want := range map[string]string{
		"plain":             "plain",
		"HOME=/tmp/x":       "HOME=/tmp/x",
		"":                  "''",
		"a b":               "'a b'",
		"it's":              `'it'\''s'`,
		"$HOME":             "'$HOME'",
		"x;rm -rf /":        "'x;rm -rf /'",
		"--debug-file=/a/b": "--debug-file=/a/b",
	} {
		if got := shellQuote(in); got != want {
			t.Errorf("shellQuote(%q) = %q, want %q", in, got, want)
		}
	}
	// And the shell agrees.
	args := []string{"a b", "it's", "$HOME", "", `back\slash"`}
	var quoted []string
	for _, a := range args {
		quoted = append(quoted, shellQuote(a))
	}
	out, err := exec.Command("/bin/sh", "-c", "printf '[%s]' "+strings.Join(quoted, " ")).Output()
	if err != nil {
		t.Fatal(err)
	}
	if want := "[a b][it's][$HOME][][back\\slash\"]"; string(out) != want {
		t.Errorf("sh printed %q for the quoted args, want %q", out, want)
	}
}
