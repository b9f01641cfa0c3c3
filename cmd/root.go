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
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/internal/clawdhome"
	"github.com/clawdhq/clawd/internal/i18n"
)

// env is what every subcommand gets instead of globals: the process's
// streams, environment, clock and binary path, all replaceable in tests.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string
	// environ is the whole environment (the doctor's connection test
	// runs hooks with it); nil in tests that give getenv alone.
	environ func() []string
	now     func() time.Time
	// executable returns the absolute path of the running clawd binary,
	// which installers write into agent settings.
	executable func() (string, error)

	// hookStdinWait bounds the hook's wait for the agent to close stdin
	// (0: two seconds). An agent that never does still gets its event
	// through when what arrived by then is one complete JSON value.
	hookStdinWait time.Duration
	// permissionWait is how long the hook waits for a decision on a
	// blocking event (nil: the agent's PermissionWait).
	permissionWait func(a *agents.Agent, hookEvent string) time.Duration

	langOnce sync.Once
	lang     i18n.Printer // see printer
}

// columns is the width a table fits in: $COLUMNS when it is a number,
// else that of the terminal stdout is, else 0: no limit, nothing cut (a
// pipe or a file gets whole lines).
func (e *env) columns() int {
	if n, err := strconv.Atoi(strings.TrimSpace(e.getenv("COLUMNS"))); err == nil && n > 0 {
		return n
	}
	if f, ok := e.stdout.(*os.File); ok && isTerminal(f) {
		return terminalWidth(f)
	}
	return 0
}

// colour reports whether output may be coloured: stdout is a terminal,
// NO_COLOR (no-color.org) is not set, and TERM is not dumb.
func (e *env) colour() bool {
	return isTerminal(e.stdout) && e.getenv("NO_COLOR") == "" && e.getenv("TERM") != "dumb"
}

// stdinWait is e.hookStdinWait, or its default.
func (e *env) stdinWait() time.Duration {
	if e.hookStdinWait > 0 {
		return e.hookStdinWait
	}
	return 2 * time.Second
}

// permissionWaitFor is how long the hook waits for the decision on a's
// blocking hookEvent.
func (e *env) permissionWaitFor(a *agents.Agent, hookEvent string) time.Duration {
	if e.permissionWait != nil {
		return e.permissionWait(a, hookEvent)
	}
	return a.PermissionWait(hookEvent)
}

// home returns the clawd home folder.
func (e *env) home() string { return clawdhome.Dir(e.getenv) }

// writingTo returns a copy of e that prints to w (both stdout and stderr),
// in the same language.
func (e *env) writingTo(w io.Writer) *env {
	sub := &env{stdin: e.stdin, stdout: w, stderr: w, getenv: e.getenv, now: e.now,
		executable: e.executable, hookStdinWait: e.hookStdinWait, permissionWait: e.permissionWait, lang: e.printer()}
	sub.langOnce.Do(func() {}) // the language is e's
	return sub
}

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
		environ:    osEnviron,
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
	// urfave's help answers an unknown topic ("clawd help frobnicate")
	// with this callback, which returns nothing: note the error here.
	var unknown error
	root.CommandNotFound = func(_ context.Context, c *cli.Command, name string) { unknown = unknownCommand(c, name) }
	// A flag the root does not take after a word that is no command
	// ("clawd sevre --headless"): the word is the mistake to name.
	root.OnUsageError = func(_ context.Context, c *cli.Command, err error, _ bool) error {
		if len(args) > 1 && !strings.HasPrefix(args[1], "-") && c.Command(args[1]) == nil {
			return unknownCommand(c, args[1])
		}
		return exitCode(2, err)
	}
	err := root.Run(ctx, args)
	if err == nil {
		err = unknown
	}
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

// agentNames lists the agents' product names for a sentence in the
// person's language.
func agentNames(e *env) string {
	var names []string
	for _, a := range agents.All() {
		names = append(names, a.Name)
	}
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], e.t("list.sep")) + e.t("list.and") + names[len(names)-1]
}

