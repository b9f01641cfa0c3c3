package cmd

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/internal/i18n"
	"github.com/clawdhq/clawd/internal/text"
	"github.com/clawdhq/clawd/runtime/client"
)

type historyOptions struct {
	json   bool
	agent  string
	since  string
	search string
	limit  int
}

func newHistoryCmd(e *env) *cli.Command {
	o := &historyOptions{}
	return &cli.Command{
		Name:        "history",
		Usage:       e.t("help.history.usage"),
		Description: e.t("help.history.description"),
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: e.t("help.history.flag_json"), Destination: &o.json},
			&cli.StringFlag{Name: "agent", Usage: e.t("help.history.flag_agent"), Destination: &o.agent},
			&cli.StringFlag{Name: "since", Usage: e.t("help.history.flag_since"), Destination: &o.since},
			&cli.StringFlag{Name: "search", Usage: e.t("help.history.flag_search"), Destination: &o.search},
			&cli.IntFlag{Name: "limit", HideDefault: true, Usage: e.t("help.history.flag_limit"), Destination: &o.limit},
		},
		Action: func(ctx context.Context, c *cli.Command) error {
			if c.Args().Present() {
				return exitCode(2, fmt.Errorf("clawd history takes no arguments (did you mean --search %s?)", c.Args().First()))
			}
			return runHistory(ctx, e, o)
		},
	}
}

// parseSince reads --since: a number of days, hours or minutes back from
// now (7d, 12h, 30m, or any Go duration), or a local date.
func parseSince(s string, now time.Time) (time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, nil
	}
	if n, ok := strings.CutSuffix(s, "d"); ok {
		if d, err := strconv.Atoi(n); err == nil && d >= 0 {
			return now.AddDate(0, 0, -d), nil
		}
	}
	if d, err := time.ParseDuration(s); err == nil && d >= 0 {
		return now.Add(-d), nil
	}
	if t, err := time.ParseInLocation("2006-01-02", s, now.Location()); err == nil {
		return t, nil
	}
	return time.Time{}, fmt.Errorf("bad --since %q: use 7d, 12h, 30m or a date like 2026-06-01", s)
}

func runHistory(ctx context.Context, e *env, o *historyOptions) error {
	now := e.now()
	since, err := parseSince(o.since, now)
	if err != nil {
		return exitCode(2, err)
	}
	if o.agent != "" {
		if a := agents.Lookup(o.agent); a != nil {
			o.agent = a.ID
		}
	}
	c, err := connect(ctx, e)
	if err != nil {
		return err
	}
	h, err := c.History(ctx, client.HistoryQuery{Agent: o.agent, Since: since, Search: o.search, Limit: o.limit})
	if err != nil {
		return apiError(err)
	}
	if o.json {
		return printJSON(e.stdout, h, true)
	}
	renderHistory(e.stdout, e.printer(), h.Sessions, now, e.getenv("HOME"), e.columns())
	return nil
}

// renderHistory prints the sessions as a table for people, in their
// language, fit to width (0: whole lines); --json keeps the data as it is.
func renderHistory(w io.Writer, p i18n.Printer, sessions []client.HistoryEntry, now time.Time, home string, width int) {
	if len(sessions) == 0 {
		fmt.Fprintln(w, p.T("history.none"))
		return
	}
	// The title and the folder give way, then the turns go, before the
	// agent or the session (its id and state) is cut.
	tw := newTable(w).Fit(width).Give(2, 3).Drop(4)
	tw.Row(p.T("history.header"))
	for _, s := range sessions {
		title := text.Line(s.Title, 0)
		if title == "" {
			title = "-"
		}
		state := ""
		switch {
		case s.Live:
			state = p.T("history.running")
		case !s.Ended:
			state = p.T("history.stale")
		}
		if s.Headless {
			state += p.T("tray.headless")
		}
		agent, folder := text.Line(s.Agent, 0), text.Line(shortPath(s.Cwd, home), 0)
		if s.Host != "" {
			// A remote's folder is a path on that machine.
			agent += " @" + text.Line(s.Host, 0)
			folder = text.Line(s.Host, 0) + ":" + text.Line(cmp.Or(s.Cwd, "-"), 0)
		}
		tw.Row(age(p, now, s.LastActive), agent, title, folder, strconv.Itoa(s.Turns), text.Line(s.SessionID, 0)+state)
	}
	tw.Flush()
}
