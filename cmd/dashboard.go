package cmd

import (
	"context"
	"fmt"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/clawdhq/clawd/internal/launch"
)

type dashboardOptions struct {
	noOpen bool
}

func newDashboardCmd(e *env) *cli.Command {
	o := &dashboardOptions{}
	return &cli.Command{
		Name:  "dashboard",
		Usage: "open the web dashboard in the browser, signed in",
		Description: "Asks the running clawd serve (over its socket, which only you can reach) for a\n" +
			"one-time login URL, http://127.0.0.1:<port>/login?code=..., and opens it in the default\n" +
			"browser. The code lets one browser in, once, within five minutes; that tab then keeps\n" +
			"the login until the runtime stops. With --no-open the URL alone is printed instead,\n" +
			"for scripts and SSH sessions (forward the port to open it elsewhere).",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "no-open", Usage: "print the login URL instead of opening a browser", Destination: &o.noOpen},
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
