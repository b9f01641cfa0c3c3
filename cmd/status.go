package cmd

import "github.com/urfave/cli/v3"

func newStatusCmd(e *env) *cli.Command {
	return &cli.Command{Name: "status", Usage: "TODO"}
}
