package cmd

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/doctor"
	"github.com/clawdhq/clawd/internal/launch"
	"github.com/clawdhq/clawd/runtime/client"
)

type dashboardOptions struct {
	noOpen bool
}

func newDashboardCmd(e *env) *cli.Command {
	o := &dashboardOptions{}
	return &cli.Command{
		Name:        "dashboard",
		Usage:       e.t("help.dashboard.usage"),
		Description: e.t("help.dashboard.description"),
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "no-open", Usage: e.t("help.dashboard.flag_no_open"), Destination: &o.noOpen},
		},
		Action: func(ctx context.Context, c *cli.Command) error {
			return runDashboard(ctx, e, o)
		},
	}
}

func runDashboard(ctx context.Context, e *env, o *dashboardOptions) error {
	c, err := connect(ctx, e)
	if err != nil {
		return err
	}
	l, err := c.DashboardLogin(ctx)
	if err != nil {
		return exitCode(1, fmt.Errorf("dashboard login: %w", err))
	}
	if o.noOpen {
		fmt.Fprintln(e.stdout, l.URL)
		return nil
	}
	octx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	// xdg-open, open or FileProtocolHandler: the desktop's default browser.
	if err := launch.Open(octx, l.URL); err != nil {
		return exitCode(1, fmt.Errorf("open a browser: %w (clawd dashboard --no-open prints the URL)", err))
	}
	fmt.Fprintln(e.stderr, "opened the dashboard in your browser")
	return nil
}

// dashboardDoctor is `clawd doctor` for the dashboard's Agents section
// (runtime.Config.Doctor): the same checks and the same fix, run by
// clawd serve.
type dashboardDoctor struct{ opts doctor.Options }

// Check runs the doctor's checks of one agent (the runtime's own checks
// run too, and are left out: the section shows agents).
func (d dashboardDoctor) Check(ctx context.Context, id string) (client.DoctorReport, error) {
	a := agents.Lookup(id)
	if a == nil {
		return client.DoctorReport{}, fmt.Errorf("unknown agent %q", id)
	}
	out := client.DoctorReport{Agent: id, OK: true, Findings: []client.DoctorFinding{}, Fixable: doctor.Fixable(d.opts, a)}
	for _, c := range doctor.Run(ctx, d.opts, []*agents.Agent{a}).Checks {
		if c.Agent != id {
			continue
		}
		level := string(c.Status)
		switch c.Status {
		case doctor.Fail:
			level = "error"
			out.OK = false
		case doctor.Warn:
			out.OK = false
		}
		msg := c.Finding
		if c.Fix != "" {
			msg += " (fix: " + c.Fix + ")"
		}
		out.Findings = append(out.Findings, client.DoctorFinding{Level: level, Message: msg})
	}
	return out, nil
}

// Fix runs `clawd doctor --fix --agent id` for an installed agent and
// returns the diff it applied: the dry run's diff of each file the fix
// then changed. An agent whose hooks are not installed is left alone (a
// fix would install them).
func (d dashboardDoctor) Fix(ctx context.Context, id string) (client.DoctorFix, error) {
	a := agents.Lookup(id)
	if a == nil {
		return client.DoctorFix{}, fmt.Errorf("unknown agent %q", id)
	}
	out := client.DoctorFix{Agent: id}
	if !doctor.Fixable(d.opts, a) {
		return out, nil
	}
	dry, err := doctor.Fix(d.opts, a, true)
	if err != nil {
		return out, err
	}
	diffs := map[string]string{}
	for _, f := range dry.Files {
		diffs[f.Path] = f.Diff
	}
	rep, err := doctor.Fix(d.opts, a, false)
	if err != nil {
		return out, err
	}
	var b strings.Builder
	for _, f := range rep.Files {
		if f.Changed {
			b.WriteString(diffs[f.Path])
		}
	}
	out.Changed, out.Diff = rep.Any(), b.String()
	return out, nil
}
