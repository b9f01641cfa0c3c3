package cmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/internal/text"
	"github.com/clawdhq/clawd/remote"
	"github.com/clawdhq/clawd/runtime/client"
)

type resumeOptions struct {
	print bool
	force bool
}

func newResumeCmd(e *env) *cli.Command {
	o := &resumeOptions{}
	return &cli.Command{
		Name:        "resume",
		Usage:       e.t("help.resume.usage"),
		ArgsUsage:   "SESSION",
		Description: e.t("help.resume.description", resumeCommands(e)),
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "print", Usage: e.t("help.resume.flag_print"), Destination: &o.print},
			&cli.BoolFlag{Name: "force", Usage: e.t("help.resume.flag_force"), Destination: &o.force},
		},
		Action: func(ctx context.Context, c *cli.Command) error {
			if c.Args().Len() != 1 {
				return exitCode(2, errors.New("usage: clawd resume SESSION"))
			}
			return runResume(ctx, e, c.Args().First(), o)
		},
	}
}

// resumeCommands lists each agent's resume command, one a line.
func resumeCommands(e *env) string {
	width := 0
	for _, a := range agents.All() {
		width = max(width, len(a.Name))
	}
	var b strings.Builder
	for _, a := range agents.All() {
		cmd := e.t("help.resume.none")
		if a.Resume != nil {
			cmd = strings.Join(append([]string{a.Command}, a.Resume("ID")...), " ")
		}
		fmt.Fprintf(&b, "  %-*s  %s\n", width, a.Name, cmd)
	}
	return b.String()
}

func runResume(ctx context.Context, e *env, session string, o *resumeOptions) error {
	c, err := connect(ctx, e)
	if err != nil {
		return err
	}
	s, err := resolveSession(ctx, c, session)
	if err != nil {
		return err
	}
	name := text.Line(s.Agent+":"+s.SessionID, 0)
	a := agents.Lookup(s.Agent)
	switch {
	case a == nil:
		return exitCode(1, fmt.Errorf("%s: clawd knows no agent %q, so no way to resume its sessions", name, text.Line(s.Agent, 0)))
	case a.Resume == nil:
		return exitCode(1, fmt.Errorf("%s: clawd knows no way to resume a session of %s by its id", name, a.Name))
	case s.Cwd == "":
		return exitCode(1, fmt.Errorf("%s: clawd does not know which folder it ran in", name))
	}
	argv := append([]string{a.Command}, a.Resume(client.AgentSessionID(s.Host, s.SessionID))...)
	if s.Host != "" {
		return resumeRemote(ctx, e, s, name, argv, o)
	}
	if o.print {
		fmt.Fprintf(e.stdout, "cd %s && %s\n", shellQuote(s.Cwd), shellJoin(argv))
		return nil
	}
	if s.Live && !o.force {
		return errRunning(name)
	}
	if fi, err := os.Stat(s.Cwd); err != nil || !fi.IsDir() {
		return exitCode(1, fmt.Errorf("%s ran in %s, which is not there any more", name, text.Line(s.Cwd, 0)))
	}
	bin, err := exec.LookPath(a.Command)
	if err != nil {
		return exitCode(1, fmt.Errorf("%s: %s (%s) is not on PATH", name, a.Name, a.Command))
	}
	fmt.Fprintf(e.stderr, "clawd: resuming %s in %s: %s\n", name, text.Line(s.Cwd, 0), text.Line(shellJoin(argv), 0))
	cmd := exec.CommandContext(ctx, bin, argv[1:]...)
	cmd.Dir = s.Cwd
	return runHere(e, cmd, a.Command)
}

func errRunning(name string) error {
	return exitCode(1, fmt.Errorf("%s is running now: go to its terminal (`clawd status`), or pass --force to start a second copy of it", name))
}

// resumeRemote resumes a session of a remote machine there, through the
// remote profile's ssh or wsl.exe, in this terminal.
func resumeRemote(ctx context.Context, e *env, s client.HistoryEntry, name string, argv []string, o *resumeOptions) error {
	st, err := remote.Load(e.home())
	if err != nil {
		return exitCode(1, err)
	}
	p := st.ByLabel(s.Host)
	if p == nil {
		return exitCode(1, fmt.Errorf("%s ran on %s, which is no remote of this clawd any more: resume it there with `cd %s && %s`",
			name, text.Line(s.Host, 0), shellQuote(s.Cwd), shellJoin(argv)))
	}
	command := remotePrograms(e).Interactive(p, s.Cwd, argv)
	if o.print {
		fmt.Fprintln(e.stdout, shellJoin(command))
		return nil
	}
	if s.Live && !o.force {
		return errRunning(name)
	}
	fmt.Fprintf(e.stderr, "clawd: resuming %s on %s in %s: %s\n", name, text.Line(s.Host, 0), text.Line(s.Cwd, 0), text.Line(shellJoin(argv), 0))
	return runHere(e, exec.CommandContext(ctx, command[0], command[1:]...), command[0])
}

// runHere runs cmd in this terminal and exits as it does.
func runHere(e *env, cmd *exec.Cmd, prog string) error {
	cmd.Stdin, cmd.Stdout, cmd.Stderr = e.stdin, e.stdout, e.stderr
	// Ctrl-C belongs to the agent now (the terminal sends it to both):
	// clawd waits for the agent to end rather than dying before it.
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt)
	defer signal.Stop(sig)
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &ee) && ee.ExitCode() > 0:
		return exitCode(ee.ExitCode(), errors.New(""))
	}
	return exitCode(1, fmt.Errorf("run %s: %w", prog, err))
}

// shellQuote quotes s for a POSIX shell when it needs it. A string with
// control or format characters is spelled in ANSI-C quotes ($'...', which
// bash and zsh read) with those characters as escapes: printed, the
// command cannot repaint the terminal, and pasted, it names the same
// folder.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789@%+=:,./_-") == "" {
		return s
	}
	hidden := func(r rune) bool { return r < 0x20 || r == 0x7f || text.Hidden(r) }
	if !strings.ContainsFunc(s, hidden) {
		return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
	}
	var b strings.Builder
	b.WriteString("$'")
	for _, r := range s {
		switch {
		case r == '\\' || r == '\'':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x80 && hidden(r):
			fmt.Fprintf(&b, `\x%02x`, r)
		case hidden(r) && r <= 0xffff:
			fmt.Fprintf(&b, `\u%04x`, r)
		case hidden(r):
			fmt.Fprintf(&b, `\U%08x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('\'')
	return b.String()
}

func shellJoin(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = shellQuote(a)
	}
	return strings.Join(q, " ")
}
