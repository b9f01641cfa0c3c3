package cmd

import "github.com/urfave/cli/v3"

func newInstallCmd(e *env) *cli.Command {
	return &cli.Command{Name: "install", Usage: "TODO"}
}
