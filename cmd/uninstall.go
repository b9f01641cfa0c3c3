package cmd

import (
	"context"
	"errors"
	"fmt"

	"github.com/urfave/cli/v3"

	"github.com/clawdhq/clawd/installers"
)

type uninstallOptions struct {
	all    bool
	dryRun bool
}

func newUninstallCmd(e *env) *cli.Command {
	o := &uninstallOptions{}
	return &cli.Command{
		Name:      "uninstall",
		Usage:     "remove clawd's hooks from an agent's settings",
		ArgsUsage: "AGENT...",
		Description: "Removes every clawd hook entry from the agent's user settings and nothing else\n" +
			"(for Codex, also their trust entries in config.toml): other tools' hooks stay. A file\n" +
			"nobody else changed since the install comes back exactly as it was, and its\n" +
			"<file>.clawd-backup is removed; a file clawd created is deleted again. Entries are\n" +
			"found whatever the binary that wrote them is called now (see installed.json in the\n" +
			"clawd home).\n" +
			"Agents: " + knownAgents() + ".",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "all", Usage: "every supported agent", Destination: &o.all},
			&cli.BoolFlag{Name: "dry-run", Aliases: []string{"n"}, Usage: "print the change as a diff and write nothing", Destination: &o.dryRun},
		},
		OnUsageError: installUsageError,
		Action: func(ctx context.Context, c *cli.Command) error {
			return runUninstall(ctx, e, o, c.Args().Slice())
		},
	}
}

func runUninstall(ctx context.Context, e *env, o *uninstallOptions, names []string) error {
	list, err := selectAgents("uninstall", names, o.all)
	if err != nil {
		return err
	}
	rec, err := installers.ReadRecord(e.home())
	if err != nil {
		return err
	}
	// The running binary's own entries are clawd's whatever it is called.
	self, _ := e.executable()
	var failed []error
	for _, a := range list {
		inst, err := installerFor(e, a)
		if inst == nil && err == nil {
			if o.all {
				continue
			}
			err = fmt.Errorf("clawd cannot uninstall from %s yet", a.Name)
		}
		if err != nil {
			failed = append(failed, fmt.Errorf("%s: %w", a.ID, err))
			continue
		}
		files, err := inst.uninstall(e, installers.Options{DryRun: o.dryRun, Known: rec.Known(a.ID).With(self)})
		if err != nil {
			failed = append(failed, fmt.Errorf("%s: %w", a.ID, err))
			continue
		}
		if !o.dryRun {
			rec.Uninstalled(a.ID, files...)
		}
	}
	if err := rec.Save(); err != nil {
		failed = append(failed, err)
	}
	return errors.Join(failed...)
}
