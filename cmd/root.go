// Package cmd is clawd's command line: one file per subcommand, all output
// through the injected writers.
package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	goruntime "runtime"
	"runtime/debug"
	"strings"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/internal/clawdhome"
)

// env is what every subcommand gets instead of globals: the process's
// streams, environment, clock and binary path, all replaceable in tests.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string
	now            func() time.Time
	// executable returns the absolute path of the running clawd binary,
	// which installers write into agent settings.
	executable func() (string, error)
}

// home returns the clawd home folder.
func (e *env) home() string { return clawdhome.Dir(e.getenv) }

// exitError carries a process exit code with an error message.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// exitCode wraps err so Main exits with code.
func exitCode(code int, err error) error { return &exitError{code: code, err: err} }

// Main runs clawd with args (args[0] is the program name) and returns the
// process exit code.
func Main(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 1 && isHook(args[1:]) {
		// A hook process lives for milliseconds and holds at most a few
		// copies of its input (capped at 4 MiB): collecting garbage only
		// costs it time (a 4 MiB prompt: 46 ms with the collector, 22 ms
		// without). The memory limit still bounds it.
		debug.SetGCPercent(-1)
		debug.SetMemoryLimit(256 << 20)
	}
	e := &env{
		stdin:      stdin,
		stdout:     stdout,
		stderr:     stderr,
		getenv:     os.Getenv,
		now:        time.Now,
		executable: executablePath,
	}
	return run(ctx, e, args)
}

func isHook(args []string) bool {
	_, ok := hookFastArgs(args)
	return ok
}

func run(ctx context.Context, e *env, args []string) int {
	if o, ok := hookFastArgs(args[1:]); ok {
		// The tray's systray package pins the main goroutine to the main
		// thread in its init (macOS wants the tray there). The hook has
		// no tray: unpinned, its waits need no thread handoffs.
		goruntime.UnlockOSThread()
		runHook(ctx, e, o)
		return 0
	}
	root := newRootCmd(e)
	err := root.Run(ctx, args)
	if err == nil {
		return 0
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if msg := ee.err.Error(); msg != "" {
			fmt.Fprintln(e.stderr, "clawd: "+msg)
		}
		return ee.code
	}
	fmt.Fprintln(e.stderr, "clawd: "+err.Error())
	return 1
}

// agentNames lists the agents' product names for a sentence.
func agentNames() string {
	var names []string
	for _, a := range agents.All() {
		names = append(names, a.Name)
	}
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

func newRootCmd(e *env) *cli.Command {
	return &cli.Command{
		Name:  "clawd",
		Usage: "see and answer every AI coding agent on this machine",
		Description: "clawd watches " + agentNames() + " through their own hooks.\n" +
			"Run `clawd install --all` (or name an agent) once, keep `clawd serve` running, and use\n" +
			"`clawd status` or `clawd events` to see what every session is doing. Hooks and\n" +
			"these commands talk to the runtime over a socket only this user can reach.",
		Version:        versionString(),
		Reader:         e.stdin,
		Writer:         e.stdout,
		ErrWriter:      e.stderr,
		ExitErrHandler: func(context.Context, *cli.Command, error) {},
		Suggest:        true,
		Commands: []*cli.Command{
			newServeCmd(e),
			newStatusCmd(e),
			newEventsCmd(e),
			newPermissionsCmd(e),
			newDNDCmd(e),
			newAgentsCmd(e),
			newAutomationsCmd(e),
			newInstallCmd(e),
			newUninstallCmd(e),
			newHookCmd(e),
			newVersionCmd(e),
		},
	}
}
