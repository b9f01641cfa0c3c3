package cmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/clawdhq/clawd/internal/atomicfile"
	"github.com/clawdhq/clawd/internal/clawdhome"
	"github.com/clawdhq/clawd/internal/i18n"
	"github.com/clawdhq/clawd/internal/text"
	"github.com/clawdhq/clawd/runtime/automations"
	"github.com/clawdhq/clawd/runtime/client"
)

func newAutomationsCmd(e *env) *cli.Command {
	var asJSON, yes bool
	var file, state, event, automation, since string
	var limit int
	jsonFlag := &cli.BoolFlag{Name: "json", Usage: e.t("help.flag_json"), Destination: &asJSON}
	yesFlag := &cli.BoolFlag{Name: "yes", Aliases: []string{"y"}, Usage: e.t("help.automations.flag_yes"), Destination: &yes}
	fileFlag := &cli.StringFlag{Name: "file", Aliases: []string{"f"}, Usage: e.t("help.automations.flag_file"), Destination: &file}
	eventFile := &cli.StringFlag{Name: "event", Usage: e.t("help.automations.flag_event"), Destination: &file}
	limitFlag := &cli.IntFlag{Name: "limit", Value: 50, HideDefault: true, Destination: &limit}
	limitFlag.Usage = e.t("help.automations.runs.flag_limit", limitFlag.Value) // the default in the person's words
	one := func(c *cli.Command) (string, error) {
		if c.Args().Len() != 1 {
			return "", exitCode(2, fmt.Errorf("name the automation: clawd automations %s ID", c.Name))
		}
		return c.Args().First(), nil
	}
	return &cli.Command{
		Name:        "automations",
		Usage:       e.t("help.automations.usage"),
		Description: e.t("help.automations.description"),
		Commands: []*cli.Command{
			{Name: "list", Usage: e.t("help.automations.list.usage"), Flags: []cli.Flag{jsonFlag},
				Action: func(ctx context.Context, c *cli.Command) error { return runAutomationsList(ctx, e, asJSON) }},
			{Name: "show", Usage: e.t("help.automations.show.usage"), ArgsUsage: "ID", Flags: []cli.Flag{jsonFlag},
				Action: func(ctx context.Context, c *cli.Command) error {
					id, err := one(c)
					if err != nil {
						return err
					}
					return runAutomationsShow(ctx, e, id, asJSON)
				}},
			{Name: "add", Usage: e.t("help.automations.add.usage"), Flags: []cli.Flag{fileFlag},
				Action: func(ctx context.Context, c *cli.Command) error { return runAutomationsAdd(ctx, e, file) }},
			{Name: "edit", Usage: e.t("help.automations.edit.usage"), ArgsUsage: "ID", Flags: []cli.Flag{fileFlag},
				Action: func(ctx context.Context, c *cli.Command) error {
					id, err := one(c)
					if err != nil {
						return err
					}
					return runAutomationsEdit(ctx, e, id, file, c.IsSet("file"))
				}},
			{Name: "rm", Usage: e.t("help.automations.rm.usage"), ArgsUsage: "ID",
				Action: func(ctx context.Context, c *cli.Command) error {
					id, err := one(c)
					if err != nil {
						return err
					}
					return editAutomationsFile(ctx, e, func(data []byte, path string) ([]byte, string, error) {
						out, err := automations.Replace(data, id, nil)
						return out, e.t("automations.removed", id, path), err
					})
				}},
			{Name: "trust", Usage: e.t("help.automations.trust.usage"), ArgsUsage: "ID", Flags: []cli.Flag{yesFlag},
				Action: func(ctx context.Context, c *cli.Command) error {
					id, err := one(c)
					if err != nil {
						return err
					}
					return runAutomationsTrust(ctx, e, id, yes)
				}},
			{Name: "runs", Usage: e.t("help.automations.runs.usage"), Flags: []cli.Flag{jsonFlag,
				&cli.StringFlag{Name: "state", Usage: e.t("help.automations.runs.flag_state", strings.Join(client.RunStates, e.t("list.sep"))), Destination: &state},
				&cli.StringFlag{Name: "event", Usage: e.t("help.automations.runs.flag_event"), Destination: &event},
				&cli.StringFlag{Name: "automation", Usage: e.t("help.automations.runs.flag_automation"), Destination: &automation},
				&cli.StringFlag{Name: "since", Usage: e.t("help.automations.runs.flag_since"), Destination: &since},
				limitFlag},
				Action: func(ctx context.Context, c *cli.Command) error {
					return runAutomationsRuns(ctx, e, state, event, automation, since, limit, asJSON)
				}},
			{Name: "retry", Usage: e.t("help.automations.retry.usage"), Description: e.t("help.automations.retry.description"), ArgsUsage: "RUN",
				Action: func(ctx context.Context, c *cli.Command) error { return runRunChange(ctx, e, c, "retry") }},
			{Name: "cancel", Usage: e.t("help.automations.cancel.usage"), Description: e.t("help.automations.cancel.description"), ArgsUsage: "RUN",
				Action: func(ctx context.Context, c *cli.Command) error { return runRunChange(ctx, e, c, "cancel") }},
			{Name: "pause", Usage: e.t("help.automations.pause.usage"),
				Action: func(ctx context.Context, c *cli.Command) error { return runAutomationsSwitch(ctx, e, true) }},
			{Name: "resume", Usage: e.t("help.automations.resume.usage"),
				Action: func(ctx context.Context, c *cli.Command) error { return runAutomationsSwitch(ctx, e, false) }},
			{Name: "preview", Usage: e.t("help.automations.preview.usage"), ArgsUsage: "ID", Flags: []cli.Flag{jsonFlag, eventFile},
				Action: func(ctx context.Context, c *cli.Command) error {
					id, err := one(c)
					if err != nil {
						return err
					}
					return runAutomationsPreview(ctx, e, id, file, asJSON)
				}},
			{Name: "test", Usage: e.t("help.automations.test.usage"), ArgsUsage: "ID", Flags: []cli.Flag{yesFlag, eventFile},
				Action: func(ctx context.Context, c *cli.Command) error {
					id, err := one(c)
					if err != nil {
						return err
					}
					return runAutomationsTest(ctx, e, id, file, yes)
				}},
		},
	}
}

