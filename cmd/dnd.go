package cmd

import (
	"context"
	"fmt"

	"github.com/urfave/cli/v3"

	"github.com/clawdhq/clawd/runtime/client"
)

type dndOptions struct {
	json bool
}

func newDNDCmd(e *env) *cli.Command {
	o := &dndOptions{}
	return &cli.Command{
		Name:        "dnd",
		Usage:       e.t("help.dnd.usage"),
		ArgsUsage:   "[on|off]",
		Description: e.t("help.dnd.description"),
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: e.t("help.dnd.flag_json"), Destination: &o.json},
		},
		Action: func(ctx context.Context, c *cli.Command) error {
			return runDND(ctx, e, o, c.Args().Slice())
		},
	}
}

func runDND(ctx context.Context, e *env, o *dndOptions, args []string) error {
	var set, on bool
	switch {
	case len(args) == 0:
	case len(args) == 1 && (args[0] == "on" || args[0] == "off"):
		set, on = true, args[0] == "on"
	default:
		return exitCode(2, fmt.Errorf("usage: clawd dnd [on|off]"))
	}
	c, err := connect(ctx, e)
	if err != nil {
		return err
	}
	if set {
		if err := c.SetDND(ctx, on); err != nil {
			return permissionError(err, "")
		}
	}
	on, err = c.DND(ctx)
	if err != nil {
		return permissionError(err, "")
	}
	if o.json {
		return printJSON(e.stdout, client.DND{On: on}, false)
	}
	state := e.t("dnd.off")
	if on {
		state = e.t("dnd.on")
	}
	fmt.Fprintln(e.stdout, e.t("dnd.state", state))
	return nil
}
