package cmd

import "github.com/urfave/cli/v3"

func newEventsCmd(e *env) *cli.Command {
	return &cli.Command{Name: "events", Usage: "TODO"}
}
