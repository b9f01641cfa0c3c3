package doctor

import (
	"fmt"
	"io"
	"strings"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/internal/text"
)

// ANSI colours of the statuses.
var colours = map[Status]string{OK: "\x1b[32m", Warn: "\x1b[33m", Fail: "\x1b[31m", Skipped: "\x1b[2m"}

// WriteText writes r for a person: the checks grouped by what they are
// about (the runtime, each agent, the desktop), each with its status, id
// and finding and, when something is wrong, its fix; then a summary line.
// colour colours the statuses (a terminal, without NO_COLOR). Every
// string is one inert line (text.Line).
func (r Report) WriteText(w io.Writer, colour bool) {
	group := ""
	for _, c := range r.Checks {
		if g := groupOf(c); g != group {
			if group != "" {
				fmt.Fprintln(w)
			}
			group = g
			fmt.Fprintln(w, groupTitle(g))
		}
		status := fmt.Sprintf("%-7s", c.Status)
		if colour {
			status = colours[c.Status] + status + "\x1b[0m"
		}
		fmt.Fprintf(w, "  %s %s: %s\n", status, text.Line(c.ID, 0), text.Line(c.Finding, 0))
		if c.Fix != "" && (c.Status == Fail || c.Status == Warn) {
			fmt.Fprintf(w, "          fix: %s\n", text.Line(c.Fix, 0))
		}
	}
	fails, warns := 0, 0
	for _, c := range r.Checks {
		switch c.Status {
		case Fail:
			fails++
		case Warn:
			warns++
		}
	}
	fmt.Fprintln(w)
	switch {
	case fails > 0:
		fmt.Fprintf(w, "%d failed, %d %s: clawd doctor --fix repairs what it can\n", fails, warns, plural(warns, "warning", "warnings"))
	case warns > 0:
		fmt.Fprintf(w, "nothing failed, %d %s\n", warns, plural(warns, "warning", "warnings"))
	default:
		fmt.Fprintln(w, "everything works")
	}
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

func groupTitle(g string) string {
	if a := agents.Lookup(g); a != nil {
		return a.Name + " (" + a.ID + ")"
	}
	if g == "remote" {
		return "remote machines"
	}
	return g
}
