package cmd

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/urfave/cli/v3"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/doctor"
	"github.com/clawdhq/clawd/installers"
	"github.com/clawdhq/clawd/internal/text"
	"github.com/clawdhq/clawd/runtime/client"
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
	list, err := agentList(e)
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
		what := supportText(ai.Supports)
		if ai.Unsupported != "" {
			what = "not supported: " + ai.Unsupported
		}
		fmt.Fprintf(e.stdout, "\n%s (%s): %s\n", text.Line(ai.Name, 0), text.Line(ai.ID, 0), what)
		if ai.Verified != "" {
			fmt.Fprintf(e.stdout, "  verified: %s\n", ai.Verified)
		}
		for _, n := range ai.Notes {
			fmt.Fprintf(e.stdout, "  - %s\n", text.Line(n, 0))
		}
	}
	return nil
}

// agentList finds out what clawd knows of every agent here: `clawd
// agents` prints it, and clawd serve hands it to the dashboard.
func agentList(e *env) ([]client.AgentInfo, error) {
	binary, _ := e.executable()
	rec, err := installers.ReadRecord(e.home())
	if err != nil {
		return nil, err
	}
	list := []client.AgentInfo{}
	for _, a := range agents.All() {
		list = append(list, inspectAgent(e, a, binary, rec))
	}
	return list, nil
}

// inspectAgent finds out what `clawd agents` says of a.
func inspectAgent(e *env, a *agents.Agent, binary string, rec *installers.Record) client.AgentInfo {
	ai := client.AgentInfo{ID: a.ID, Name: a.Name, Supports: a.Supports, Notes: append([]string{}, a.Notes...),
		Verified: a.Verified, Unsupported: a.Unsupported}
	f := doctor.Detect(a, e.getenv)
	if f.DirErr != nil {
		ai.Notes = append(ai.Notes, f.DirErr.Error())
	}
	ai.ConfigPath, ai.Detected, ai.Version = f.Dir, f.Detected(), f.Version
	inst, err := installers.For(a, e.getenv)
	if err != nil {
		if !errors.Is(err, installers.ErrUnsupported) {
			ai.Notes = append(ai.Notes, err.Error())
		}
		return ai
	}
	// Installed means an install would change nothing: every hook is
	// there and runs this binary.
	rep, err := inst.Install(binary, installers.Options{DryRun: true, Known: rec.Known(a.ID).With(binary)})
	if err != nil {
		ai.Notes = append(ai.Notes, "cannot read its settings: "+err.Error())
		return ai
	}
	ai.ConfigPath = rep.Handlers
	ai.Installed = !rep.Any()
	return ai
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
