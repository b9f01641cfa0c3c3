package cmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/urfave/cli/v3"

	"github.com/clawdhq/clawd/installers"
	"github.com/clawdhq/clawd/internal/autostart"
	"github.com/clawdhq/clawd/runtime"
)

type autostartOptions struct {
	noStart bool
	json    bool
}

func newAutostartCmd(e *env) *cli.Command {
	o := &autostartOptions{}
	return &cli.Command{
		Name:        "autostart",
		Usage:       e.t("help.autostart.usage"),
		Description: e.t("help.autostart.description"),
		Commands: []*cli.Command{
			{
				Name:  "enable",
				Usage: e.t("help.autostart.enable.usage"),
				Flags: []cli.Flag{
					&cli.BoolFlag{Name: "no-start", Usage: e.t("help.autostart.enable.flag_no_start"), Destination: &o.noStart},
				},
				Action: func(ctx context.Context, c *cli.Command) error { return runAutostartEnable(ctx, e, o) },
			},
			{
				Name:   "disable",
				Usage:  e.t("help.autostart.disable.usage"),
				Action: func(ctx context.Context, c *cli.Command) error { return runAutostartDisable(ctx, e) },
			},
			{
				Name:  "status",
				Usage: e.t("help.autostart.status.usage"),
				Flags: []cli.Flag{
					&cli.BoolFlag{Name: "json", Usage: e.t("help.flag_json"), Destination: &o.json},
				},
				Action: func(ctx context.Context, c *cli.Command) error { return runAutostartStatus(ctx, e, o) },
			},
		},
	}
}

// userHome is the person's home folder.
func (e *env) userHome() string {
	for _, v := range []string{"HOME", "USERPROFILE"} {
		if h := e.getenv(v); h != "" {
			return h
		}
	}
	h, _ := os.UserHomeDir()
	return h
}

// autostartOptions are the autostart entry's options for this clawd: the
// running binary (which may not be known: status and disable work
// without) and the clawd home.
func (e *env) autostart() autostart.Options {
	binary, _ := e.executable()
	home, _ := filepath.Abs(e.home())
	return autostart.Options{Home: e.userHome(), Getenv: e.getenv, Binary: binary, ClawdHome: home}
}

func runAutostartEnable(ctx context.Context, e *env, o *autostartOptions) error {
	ao := e.autostart()
	if _, err := e.executable(); err != nil {
		return fmt.Errorf("find the clawd binary to start at login: %w", err)
	}
	// The installers' rule: an entry must not name a binary that goes
	// away (go run's).
	if err := installers.CheckBinary(ao.Binary); err != nil {
		return err
	}
	before, err := autostart.Check(ctx, ao)
	if err != nil {
		return err
	}
	// A serve that already runs on this home keeps it: a second would
	// exit at once (and be restarted, again and again). Autostart's own
	// is restarted onto this binary.
	_, inUse, err := runtime.HomeInUse(ao.ClawdHome)
	if err != nil {
		return err
	}
	start := !o.noStart && (!inUse || before.Running)
	st, err := autostart.Enable(ctx, ao, start)
	if err != nil {
		return err
	}
	fmt.Fprintln(e.stdout, e.t("autostart.enabled", st.Path, st.Binary))
	switch {
	case st.Running:
		fmt.Fprintln(e.stdout, e.t("autostart.started"))
	case inUse && !o.noStart:
		fmt.Fprintln(e.stdout, e.t("autostart.already_running"))
	default:
		fmt.Fprintln(e.stdout, e.t("autostart.next_login"))
	}
	return nil
}

func runAutostartDisable(ctx context.Context, e *env) error {
	st, err := autostart.Disable(ctx, e.autostart(), false)
	if err != nil {
		return err
	}
	if !st.Enabled {
		fmt.Fprintln(e.stdout, e.t("autostart.none"))
		return nil
	}
	fmt.Fprintln(e.stdout, e.t("autostart.disabled", st.Path))
	return nil
}

func runAutostartStatus(ctx context.Context, e *env, o *autostartOptions) error {
	st, err := autostart.Check(ctx, e.autostart())
	if err != nil {
		return err
	}
	if o.json {
		return printJSON(e.stdout, st, true)
	}
	if !st.Enabled {
		fmt.Fprintln(e.stdout, e.t("autostart.none"))
		return nil
	}
	fmt.Fprintln(e.stdout, e.t("autostart.status", st.Kind, st.Path, st.Binary))
	if st.Running {
		fmt.Fprintln(e.stdout, e.t("autostart.running"))
	}
	if st.Stale != "" {
		fmt.Fprintln(e.stdout, e.t("autostart.stale", st.Stale))
		return exitCode(1, errors.New(""))
	}
	return nil
}
