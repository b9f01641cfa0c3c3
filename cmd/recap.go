package cmd

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/clawdhq/clawd/internal/text"
	"github.com/clawdhq/clawd/runtime/recap"
)

type recapOptions struct {
	days    int
	json    bool
	folders bool
}

func newRecapCmd(e *env) *cli.Command {
	o := &recapOptions{}
	return &cli.Command{
		Name:  "recap",
		Usage: "where the time went: the agents' days as clawd saw them, with small bar charts",
		Description: "Per local day, agent and folder: sessions, turns, tool calls by tool, permission\n" +
			"requests and questions and how long they waited for you, failed turns, and the time\n" +
			"the agents were busy. Only what clawd serve was running to see: each day says how\n" +
			"much of it that was. Folders show as hashes (the recap stores them so, with a key of\n" +
			"this machine's) unless you ask with --folders; then those clawd knows by name (from\n" +
			"the history's 30 days and the sessions running now) are named. Kept 400 days.",
		Flags: []cli.Flag{
			&cli.IntFlag{Name: "days", Value: 7, Usage: "the last `N` days, today included", Destination: &o.days},
			&cli.BoolFlag{Name: "json", Usage: "print the recap as JSON (see the README for its schema)", Destination: &o.json},
			&cli.BoolFlag{Name: "folders", Usage: "name the folders clawd knows", Destination: &o.folders},
		},
		Action: func(ctx context.Context, c *cli.Command) error {
			if c.Args().Present() {
				return exitCode(2, fmt.Errorf("clawd recap takes no arguments"))
			}
			if o.days < 1 || o.days > 400 {
				return exitCode(2, fmt.Errorf("bad --days %d: 1 to 400", o.days))
			}
			return runRecap(ctx, e, o)
		},
	}
}

func runRecap(ctx context.Context, e *env, o *recapOptions) error {
	c, err := connect(ctx, e)
	if err != nil {
		return err
	}
	sum, err := c.Recap(ctx, o.days, o.folders)
	if err != nil {
		return apiError(err)
	}
	if o.json {
		return printJSON(e.stdout, sum, true)
	}
	renderRecap(e.stdout, sum, e.getenv("HOME"))
	return nil
}

// barWidth is the longest bar, in cells.
const barWidth = 20

// bar draws v of max as a bar of at most barWidth cells, in eighths.
func bar(v, max int64) string {
	if v <= 0 || max <= 0 {
		return ""
	}
	eighths := int((v*barWidth*8 + max - 1) / max) // at least one eighth
	full, part := eighths/8, eighths%8
	s := strings.Repeat("█", full)
	if part > 0 {
		s += string([]rune("▏▎▍▌▋▊▉")[part-1])
	}
	return s
}

// span says a duration the way the recap does: 46s, 2m46s, 35m, 2h10m,
// 3d04h.
func span(secs int64) string {
	d := time.Duration(secs) * time.Second
	switch {
	case d <= 0:
		return "-"
	case d < time.Minute:
		return fmt.Sprintf("%ds", secs)
	case d < 10*time.Minute:
		return fmt.Sprintf("%dm%02ds", secs/60, secs%60)
	case d < time.Hour:
		return fmt.Sprintf("%dm", secs/60)
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh%02dm", secs/3600, secs/60%60)
	}
	return fmt.Sprintf("%dd%02dh", secs/86400, secs/3600%24)
}

// dayLabel is a day as "Mon 23 Mar".
func dayLabel(d recap.Day) string {
	t, err := time.Parse(recap.DayLayout, string(d))
	if err != nil {
		return string(d)
	}
	return t.Format("Mon 02 Jan")
}

func percent(part, whole int64) string {
	switch {
	case whole <= 0:
		return "-"
	case part > 0 && part*100 < whole:
		return "<1%"
	}
	return fmt.Sprintf("%d%%", part*100/whole)
}

