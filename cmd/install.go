package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
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
			"agent's user settings. Only clawd's own entries are added, repaired or removed; each\n" +
			"file is copied to <file>.clawd-backup before the first change. Run it again after\n" +
			"moving the clawd binary. Agents and the files clawd edits:\n" + agentSettings(),
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "all", Usage: "every agent whose settings folder exists here, one line each", Destination: &o.all},
			&cli.BoolFlag{Name: "dry-run", Aliases: []string{"n"}, Usage: "print the change as a diff and write nothing", Destination: &o.dryRun},
		},
		Action: func(ctx context.Context, c *cli.Command) error {
			return runInstall(ctx, e, o, c.Args().Slice())
		},
	}
}

func runInstall(ctx context.Context, e *env, o *installOptions, names []string) error {
	return runInstallers(e, true, o.all, o.dryRun, names)
}

// runInstallers is install (or uninstall) for the agents named, or all of
// them: each agent's installer is run, what it did is reported, and the
// install record notes it.
func runInstallers(e *env, install, all, dryRun bool, names []string) error {
	verb := "uninstall"
	if install {
		verb = "install"
	}
	list, err := selectAgents(verb, names, all)
	if err != nil {
		return err
	}
	binary, err := e.executable()
	if install {
		if err != nil {
			return fmt.Errorf("find the clawd binary to register: %w", err)
		}
		if err := installers.CheckBinary(binary); err != nil {
			return err
		}
	}
	var failed []error
	each := func() error {
		rec, err := installers.ReadRecord(e.home())
		if err != nil {
			return err
		}
		for _, a := range list {
			if err := installOne(e, rec, a, binary, install, all, dryRun); err != nil {
				failed = append(failed, fmt.Errorf("%s: %w", a.ID, err))
				if all {
					fmt.Fprintf(e.stdout, "%s: failed: %v\n", a.ID, err)
				}
			}
		}
		return rec.Save()
	}
	if dryRun {
		err = each()
	} else {
		// The runtime's self-repair waits meanwhile (installers.LockFile).
		err = installers.Locked(e.home(), each)
	}
	if err != nil {
		failed = append(failed, err)
	}
	return errors.Join(failed...)
}

// installOne installs (or uninstalls) clawd's hooks for one agent and says
// what it did; with all, an agent not found here or one clawd cannot
// install into is skipped with a line.
func installOne(e *env, rec *installers.Record, a *agents.Agent, binary string, install, all, dryRun bool) error {
	verb := "uninstall"
	if install {
		verb = "install"
	}
	if all {
		// --all: the agents found here, each in one line.
		dir, err := a.ConfigDir(e.getenv)
		if err == nil && !isDir(dir) {
			fmt.Fprintf(e.stdout, "%s: skipped: not found (%s does not exist)\n", a.ID, dir)
			return nil
		}
	}
	inst, err := installers.For(a, e.getenv)
	if errors.Is(err, installers.ErrUnsupported) && all {
		fmt.Fprintf(e.stdout, "%s: skipped: clawd cannot %s %s\n", a.ID, verb, a.Name)
		return nil
	}
	if err != nil {
		return err
	}
	rep, err := installers.Apply(rec, a.ID, inst, binary, install, dryRun)
	if err != nil {
		return err
	}
	if all {
		summarize(e, rep, install, dryRun)
	} else {
		report(e, rep, install, dryRun)
	}
	return nil
}

// summarize prints what an install or uninstall of --all did to one
// agent, in one line (warnings aside, on stderr).
func summarize(e *env, rep *installers.Report, install, dryRun bool) {
	for _, w := range rep.Warnings {
		fmt.Fprintf(e.stderr, "%s: warning: %s\n", rep.Agent, w)
	}
	var what string
	switch {
	case !rep.Any() && install:
		what = "already installed in"
	case !rep.Any():
		what = "not installed in"
	case install:
		what = dryRunVerb(dryRun, "installed", "would install") + " in"
	default:
		what = dryRunVerb(dryRun, "removed", "would remove") + " from"
	}
	fmt.Fprintf(e.stdout, "%s: %s %s\n", rep.Agent, what, rep.Handlers)
}

// isDir reports whether path is a folder.
func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}

