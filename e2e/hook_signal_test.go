//go:build !windows

package e2e

import (
	"bytes"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/clawdhq/clawd/runtime/client"
)

// TestHookQuietOnSIGTERM: when the person answers in the terminal first,
// Claude Code SIGTERMs the running hook. The hook must end at once with
// exit 0 and print nothing: no stack trace, no late answer.
func TestHookQuietOnSIGTERM(t *testing.T) {
	w := newWorld(t)
	// A runtime that accepts the connection and never answers, so the
	// hook is certainly mid-request when the signal comes.
	ln, err := net.Listen("unix", client.SocketPath(w.clawdHome))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := ln.Accept()
		if err == nil {
			accepted <- c
		}
	}()
	payload, err := os.ReadFile(filepath.Join("..", "testdata", "claude", "hooks", "PermissionRequest.json"))
	if err != nil {
		t.Fatal(err)
	}

	cmd := exec.Command(clawdBin, "hook", "claude")
	cmd.Env = w.clawdEnv()
	cmd.Stdin = bytes.NewReader(payload)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	select {
	case c := <-accepted:
		defer c.Close()
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatal("the hook never connected to the runtime")
	}
	start := time.Now()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	err = cmd.Wait()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		t.Fatalf("hook after SIGTERM: %v (stderr %q), want exit 0", err, stderr.String())
	} else if err != nil {
		t.Fatal(err)
	}
	if stdout.Len() != 0 || stderr.Len() != 0 {
		t.Errorf("hook after SIGTERM printed stdout %q stderr %q, want nothing", stdout.String(), stderr.String())
	}
	t.Logf("hook exited %v after SIGTERM", time.Since(start).Round(time.Millisecond))
	if b, _ := os.ReadFile(filepath.Join(w.clawdHome, "logs", "hook.log")); len(b) != 0 {
		t.Errorf("hook.log after a SIGTERM = %q, want nothing: being told to stop is not a failure", b)
	}
}
