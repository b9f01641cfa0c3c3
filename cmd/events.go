package cmd

import (
	"context"
	"errors"
	"fmt"
	"os/signal"
	"strings"
	"syscall"

	"github.com/urfave/cli/v3"

	"github.com/clawdhq/clawd/internal/text"
	"github.com/clawdhq/clawd/runtime/client"
)

type eventsOptions struct {
	json bool
}

func newEventsCmd(e *env) *cli.Command {
	o := &eventsOptions{}
	return &cli.Command{
		Name:        "events",
		Usage:       e.t("help.events.usage"),
		Description: e.t("help.events.description"),
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: e.t("help.events.flag_json"), Destination: &o.json},
		},
		Action: func(ctx context.Context, c *cli.Command) error {
			return runEvents(ctx, e, o)
		},
	}
}

func runEvents(ctx context.Context, e *env, o *eventsOptions) error {
	c, err := connect(ctx, e)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	err = c.StreamEvents(ctx, func(raw []byte, rec client.EventRecord) error {
		if o.json {
			_, err := fmt.Fprintf(e.stdout, "%s\n", text.JSON(raw))
			return err
		}
		_, err := fmt.Fprintln(e.stdout, formatEvent(rec))
		return err
	})
	if ctx.Err() != nil {
		return nil // interrupted: a normal end
	}
	if err == nil || errors.Is(err, context.Canceled) {
		return exitCode(1, errors.New("the runtime stopped"))
	}
	return exitCode(1, fmt.Errorf("event stream: %w", err))
}

// formatEvent renders one record for people:
// 15:04:05  claude  …c0ffee  tool.start        working   Bash  "Fix the login bug"
func formatEvent(r client.EventRecord) string {
	if string(r.Kind) == client.StreamLagged {
		return "(some events were dropped: this terminal read too slowly)"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s  %-7s %-8s %-19s %-9s", r.Time.Local().Format("15:04:05"), text.Line(r.Agent, 0),
		text.Line(shortID(r.SessionID), 0), text.Line(string(r.Kind), 0), text.Line(r.State, 0))
	if t := text.Line(r.ToolName, 0); t != "" {
		b.WriteString("  " + t)
	}
	if n := text.Line(r.NotificationType, 0); n != "" {
		b.WriteString("  " + n)
	}
	if t := text.Line(r.Title, 0); t != "" {
		b.WriteString("  \"" + t + "\"")
	}
	if r.Headless {
		b.WriteString("  (headless)")
	}
	return b.String()
}

// shortID keeps the end of a session id, where UUIDs differ.
func shortID(id string) string {
	if len(id) <= 8 {
		return id
	}
	return "…" + id[len(id)-6:]
}
