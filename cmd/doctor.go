package cmd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/urfave/cli/v3"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/doctor"
	"github.com/clawdhq/clawd/internal/atomicfile"
)

type doctorOptions struct {
	json   bool
	fix    bool
	dryRun bool
	agent  string
	report string
}

func newDoctorCmd(e *env) *cli.Command {
	o := &doctorOptions{}
	return &cli.Command{
		Name:  "doctor",
		Usage: "check that every agent's hooks reach clawd, and repair them with --fix",
		Description: "Checks the runtime (it answers, runtime.json describes it and only you can read it, no\n" +
			"other program on its ports), every agent clawd knows (found here; its settings parse;\n" +
			"each event clawd needs runs clawd once; the commands run this clawd; the agent's own\n" +
			"switches let them run, such as a setting that turns all hooks off or trust entries the\n" +
			"agent wants for them), a connection test per installed agent (its\n" +
			"hook command, run through a shell with a minimal PATH as the agent runs it, sends a test\n" +
			"event that the runtime never shows: \"not runnable\", \"ran but nothing arrived\" or\n" +
			"\"arrived in N ms\"), the runtime's self-repair, its links to remote machines, and the\n" +
			"desktop (session bus, tray host, notifications). Each check has a stable id, a status\n" +
			"(ok, warn, fail, skipped), what was found and the fix. Exit status 1 when a check fails.\n" +
			"On a machine `clawd remote add` set up, it tests the link to the desktop instead of a\n" +
			"runtime here, and the connection tests arrive at the desktop's runtime.\n\n" +
			"--fix repairs each installed agent's hooks through its installer, with install's safety\n" +
			"rules (a backup, a temp file and rename, a file that does not parse left alone), then\n" +
			"checks again and says what is still wrong. --fix --dry-run prints the diffs and writes\n" +
			"nothing. --report FILE writes a diagnostic to share: version, OS, the checks and the last\n" +
			"lines of hook.log, with tokens, secrets and your home folder's path redacted.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: `print {"checks": [{"id", "agent", "status", "finding", "fix"}]}`, Destination: &o.json},
			&cli.BoolFlag{Name: "fix", Usage: "repair the installed agents' hooks, then check again", Destination: &o.fix},
			&cli.BoolFlag{Name: "dry-run", Aliases: []string{"n"}, Usage: "with --fix: print the diffs and write nothing", Destination: &o.dryRun},
			&cli.StringFlag{Name: "agent", Usage: "check (and fix) only `AGENT` and the runtime", Destination: &o.agent},
			&cli.StringFlag{Name: "report", Usage: "write a redacted diagnostic to `FILE`", Destination: &o.report},
		},
		Action: func(ctx context.Context, c *cli.Command) error {
			return runDoctor(ctx, e, o)
		},
	}
}

func runDoctor(ctx context.Context, e *env, o *doctorOptions) error {
	if o.dryRun && !o.fix {
		return exitCode(2, errors.New("--dry-run goes with --fix: clawd doctor --fix --dry-run"))
	}
	var list []*agents.Agent
	if o.agent != "" {
		a := agents.Lookup(o.agent)
		if a == nil {
			return exitCode(2, fmt.Errorf("unknown agent %q; known agents: %s", o.agent, knownAgents()))
		}
		list = []*agents.Agent{a}
	}
	opts := doctorEnv(e)
	rep := doctor.Run(ctx, opts, list)

	if o.fix {
		// With --json, stdout is the report alone.
		out := *e
		if o.json {
			out.stdout = e.stderr
		}
		fixList := list
		if fixList == nil {
			fixList = agents.All()
		}
		fixed := false
		for _, a := range fixList {
			if o.agent == "" && !doctor.Fixable(opts, a) {
				continue
			}
			r, err := doctor.Fix(opts, a, o.dryRun)
			if err != nil {
				fmt.Fprintf(out.stdout, "%s: cannot fix: %v\n", a.ID, err)
				continue
			}
			fixed = true
			report(&out, r, true, o.dryRun)
		}
		if !fixed {
			fmt.Fprintln(out.stdout, "nothing for --fix to repair")
		}
		if !o.dryRun && fixed {
			fmt.Fprintln(out.stdout, "\nchecking again:")
			rep = doctor.Run(ctx, opts, list)
		}
		fmt.Fprintln(out.stdout)
	}

	if o.report != "" {
		var b bytes.Buffer
		if err := doctor.WriteReport(&b, opts, rep); err != nil {
			return err
		}
		if err := atomicfile.Write(o.report, b.Bytes(), 0o600, false, nil); err != nil {
			return fmt.Errorf("write the report: %w", err)
		}
		fmt.Fprintf(e.stderr, "report written to %s\n", o.report)
	}
	if o.json {
		if err := printJSON(e.stdout, rep, true); err != nil {
			return err
		}
	} else {
		rep.WriteText(e.stdout, isTerminal(e.stdout) && e.getenv("NO_COLOR") == "")
	}
	if rep.Failed() {
		return exitCode(1, errors.New(""))
	}
	return nil
}

// doctorEnv is where and with what doctor looks: e's.
func doctorEnv(e *env) doctor.Options {
	binary, _ := e.executable()
	var environ []string
	if e.environ != nil {
		environ = e.environ()
	}
	return doctor.Options{Home: e.home(), Getenv: e.getenv, Environ: environ, Binary: binary, Version: Version(), Now: e.now}
}

// osEnviron is the process's environment, for the connection test.
func osEnviron() []string { return os.Environ() }