func renderRecap(w io.Writer, s recap.Summary, home string) {
	fmt.Fprintf(w, "clawd recap, %s to %s (%s)\n", dayLabel(s.From), dayLabel(s.To), text.Line(s.Zone, 0))
	switch {
	case s.CoveredSeconds == 0:
		fmt.Fprintln(w, "clawd was not running at all in these days: it knows nothing of them.")
		return
	case s.CoveredSeconds < s.Seconds:
		fmt.Fprintf(w, "clawd was running to see %s of this time (%s of %s); of the rest it knows nothing.\n",
			percent(s.CoveredSeconds, s.Seconds), span(s.CoveredSeconds), span(s.Seconds))
	default:
		fmt.Fprintln(w, "clawd was running all this time.")
	}
	fmt.Fprintln(w)

	var maxBusy int64
	for _, d := range s.Days {
		maxBusy = max(maxBusy, d.BusySeconds)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "DAY\tBUSY\t\tSESSIONS\tTURNS\tTOOLS\tWAITED\tFAILED\tSEEN")
	for _, d := range s.Days {
		seen := percent(d.CoveredSeconds, d.Seconds)
		if h := d.LengthSeconds / 3600; d.LengthSeconds%3600 == 0 && h != 24 {
			seen += fmt.Sprintf(" of a %d-hour day", h)
		}
		if d.CoveredSeconds == 0 {
			fmt.Fprintf(tw, "%s\t\t\t\t\t\t\t\t%s: clawd was not running\n", dayLabel(d.Day), seen)
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%d\t%s\t%d\t%s\n", dayLabel(d.Day), bar(d.BusySeconds, maxBusy),
			span(d.BusySeconds), d.Sessions, d.Turns, d.ToolCalls, span(d.WaitingSeconds), d.FailedTurns, seen)
	}
	tw.Flush()
	if s.Totals.Sessions == 0 && s.Totals.Turns == 0 {
		fmt.Fprintln(w, "\nNo agent activity while clawd was running.")
		return
	}

	fmt.Fprintln(w, "\nBusiest agents")
	chart(w, len(s.Agents), func(i int) (string, int64, string) {
		a := s.Agents[i]
		return text.Line(a.Agent, 0), a.BusySeconds, fmt.Sprintf("%s busy, %d turns, %s", span(a.BusySeconds), a.Turns, plural(a.Sessions, "session"))
	})

	fmt.Fprintln(w, "\nBusiest folders")
	named := false
	chart(w, min(len(s.Folders), 10), func(i int) (string, int64, string) {
		f := s.Folders[i]
		name := "#" + f.Folder[:min(8, len(f.Folder))]
		if f.Name != "" {
			name, named = text.Line(shortPath(f.Name, home), 0), true
		}
		return name, f.BusySeconds, fmt.Sprintf("%s busy, %d turns", span(f.BusySeconds), f.Turns)
	})
	if more := len(s.Folders) - 10; more > 0 {
		fmt.Fprintf(w, "  and %d more\n", more)
	}
	if !named {
		fmt.Fprintln(w, "  (folders are kept as hashes: --folders names those clawd knows)")
	}

	t := s.Totals
	fmt.Fprintf(w, "\nWaiting for you: %s, %s, %s in all\n", plural(t.Permissions, "permission request"),
		plural(t.Questions, "question"), span(t.WaitingSeconds))
	chart(w, len(s.Agents), func(i int) (string, int64, string) {
		a := s.Agents[i]
		return text.Line(a.Agent, 0), a.WaitingSeconds, span(a.WaitingSeconds)
	})

	fmt.Fprintf(w, "\nFailures: %s\n", plural(t.FailedTurns, "failed turn"))
	chart(w, len(s.Agents), func(i int) (string, int64, string) {
		a := s.Agents[i]
		return text.Line(a.Agent, 0), int64(a.FailedTurns), fmt.Sprint(a.FailedTurns)
	})

	fmt.Fprintf(w, "\nTools: %s\n", plural(t.ToolCalls, "call"))
	chart(w, min(len(s.Tools), 10), func(i int) (string, int64, string) {
		return text.Line(s.Tools[i].Tool, 0), int64(s.Tools[i].Calls), fmt.Sprint(s.Tools[i].Calls)
	})
}

// chart prints n rows of a bar chart, each label, value and what to say
// after the bar; rows with nothing to show are left out.
func chart(w io.Writer, n int, row func(i int) (label string, v int64, say string)) {
	var top int64
	for i := range n {
		_, v, _ := row(i)
		top = max(top, v)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for i := range n {
		label, v, say := row(i)
		if v <= 0 {
			continue
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", label, bar(v, top), say)
	}
	tw.Flush()
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