// automationsState reads the runtime's automations, or, when no clawd
// serve runs, what automations.toml says (FromFile: no trust, runs or
// switch then). c is nil then.
func automationsState(ctx context.Context, e *env) (*client.Client, client.AutomationsState, error) {
	c, err := connect(ctx, e)
	if errors.Is(err, errNotRunning) {
		return nil, automations.FileState(e.home()), nil
	}
	if err != nil {
		return nil, client.AutomationsState{}, err
	}
	st, err := c.Automations(ctx)
	return c, st, apiError(err)
}

// fromFileNote says, before what list and show print from the file, what
// only a running clawd serve knows.
func fromFileNote(e *env, st client.AutomationsState) {
	if st.FromFile {
		fmt.Fprintln(e.stdout, e.t("automations.from_file"))
	}
}

// apiError turns the runtime's answer into the CLI's words, each line
// through the text policy: it may quote automations.toml.
func apiError(err error) error {
	var ae *client.APIError
	if errors.As(err, &ae) {
		return exitCode(1, errors.New(textLines(ae.Message)))
	}
	return err
}

// textLines is s, which may hold what automations.toml or the runtime
// wrote, with each of its lines through the text policy (text.Line): no
// escape sequence or bidi override reaches the terminal, and the lines of
// a list of problems stay lines.
func textLines(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = text.Line(l, 0)
	}
	return strings.Join(lines, "\n")
}

// fileError is an error about automations.toml (which it may quote) as
// the CLI prints it: through textLines, exit code 1.
func fileError(err error) error { return exitCode(1, cleanError{err}) }

// cleanError is err printed through textLines.
type cleanError struct{ err error }

func (c cleanError) Error() string { return textLines(c.err.Error()) }
func (c cleanError) Unwrap() error { return c.err }

