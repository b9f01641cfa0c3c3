package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/installers"
)

type installOptions struct {
	all    bool
	dryRun bool
}

func newInstallCmd(e *env) *cli.Command {
	o := &installOptions{}
	return &cli.Command{
		Name:      "install",
		Usage:     "make an agent run clawd's hooks (edits the agent's own settings)",
		ArgsUsage: "AGENT...",
		Description: "Registers `<path of this clawd> hook AGENT` for every event clawd listens to in the\n" +
			"agent's user settings (Claude Code: $CLAUDE_CONFIG_DIR/settings.json or\n" +
			"~/.claude/settings.json). Only clawd's own entries are added, repaired or removed;\n" +
			"the original file is copied to settings.json.clawd-backup before the first change.\n" +
			"Run it again after moving the clawd binary. Agents: " + knownAgents() + ".",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "all", Usage: "every supported agent", Destination: &o.all},
			&cli.BoolFlag{Name: "dry-run", Aliases: []string{"n"}, Usage: "print the change as a diff and write nothing", Destination: &o.dryRun},
		},
		OnUsageError: installUsageError,
		Action: func(ctx context.Context, c *cli.Command) error {
			return runInstall(ctx, e, o, c.Args().Slice())
		},
	}
}

func runInstall(ctx context.Context, e *env, o *installOptions, names []string) error {
	list, err := selectAgents("install", names, o.all)
	if err != nil {
		return err
	}
	binary, err := e.executable()
	if err != nil {
		return fmt.Errorf("find the clawd binary to register: %w", err)
	}
	if err := installers.CheckBinary(binary); err != nil {
		return err
	}
	var failed []error
	for _, a := range list {
		inst, err := installerFor(e, a)
		if inst == nil && err == nil {
			if o.all {
				fmt.Fprintf(e.stdout, "%s: skipped, clawd cannot install into %s yet\n", a.ID, a.Name)
				continue
			}
			err = fmt.Errorf("clawd cannot install into %s yet", a.Name)
		}
		if err != nil {
			failed = append(failed, fmt.Errorf("%s: %w", a.ID, err))
			continue
		}
		res, err := inst.Install(binary, installers.Options{DryRun: o.dryRun})
		if err != nil {
			failed = append(failed, fmt.Errorf("%s: %w", a.ID, err))
			continue
		}
		reportInstall(e.stdout, res, o.dryRun)
	}
	return errors.Join(failed...)
}

func reportInstall(w io.Writer, res *installers.Result, dryRun bool) {
	if !res.Any() {
		fmt.Fprintf(w, "%s: already installed in %s\n", res.Agent, res.Path)
		return
	}
	var parts []string
	if n := res.Added; n > 0 {
		parts = append(parts, dryRunVerb(dryRun, "installed", "install")+" "+hookCount(n))
	}
	if n := res.Repaired; n > 0 {
		parts = append(parts, dryRunVerb(dryRun, "repaired", "repair")+" "+hookCount(n))
	}
	if n := res.Removed; n > 0 {
		parts = append(parts, dryRunVerb(dryRun, "removed", "remove")+" "+countOf(n, "stale hook"))
	}
	reportChange(w, res, strings.Join(parts, ", ")+" in", dryRun)
}

// reportChange prints the diff of a dry run, then one line about res.
func reportChange(w io.Writer, res *installers.Result, what string, dryRun bool) {
	var note string
	switch {
	case dryRun:
		fmt.Fprint(w, res.Diff)
		note = " (dry run, nothing written)"
	case res.Backup != "":
		note = " (backup: " + res.Backup + ")"
	case !res.Existed:
		note = " (new file)"
	}
	if dryRun {
		what = "would " + what
	}
	fmt.Fprintf(w, "%s: %s %s%s\n", res.Agent, what, res.Path, note)
}

func dryRunVerb(dryRun bool, past, base string) string {
	if dryRun {
		return base
	}
	return past
}

func hookCount(n int) string { return countOf(n, "hook") }

func countOf(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// agentInstaller edits one agent's settings; installers.Claude is one.
type agentInstaller interface {
	Install(binary string, opts installers.Options) (*installers.Result, error)
	Uninstall(opts installers.Options) (*installers.Result, error)
}

// installerFor returns the installer of agent a, or nil and no error when
// clawd has none for it yet.
func installerFor(e *env, a *agents.Agent) (agentInstaller, error) {
	switch a.ID {
	case agents.Claude.ID:
		c, err := installers.NewClaude(e.getenv)
		if err != nil {
			return nil, err
		}
		return c, nil
	}
	return nil, nil
}

// selectAgents resolves the AGENT arguments of install and uninstall (ids
// or aliases, each agent once) or, with all, every supported agent.
func selectAgents(verb string, names []string, all bool) ([]*agents.Agent, error) {
	if all {
		return agents.All(), nil
	}
	if len(names) == 0 {
		return nil, exitCode(2, fmt.Errorf("name the agent to %s (clawd %s claude) or use --all; agents: %s", verb, verb, knownAgents()))
	}
	var list []*agents.Agent
	seen := map[*agents.Agent]bool{}
	for _, n := range names {
		a := agents.Lookup(n)
		if a == nil {
			return nil, exitCode(2, fmt.Errorf("unknown agent %q; known agents: %s", n, knownAgents()))
		}
		if !seen[a] {
			seen[a] = true
			list = append(list, a)
		}
	}
	return list, nil
}

func knownAgents() string {
	var ids []string
	for _, a := range agents.All() {
		ids = append(ids, a.ID)
	}
	return strings.Join(ids, ", ")
}

// installUsageError makes a flag error exit with status 2, like other usage
// errors.
func installUsageError(ctx context.Context, c *cli.Command, err error, isSubcommand bool) error {
	return exitCode(2, err)
}
