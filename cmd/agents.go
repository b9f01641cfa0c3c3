package cmd

import (
	"context"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/urfave/cli/v3"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/internal/agentinfo"
	"github.com/clawdhq/clawd/internal/text"
)

type agentsOptions struct {
	json bool
}

func newAgentsCmd(e *env) *cli.Command {
	o := &agentsOptions{}
	return &cli.Command{
		Name:  "agents",
		Usage: "list the agents clawd knows: found here, hooked up, and what clawd does for each",
		Description: "For every agent clawd supports: whether it is on this machine (its settings folder or\n" +
			"its command on PATH), whether clawd's hooks are installed and run this clawd binary,\n" +
			"its version where its npm package says it, where its settings are, what clawd shows\n" +
			"and answers for it, and what clawd cannot see.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: "print one JSON array", Destination: &o.json},
		},
		Action: func(ctx context.Context, c *cli.Command) error {
			return runAgents(e, o)
		},
	}
}

func runAgents(e *env, o *agentsOptions) error {
	binary, _ := e.executable()
	list, err := agentinfo.All(e.getenv, e.home(), binary)
	if err != nil {
		return err
	}
	if o.json {
		return printJSON(e.stdout, list, true)
	}
	// The version comes from a package.json on disk, the paths from the
	// environment, a note may quote an error: each is one inert line.
	tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "AGENT\tFOUND\tHOOKS\tVERSION\tSETTINGS")
	for _, ai := range list {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", text.Line(ai.ID, 0), yesNo(ai.Detected), yesNo(ai.Installed),
			orDash(text.Line(ai.Version, 40)), orDash(text.Line(ai.ConfigPath, 0)))
	}
	tw.Flush()
	for _, ai := range list {
		fmt.Fprintf(e.stdout, "\n%s (%s): %s\n", text.Line(ai.Name, 0), text.Line(ai.ID, 0), supportText(ai.Supports))
		for _, n := range ai.Notes {
			fmt.Fprintf(e.stdout, "  - %s\n", text.Line(n, 0))
		}
	}
	return nil
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// supportText says in words what clawd does for an agent.
func supportText(s agents.Supports) string {
	var parts []string
	if s.States {
		parts = append(parts, "states")
	}
	if s.Permissions {
		parts = append(parts, "permission answers")
	}
	if s.Titles {
		parts = append(parts, "titles")
	}
	if s.Subagents {
		parts = append(parts, "subagents")
	}
	if len(parts) == 0 {
		return "nothing yet"
	}
	return strings.Join(parts, ", ")
}