func runAutomationsList(ctx context.Context, e *env, asJSON bool) error {
	_, st, err := automationsState(ctx, e)
	if err != nil {
		return err
	}
	if asJSON {
		return printJSON(e.stdout, st, true)
	}
	width := e.columns()
	note := func(s string) { printWrapped(e.stdout, width, 2, s) }
	if st.FromFile {
		note(e.t("automations.from_file"))
	}
	// The store's troubles come first: they hold whatever the list says.
	if st.Recovered != "" {
		note(e.t("automations.recovered", text.Line(st.Recovered, 0)))
	}
	if b := st.Backlog; b.WriteError != "" {
		note(e.t("automations.backlog_waiting", b.Queued, text.Line(b.WriteError, 200)))
	}
	if st.Backlog.Dropped > 0 {
		note(e.t("automations.backlog_dropped", st.Backlog.Dropped))
	}
	var problems error
	if st.Error != "" {
		problems = exitCode(1, errors.New("automations.toml has problems"))
		if !st.Kept {
			fmt.Fprintln(e.stdout, e.t("automations.problems", textLines(st.Error)))
			return problems
		}
		// The definitions read before are in force: they are listed.
		fmt.Fprintln(e.stdout, e.t("automations.problems_kept", textLines(st.Error)))
	}
	if st.Paused {
		note(e.t("automations.paused"))
	}
	if len(st.Definitions) == 0 {
		note(e.t("automations.none"))
		return problems
	}
	p := e.printer()
	var rows [][]string
	review := map[int]string{} // by row: what to do about it
	for i, d := range st.Definitions {
		id := text.Line(d.ID, 64)
		state := definitionState(d)
		if state == client.BindingNeedsReview {
			review[i] = p.T("automations.needs_review", id)
		}
		rows = append(rows, []string{id, text.Line(d.Event, 64), text.Line(d.Action.Type, 64), stateWord(p, state)})
	}
	// What to do about a definition that needs review goes beside its
	// state; too narrow for that, under the table, a line each. The event
	// and the action give way, and then the action goes, before the id
	// or the state is cut.
	draw := func(w io.Writer, width int, beside bool) *table {
		tw := newTable(w).Fit(width).Give(1, 2).Drop(2)
		tw.Row(p.T("automations.header"))
		for i, r := range rows {
			if hint, ok := review[i]; ok && beside {
				r = append(r[:3:3], hint)
			}
			tw.Row(r...)
		}
		return tw
	}
	beside := width <= 0 || draw(io.Discard, 0, true).Width() <= width
	if err := draw(e.stdout, width, beside).Flush(); err != nil {
		return err
	}
	for i := range rows {
		if hint, ok := review[i]; ok && !beside {
			printWrapped(e.stdout, width, 2, rows[i][0]+" "+hint)
		}
	}
	return problems
}

// definitionState sums up a definition's bindings as one binding state:
// needs_review when one needs review, else active when one acts, else
// unknown when one's trust is not known (read from the file), else
// disabled.
func definitionState(d client.Automation) string {
	if !d.IsEnabled() {
		return client.BindingDisabled
	}
	counts := map[string]int{}
	for _, b := range d.BindingStates {
		counts[b.State]++
	}
	switch {
	case counts[client.BindingNeedsReview] > 0:
		return client.BindingNeedsReview
	case counts[client.BindingActive] > 0:
		return client.BindingActive
	case counts[client.BindingUnknown] > 0:
		return client.BindingUnknown
	}
	return client.BindingDisabled
}

// stateWord is a run's or a binding's state in words, as the dashboard
// says it; a state this clawd does not know shows as it is.
func stateWord(p i18n.Printer, state string) string {
	switch state {
	case client.BindingUnknown:
		return p.T("automations.state_unknown")
	case client.BindingActive, client.BindingNeedsReview, client.BindingDisabled:
	default:
		if !slices.Contains(client.RunStates, state) {
			return text.Line(state, 40)
		}
	}
	return p.T("dashboard.run." + state)
}

// connectDefinition connects to the runtime and finds automation id in
// its state.
func connectDefinition(ctx context.Context, e *env, id string) (*client.Client, client.Automation, error) {
	c, err := connect(ctx, e)
	if err != nil {
		return nil, client.Automation{}, err
	}
	st, err := c.Automations(ctx)
	if err != nil {
		return nil, client.Automation{}, apiError(err)
	}
	d, err := findDefinition(st, id)
	return c, d, err
}

