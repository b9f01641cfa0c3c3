package cmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/clawdhq/clawd/internal/autostart"
	"github.com/clawdhq/clawd/remote"
	"github.com/clawdhq/clawd/runtime"
)

type uninstallOptions struct {
	all    bool
	dryRun bool
	purge  bool
	yes    bool
}

func newUninstallCmd(e *env) *cli.Command {
	o := &uninstallOptions{}
	return &cli.Command{
		Name:          "uninstall",
		Usage:         e.t("help.uninstall.usage"),
		ArgsUsage:     "AGENT...",
		ShellComplete: completeArgs(agentWords),
		Description:   e.t("help.uninstall.description", strings.Join(agentIDs(), e.t("list.sep"))),
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "all", Usage: e.t("help.flag_all"), Destination: &o.all},
			&cli.BoolFlag{Name: "dry-run", Aliases: []string{"n"}, Usage: e.t("help.flag_dry_run"), Destination: &o.dryRun},
			&cli.BoolFlag{Name: "purge", Usage: e.t("help.uninstall.flag_purge"), Destination: &o.purge},
			&cli.BoolFlag{Name: "yes", Aliases: []string{"y"}, Usage: e.t("help.uninstall.flag_yes"), Destination: &o.yes},
		},
		Action: func(ctx context.Context, c *cli.Command) error {
			if o.purge {
				return runPurge(ctx, e, o, c.Args().Slice())
			}
			if o.yes {
				return exitCode(2, errors.New("--yes goes with --purge"))
			}
			return runUninstall(ctx, e, o, c.Args().Slice())
		},
	}
}

func runUninstall(ctx context.Context, e *env, o *uninstallOptions, names []string) error {
	return runInstallers(e, false, o.all, o.dryRun, names)
}

// runPurge removes everything clawd put on this machine: the hooks of
// every agent, the autostart entry and the clawd home, in that order, so
// that a failure leaves what finds the rest (the install record in the
// home).
func runPurge(ctx context.Context, e *env, o *uninstallOptions, names []string) error {
	if !o.all || len(names) > 0 {
		return exitCode(2, errors.New("--purge removes everything: use clawd uninstall --all --purge"))
	}
	home, err := filepath.Abs(e.home())
	if err != nil {
		return err
	}
	if err := checkPurgeable(home, e.userHome()); err != nil {
		return exitCode(1, err)
	}
	// The remotes' profiles are what finds clawd on those machines again:
	// without them nothing takes it off.
	remotes, err := remote.Load(home)
	if err != nil {
		return exitCode(1, err)
	}
	if len(remotes.Profiles) > 0 {
		var names []string
		for _, p := range remotes.Profiles {
			names = append(names, p.Name)
		}
		return exitCode(1, errors.New(e.t("purge.remotes", strings.Join(names, ", "))))
	}
	ao := e.autostart()
	ao.ClawdHome = home
	st, err := autostart.Check(ctx, ao)
	if err != nil {
		return err
	}
	// A serve on the home would write into it as it goes; one that
	// autostart's service manager runs is stopped with its entry.
	pid, inUse, err := runtime.HomeInUse(home)
	if err != nil {
		return err
	}
	if inUse && !st.Running {
		return exitCode(1, errors.New(e.t("purge.serve_runs", pid, home)))
	}
	if o.dryRun {
		fmt.Fprint(e.stdout, purgePlan(e, st, home))
		return runInstallers(e, false, true, true, nil)
	}
	if !o.yes {
		fmt.Fprint(e.stdout, purgePlan(e, st, home))
		if !e.confirm(e.t("purge.confirm")) {
			return exitCode(1, errors.New(e.t("purge.not_confirmed")))
		}
	}
	if err := runInstallers(e, false, true, false, nil); err != nil {
		return fmt.Errorf("%w\n%s", err, e.t("purge.home_kept", home))
	}
	if st.Enabled {
		if _, err := autostart.Disable(ctx, ao, true); err != nil {
			return fmt.Errorf("remove the autostart entry %s: %w\n%s", st.Path, err, e.t("purge.home_kept", home))
		}
		fmt.Fprintln(e.stdout, e.t("autostart.disabled_purge", st.Path))
	}
	if pid, inUse, err := runtime.HomeInUse(home); err != nil || inUse {
		return exitCode(1, errors.Join(err, errors.New(e.t("purge.serve_runs", pid, home))))
	}
	if err := os.RemoveAll(home); err != nil {
		return fmt.Errorf("remove the clawd home: %w", err)
	}
	fmt.Fprintln(e.stdout, e.t("purge.home_removed", home))
	return nil
}

// purgePlan says what a purge removes.
func purgePlan(e *env, st autostart.Status, home string) string {
	var b strings.Builder
	b.WriteString(e.t("purge.plan") + "\n")
	b.WriteString("  - " + e.t("purge.plan_hooks") + "\n")
	if st.Enabled {
		b.WriteString("  - " + e.t("purge.plan_autostart", st.Path) + "\n")
	}
	b.WriteString("  - " + e.t("purge.plan_home", home) + "\n")
	return b.String()
}

// checkPurgeable refuses to remove a clawd home that is the person's
// home folder, holds it, or is a file system root: CLAWD_HOME set to the
// wrong folder must not cost them their files.
func checkPurgeable(home, userHome string) error {
	clean := filepath.Clean(home)
	if clean == filepath.VolumeName(clean)+string(filepath.Separator) {
		return fmt.Errorf("the clawd home is %s, a file system root: not removing it", home)
	}
	if userHome != "" {
		if rel, err := filepath.Rel(clean, filepath.Clean(userHome)); err == nil && !strings.HasPrefix(rel, "..") {
			return fmt.Errorf("the clawd home %s is or holds your home folder %s: not removing it (check CLAWD_HOME)", home, userHome)
		}
	}
	return nil
}
