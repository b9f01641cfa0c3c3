package cmd

import (
	"context"

	"github.com/urfave/cli/v3"
)

type uninstallOptions struct {
	all    bool
	dryRun bool
}

func newUninstallCmd(e *env) *cli.Command {
	o := &uninstallOptions{}
	return &cli.Command{
		Name:          "uninstall",
		Usage:         e.t("help.uninstall"),
		ArgsUsage:     "AGENT...",
		ShellComplete: completeArgs(agentWords),
		Description: "Removes every clawd hook entry from the agent's user settings and nothing else\n" +
			"(and what clawd added with them, such as trust entries): other tools' hooks stay. A file\n" +
			"nobody else changed since the install comes back exactly as it was, and its\n" +
			"<file>.clawd-backup is removed; a file clawd created is deleted again. Entries are\n" +
			"found whatever the binary that wrote them is called now (see installed.json in the\n" +
			"clawd home).\n" +
			"Agents: " + knownAgents() + ".",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "all", Usage: "every agent whose settings folder exists here, one line each", Destination: &o.all},
			&cli.BoolFlag{Name: "dry-run", Aliases: []string{"n"}, Usage: "print the change as a diff and write nothing", Destination: &o.dryRun},
		},
		Action: func(ctx context.Context, c *cli.Command) error {
			return runUninstall(ctx, e, o, c.Args().Slice())
		},
	}
}

func runUninstall(ctx context.Context, e *env, o *uninstallOptions, names []string) error {
	return runInstallers(e, false, o.all, o.dryRun, names)
}
