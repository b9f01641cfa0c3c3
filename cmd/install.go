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
			"~/.claude/settings.json; Codex: $CODEX_HOME/hooks.json or ~/.codex/hooks.json, and\n" +
			"the trust entries Codex needs to run them in config.toml next to it). Only clawd's\n" +
			"own entries are added, repaired or removed; each file is copied to\n" +
			"<file>.clawd-backup before the first change. Run it again after moving the clawd\n" +
			"binary. Agents: " + knownAgents() + ".",
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
	rec, err := installers.ReadRecord(e.home())
	if err != nil {
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
		files, err := inst.install(e, binary, installers.Options{DryRun: o.dryRun, Known: rec.Known(a.ID)})
		if err != nil {
			failed = append(failed, fmt.Errorf("%s: %w", a.ID, err))
			continue
		}
		if !o.dryRun {
			rec.Installed(a.ID, binary, files...)
		}
	}
	if err := rec.Save(); err != nil {
		failed = append(failed, err)
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
	var notes []string
	switch {
	case dryRun:
		fmt.Fprint(w, res.Diff)
		notes = append(notes, "dry run, nothing written")
	case res.Backup != "":
		notes = append(notes, "backup: "+res.Backup)
	case !res.Existed:
		notes = append(notes, "new file")
	}
	if res.BackupRemoved != "" {
		notes = append(notes, "as before clawd; backup removed")
	}
	if dryRun {
		what = "would " + what
	}
	line := res.Agent + ": " + what + " " + res.Path
	if res.Deleted {
		line += " and " + dryRunVerb(dryRun, "deleted", "delete") + " it, as clawd had created it"
	}
	if len(notes) > 0 {
		line += " (" + strings.Join(notes, "; ") + ")"
	}
	fmt.Fprintln(w, line)
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

// agentInstaller edits one agent's settings and reports what it did on
// e's writers. Both return the files that hold (or held) clawd's entries,
// for the install record.
type agentInstaller interface {
	install(e *env, binary string, opts installers.Options) (files []string, err error)
	uninstall(e *env, opts installers.Options) (files []string, err error)
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
		return claudeInstaller{c}, nil
	case agents.Codex.ID:
		c, err := installers.NewCodex(e.getenv)
		if err != nil {
			return nil, err
		}
		return codexInstaller{c}, nil
	}
	return nil, nil
}

// claudeInstaller reports installers.Claude's one file.
type claudeInstaller struct{ c *installers.Claude }

func (i claudeInstaller) install(e *env, binary string, opts installers.Options) ([]string, error) {
	res, err := i.c.Install(binary, opts)
	if err != nil {
		return nil, err
	}
	reportInstall(e.stdout, res, opts.DryRun)
	return []string{res.Path}, nil
}

func (i claudeInstaller) uninstall(e *env, opts installers.Options) ([]string, error) {
	res, err := i.c.Uninstall(opts)
	if err != nil {
		return nil, err
	}
	reportUninstall(e.stdout, res, opts.DryRun)
	return []string{res.Path}, nil
}

func reportUninstall(w io.Writer, res *installers.Result, dryRun bool) {
	if !res.Any() {
		fmt.Fprintf(w, "%s: not installed in %s\n", res.Agent, res.Path)
		if res.BackupRemoved != "" {
			fmt.Fprintf(w, "%s: removed %s, which holds what %s holds\n", res.Agent, res.BackupRemoved, res.Path)
		}
		return
	}
	reportChange(w, res, dryRunVerb(dryRun, "removed", "remove")+" "+hookCount(res.Removed)+" from", dryRun)
}

// codexInstaller reports installers.Codex's two files: hooks.json with
// clawd's handlers, config.toml with their trust entries (and the
// handlers, for a person who keeps hooks inline there).
type codexInstaller struct{ c *installers.Codex }

