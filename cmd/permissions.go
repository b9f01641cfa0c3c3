package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/clawdhq/clawd/internal/i18n"
	"github.com/clawdhq/clawd/internal/present"
	"github.com/clawdhq/clawd/internal/text"
	"github.com/clawdhq/clawd/runtime/client"
)

type permissionsOptions struct {
	json bool
	wait bool
}

func newPermissionsCmd(e *env) *cli.Command {
	o := &permissionsOptions{}
	return &cli.Command{
		Name:        "permissions",
		Usage:       e.t("help.permissions.usage"),
		Description: e.t("help.permissions.description"),
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: e.t("help.permissions.flag_json"), Destination: &o.json},
			&cli.BoolFlag{Name: "wait", Usage: e.t("help.permissions.flag_wait"), Destination: &o.wait},
		},
		Commands: []*cli.Command{
			newPermissionAnswerCmd(e, "allow", "ID", e.t("help.permissions.allow.usage")),
			newPermissionAnswerCmd(e, "deny", "ID", e.t("help.permissions.deny.usage")),
			newPermissionAnswerCmd(e, "always", "ID [N]", e.t("help.permissions.always.usage")),
			newPermissionAnswerCmd(e, "terminal", "ID", e.t("help.permissions.terminal.usage")),
		},
		Action: func(ctx context.Context, c *cli.Command) error {
			if c.Args().Len() > 0 {
				return exitCode(2, fmt.Errorf("unknown subcommand %q: use allow, deny, always or terminal", c.Args().First()))
			}
			return runPermissions(ctx, e, o)
		},
	}
}

func runPermissions(ctx context.Context, e *env, o *permissionsOptions) error {
	c, err := connect(ctx, e)
	if err != nil {
		return err
	}
	var list []client.PermissionView
	if o.wait {
		ctx, stop := signal.NotifyContext(ctx, syscall.SIGINT, syscall.SIGTERM)
		defer stop()
		list, err = waitPermissions(ctx, c)
		if ctx.Err() != nil {
			return exitCode(130, errors.New("")) // interrupted before anything was pending
		}
	} else {
		list, err = c.Permissions(ctx)
	}
	if err != nil {
		return permissionError(err, "")
	}
	if o.json {
		if list == nil {
			list = []client.PermissionView{}
		}
		return printJSON(e.stdout, list, true)
	}
	renderPermissions(e.stdout, e.printer(), list, e.now(), e.getenv("HOME"), e.columns())
	return nil
}

// errPending stops the change stream once something is pending.
var errPending = errors.New("a request is pending")

// waitPermissions follows the change stream until at least one request is
// pending and returns the list then. The stream starts with the requests
// already pending, so none is missed between a list and a subscribe.
func waitPermissions(ctx context.Context, c *client.Client) ([]client.PermissionView, error) {
	for {
		err := c.PermissionEvents(ctx, func(ch client.PermissionChange) error {
			if ch.Type == client.ChangeAdded || ch.Type == client.StreamLagged {
				return errPending
			}
			return nil
		})
		switch {
		case errors.Is(err, errPending):
		case err != nil:
			return nil, err
		default:
			return nil, errors.New("the runtime stopped")
		}
		list, err := c.Permissions(ctx)
		if err != nil || len(list) > 0 {
			return list, err
		}
		// Closed again before the list was read: keep waiting.
	}
}

// renderPermissions prints the pending requests as a table for people, in
// their language, fit to width (0: whole lines); ids, agents, tools and what the agents wrote stay as
// they are.
func renderPermissions(w io.Writer, pr i18n.Printer, list []client.PermissionView, now time.Time, home string, width int) {
	if len(list) == 0 {
		fmt.Fprintln(w, pr.T("permissions.none"))
		return
	}
	// The session's title gives way first, then what one may answer,
	// what the request would do and its tool; then the title and the
	// answers go, before a request's id, agent, folder or age is cut.
	tw := newTable(w).Fit(width).Give(3, 7, 5, 4).Drop(3, 7)
	tw.Row(pr.T("permissions.header"))
	for _, p := range list {
		agent := present.WithSubagent(pr, text.Line(p.Agent, 0), p)
		if p.Headless {
			agent += pr.T("tray.headless")
		}
		agent = cell(agent)
		tool := text.Line(present.ToolLabel(p), 0)
		if p.Kind != "" && p.Kind != client.KindPermission {
			tool += " (" + text.Line(string(p.Kind), 0) + ")"
		}
		tool = cell(tool)
		offers := numbered(p.Suggestions)
		if len(p.Options) > 0 {
			opts := make([]string, len(p.Options))
			for i, o := range p.Options {
				opts[i] = text.Line(o, 0)
			}
			offers = cell(pr.T("permissions.options", strings.Join(opts, " | ")))
		}
		tw.Row(cell(p.ID), agent, cell(folderCell(p, home)), cell(p.Title), tool, cell(requestWhat(p)), age(pr, now, p.CreatedAt), offers)
	}
	tw.Flush()
	renderAsks(w, pr, list)
}

// folderCell is where a request runs: its folder by its repository
// ("shop/api"), else its folder's path.
func folderCell(p client.PermissionView, home string) string {
	if p.Folder != "" {
		return p.Folder
	}
	return shortPath(p.Cwd, home)
}

