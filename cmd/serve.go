package cmd

import (
	"context"
	"errors"
	"fmt"
	stdlog "log"
	"log/slog"
	"os/signal"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/internal/config"
	"github.com/clawdhq/clawd/internal/desktop"
	"github.com/clawdhq/clawd/internal/icons"
	"github.com/clawdhq/clawd/internal/launch"
	"github.com/clawdhq/clawd/remote"
	"github.com/clawdhq/clawd/runtime"
	"github.com/clawdhq/clawd/runtime/automations"
	"github.com/clawdhq/clawd/runtime/channels/telegram"
	"github.com/clawdhq/clawd/runtime/client"
	"github.com/clawdhq/clawd/runtime/history"
	"github.com/clawdhq/clawd/runtime/monitors"
	"github.com/clawdhq/clawd/runtime/selfrepair"
	"github.com/clawdhq/clawd/tray"
	"github.com/clawdhq/clawd/tray/notify"
)

type serveOptions struct {
	headless bool
	port     int
	logLevel string
}

func newServeCmd(e *env) *cli.Command {
	o := &serveOptions{}
	// Its default is in its line, in the person's language.
	logLevel := &cli.StringFlag{Name: "log-level", Value: "info", HideDefault: true, Destination: &o.logLevel}
	logLevel.Usage = e.t("help.serve.flag_log_level", logLevel.Value)
	return &cli.Command{
		Name:        "serve",
		Usage:       e.t("help.serve.usage"),
		Description: e.t("help.serve.description"),
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "headless", Usage: e.t("help.serve.flag_headless"), Destination: &o.headless},
			&cli.IntFlag{Name: "port", Value: -1, HideDefault: true, Destination: &o.port,
				Usage: e.t("help.serve.flag_port")},
			logLevel,
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
	// The person's own agents, known from here on: the runtime takes
	// their POST /state, the tray and the dashboard show their names.
	if err := agents.SetCustom(cfg.Custom); err != nil {
		return exitCode(1, fmt.Errorf("config: %w", err))
	}
	// The desktop parts need a desktop: on Linux a session bus, looked
	// for without starting one. Without it clawd says so once and serves.
	var showTray, notifications bool
	if !o.headless {
		d := desktop.Probe()
		switch {
		case !d.Available:
			log.Info("no desktop session: running without a tray and notifications", "why", d.Why)
		case !tray.Available():
			log.Info("this build has no tray; notifications only")
			notifications = true
		default:
			showTray, notifications = true, true
			if !d.TrayHost {
				log.Info("no tray host yet: the icon shows up when one starts")
			}
		}
	}
	if showTray || notifications {
		// systray and beeep report through the standard logger.
		stdlog.SetFlags(0)
		stdlog.SetOutput(slog.NewLogLogger(log.Handler(), slog.LevelInfo).Writer())
	}
	restoreGC := runtime.TuneGC()
	defer restoreGC()
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	var d *notify.Desktop
	if notifications {
		d = notify.NewDesktop("clawd", func(k notify.Kind) []byte { return icons.Large(noteIcon(k)) },
			log, filepath.Join(e.home(), "cache"))
	}
	disabled := map[string]bool{}
	for _, a := range agents.All() {
		disabled[a.ID] = !cfg.PermissionsEnabled(a.ID)
	}
	// The agents' hooks are kept in place while the runtime runs, or only
	// watched with [doctor] self_repair = false.
	binary, _ := e.executable()
	repairer := selfrepair.New(selfrepair.Options{
		Home: e.home(), Getenv: e.getenv, Binary: binary, Repair: cfg.Doctor.SelfRepair, Now: e.now, Log: log,
	})
	remotes := remote.NewManager(remote.ManagerOptions{Home: e.home(), Programs: remotePrograms(e), Log: log, Now: e.now})
	srv := runtime.New(runtime.Config{
		Home:                e.home(),
		Version:             Version(),
		Logger:              log,
		Now:                 e.now,
		Getenv:              e.getenv,
		PermissionTimeout:   cfg.Permissions.Timeout,
		HeadlessPolicy:      string(cfg.Permissions.Headless),
		PermissionsDisabled: disabled,
		// config.toml is read once, here: a change takes effect when
		// clawd serve starts again.
		AgentsDisabled:         cfg.Disabled(),
		SubagentPermissionsOff: cfg.SubagentPermissionsOff(),
		Native: func(agent, kind string) bool {
			return cfg.PermissionModeFor(agent, kind) == config.Native
		},
		// The agents' own logs keep their sessions right when their hooks
		// are off or untrusted (Codex's rollout files).
		Sources: monitors.All(e.getenv, e.now, log),
		Agents:  func(ctx context.Context) ([]client.AgentInfo, error) { return agentList(e, cfg) },
		Doctor:  dashboardDoctor{doctorEnv(e)},
		OpenAutomations: func(ctx context.Context) (*automations.Engine, error) {
			return automations.Open(ctx, automations.Options{Home: e.home(), Now: e.now, Log: log, Desktop: automationDesktop(d)})
		},
		OpenHistory: func(ctx context.Context) (*history.Store, error) {
			return history.Open(ctx, history.Options{Home: e.home(), Now: e.now})
		},
		Integrations: repairer.Integrations,
		Remotes:      remotes,
		Printer:      e.printer(),
	})
	ctx, quit := context.WithCancel(ctx)
	defer quit()
	ready := make(chan struct{})
	errc := make(chan error, 1)
	go func() {
		err := srv.Run(ctx, o.port, func(in client.Info) {
			if in.Port == 0 {
				fmt.Fprintf(e.stdout, "clawd %s listening on %s only: no TCP port free, the dashboard is unavailable for now (runtime.json in %s)\n",
					Version(), in.Socket, e.home())
			} else {
				fmt.Fprintf(e.stdout, "clawd %s listening on %s and 127.0.0.1:%d (runtime.json in %s)\n",
					Version(), in.Socket, in.Port, e.home())
			}
			close(ready)
		})
		quit() // the tray and the notifier stop with the runtime
		errc <- err
	}()
	select {
	case <-ready:
	case err := <-errc:
		return serveError(err)
	}
	var wg sync.WaitGroup
	// The channels stop after the runtime: the phone hears how the last
	// requests closed.
	chctx, stopChannels := context.WithCancel(context.WithoutCancel(ctx))
	defer stopChannels()
	if t := cfg.Channels.Telegram; t.Enabled {
		ch := telegram.New(telegram.Options{Runtime: srv, Answers: telegram.QuestionAnswerer{Runtime: srv}, Home: e.home(), TokenFile: t.TokenPath(e.home()), APIURL: t.APIURL,
			Lifetime: cfg.Permissions.Timeout, Printer: e.printer(), Log: log, Now: e.now})
		wg.Go(func() { ch.Run(chctx) })
	}
	wg.Go(func() { srv.RunSources(ctx) })
	wg.Go(func() { repairer.Run(ctx, srv.IntegrationsChanged) })
	wg.Go(func() { remotes.Run(ctx, srv) })
	if notifications {
		n := tray.NewNotifier(tray.NotifierOptions{Runtime: srv, Config: cfg.Notifications, Printer: e.printer(), Sender: d, Log: log, Now: e.now})
		wg.Go(func() {
			n.Run(ctx)
			// A popup or a chime still under way finishes, briefly.
			cctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
			defer cancel()
			if err := d.Close(cctx); err != nil {
				log.Debug("notifications still running at exit", "err", err)
			}
		})
	}
	if showTray {
		// systray.Run wants the main goroutine, which urfave/cli runs
		// actions on; it returns when ctx ends.
		dashboard := func(ctx context.Context) error { return launch.Open(ctx, srv.DashboardLogin().URL) }
		if err := tray.Run(ctx, tray.Options{Runtime: srv, Home: e.home(), Quit: quit, Log: log, Now: e.now, Dashboard: dashboard, Printer: e.printer()}); err != nil {
			log.Warn("tray", "err", err)
		}
	}
	err = <-errc
	stopChannels()
	wg.Wait()
	return serveError(err)
}

func serveError(err error) error {
	var already *runtime.ErrAlreadyRunning
	if errors.As(err, &already) {
		return exitCode(1, err)
	}
	if errors.Is(err, runtime.ErrRemoteHome) {
		return exitCode(1, err)
	}
	return err
}

// noteIcon is the picture a notification of kind k carries.
func noteIcon(k notify.Kind) icons.Name {
	switch k {
	case notify.Done:
		return icons.Done
	case notify.Question:
		return icons.Question
	case notify.Failure:
		return icons.Error
	}
	return icons.NeedsYou
}

// automationDesktop is the desktop automations' notification and sound
// actions reach: the tray's popups and chime; nil without a desktop.
func automationDesktop(d *notify.Desktop) automations.Desktop {
	if d == nil {
		return nil
	}
	return noteDesktop{d}
}

type noteDesktop struct{ d *notify.Desktop }

func (n noteDesktop) Notify(ctx context.Context, title, body string) error {
	return n.d.Send(ctx, notify.Note{Kind: notify.Done, Summary: title, Body: body, Popup: true})
}

func (n noteDesktop) Sound(ctx context.Context) error {
	return n.d.Send(ctx, notify.Note{Sound: true})
}