// findDefinition finds automation id among those in force: while
// automations.toml has problems, among those kept from before, if any.
func findDefinition(st client.AutomationsState, id string) (client.Automation, error) {
	if st.Error != "" && !st.Kept {
		return client.Automation{}, exitCode(1, fmt.Errorf("automations.toml has problems:\n%s", textLines(st.Error)))
	}
	for _, d := range st.Definitions {
		if d.ID == id {
			return d, nil
		}
	}
	return client.Automation{}, exitCode(1, fmt.Errorf("no automation %q (clawd automations list)", text.Line(id, 64)))
}

func runAutomationsShow(ctx context.Context, e *env, id string, asJSON bool) error {
	_, st, err := automationsState(ctx, e)
	if err != nil {
		return err
	}
	d, err := findDefinition(st, id)
	if err != nil {
		return err
	}
	if asJSON {
		return printJSON(e.stdout, d, true)
	}
	fromFileNote(e, st)
	describeDefinition(e.stdout, e.printer(), d)
	return nil
}

// describeDefinition prints what a definition does and where its trust
// stands, in p's words; the event, the action type, the condition, what
// it sends and the policy's values are shown as automations.toml has them
// (the policy with the defaults it leaves to clawd), each through the
// text policy.
func describeDefinition(w io.Writer, p i18n.Printer, d client.Automation) {
	fmt.Fprint(w, text.Line(d.ID, 64))
	if d.Name != "" {
		fmt.Fprint(w, p.T("automations.show_name", text.Line(d.Name, 120)))
	}
	fmt.Fprint(w, "\n"+p.T("automations.show_on", text.Line(d.Event, 64)))
	if len(d.Condition) > 0 {
		fmt.Fprint(w, p.T("automations.show_when", text.Line(string(d.Condition), 400)))
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, p.T("automations.show_does", text.Line(d.Action.Type, 64)))
	fmt.Fprintln(w, p.T("automations.show_sends"))
	for _, l := range d.Leaves {
		fmt.Fprintf(w, "    - %s\n", text.Line(l, 400))
	}
	pol := d.EffectivePolicy
	fmt.Fprintln(w, p.T("automations.show_policy",
		text.Line(pol.Timeout, 64), text.Line(pol.Retry, 64), pol.MaxAttempts, text.Line(pol.Backoff, 64), text.Line(pol.Concurrency, 64)))
	fmt.Fprintln(w, p.T("automations.show_hash", text.Line(d.Hash, 80)))
	for _, b := range d.BindingStates {
		fmt.Fprintln(w, p.T("automations.show_binding", text.Line(b.Key, 200), stateWord(p, b.State)))
	}
}

// automationsFile is automations.toml in the clawd home.
func automationsFile(e *env) string { return filepath.Join(e.home(), automations.File) }

// editAutomationsFile changes automations.toml through change (which
// gets the current bytes and the file's path and returns the new bytes
// and what it did, in the person's words), then has the runtime read it
// again if it runs.
func editAutomationsFile(ctx context.Context, e *env, change func(data []byte, path string) ([]byte, string, error)) error {
	path := automationsFile(e)
	data, err := automations.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fileError(err)
	}
	out, done, err := change(data, path)
	if err != nil {
		return fileError(err)
	}
	if _, err := clawdhome.Ensure(e.home()); err != nil {
		return exitCode(1, err)
	}
	if err := atomicfile.Write(path, out, 0o600, true, nil); err != nil {
		return exitCode(1, err)
	}
	fmt.Fprintln(e.stdout, done)
	c, err := connect(ctx, e)
	if err != nil {
		fmt.Fprintln(e.stdout, e.t("automations.serve_not_running"))
		return nil
	}
	st, err := c.ReloadAutomations(ctx)
	if err != nil {
		return apiError(err)
	}
	for _, d := range st.Definitions {
		if definitionState(d) == client.BindingNeedsReview {
			fmt.Fprintln(e.stdout, text.Line(d.ID, 64)+" "+e.t("automations.needs_review", text.Line(d.ID, 64)))
		}
	}
	return nil
}

// readTOML reads file ("" or "-": standard input), refusing more than
// automations.toml may hold. The file is the person's to name: a pipe
// (--file <(...)) is read as well.
func readTOML(e *env, file string) ([]byte, error) {
	in, name := e.stdin, "the standard input"
	if file != "" && file != "-" {
		f, err := os.Open(file)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		in, name = f, file
	}
	data, err := io.ReadAll(io.LimitReader(in, automations.MaxFileSize+1))
	if err != nil {
		return nil, err
	}
	if len(data) > automations.MaxFileSize {
		return nil, fmt.Errorf("%s: more than %d KiB, which automations.toml may not hold", name, automations.MaxFileSize>>10)
	}
	return data, nil
}

