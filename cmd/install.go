package cmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/doctor"
	"github.com/clawdhq/clawd/installers"
	"github.com/clawdhq/clawd/internal/text"
	"github.com/clawdhq/clawd/runtime/client"
)

type installOptions struct {
	all    bool
	dryRun bool
	force  bool
}

func newInstallCmd(e *env) *cli.Command {
	o := &installOptions{}
	return &cli.Command{
		Name:          "install",
		Usage:         e.t("help.install.usage"),
		ArgsUsage:     "AGENT...",
		ShellComplete: completeArgs(agentWords),
		Description:   e.t("help.install.description", agentSettings()),
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "all", Usage: e.t("help.flag_all"), Destination: &o.all},
			&cli.BoolFlag{Name: "dry-run", Aliases: []string{"n"}, Usage: e.t("help.flag_dry_run"), Destination: &o.dryRun},
			&cli.BoolFlag{Name: "force", Usage: e.t("help.install.flag_force"), Destination: &o.force},
		},
		Action: func(ctx context.Context, c *cli.Command) error {
			return runInstall(ctx, e, o, c.Args().Slice())
		},
	}
}

func runInstall(ctx context.Context, e *env, o *installOptions, names []string) error {
	if o.force && o.all {
		return exitCode(2, errors.New("--force goes with the agents named: clawd install --force AGENT"))
	}
	done, err := installAgents(e, true, o.all, o.dryRun, o.force, names)
	if len(done) > 0 && !o.dryRun {
		nextStep(ctx, e, done)
	}
	return err
}

// runInstallers is install (or uninstall) for the agents named, or all of
// them (installAgents without force).
func runInstallers(e *env, install, all, dryRun bool, names []string) error {
	_, err := installAgents(e, install, all, dryRun, false, names)
	return err
}

