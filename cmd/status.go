package cmd

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/installers"
	"github.com/clawdhq/clawd/internal/config"
	"github.com/clawdhq/clawd/internal/i18n"
	"github.com/clawdhq/clawd/internal/present"
	"github.com/clawdhq/clawd/internal/text"
	"github.com/clawdhq/clawd/runtime/client"
)

type statusOptions struct {
	json  bool
	watch bool
}

func newStatusCmd(e *env) *cli.Command {
	o := &statusOptions{}
	return &cli.Command{
		Name:  "status",
		Usage: e.t("help.status.usage"),
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: e.t("help.status.flag_json"), Destination: &o.json},
			&cli.BoolFlag{Name: "watch", Aliases: []string{"w"}, Usage: e.t("help.status.flag_watch"), Destination: &o.watch},
		},
		Action: func(ctx context.Context, c *cli.Command) error {
			return runStatus(ctx, e, o)
		},
	}
}

func runStatus(ctx context.Context, e *env, o *statusOptions) error {
	c, err := connect(ctx, e)
	if err != nil {
		return err
	}
	if !o.watch {
		snap, err := c.Sessions(ctx)
		if err != nil {
			return exitCode(1, fmt.Errorf("read sessions: %w", err))
		}
		if o.json {
			return printJSON(e.stdout, snap, true)
		}
		renderStatus(e, snap)
		return nil
	}

	ctx, stop := signal.NotifyContext(ctx, syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	tty := isTerminal(e.stdout)
	var last []byte
	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	for {
		snap, err := c.Sessions(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return exitCode(1, fmt.Errorf("the runtime stopped: %w", err))
		}
		cur, _ := json.Marshal(snap)
		switch {
		case o.json:
			if string(cur) != string(last) {
				printJSON(e.stdout, json.RawMessage(cur), false)
			}
		case tty:
			// Redraw every tick: the ages move on.
			fmt.Fprint(e.stdout, "\x1b[H\x1b[2J")
			renderStatus(e, snap)
		case string(cur) != string(last):
			fmt.Fprintf(e.stdout, "--- %s\n", e.now().Format("15:04:05"))
			renderStatus(e, snap)
		}
		last = cur
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
	}
}

// statusWidth bounds the STATE column: a failure's reason is cut there.
const statusWidth = 60

// renderStatus prints the sessions for people, in their language: how
// many want the person and where to answer them ("3 need you · 1 failed
// → clawd permissions"), then a table of them, most urgent first as the
// tray lists them (present.Status), cut to the terminal's width and
// coloured on a terminal. The states in it are words ("done 3m ago",
// "failed: API Error: 429 …"); --json keeps the ids and the times.
func renderStatus(e *env, snap client.Snapshot) {
	w, now, home, p := e.stdout, e.now(), e.getenv("HOME"), e.printer()
	colour := e.colour()
	if len(snap.Sessions) > 0 {
		fmt.Fprintln(w, statusSummary(p, snap.Sessions, colour))
	}
	// The hooks the runtime repaired or gave up on: the sessions of such
	// an agent may be missing below.
	for _, in := range snap.Integrations {
		switch in.State {
		case client.IntegrationNeedsManualFix:
			fmt.Fprintln(w, e.t("status.manual_fix", text.Line(in.Agent, 0), text.Line(in.Detail, 0)))
		case client.IntegrationRepaired:
			fmt.Fprintln(w, e.n("status.repaired", in.Repairs, text.Line(in.Agent, 0), text.Line(in.Detail, 0)))
		}
	}
	for _, l := range snap.Remotes {
		fmt.Fprintln(w, e.t("status.remote", text.Line(l.Profile, 0), linkSummary(p, &l, true, now)))
	}
	// What is wrong with the runtime itself: what the person is missing.
	for _, pr := range snap.Problems {
		line := text.Line(pr.Text, 0)
		if pr.Remedy != "" {
			line = e.t("status.problem_fix", line, text.Line(pr.Remedy, 0))
		}
		fmt.Fprintln(w, e.t("status.problem", line))
	}
	if len(snap.Sessions) == 0 {
		if !hookedUp(e) {
			fmt.Fprintln(w, e.t("status.not_hooked"))
			return
		}
		fmt.Fprintln(w, e.t("status.none"))
		return
	}
	sessions := slices.Clone(snap.Sessions)
	present.Sort(sessions)
	custom := customNames(e)
	// The title gives way before the state, which says what a session
	// needs, or the folder is cut.
	tw := newTable(w).Fit(e.columns()).Give(2)
	if colour {
		tw.Paint(func(row, col int, cell string) string {
			if row == 0 || col != 1 {
				return cell
			}
			return paint(statusColour[present.SessionStatus(sessions[row-1])], cell)
		})
	}
	tw.Row(e.t("status.header"))
	for _, s := range sessions {
		state := text.Line(present.StatusLabel(p, s, now), statusWidth)
		if s.Headless {
			state += p.T("tray.headless")
		}
		title := text.Line(s.Title, 0)
		if title == "" {
			title = "-"
		}
		agent, folder := text.Line(cmp.Or(custom[s.Agent], s.Agent), 0), text.Line(shortPath(s.Cwd, home), 0)
		if s.Host != "" {
			// A remote's folder is a path on that machine.
			agent += " @" + text.Line(s.Host, 0)
			folder = text.Line(s.Host, 0) + ":" + text.Line(cmp.Or(s.Cwd, "-"), 0)
		}
		tw.Row(agent, text.Line(state, 0), title, folder, age(p, now, s.UpdatedAt))
	}
	tw.Flush()
}

// statusKeys are the catalog keys of statusSummary's counts, by status.
var statusKeys = [...]string{
	present.NeedsYou: "status.needs_you",
	present.Asks:     "status.asks",
	present.Failed:   "status.failed",
	present.Working:  "status.working",
	present.Thinking: "status.thinking",
	present.Done:     "status.done",
	present.Idle:     "status.idle",
	present.Ended:    "status.ended",
}

// statusColour is the SGR colour of each status on a terminal: what wants
// the person bold yellow, a failure red, work cyan, done green, the rest
// dim.
var statusColour = [...]string{
	present.NeedsYou: "1;33",
	present.Asks:     "1;33",
	present.Failed:   "31",
	present.Working:  "36",
	present.Thinking: "36",
	present.Done:     "32",
	present.Idle:     "2",
	present.Ended:    "2",
}

// paint wraps s in the SGR colour sgr.
func paint(sgr, s string) string {
	if sgr == "" {
		return s
	}
	return "\x1b[" + sgr + "m" + s + "\x1b[0m"
}

// statusSummary is status's first line: how many sessions need the
// person, ask and failed, with where to answer ("3 need you · 1 failed →
// clawd permissions"); when none does, "nothing needs you" and what the
// others do.
func statusSummary(p i18n.Printer, sessions []client.SessionView, colour bool) string {
	var counts [len(statusKeys)]int
	for _, s := range sessions {
		counts[present.SessionStatus(s)]++
	}
	var wants, rest []string
	for st, n := range counts {
		if n == 0 {
			continue
		}
		part := p.N(statusKeys[st], n)
		if st <= int(present.Failed) {
			if colour {
				part = paint(statusColour[st], part)
			}
			wants = append(wants, part)
		} else {
			rest = append(rest, part)
		}
	}
	sep := p.T("status.sep")
	if len(wants) == 0 {
		return strings.Join(append([]string{p.T("status.calm")}, rest...), sep)
	}
	line := strings.Join(wants, sep)
	if counts[present.NeedsYou]+counts[present.Asks] > 0 {
		line = p.T("status.answer", line)
	}
	return line
}

// hookedUp reports whether any agent here has clawd's hooks: the install
// record names one, or an agent's settings hold a hook of this binary.
func hookedUp(e *env) bool {
	rec, err := installers.ReadRecord(e.home())
	if err != nil || len(rec.Agents) > 0 {
		return true // a record that does not read was written by an install
	}
	binary, _ := e.executable()
	for _, a := range agents.All() {
		inst, err := installers.For(a, e.getenv)
		if err != nil {
			continue
		}
		l, ok := inst.(installers.Lister)
		if !ok {
			continue
		}
		if hooks, err := l.Hooks(installers.Options{Known: installers.NewKnown(binary)}); err == nil && len(hooks) > 0 {
			return true
		}
	}
	return false
}

// customNames maps the ids of config.toml's custom agents to their
// display names (none when the file does not load: the ids show).
func customNames(e *env) map[string]string {
	cfg, err := config.Load(e.home())
	if err != nil {
		return nil
	}
	names := make(map[string]string, len(cfg.Custom))
	for _, c := range cfg.Custom {
		names[c.ID()] = strings.TrimSpace(c.Display)
	}
	return names
}

// shortPath shows a folder with the home directory as ~.
func shortPath(p, home string) string {
	if p == "" {
		return "-"
	}
	if home != "" {
		if rel, err := filepath.Rel(home, p); err == nil && !strings.HasPrefix(rel, "..") {
			if rel == "." {
				return "~"
			}
			return "~" + string(filepath.Separator) + rel
		}
	}
	return p
}

// age says how long ago t was, coarsely: the tray's ages, with "just
// now" for the newest.
func age(p i18n.Printer, now, t time.Time) string {
	d := now.Sub(t)
	if d < 5*time.Second {
		return p.T("status.just_now")
	}
	return present.Age(p, d)
}

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