// report prints what an install or uninstall did: its warnings on stderr,
// then one line per file that changes (after its diff, in a dry run), or
// one line saying there was nothing to do.
func report(e *env, rep *installers.Report, install, dryRun bool) {
	for _, w := range rep.Warnings {
		fmt.Fprintf(e.stderr, "%s: warning: %s\n", rep.Agent, w)
	}
	if !rep.Any() {
		state := "not installed"
		if install {
			state = "already installed"
		}
		fmt.Fprintf(e.stdout, "%s: %s in %s\n", rep.Agent, state, rep.Handlers)
		for _, f := range rep.Files {
			if f.BackupRemoved != "" {
				fmt.Fprintf(e.stdout, "%s: removed %s, which holds what %s holds\n", rep.Agent, f.BackupRemoved, f.Path)
			}
		}
		return
	}
	verb := func(past, base string) string { return dryRunVerb(dryRun, past, base) }
	for _, f := range rep.Files {
		if !f.Changed {
			continue
		}
		var parts []string
		if n := f.Added; n > 0 {
			parts = append(parts, verb("installed", "install")+" "+hookCount(n))
		}
		if n := f.Repaired; n > 0 {
			parts = append(parts, verb("repaired", "repair")+" "+hookCount(n))
		}
		if n := f.Removed; n > 0 {
			what := "stale hook"
			if !install {
				what = "hook"
			}
			parts = append(parts, verb("removed", "remove")+" "+countOf(n, what))
		}
		if n := f.Trust.Added; n > 0 {
			parts = append(parts, verb("trusted", "trust")+" "+hookCount(n))
		}
		if n := f.Trust.Updated; n > 0 {
			parts = append(parts, verb("re-trusted", "re-trust")+" "+countOf(n, "changed hook"))
		}
		if n := f.Trust.Removed; n > 0 {
			parts = append(parts, verb("removed", "remove")+" "+trustEntries(n))
		}
		if n := f.Trust.Moved; n > 0 {
			parts = append(parts, verb("moved", "move")+" "+trustEntries(n)+" of other hooks")
		}
		// "removed 12 hooks, removed 12 trust entries" reads better as
		// "removed 12 hooks and 12 trust entries".
		removed := verb("removed", "remove") + " "
		onlyRemoved := len(parts) > 0
		var objects []string
		for _, p := range parts {
			onlyRemoved = onlyRemoved && strings.HasPrefix(p, removed)
			objects = append(objects, strings.TrimPrefix(p, removed))
		}
		what := strings.Join(parts, ", ")
		switch {
		case onlyRemoved:
			what = removed + strings.Join(objects, " and ")
		case what == "" && f.Deleted:
			// A file of clawd's own that registers no hook itself (a
			// plugin's manifest) goes with the rest: "deleted X".
		case what == "" && !f.Existed:
			what = verb("wrote", "write")
		case what == "":
			what = verb("updated", "update") + " in"
		}
		switch {
		case what == "" || what == verb("wrote", "write") || strings.HasSuffix(what, " in"):
		case onlyRemoved || f.Deleted:
			what += " from"
		default:
			what += " in"
		}
		reportChange(e.stdout, &f, what, dryRun)
	}
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
	deleted := dryRunVerb(dryRun, "deleted", "delete")
	var line string
	switch {
	case what == "" && res.Deleted:
		line = res.Agent + ": " + deleted + " " + res.Path + ", as clawd had created it"
		if dryRun {
			line = res.Agent + ": would " + deleted + " " + res.Path + ", as clawd had created it"
		}
	default:
		if dryRun {
			what = "would " + what
		}
		line = res.Agent + ": " + what + " " + res.Path
		if res.Deleted {
			line += " and " + deleted + " it, as clawd had created it"
		}
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
		return nil, exitCode(2, fmt.Errorf("name the agent to %s (clawd %s %s) or use --all; agents: %s", verb, verb, agents.All()[0].ID, knownAgents()))
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

// agentSettings lists, one line each, the agents and the files clawd
// edits for them.
func agentSettings() string {
	var b strings.Builder
	for _, a := range agents.All() {
		fmt.Fprintf(&b, "  %-12s %s\n", a.ID, a.Settings)
	}
	return b.String()
}

func knownAgents() string {
	var ids []string
	for _, a := range agents.All() {
		ids = append(ids, a.ID)
	}
	return strings.Join(ids, ", ")
}

// usageError makes a flag error exit with status 2, like other usage
// errors.