// installAgents is install (or uninstall) for the agents named, or all of
// them: each agent's installer is run, what it did is reported, and the
// install record notes it. An install skips an agent that is not on this
// machine (doctor.Found.Detected) and has none of clawd's hooks, unless
// force: with all in one line, else with a warning and an error. done are
// the reports of the agents whose installer ran.
func installAgents(e *env, install, all, dryRun, force bool, names []string) (done []*installers.Report, _ error) {
	verb := "uninstall"
	if install {
		verb = "install"
	}
	list, err := selectAgents(verb, names, all)
	if err != nil {
		return nil, err
	}
	binary, err := e.executable()
	if install {
		if err != nil {
			return nil, fmt.Errorf("find the clawd binary to register: %w", err)
		}
		if err := installers.CheckBinary(binary); err != nil {
			return nil, err
		}
	}
	var failed []error
	var notHere []string
	each := func() error {
		rec, err := installers.ReadRecord(e.home())
		if err != nil {
			return err
		}
		for _, a := range list {
			if install && !force && rec.Agents[a.ID] == nil {
				if f := doctor.Detect(a, e.getenv); !f.Detected() && f.DirErr == nil {
					if all {
						notHere = append(notHere, a.ID)
					} else {
						failed = append(failed, exitCode(1, errors.New(e.t("install.not_here", a.ID, a.Name, f.Dir, a.Command))))
					}
					continue
				}
			}
			rep, err := installOne(e, rec, a, binary, install, all, dryRun)
			if err != nil {
				failed = append(failed, fmt.Errorf("%s: %w", a.ID, err))
				if all {
					fmt.Fprintln(e.stdout, e.t("install.failed", a.ID, err))
				}
			}
			if rep != nil {
				done = append(done, rep)
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
	if len(notHere) > 0 {
		fmt.Fprint(e.stdout, wrapIndented(e.t("install.skipped_not_here", strings.Join(notHere, e.t("list.sep"))), 80, "  "))
	}
	if all && !install && len(done) == 0 && len(failed) == 0 {
		fmt.Fprintln(e.stdout, e.t("install.uninstall_none"))
	}
	return done, errors.Join(failed...)
}

// installOne installs (or uninstalls) clawd's hooks for one agent, says
// what it did, and returns its report (nil: skipped); with all, an
// uninstall skips an agent whose settings folder is not there, and one
// clawd cannot install into is skipped with a line.
func installOne(e *env, rec *installers.Record, a *agents.Agent, binary string, install, all, dryRun bool) (*installers.Report, error) {
	verb := "uninstall"
	if install {
		verb = "install"
	}
	if all && !install {
		// Nothing of clawd's can be in a folder that is not there.
		dir, err := a.ConfigDir(e.getenv)
		if err == nil && !isDir(dir) && rec.Agents[a.ID] == nil {
			return nil, nil
		}
	}
	inst, err := installers.For(a, e.getenv)
	if errors.Is(err, installers.ErrUnsupported) && all {
		fmt.Fprintln(e.stdout, e.t("install.skipped_"+verb, a.ID, a.Name))
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	rep, err := installers.Apply(rec, a.ID, inst, binary, install, dryRun)
	if err != nil {
		return nil, err
	}
	if all {
		summarize(e, rep, install, dryRun)
	} else {
		report(e, rep, install, dryRun)
	}
	for _, d := range rep.RemovedDirs {
		fmt.Fprintln(e.stdout, e.t("install.removed_dir", a.ID, d))
	}
	return rep, nil
}

// nextStep says what to do after an install whose reports are done:
// start clawd serve when nothing runs it (the hooks deliver nothing until
// it does), and restart the sessions already running of the agents whose
// hooks changed.
func nextStep(ctx context.Context, e *env, done []*installers.Report) {
	var names []string
	for _, rep := range done {
		if a := agents.Lookup(rep.Agent); a != nil && rep.Any() {
			names = append(names, a.Name)
		}
	}
	var lines []string
	running := runtimeAnswers(ctx, e)
	if !running {
		lines = append(lines, e.t("install.next_serve"))
	}
	if len(names) > 0 {
		lines = append(lines, e.t("install.next_restart", joinAnd(e, names)))
		if running {
			lines = append(lines, e.t("install.next_watch"))
		}
	}
	if len(lines) == 0 {
		return
	}
	fmt.Fprintln(e.stdout)
	for i, l := range lines {
		key := "install.then"
		if i == 0 {
			key = "install.next"
		}
		// Wrapped under the step, past "next: ".
		printWrapped(e.stdout, e.columns(), text.Width(e.t(key, "")), e.t(key, l))
	}
}

// runtimeAnswers reports whether a runtime answers on the clawd home's
// socket, or, on a machine in remote mode, whether the desktop's is
// what the hooks report to (then nothing here needs starting).
func runtimeAnswers(ctx context.Context, e *env) bool {
	if _, err := client.ReadRemote(e.home()); err == nil {
		return true
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	_, err := client.Discover(ctx, e.home(), client.Options{DialTimeout: 500 * time.Millisecond, ProbeTimeout: time.Second})
	return err == nil
}

// summarize prints what an install or uninstall of --all did to one
// agent, in one line (warnings aside, on stderr).
func summarize(e *env, rep *installers.Report, install, dryRun bool) {
	warn(e, rep)
	var key string
	switch {
	case !rep.Any() && install:
		key = "install.sum_already"
	case !rep.Any():
		key = "install.sum_not"
	case install:
		key = dryRunVerb(dryRun, "install.sum_installed", "install.sum_would_install")
	default:
		key = dryRunVerb(dryRun, "install.sum_removed", "install.sum_would_remove")
	}
	fmt.Fprintln(e.stdout, e.t(key, rep.Agent, rep.Handlers))
}

// warn prints the report's warnings on stderr.
func warn(e *env, rep *installers.Report) {
	for _, w := range rep.Warnings {
		fmt.Fprintln(e.stderr, e.t("install.warning", rep.Agent, w))
	}
}

// joinAnd joins words as a list in prose: "a, b and c".
func joinAnd(e *env, words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], e.t("list.sep")) + e.t("list.and") + words[len(words)-1]
}

// wrapIndented is s broken by wrap into lines of at most width columns,
// the lines after the first indented; each line ends in a newline.
func wrapIndented(s string, width int, indent string) string {
	lines := wrap(s, width-text.Width(indent))
	return strings.Join(lines, "\n"+indent) + "\n"
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
	warn(e, rep)
	if !rep.Any() {
		key := "install.not_installed"
		if install {
			key = "install.already"
		}
		fmt.Fprintln(e.stdout, e.t(key, rep.Agent, rep.Handlers))
		for _, f := range rep.Files {
			if f.BackupRemoved != "" {
				fmt.Fprintln(e.stdout, e.t("install.backup_same", rep.Agent, f.BackupRemoved, f.Path))
			}
		}
		return
	}
	// A change is a verb and what it acted on: "installed" "12 hooks".
	type change struct{ verb, object string }
	verb := func(v string) string { return e.t("install.v." + dryRunVerb(dryRun, v, v+"_base")) }
	for _, f := range rep.Files {
		if !f.Changed {
			continue
		}
		var parts []change
		add := func(n int, v, object string) {
			if n > 0 {
				parts = append(parts, change{verb(v), e.n("install.n."+object, n)})
			}
		}
		add(f.Added, "installed", "hooks")
		add(f.Repaired, "repaired", "hooks")
		if install {
			add(f.Removed, "removed", "stale_hooks")
		} else {
			add(f.Removed, "removed", "hooks")
		}
		add(f.Trust.Added, "trusted", "hooks")
		add(f.Trust.Updated, "retrusted", "changed_hooks")
		add(f.Trust.Removed, "removed", "trust_entries")
		add(f.Trust.Moved, "moved", "other_trust_entries")
		// "removed 12 hooks, removed 12 trust entries" reads better as
		// "removed 12 hooks and 12 trust entries".
		removed := verb("removed")
		onlyRemoved := len(parts) > 0
		var objects, phrases []string
		for _, p := range parts {
			onlyRemoved = onlyRemoved && p.verb == removed
			objects = append(objects, p.object)
			phrases = append(phrases, e.t("install.phrase", p.verb, p.object))
		}
		what := strings.Join(phrases, e.t("list.sep"))
		switch {
		case onlyRemoved:
			what = e.t("install.phrase", removed, strings.Join(objects, e.t("list.and")))
		case what == "" && f.Deleted:
			// A file of clawd's own that registers no hook itself (a
			// plugin's manifest) goes with the rest: "deleted X".
		case what == "" && !f.Existed:
			what = verb("wrote")
		case what == "":
			what = verb("updated")
		}
		key := "install.in"
		switch {
		case what == "" || !f.Existed && what == verb("wrote"):
			key = "install.bare"
		case onlyRemoved || f.Deleted:
			key = "install.from"
		}
		reportChange(e, &f, what, key, dryRun)
	}
}

// reportChange prints the diff of a dry run, then one line about res:
// what happened (what) in the file, or from it.
func reportChange(e *env, res *installers.Result, what, key string, dryRun bool) {
	var notes []string
	switch {
	case dryRun:
		fmt.Fprint(e.stdout, res.Diff)
		notes = append(notes, e.t("install.note.dry_run"))
	case res.Backup != "":
		notes = append(notes, e.t("install.note.backup", res.Backup))
	case !res.Existed:
		notes = append(notes, e.t("install.note.new_file"))
	}
	if res.BackupRemoved != "" {
		notes = append(notes, e.t("install.note.restored"))
	}
	var line string
	if what == "" && res.Deleted {
		line = e.t(dryRunVerb(dryRun, "install.deleted_alone", "install.would_delete_alone"), res.Agent, res.Path)
	} else {
		if dryRun {
			what = e.t("install.would", what)
		}
		line = e.t(key, res.Agent, what, res.Path)
		if res.Deleted {
			line += e.t(dryRunVerb(dryRun, "install.deleted_too", "install.would_delete_too"))
		}
	}
	if len(notes) > 0 {
		line += e.t("install.notes", strings.Join(notes, e.t("install.note.sep")))
	}
	// Paths make it long: in a terminal it wraps at spaces and after a
	// '/', never mid-word.
	printWrapped(e.stdout, e.columns(), 2, line)
}

func dryRunVerb(dryRun bool, past, base string) string {
	if dryRun {
		return base
	}
	return past
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

func knownAgents() string { return strings.Join(agentIDs(), ", ") }

// agentIDs are the agents' ids, in the registry's order.
func agentIDs() []string {
	var ids []string
	for _, a := range agents.All() {
		ids = append(ids, a.ID)
	}
	return ids
}

// usageError makes a flag error exit with status 2, like other usage
// errors.
