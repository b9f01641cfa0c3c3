package cmd

import "github.com/urfave/cli/v3"

func newUninstallCmd(e *env) *cli.Command {
	return &cli.Command{Name: "uninstall", Usage: "TODO"}
}
