package doctor

import (
	"fmt"
	"io"
	"strings"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/internal/i18n"
	"github.com/clawdhq/clawd/internal/text"
)

// ANSI colours of the statuses.
var colours = map[Status]string{OK: "\x1b[32m", Warn: "\x1b[33m", Fail: "\x1b[31m", Skipped: "\x1b[2m"}

// WriteText writes r for a person, in p's language: first the verdict
// in one line, then the checks grouped by what they are about (the
// runtime, each agent, the desktop), each with its status, id and finding
// and, when something is wrong, its fix; last how many agents were left
// out as not on this machine. colour colours the statuses (a terminal,
// without NO_COLOR). Every string is one inert line (text.Line), wrapped
// at width columns (0: not wrapped) with the lines after the first under
// the check's text. The findings and fixes are in p's language too
// (Check.Text); ids never change.
func (r Report) WriteText(w io.Writer, colour bool, p i18n.Printer, width int) {
	for _, l := range text.Wrap(r.verdict(p), width) {
		fmt.Fprintln(w, l)
	}
	statusWidth := 0
	for _, s := range []Status{OK, Skipped, Warn, Fail} {
		statusWidth = max(statusWidth, text.Width(statusWord(p, s)))
	}
	group := ""
	for _, c := range r.Checks {
		if g := groupOf(c); g != group {
			fmt.Fprintln(w)
			group = g
			fmt.Fprintln(w, groupTitle(p, g))
		}
		word := statusWord(p, c.Status)
		status := word + strings.Repeat(" ", statusWidth-text.Width(word))
		if colour {
			status = colours[c.Status] + status + "\x1b[0m"
		}
		finding, fix := c.Text(p)
		indent := strings.Repeat(" ", statusWidth+3)
		for i, l := range text.Wrap(text.Line(c.ID, 0)+": "+text.Line(finding, 0), width-len(indent)) {
			if i == 0 {
				fmt.Fprintf(w, "  %s %s\n", status, l)
			} else {
				fmt.Fprintf(w, "%s%s\n", indent, l)
			}
		}
		if fix != "" && (c.Status == Fail || c.Status == Warn) {
			// The fix's lines after the first go under the fix, past "fix: ".
			under := text.Width(p.T("doctor.fix", ""))
			for i, l := range text.Wrap(text.Line(fix, 0), width-len(indent)-under) {
				if i == 0 {
					fmt.Fprintf(w, "%s%s\n", indent, p.T("doctor.fix", l))
				} else {
					fmt.Fprintf(w, "%s%s%s\n", indent, strings.Repeat(" ", under), l)
				}
			}
		}
	}
	if n := len(r.NotHere); n > 0 {
		fmt.Fprintln(w)
		for _, l := range text.Wrap(p.N("doctor.not_here", n), width) {
			fmt.Fprintln(w, l)
		}
	}
}

// verdict is the report in one line: what failed and what warns, or that
// everything works. A runtime that does not run comes first: --fix cannot
// help with that.
func (r Report) verdict(p i18n.Printer) string {
	fails, warns := 0, 0
	down := false
	for _, c := range r.Checks {
		switch c.Status {
		case Fail:
			fails++
			down = down || c.ID == "runtime.reachable"
		case Warn:
			warns++
		}
	}
	switch {
	case down:
		return p.N("doctor.failed_down", warns, fails)
	case fails > 0:
		return p.N("doctor.failed", warns, fails)
	case warns > 0:
		return p.N("doctor.warnings", warns)
	}
	return p.T("doctor.works")
}

// statusWord is a status as the text report shows it.
func statusWord(p i18n.Printer, s Status) string {
	switch s {
	case OK, Skipped, Warn, Fail:
		return p.T("doctor.status." + string(s))
	}
	return string(s)
}

// groupOf is what check c is about: its agent, else the first part of
// its id (runtime, desktop).
func groupOf(c Check) string {
	if c.Agent != "" {
		return c.Agent
	}
	g, _, _ := strings.Cut(c.ID, ".")
	return g
}

func groupTitle(p i18n.Printer, g string) string {
	if a := agents.Lookup(g); a != nil {
		return a.Name + " (" + a.ID + ")"
	}
	switch g {
	case "runtime", "desktop", "remote", "autostart", "record", "config", "channels":
		return p.T("doctor.group." + g)
	}
	return g
}