func runAutomationsAdd(ctx context.Context, e *env, file string) error {
	snippet, err := readTOML(e, file)
	if err != nil {
		return exitCode(1, err)
	}
	return editAutomationsFile(ctx, e, func(data []byte, path string) ([]byte, string, error) {
		out, ids, err := automations.Add(data, snippet)
		return out, e.t("automations.added", strings.Join(ids, e.t("list.sep")), path), err
	})
}

func runAutomationsEdit(ctx context.Context, e *env, id, file string, fromFile bool) error {
	var snippet []byte
	if fromFile {
		var err error
		if snippet, err = readTOML(e, file); err != nil {
			return exitCode(1, err)
		}
	} else {
		data, err := automations.ReadFile(automationsFile(e))
		if err != nil {
			return fileError(err)
		}
		cur, err := automations.Block(data, id)
		if err != nil {
			return fileError(err)
		}
		if snippet, err = editInEditor(ctx, e, cur); err != nil {
			return exitCode(1, err)
		}
	}
	return editAutomationsFile(ctx, e, func(data []byte, path string) ([]byte, string, error) {
		out, err := automations.Replace(data, id, snippet)
		return out, e.t("automations.edited", id, path), err
	})
}

// editInEditor lets the person edit text in $VISUAL or $EDITOR and
// returns what they saved.
func editInEditor(ctx context.Context, e *env, cur []byte) ([]byte, error) {
	editor := e.getenv("VISUAL")
	if editor == "" {
		editor = e.getenv("EDITOR")
	}
	if editor == "" {
		return nil, errors.New("set $EDITOR (or use --file)")
	}
	f, err := os.CreateTemp("", "clawd-automation-*.toml")
	if err != nil {
		return nil, err
	}
	defer os.Remove(f.Name())
	f.Write(cur)
	f.Close()
	// The editor is the person's own command line ($EDITOR may carry
	// arguments): a shell splits it, the file comes as its last word.
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", editor+` "$1"`, "editor", f.Name())
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, e.stdout, e.stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%s: %w", editor, err)
	}
	return os.ReadFile(f.Name())
}

func runAutomationsTrust(ctx context.Context, e *env, id string, yes bool) error {
	c, d, err := connectDefinition(ctx, e, id)
	if err != nil {
		return err
	}
	describeDefinition(e.stdout, e.printer(), d)
	if !yes {
		if !e.confirm(e.t("automations.trust_ask", id)) {
			return exitCode(1, errors.New("not trusted"))
		}
	}
	if err := c.TrustAutomation(ctx, id, d.Hash); err != nil {
		return apiError(err)
	}
	fmt.Fprintln(e.stdout, e.t("automations.trusted", id, text.Line(d.Hash, 80)))
	return nil
}

func runAutomationsRuns(ctx context.Context, e *env, state, event, automation, since string, limit int, asJSON bool) error {
	q := client.RunQuery{State: state, Event: event, Automation: automation, Limit: limit}
	if since != "" {
		t, err := time.Parse(time.RFC3339, since)
		if err != nil {
			d, derr := time.ParseDuration(since)
			if derr != nil {
				return exitCode(2, fmt.Errorf("--since %q: a duration like 1h or an RFC 3339 time", since))
			}
			t = e.now().Add(-d)
		}
		q.Since = t
	}
	c, err := connect(ctx, e)
	if err != nil {
		return err
	}
	runs, err := c.AutomationRuns(ctx, q)
	if err != nil {
		return apiError(err)
	}
	if asJSON {
		for _, r := range runs {
			b, err := json.Marshal(r)
			if err != nil {
				return err
			}
			fmt.Fprintf(e.stdout, "%s\n", b)
		}
		return nil
	}
	p := e.printer()
	// The event and the error code give way; then the tries go, then
	// the time it was created, before a run's id, automation or state is
	// cut.
	tw := newTable(e.stdout).Fit(e.columns()).Give(2, 4).Drop(5, 6)
	tw.Row(p.T("automations.runs_header"))
	for _, r := range runs {
		tw.Row(text.Line(r.ID, 64), text.Line(r.AutomationID, 64), text.Line(r.EventName, 64), stateWord(p, r.State),
			orDash(text.Line(r.ErrorCode, 64)), strconv.Itoa(r.Attempts), r.CreatedAt.Local().Format("2006-01-02 15:04:05"))
	}
	return tw.Flush()
}