func newRootCmd(e *env) *cli.Command {
	root := &cli.Command{
		Name:           "clawd",
		Usage:          e.t("help.root"),
		Description:    e.t("help.root_description", agentNames(e)),
		Version:        versionString(),
		Reader:         e.stdin,
		Writer:         e.stdout,
		ErrWriter:      e.stderr,
		ExitErrHandler: func(context.Context, *cli.Command, error) {},
		Suggest:        true,
		// Without a command, the help; with an unknown one, an error. The
		// default would take any word for a help topic.
		Action: func(ctx context.Context, c *cli.Command) error {
			if c.Bool("version") {
				cli.ShowVersion(c)
				return nil
			}
			if c.Args().Present() {
				return unknownCommand(c, c.Args().First())
			}
			return cli.ShowRootCommandHelp(c)
		},
		Commands: []*cli.Command{
			newServeCmd(e),
			newStatusCmd(e),
			newEventsCmd(e),
			newPermissionsCmd(e),
			newAnswerCmd(e),
			newPlanCmd(e),
			newDNDCmd(e),
			newHistoryCmd(e),
			newResumeCmd(e),
			newRenameCmd(e),
			newRecapCmd(e),
			newDashboardCmd(e),
			newAgentsCmd(e),
			newDoctorCmd(e),
			newAutomationsCmd(e),
			newRemoteCmd(e),
			newChannelsCmd(e),
			newInstallCmd(e),
			newUninstallCmd(e),
			newAutostartCmd(e),
			newHookCmd(e),
			newVersionCmd(e),
		},
	}
	root.Commands = append(root.Commands, topicCommands(e)...)
	// A bad flag or argument is one line and exit 2, whichever command it
	// was given to, not the whole help.
	var usage func(cmds []*cli.Command)
	usage = func(cmds []*cli.Command) {
		for _, c := range cmds {
			if c.OnUsageError == nil {
				c.OnUsageError = usageError
			}
			usage(c.Commands)
		}
	}
	localizeHelp(e, root)
	groupCommands(e.printer(), root)
	root.Flags = append(root.Flags, versionFlag(e))
	usage(root.Commands)
	enableCompletion(e, root)
	return root
}

// usageError is the exit-2 error of a flag or an argument a command does
// not take.
func usageError(ctx context.Context, c *cli.Command, err error, isSubcommand bool) error {
	return exitCode(2, err)
}

// unknownCommand is the exit-2 error for a word that names no command of
// c, with the command it was probably meant to be.
func unknownCommand(c *cli.Command, name string) error {
	names := []string{"help"}
	for _, sub := range c.VisibleCommands() {
		for _, n := range sub.Names() {
			// A one-letter alias is one typo away from any letter.
			if len(n) > 2 {
				names = append(names, n)
			}
		}
	}
	if m := nearest(name, names); m != "" {
		return exitCode(2, fmt.Errorf("unknown command %q: did you mean %q?", name, m))
	}
	return exitCode(2, fmt.Errorf("unknown command %q: see `clawd help`", name))
}

// nearest returns the name of names that typed is closest to, when it is
// close: a typo (at most one edit in a short name, two in a longer one),
// or else the start of that name alone. It returns "" when no name, or
// more than one equally, is close.
func nearest(typed string, names []string) string {
	typed = strings.ToLower(typed)
	best, bestDist, tie := "", 0, false
	var prefixed []string
	for _, n := range names {
		limit := 1
		if len(n) > 4 {
			limit = 2
		}
		switch d := editDistance(typed, n); {
		case d > limit:
		case best == "" || d < bestDist:
			best, bestDist, tie = n, d, false
		case d == bestDist:
			tie = true
		}
		if len(typed) >= 2 && strings.HasPrefix(n, typed) {
			prefixed = append(prefixed, n)
		}
	}
	switch {
	case best != "" && !tie:
		return best
	case best == "" && len(prefixed) == 1:
		return prefixed[0]
	}
	return ""
}

// editDistance is the optimal string alignment distance of a and b: the
// insertions, deletions, substitutions and swaps of neighbours that turn
// one into the other.
func editDistance(a, b string) int {
	x, y := []rune(a), []rune(b)
	d := make([][]int, len(x)+1)
	for i := range d {
		d[i] = make([]int, len(y)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(x); i++ {
		for j := 1; j <= len(y); j++ {
			cost := 1
			if x[i-1] == y[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && x[i-1] == y[j-2] && x[i-2] == y[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(x)][len(y)]
}
