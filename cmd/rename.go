package cmd

import (
	"context"
	"errors"
	"fmt"

	"github.com/urfave/cli/v3"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/internal/text"
)

type renameOptions struct {
	clear bool
}

func newRenameCmd(e *env) *cli.Command {
	o := &renameOptions{}
	return &cli.Command{
		Name:        "rename",
		Usage:       e.t("help.rename.usage"),
		ArgsUsage:   "SESSION TITLE",
		Description: e.t("help.rename.description"),
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "clear", Usage: e.t("help.rename.flag_clear"), Destination: &o.clear},
		},
		Action: func(ctx context.Context, c *cli.Command) error {
			args := c.Args().Slice()
			switch {
			case o.clear && len(args) == 1:
				return runRename(ctx, e, args[0], "", true)
			case !o.clear && len(args) == 2:
				return runRename(ctx, e, args[0], args[1], false)
			}
			return exitCode(2, fmt.Errorf("usage: clawd rename SESSION TITLE, or clawd rename --clear SESSION"))
		},
	}
}

func runRename(ctx context.Context, e *env, session, title string, clear bool) error {
	if !clear {
		t, err := agents.PersonTitle(title)
		if err != nil {
			return exitCode(1, err)
		}
		if t == "" {
			return exitCode(2, errors.New("the title is empty: to take yours away, use --clear"))
		}
	}
	c, err := connect(ctx, e)
	if err != nil {
		return err
	}
	got, err := c.Rename(ctx, session, title)
	if err != nil {
		return apiError(err)
	}
	name := text.Line(got.Agent+":"+got.SessionID, 0)
	if clear {
		fmt.Fprintln(e.stdout, e.t("rename.gone", name, text.Line(got.Title, 0)))
		return nil
	}
	fmt.Fprintln(e.stdout, e.t("rename.now", name, text.Line(got.Title, 0)))
	return nil
}