func runRunChange(ctx context.Context, e *env, c *cli.Command, what string) error {
	if c.Args().Len() != 1 {
		return exitCode(2, fmt.Errorf("name the run: clawd automations %s RUN (clawd automations runs)", what))
	}
	cl, err := connect(ctx, e)
	if err != nil {
		return err
	}
	id, err := resolveRun(ctx, cl, c.Args().First())
	if err != nil {
		return err
	}
	change := cl.CancelRun
	if what == "retry" {
		change = cl.RetryRun
	}
	if err := change(ctx, id); err != nil {
		return apiError(err)
	}
	if what == "retry" {
		fmt.Fprintln(e.stdout, e.t("automations.queued_again", id))
	} else {
		fmt.Fprintln(e.stdout, e.t("automations.cancelled", id))
	}
	return nil
}

func runAutomationsSwitch(ctx context.Context, e *env, pause bool) error {
	c, err := connect(ctx, e)
	if err != nil {
		return err
	}
	if _, err := c.PauseAutomations(ctx, pause); err != nil {
		return apiError(err)
	}
	if pause {
		fmt.Fprintln(e.stdout, e.t("automations.paused_now"))
	} else {
		fmt.Fprintln(e.stdout, e.t("automations.resumed"))
	}
	return nil
}

// sampleEvent reads an event envelope from file, or returns nil (the
// runtime then uses the last real one).
func sampleEvent(file string) (*client.AutomationEvent, error) {
	if file == "" {
		return nil, nil
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var env client.AutomationEvent
	if err := json.Unmarshal(b, &env); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return &env, nil
}

func runAutomationsPreview(ctx context.Context, e *env, id, file string, asJSON bool) error {
	env, err := sampleEvent(file)
	if err != nil {
		return exitCode(1, err)
	}
	c, err := connect(ctx, e)
	if err != nil {
		return err
	}
	res, err := c.PreviewAutomation(ctx, id, env)
	if err != nil {
		return apiError(err)
	}
	if asJSON {
		return printJSON(e.stdout, res, true)
	}
	fmt.Fprintln(e.stdout, e.t("automations.preview_event", text.Line(res.Event.EventName, 64), text.Line(res.Event.Session.ID, 80), text.Line(res.Event.Session.Title, 80)))
	switch {
	case res.Binding == "":
		fmt.Fprintln(e.stdout, e.t("automations.preview_no_binding"))
	case !res.Matched:
		fmt.Fprintln(e.stdout, e.t("automations.preview_skipped"))
	case !res.Trusted:
		fmt.Fprintln(e.stdout, e.t("automations.preview_untrusted", text.Line(res.Binding, 200), id))
	default:
		fmt.Fprintln(e.stdout, e.t("automations.preview_runs", text.Line(res.Binding, 200)))
	}
	// The input is the action's, as it would get it: JSON, or why it
	// could not be made (an error, English).
	if res.Error != "" {
		fmt.Fprintln(e.stdout, e.t("automations.preview_input", text.Line(res.Error, 300)))
	} else if len(res.Input) > 0 {
		b, _ := json.MarshalIndent(res.Input, "", "  ")
		fmt.Fprintln(e.stdout, e.t("automations.preview_input", string(b)))
	}
	return nil
}

func runAutomationsTest(ctx context.Context, e *env, id, file string, yes bool) error {
	env, err := sampleEvent(file)
	if err != nil {
		return exitCode(1, err)
	}
	c, d, err := connectDefinition(ctx, e, id)
	if err != nil {
		return err
	}
	if !yes {
		describeDefinition(e.stdout, e.printer(), d)
		if !e.confirm(e.t("automations.test_ask")) {
			return exitCode(1, errors.New("no test run"))
		}
	}
	run, err := c.TestAutomation(ctx, id, env)
	if err != nil {
		return apiError(err)
	}
	fmt.Fprintln(e.stdout, e.t("automations.test_queued", run, id))
	return nil
}
