package cmd

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/clawdhq/clawd/internal/i18n"
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
	// Its default is in its line, in the person's language.
	days := &cli.IntFlag{Name: "days", Value: 7, HideDefault: true, Destination: &o.days}
	days.Usage = e.t("help.recap.flag_days", days.Value)
	return &cli.Command{
		Name:        "recap",
		Usage:       e.t("help.recap.usage"),
		Description: e.t("help.recap.description"),
		Flags: []cli.Flag{
			days,
			&cli.BoolFlag{Name: "json", Usage: e.t("help.recap.flag_json"), Destination: &o.json},
			&cli.BoolFlag{Name: "folders", Usage: e.t("help.recap.flag_folders"), Destination: &o.folders},
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
	renderRecap(e.stdout, e.printer(), sum, e.getenv("HOME"), e.columns())
	return nil
}

// barWidth is the longest bar, in cells; minBar the shortest a bar of
// max gets in a narrow terminal.
const (
	barWidth = 20
	minBar   = 5
)

// bar draws v of max as a bar of at most cells cells, in eighths.
func bar(v, max int64, cells int) string {
	if v <= 0 || max <= 0 {
		return ""
	}
	eighths := int((v*int64(cells)*8 + max - 1) / max) // at least one eighth
	full, part := eighths/8, eighths%8
	s := strings.Repeat("█", full)
	if part > 0 {
		s += string([]rune("▏▎▍▌▋▊▉")[part-1])
	}
	return s
}

// span says a duration the way the recap does: 46s, 2m46s, 35m, 2h10m,
// 3d04h in English.
func span(p i18n.Printer, secs int64) string {
	d := time.Duration(secs) * time.Second
	switch {
	case d <= 0:
		return "-"
	case d < time.Minute:
		return p.T("recap.span.seconds", secs)
	case d < 10*time.Minute:
		return p.T("recap.span.minutes_seconds", secs/60, secs%60)
	case d < time.Hour:
		return p.T("recap.span.minutes", secs/60)
	case d < 48*time.Hour:
		return p.T("recap.span.hours_minutes", secs/3600, secs/60%60)
	}
	return p.T("recap.span.days_hours", secs/86400, secs/3600%24)
}

// The catalogs' keys of the weekdays (from Sunday, as time.Weekday) and
// the months (from January).
var (
	weekdayKeys = [...]string{"recap.weekday.sun", "recap.weekday.mon", "recap.weekday.tue", "recap.weekday.wed",
		"recap.weekday.thu", "recap.weekday.fri", "recap.weekday.sat"}
	monthKeys = [...]string{"recap.month.jan", "recap.month.feb", "recap.month.mar", "recap.month.apr",
		"recap.month.may", "recap.month.jun", "recap.month.jul", "recap.month.aug", "recap.month.sep",
		"recap.month.oct", "recap.month.nov", "recap.month.dec"}
)

// dayLabel is a day as "Mon 23 Mar" ("3月23日 周一").
func dayLabel(p i18n.Printer, d recap.Day) string {
	t, err := time.Parse(recap.DayLayout, string(d))
	if err != nil {
		return string(d)
	}
	return p.T("recap.day", p.T(weekdayKeys[t.Weekday()]), t.Day(), p.T(monthKeys[t.Month()-1]))
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

// barFit returns the table build makes with bars of the most cells that
// fit in width beside its other columns: barWidth when width is 0, and
// not below minBar (the other columns give way then).
func barFit(width int, build func(cells int) *table) *table {
	if width <= 0 {
		return build(barWidth)
	}
	t := build(minBar)
	if cells := min(barWidth, minBar+width-t.Width()); cells > minBar {
		return build(cells)
	}
	return t
}

// renderRecap prints the recap for people, in their language, in width
// columns (0: no limit): the days as a table, then bar charts.
func renderRecap(w io.Writer, p i18n.Printer, s recap.Summary, home string, width int) {
	printWrapped(w, width, 2, p.T("recap.title", dayLabel(p, s.From), dayLabel(p, s.To), text.Line(s.Zone, 0)))
	switch {
	case s.CoveredSeconds == 0:
		printWrapped(w, width, 2, p.T("recap.seen_nothing"))
		return
	case s.CoveredSeconds < s.Seconds:
		printWrapped(w, width, 2, p.T("recap.seen_part", percent(s.CoveredSeconds, s.Seconds), span(p, s.CoveredSeconds), span(p, s.Seconds)))
	default:
		fmt.Fprintln(w, p.T("recap.seen_all"))
	}
	fmt.Fprintln(w)

	var maxBusy int64
	for _, d := range s.Days {
		maxBusy = max(maxBusy, d.BusySeconds)
	}
	// Narrow, the tool calls, the failures and the time waited go
	// before anything is cut; then what a day's SEEN says of it (not
	// running, a short day) goes under the table, a line each, and only
	// then is anything cut.
	const seenColumn = 8
	var notes []string
	days := func(beside bool) func(cells int) *table {
		return func(cells int) *table {
			notes = notes[:0]
			tw := newTable(w).Fit(width).Drop(5, 7, 6)
			tw.Row(p.T("recap.header"))
			for _, d := range s.Days {
				seen := percent(d.CoveredSeconds, d.Seconds)
				h := d.LengthSeconds / 3600
				short := d.LengthSeconds%3600 == 0 && h != 24
				switch {
				case !beside && d.CoveredSeconds == 0:
					notes = append(notes, p.T("recap.day_note", dayLabel(p, d.Day), p.T("recap.was_not_running")))
				case !beside && short:
					notes = append(notes, p.T("recap.day_note", dayLabel(p, d.Day), p.T("recap.hour_day", h)))
				case short:
					seen = p.T("recap.short_day", seen, h)
				}
				if d.CoveredSeconds == 0 {
					if beside {
						seen = p.T("recap.not_running", seen)
					}
					tw.Row(dayLabel(p, d.Day), "", "", "", "", "", "", "", seen)
					continue
				}
				tw.Row(dayLabel(p, d.Day), bar(d.BusySeconds, maxBusy, cells), span(p, d.BusySeconds), strconv.Itoa(d.Sessions),
					strconv.Itoa(d.Turns), strconv.Itoa(d.ToolCalls), span(p, d.WaitingSeconds), strconv.Itoa(d.FailedTurns), seen)
			}
			return tw
		}
	}
	dt := barFit(width, days(true))
	if dt.Cuts(seenColumn) {
		dt = barFit(width, days(false))
	}
	dt.Flush()
	for _, n := range notes {
		printWrapped(w, width, 2, n)
	}
	if s.Totals.Sessions == 0 && s.Totals.Turns == 0 {
		fmt.Fprintln(w)
		printWrapped(w, width, 2, p.T("recap.no_activity"))
		return
	}

	fmt.Fprintln(w)
	printWrapped(w, width, 2, p.T("recap.busiest_agents"))
	chart(w, width, len(s.Agents), func(i int) (string, int64, string) {
		a := s.Agents[i]
		return text.Line(a.Agent, 0), a.BusySeconds, p.T("recap.agent_busy", span(p, a.BusySeconds),
			p.N("recap.turns", a.Turns), p.N("recap.sessions", a.Sessions))
	})

	fmt.Fprintln(w)
	printWrapped(w, width, 2, p.T("recap.busiest_folders"))
	named := false
	chart(w, width, min(len(s.Folders), 10), func(i int) (string, int64, string) {
		f := s.Folders[i]
		name := "#" + f.Folder[:min(8, len(f.Folder))]
		if f.Name != "" {
			name, named = text.Line(shortPath(f.Name, home), 0), true
		}
		return name, f.BusySeconds, p.T("recap.folder_busy", span(p, f.BusySeconds), p.N("recap.turns", f.Turns))
	})
	if more := len(s.Folders) - 10; more > 0 {
		printWrapped(w, width, 4, "  "+p.N("recap.more_folders", more))
	}
	if !named {
		printWrapped(w, width, 4, "  "+p.T("recap.hashes"))
	}

	t := s.Totals
	fmt.Fprintln(w)
	printWrapped(w, width, 2, p.T("recap.waiting", p.N("recap.permission_requests", t.Permissions),
		p.N("recap.questions", t.Questions), span(p, t.WaitingSeconds)))
	chart(w, width, len(s.Agents), func(i int) (string, int64, string) {
		a := s.Agents[i]
		return text.Line(a.Agent, 0), a.WaitingSeconds, span(p, a.WaitingSeconds)
	})

	fmt.Fprintln(w)
	printWrapped(w, width, 2, p.T("recap.failures", p.N("recap.failed_turns", t.FailedTurns)))
	chart(w, width, len(s.Agents), func(i int) (string, int64, string) {
		a := s.Agents[i]
		return text.Line(a.Agent, 0), int64(a.FailedTurns), strconv.Itoa(a.FailedTurns)
	})

	fmt.Fprintln(w)
	printWrapped(w, width, 2, p.T("recap.tools", p.N("recap.calls", t.ToolCalls)))
	chart(w, width, min(len(s.Tools), 10), func(i int) (string, int64, string) {
		return text.Line(s.Tools[i].Tool, 0), int64(s.Tools[i].Calls), strconv.Itoa(s.Tools[i].Calls)
	})
}

// chart prints n rows of a bar chart under its heading, in width
// columns, each label, value and what to say after the bar; rows with
// nothing to show are left out. Narrow, the bars shrink first, then what
// is said and the labels give way.
func chart(w io.Writer, width, n int, row func(i int) (label string, v int64, say string)) {
	var top int64
	for i := range n {
		_, v, _ := row(i)
		top = max(top, v)
	}
	barFit(width, func(cells int) *table {
		tw := newTable(w).Indent(2).Fit(width).Give(2, 0)
		for i := range n {
			label, v, say := row(i)
			if v <= 0 {
				continue
			}
			tw.Row(label, bar(v, top, cells), say)
		}
		return tw
	}).Flush()
}