func (i codexInstaller) install(e *env, binary string, opts installers.Options) ([]string, error) {
	res, err := i.c.Install(binary, opts)
	if err != nil {
		return nil, err
	}
	for _, w := range res.Warnings {
		fmt.Fprintf(e.stderr, "%s: warning: %s\n", res.Hooks.Agent, w)
	}
	if !res.Any() {
		fmt.Fprintf(e.stdout, "%s: already installed in %s\n", res.Hooks.Agent, codexHandlersFile(res))
	} else {
		reportCodex(e, res, true, opts.DryRun)
	}
	return []string{res.Hooks.Path, res.Config.Path}, nil
}

func (i codexInstaller) uninstall(e *env, opts installers.Options) ([]string, error) {
	res, err := i.c.Uninstall(opts)
	if err != nil {
		return nil, err
	}
	if !res.Any() {
		fmt.Fprintf(e.stdout, "%s: not installed in %s\n", res.Hooks.Agent, res.Hooks.Path)
	} else {
		reportCodex(e, res, false, opts.DryRun)
	}
	return []string{res.Hooks.Path, res.Config.Path}, nil
}

// codexHandlersFile is the file that holds (or would hold) clawd's
// handlers.
func codexHandlersFile(res *installers.CodexResult) string {
	if res.Inline {
		return res.Config.Path
	}
	return res.Hooks.Path
}

// reportCodex prints, for each file that changes, its diff in a dry run
// and one line saying what changed in it.
func reportCodex(e *env, res *installers.CodexResult, install, dryRun bool) {
	verb := func(past, base string) string { return dryRunVerb(dryRun, past, base) }
	handlers := func(ch installers.Changes) []string {
		var parts []string
		if n := ch.Added; n > 0 {
			parts = append(parts, verb("installed", "install")+" "+hookCount(n))
		}
		if n := ch.Repaired; n > 0 {
			parts = append(parts, verb("repaired", "repair")+" "+hookCount(n))
		}
		if n := ch.Removed; n > 0 {
			what := "stale hook"
			if !install {
				what = "hook"
			}
			parts = append(parts, verb("removed", "remove")+" "+countOf(n, what))
		}
		return parts
	}
	config := handlers(res.Config.Changes)
	if n := res.Trust.Added; n > 0 {
		config = append(config, verb("trusted", "trust")+" "+hookCount(n))
	}
	if n := res.Trust.Updated; n > 0 {
		config = append(config, verb("re-trusted", "re-trust")+" "+countOf(n, "changed hook"))
	}
	if n := res.Trust.Removed; n > 0 {
		config = append(config, verb("removed", "remove")+" "+trustEntries(n))
	}
	if n := res.Trust.Moved; n > 0 {
		config = append(config, verb("moved", "move")+" "+trustEntries(n)+" of other hooks")
	}
	files := []struct {
		f     installers.Result
		parts []string
	}{{res.Hooks, handlers(res.Hooks.Changes)}, {res.Config, config}}
	for _, x := range files {
		if !x.f.Changed {
			continue
		}
		// "removed 12 hooks, removed 12 trust entries" reads better as
		// "removed 12 hooks and 12 trust entries".
		removed := verb("removed", "remove") + " "
		onlyRemoved := len(x.parts) > 0
		var objects []string
		for _, p := range x.parts {
			onlyRemoved = onlyRemoved && strings.HasPrefix(p, removed)
			objects = append(objects, strings.TrimPrefix(p, removed))
		}
		what := strings.Join(x.parts, ", ")
		switch {
		case onlyRemoved:
			what = removed + strings.Join(objects, " and ")
		case what == "":
			what = verb("updated", "update")
		}
		if onlyRemoved || x.f.Deleted {
			what += " from"
		} else {
			what += " in"
		}
		reportChange(e.stdout, &x.f, what, dryRun)
	}
}

func trustEntries(n int) string {
	if n == 1 {
		return "1 trust entry"
	}
	return fmt.Sprintf("%d trust entries", n)
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
