package cmd

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os/signal"
	"syscall"

	"github.com/urfave/cli/v3"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/internal/config"
	"github.com/clawdhq/clawd/runtime"
	"github.com/clawdhq/clawd/runtime/client"
	"github.com/clawdhq/clawd/tray"
)

type serveOptions struct {
	headless bool
	port     int
	logLevel string
}

func newServeCmd(e *env) *cli.Command {
	o := &serveOptions{}
	return &cli.Command{
		Name:  "serve",
		Usage: "run the clawd runtime: loopback server, session states, event stream",
		Description: "Listens on 127.0.0.1, on the first free port of 23333-23337, and writes\n" +
			"runtime.json (port, pid, version, API token) into the clawd home ($CLAWD_HOME or\n" +
			"~/.clawd) so hooks and the CLI find it. Stops cleanly on SIGINT/SIGTERM.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "headless", Usage: "run without the tray icon", Destination: &o.headless},
			&cli.IntFlag{Name: "port", Value: -1, HideDefault: true, Destination: &o.port,
				Usage: "listen on `PORT` instead of the first free of 23333-23337 (0: any free port)"},
			&cli.StringFlag{Name: "log-level", Value: "info", Destination: &o.logLevel,
				Usage: "debug, info, warn or error"},
		},
		Action: func(ctx context.Context, c *cli.Command) error {
			return runServe(ctx, e, o)
		},
	}
}

func runServe(ctx context.Context, e *env, o *serveOptions) error {
	var level slog.Level
	if err := level.UnmarshalText([]byte(o.logLevel)); err != nil {
		return exitCode(2, fmt.Errorf("bad --log-level %q: use debug, info, warn or error", o.logLevel))
	}
	log := slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: level}))
	cfg, err := config.Load(e.home())
	if err != nil {
		// The error names the file, the line and the key to fix.
		return exitCode(1, err)
	}
	if !o.headless && !tray.Available() {
		log.Info("tray not available in this build; running headless")
	}
	// The runtime is a small heap that lives for days and makes garbage on
	// every hook event; see runtime.TuneGC for the settings and why.
	restoreGC := runtime.TuneGC()
	defer restoreGC()
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	disabled := map[string]bool{}
	for _, a := range agents.All() {
		disabled[a.ID] = !cfg.PermissionsEnabled(a.ID)
	}
	srv := runtime.New(runtime.Config{
		Home:                e.home(),
		Version:             Version(),
		Logger:              log,
		Now:                 e.now,
		PermissionTimeout:   cfg.Permissions.Timeout,
		HeadlessPolicy:      string(cfg.Permissions.Headless),
		PermissionsDisabled: disabled,
	})
	err = srv.Run(ctx, o.port, func(in client.Info) {
		fmt.Fprintf(e.stdout, "clawd %s listening on 127.0.0.1:%d (runtime.json in %s)\n", Version(), in.Port, e.home())
	})
	var already *runtime.ErrAlreadyRunning
	if errors.As(err, &already) {
		return exitCode(1, err)
	}
	if errors.Is(err, runtime.ErrPortsBusy) {
		return exitCode(1, fmt.Errorf("%w: stop whatever holds them, or pass --port", err))
	}
	return err
}
