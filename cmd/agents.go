package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/doctor"
	"github.com/clawdhq/clawd/installers"
	"github.com/clawdhq/clawd/internal/config"
	"github.com/clawdhq/clawd/internal/text"
	"github.com/clawdhq/clawd/runtime/client"
)

type agentsOptions struct {
	json bool
	all  bool
}

func newAgentsCmd(e *env) *cli.Command {
	o := &agentsOptions{}
	return &cli.Command{
		Name:        "agents",
		Usage:       e.t("help.agents.usage"),
		Description: e.t("help.agents.description"),
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: e.t("help.agents.flag_json"), Destination: &o.json},
			&cli.BoolFlag{Name: "all", Usage: e.t("help.agents.flag_all"), Destination: &o.all},
		},
		Action: func(ctx context.Context, c *cli.Command) error {
			return runAgents(e, o)
		},
	}
}

func runAgents(e *env, o *agentsOptions) error {
	cfg, err := config.Load(e.home())
	if err != nil {
		// The error names the file, the line and the key to fix.
		return exitCode(1, err)
	}
	list, err := agentList(e, cfg)
	if err != nil {
		return err
	}
	// Without --all, the agents on this machine, and those clawd's hooks
	// are in: the rest are one line.
	notHere := 0
	if !o.all {
		here := list[:0:0]
		for _, ai := range list {
			if ai.Detected || ai.Installed {
				here = append(here, ai)
			}
		}
		notHere, list = len(list)-len(here), here
	}
	if o.json {
		return printJSON(e.stdout, list, true)
	}
	if len(list) == 0 {
		fmt.Fprintln(e.stdout, e.t("agents.none_here"))
		return nil
	}
	// The version comes from a package.json on disk, the paths from the
	// environment, a note may quote an error: each is one inert line.
	yesNo := func(b bool) string {
		if b {
			return e.t("agents.yes")
		}
		return e.t("agents.no")
	}
	rows := [][]string{strings.Split(e.t("agents.header"), "\t")}
	for _, ai := range list {
		rows = append(rows, []string{text.Line(ai.ID, 0), yesNo(ai.Detected), yesNo(ai.Installed),
			orDash(text.Line(ai.Version, 40)), orDash(strings.Join(ai.Tested, ",")), orDash(text.Line(ai.ConfigPath, 0))})
	}
	// A settings path cut says nothing: too narrow for them whole, the
	// paths go under each agent's name instead, where they wrap. The
	// version gives way, and the releases tested go, before the agent,
	// FOUND or HOOKS is cut.
	width, whole := e.columns(), newTable(io.Discard)
	for _, r := range rows {
		whole.Row(r...)
	}
	narrow := width > 0 && whole.Width() > width
	tw := newTable(e.stdout).Fit(width).Give(3).Drop(4)
	for _, r := range rows {
		if narrow {
			r = r[:5]
		}
		tw.Row(r...)
	}
	tw.Flush()
	for _, ai := range list {
		what := supportText(e, ai.Supports)
		if ai.Unsupported != "" {
			what = e.t("agents.unsupported", ai.Unsupported)
		}
		fmt.Fprintln(e.stdout)
		printWrapped(e.stdout, width, 2, fmt.Sprintf("%s (%s): %s", text.Line(ai.Name, 0), text.Line(ai.ID, 0), what))
		if ai.Disabled {
			printWrapped(e.stdout, width, 4, e.t("agents.disabled"))
		}
		if ai.Verified != "" {
			printWrapped(e.stdout, width, 4, e.t("agents.verified", ai.Verified))
		}
		if narrow && ai.ConfigPath != "" {
			printWrapped(e.stdout, width, 4, e.t("agents.settings", text.Line(ai.ConfigPath, 0)))
		}
		for _, n := range ai.Notes {
			printWrapped(e.stdout, width, 4, "  - "+text.Line(n, 0))
		}
	}
	if notHere > 0 {
		fmt.Fprintln(e.stdout)
		printWrapped(e.stdout, width, 0, e.n("agents.not_here", notHere))
	}
	return nil
}

// agentList finds out what clawd knows of every agent here, with cfg's
// switches: `clawd agents` prints it, and clawd serve hands it to the
// dashboard (with the config it read when it started, the one it obeys).
func agentList(e *env, cfg config.Config) ([]client.AgentInfo, error) {
	binary, _ := e.executable()
	rec, err := installers.ReadRecord(e.home())
	if err != nil {
		return nil, err
	}
	list := []client.AgentInfo{}
	for _, a := range agents.All() {
		ai := inspectAgent(e, a, binary, rec)
		ai.Disabled = !cfg.Enabled(a.ID)
		list = append(list, ai)
	}
	return list, nil
}

// inspectAgent finds out what `clawd agents` says of a.
func inspectAgent(e *env, a *agents.Agent, binary string, rec *installers.Record) client.AgentInfo {
	ai := client.AgentInfo{ID: a.ID, Name: a.Name, Supports: a.Supports, Notes: append([]string{}, a.Notes...),
		Verified: a.Verified, Unsupported: a.Unsupported, Tested: a.Tested}
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

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// supportText says in words what clawd does for an agent.
func supportText(e *env, s agents.Supports) string {
	var parts []string
	if s.States {
		parts = append(parts, e.t("agents.states"))
	}
	if s.Permissions {
		parts = append(parts, e.t("agents.permissions"))
	}
	if s.Titles {
		parts = append(parts, e.t("agents.titles"))
	}
	if s.Subagents {
		parts = append(parts, e.t("agents.subagents"))
	}
	if len(parts) == 0 {
		return e.t("agents.nothing")
	}
	return strings.Join(parts, e.t("list.sep"))
}
