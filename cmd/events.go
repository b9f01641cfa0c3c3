package cmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/signal"
	"strings"
	"syscall"

	"github.com/urfave/cli/v3"

	"github.com/clawdhq/clawd/internal/i18n"
	"github.com/clawdhq/clawd/internal/present"
	"github.com/clawdhq/clawd/internal/text"
	"github.com/clawdhq/clawd/runtime/client"
)

type eventsOptions struct {
	json bool
	// since is --since: start after this seq (set: sinceSet).
	since    uint64
	sinceSet bool
	// live is --no-backlog.
	live bool
}

func newEventsCmd(e *env) *cli.Command {
	o := &eventsOptions{}
	return &cli.Command{
		Name:        "events",
		Usage:       e.t("help.events.usage"),
		Description: e.t("help.events.description"),
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: e.t("help.events.flag_json"), Destination: &o.json},
			&cli.Uint64Flag{Name: "since", Usage: e.t("help.events.flag_since"), Destination: &o.since, HideDefault: true},
			&cli.BoolFlag{Name: "no-backlog", Usage: e.t("help.events.flag_no_backlog"), Destination: &o.live},
		},
		Action: func(ctx context.Context, c *cli.Command) error {
			o.sinceSet = c.IsSet("since")
			return runEvents(ctx, e, o)
		},
	}
}

func runEvents(ctx context.Context, e *env, o *eventsOptions) error {
	if o.sinceSet && o.live {
		return exitCode(2, errors.New("--since and --no-backlog do not go together: --since prints the events after SEQ, --no-backlog none before now"))
	}
	c, err := connect(ctx, e)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	p := e.printer()
	from := client.EventsFrom{Since: o.since, Resume: o.sinceSet, Live: o.live}
	err = c.StreamEvents(ctx, from, func(raw []byte, rec client.EventRecord) error {
		if o.json {
			return printJSON(e.stdout, json.RawMessage(raw), false)
		}
		_, err := fmt.Fprintln(e.stdout, formatEvent(p, rec))
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
// and a permission request's answer with what happened in words:
// 15:04:07  claude  …c0ffee  permission.answered  working  Allowed Bash — from the command line  k3j5…
func formatEvent(p i18n.Printer, r client.EventRecord) string {
	switch string(r.Kind) {
	case client.StreamLagged:
		return p.T("events.lagged")
	case client.StreamMissed:
		if r.Reset {
			return p.T("events.reset")
		}
		return p.N("events.missed", r.Missed)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s  %-7s %-8s %-19s %-9s", r.Time.Local().Format("15:04:05"), text.Line(r.Agent, 0),
		text.Line(shortID(r.SessionID), 0), text.Line(string(r.Kind), 0), text.Line(r.State, 0))
	if a := r.Answer; a != nil {
		// The stream carries the tool, not what it would do: `clawd
		// permissions` shows that while the request waits.
		b.WriteString("  " + text.Line(present.Answered(p, *a, r.ToolName), 0) + "  " + text.Line(a.ID, 0))
	} else if t := text.Line(r.ToolName, 0); t != "" {
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
