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
	"github.com/clawdhq/clawd/internal/autostart"
)

type doctorOptions struct {
	json   bool
	fix    bool
	dryRun bool
	all    bool
	agent  string
	report string
}

func newDoctorCmd(e *env) *cli.Command {
	o := &doctorOptions{}
	return &cli.Command{
		Name:        "doctor",
		Usage:       e.t("help.doctor.usage"),
		Description: e.t("help.doctor.description"),
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: e.t("help.doctor.flag_json"), Destination: &o.json},
			&cli.BoolFlag{Name: "fix", Usage: e.t("help.doctor.flag_fix"), Destination: &o.fix},
			&cli.BoolFlag{Name: "dry-run", Aliases: []string{"n"}, Usage: e.t("help.doctor.flag_dry_run"), Destination: &o.dryRun},
			&cli.BoolFlag{Name: "all", Usage: e.t("help.doctor.flag_all"), Destination: &o.all},
			&cli.StringFlag{Name: "agent", Usage: e.t("help.doctor.flag_agent"), Destination: &o.agent},
			&cli.StringFlag{Name: "report", Usage: e.t("help.doctor.flag_report"), Destination: &o.report},
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
	opts.All = o.all
	rep := doctor.Run(ctx, opts, list)

	if o.fix {
		// With --json, stdout is the report alone.
		out := e
		if o.json {
			out = e.writingTo(e.stderr)
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
				printWrapped(out.stdout, out.columns(), 2, out.t("doctor.cannot_fix", a.ID, err.Error()))
				continue
			}
			fixed = true
			report(out, r, true, o.dryRun)
		}
		if !fixed {
			fmt.Fprintln(out.stdout, out.t("doctor.nothing_to_fix"))
		}
		if !o.dryRun && fixed {
			fmt.Fprintln(out.stdout, "\n"+out.t("doctor.checking_again"))
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
		rep.WriteText(e.stdout, isTerminal(e.stdout) && e.getenv("NO_COLOR") == "", e.printer(), e.columns())
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
	return doctor.Options{Home: e.home(), Getenv: e.getenv, Environ: environ, Binary: binary, Version: Version(), Now: e.now,
		Autostart: func(ctx context.Context) (autostart.Status, error) { return autostart.Check(ctx, e.autostart()) }}
}

// osEnviron is the process's environment, for the connection test.
func osEnviron() []string { return os.Environ() }
