package cmd

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/clawdhq/clawd/internal/present"
	"github.com/clawdhq/clawd/runtime/client"
)

// newPlanCmd is `clawd plan show|approve|keep ID`: an agent's plan
// review (Claude Code's ExitPlanMode), read whole, approved or sent back
// to keep planning.
func newPlanCmd(e *env) *cli.Command {
	var message string
	return &cli.Command{
		Name:        "plan",
		Usage:       e.t("help.plan.usage"),
		Description: e.t("help.plan.description"),
		Commands: []*cli.Command{
			{
				Name: "show", Usage: e.t("help.plan.show.usage"), ArgsUsage: "ID",
				ShellComplete: completeArgs(pendingWords(e)),
				Action: func(ctx context.Context, c *cli.Command) error {
					return runPlan(ctx, e, "show", c.Args().Slice(), "")
				},
			},
			{
				Name: "approve", Usage: e.t("help.plan.approve.usage"), ArgsUsage: "ID",
				ShellComplete: completeArgs(pendingWords(e)),
				Action: func(ctx context.Context, c *cli.Command) error {
					return runPlan(ctx, e, "approve", c.Args().Slice(), "")
				},
			},
			{
				Name: "keep", Usage: e.t("help.plan.keep.usage"), ArgsUsage: "ID",
				Flags: []cli.Flag{
					&cli.StringFlag{Name: "message", Aliases: []string{"m"}, Usage: e.t("help.plan.keep.flag_message"), Destination: &message},
				},
				ShellComplete: completeArgs(pendingWords(e)),
				Action: func(ctx context.Context, c *cli.Command) error {
					return runPlan(ctx, e, "keep", c.Args().Slice(), message)
				},
			},
		},
		Action: func(ctx context.Context, c *cli.Command) error {
			if c.Args().Len() > 0 {
				return exitCode(2, fmt.Errorf("unknown subcommand %q: use show, approve or keep", c.Args().First()))
			}
			return exitCode(2, errors.New("usage: clawd plan show|approve|keep ID (the ID from `clawd permissions`)"))
		},
	}
}

// runPlan shows, approves or sends back (keep) the plan of request
// args[0], once it read that the request is one.
func runPlan(ctx context.Context, e *env, verb string, args []string, message string) error {
	if len(args) != 1 || args[0] == "" {
		return exitCode(2, fmt.Errorf("usage: clawd plan %s ID (the ID from `clawd permissions`)", verb))
	}
	c, d, err := requestOfKind(ctx, e, args[0], client.KindPlan, "a plan review", "see `clawd permissions`")
	if err != nil {
		return err
	}
	id := d.ID
	switch verb {
	case "show":
		lines, _ := present.PlanLines(d.Plan, 0, 0)
		fmt.Fprintln(e.stdout, strings.Join(lines, "\n"))
		return nil
	case "approve":
		_, err = c.Decide(ctx, id, client.DecisionBody{Behavior: client.Allow, Via: client.SourceCLI})
	default:
		_, err = c.Decide(ctx, id, client.DecisionBody{Behavior: client.Deny, Message: message, Via: client.SourceCLI})
	}
	if err != nil {
		return permissionError(err, id)
	}
	who := cell(present.AgentName(d.Agent))
	key := "permissions.done.plan_kept"
	if verb == "approve" {
		key = "permissions.done.plan_approved"
	}
	printWrapped(e.stdout, e.columns(), 2, e.t(key, id, who))
	return nil
}
