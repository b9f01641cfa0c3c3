package cmd

import "github.com/urfave/cli/v3"

func newServeCmd(e *env) *cli.Command {
	return &cli.Command{Name: "serve", Usage: "TODO"}
}
