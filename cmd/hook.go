package cmd

import "github.com/urfave/cli/v3"

func newHookCmd(e *env) *cli.Command {
	return &cli.Command{Name: "hook", Usage: "TODO"}
}