// requestWhat is what a request would do, in a cell: its summary (an
// edit's file as its diff names it), with what the agent says of it
// (Bash's description, a fetch's prompt).
func requestWhat(p client.PermissionView) string {
	what := p.Summary
	if p.Diff != nil && p.Diff.Path != "" {
		what = p.Diff.Path
	}
	for _, s := range []string{p.Description, p.Prompt} {
		if s != "" {
			what += " — " + s
		}
	}
	return what
}

// cell keeps a table cell to one inert line (internal/text's policy) and
// not absurdly wide.
func cell(s string) string {
	s = text.Line(s, 60)
	if s == "" {
		return "-"
	}
	return s
}

// numbered lists suggestion labels as "1) a  2) b", the numbers
// `clawd permissions always ID N` takes.
func numbered(labels []string) string {
	if len(labels) == 0 {
		return "-"
	}
	parts := make([]string, len(labels))
	for i, l := range labels {
		parts[i] = strconv.Itoa(i+1) + ") " + cell(l)
	}
	return strings.Join(parts, "  ")
}

type permissionAnswerOptions struct {
	verb      string // allow, deny, always, terminal
	message   string
	interrupt bool
}

func newPermissionAnswerCmd(e *env, verb, argsUsage, usage string) *cli.Command {
	o := &permissionAnswerOptions{verb: verb}
	var flags []cli.Flag
	if verb == "deny" {
		flags = []cli.Flag{
			&cli.StringFlag{Name: "message", Aliases: []string{"m"}, Usage: e.t("help.permissions.deny.flag_message"), Destination: &o.message},
			&cli.BoolFlag{Name: "interrupt", Usage: e.t("help.permissions.deny.flag_interrupt"), Destination: &o.interrupt},
		}
	}
	return &cli.Command{
		Name:          verb,
		Usage:         usage,
		ArgsUsage:     argsUsage,
		Flags:         flags,
		ShellComplete: completeArgs(pendingWords(e)),
		Action: func(ctx context.Context, c *cli.Command) error {
			return runPermissionAnswer(ctx, e, o, c.Args().Slice())
		},
	}
}

// decisionBody checks the arguments of an answer subcommand and builds
// what is sent.
func (o *permissionAnswerOptions) decisionBody(args []string) (string, client.DecisionBody, error) {
	max := 1
	if o.verb == "always" {
		max = 2
	}
	if len(args) == 0 || len(args) > max || args[0] == "" {
		usage := "ID"
		if o.verb == "always" {
			usage = "ID [N]"
		}
		return "", client.DecisionBody{}, fmt.Errorf("usage: clawd permissions %s %s (the ID from `clawd permissions`)", o.verb, usage)
	}
	d := client.DecisionBody{Behavior: client.Behavior(o.verb), Via: "cli"}
	switch o.verb {
	case "always":
		d.Behavior, d.Suggestion = client.Allow, 1
		if len(args) == 2 {
			n, err := strconv.Atoi(args[1])
			if err != nil || n < 1 {
				return "", d, fmt.Errorf("suggestion %q: want a number from 1, as `clawd permissions` lists them", args[1])
			}
			d.Suggestion = n
		}
	case "deny":
		d.Message, d.Interrupt = o.message, o.interrupt
	}
	return args[0], d, nil
}

func runPermissionAnswer(ctx context.Context, e *env, o *permissionAnswerOptions, args []string) error {
	id, body, err := o.decisionBody(args)
	if err != nil {
		return exitCode(2, err)
	}
	c, err := connect(ctx, e)
	if err != nil {
		return err
	}
	if id, err = resolveRequest(ctx, c, id); err != nil {
		return err
	}
	v, err := c.Decide(ctx, id, body)
	if err != nil {
		return permissionError(err, id)
	}
	what := v.Tool
	if v.Summary != "" {
		what += ": " + v.Summary
	}
	what = cell(what)
	var line string
	switch o.verb {
	case "allow":
		line = e.t("permissions.done.allowed", id, what)
	case "deny":
		line = e.t("permissions.done.denied", id, what)
	case "always":
		label := e.t("permissions.done.suggestion", body.Suggestion)
		if n := body.Suggestion; n <= len(v.Suggestions) {
			label = e.t("permissions.done.suggestion_named", n, cell(v.Suggestions[n-1]))
		}
		line = e.t("permissions.done.always", id, what, label)
	case "terminal":
		line = e.t("permissions.done.terminal", id, what)
	}
	printWrapped(e.stdout, e.columns(), 2, line)
	return nil
}

// permissionError turns an API error into the one line the person sees,
// with exit 1.
func permissionError(err error, id string) error {
	var apiErr *client.APIError
	if errors.As(err, &apiErr) {
		switch {
		case apiErr.Status == 404 && strings.HasPrefix(apiErr.Message, "no such route"):
			return exitCode(1, errors.New("this clawd runtime has no permission API: restart `clawd serve` with this version"))
		case apiErr.Status == 404 && id != "":
			return exitCode(1, fmt.Errorf("no such request: %s (see `clawd permissions`)", id))
		case apiErr.Status == 401 || apiErr.Status == 403:
			return exitCode(1, errors.New("the runtime refused the API token from runtime.json: is it the same clawd home?"))
		case apiErr.Message != "":
			// The runtime's words, which may quote what a client sent.
			return exitCode(1, errors.New(text.Line(apiErr.Message, 0)))
		}
	}
	return exitCode(1, fmt.Errorf("permissions: %w", err))
}
