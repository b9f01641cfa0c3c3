package cmd

import (
	"bytes"
	"context"
	"io"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/clawdhq/clawd/internal/i18n"
	"github.com/clawdhq/clawd/internal/text"
)

// urfave/cli adds its own --help flag and help command to every command,
// and --version to the root, in English words shared by the whole process,
// and prints the help under English headings. clawd gives each command its
// own flag and help command instead, worded in the person's language
// (urfave then finds them there and adds nothing), and its help printer
// puts the headings in that language too.

func init() { cli.HelpPrinter = printHelp }

// printerKey is the root command's Metadata entry that holds the
// i18n.Printer of its help.
const printerKey = "clawd.printer"

// localizeHelp makes root's help, and that of every command under it,
// speak the person's language.
func localizeHelp(e *env, root *cli.Command) {
	if root.Metadata == nil {
		root.Metadata = map[string]any{}
	}
	root.Metadata[printerKey] = e.printer()
	addHelp(e, root)
}

// addHelp gives c and every command under it the --help flag and the help
// command, unless c hides them.
func addHelp(e *env, c *cli.Command) {
	for _, sub := range c.Commands {
		addHelp(e, sub)
	}
	if c.HideHelp {
		return
	}
	c.Flags = append(c.Flags, &cli.BoolFlag{Name: "help", Aliases: []string{"h"}, Usage: e.t("help.flag_help"), HideDefault: true, Local: true})
	if !c.HideHelpCommand {
		c.Commands = append(c.Commands, helpCommand(e))
	}
}

// versionFlag is the root's --version; the root's Action answers it.
func versionFlag(e *env) cli.Flag {
	return &cli.BoolFlag{Name: "version", Aliases: []string{"v"}, Usage: e.t("help.flag_version"), HideDefault: true, Local: true}
}

// helpCommand is `clawd [command...] help [name]`, which does what
// urfave's own does: the help of the command it belongs to, or of the
// subcommand it names.
func helpCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "help",
		Aliases:   []string{"h"},
		Usage:     e.t("help.help"),
		ArgsUsage: "[COMMAND]",
		HideHelp:  true,
		Action: func(ctx context.Context, c *cli.Command) error {
			lineage := c.Lineage()
			of := lineage[1]
			switch {
			case c.Args().Present():
				return cli.ShowCommandHelp(ctx, of, c.Args().First())
			case len(lineage) == 2:
				return cli.ShowRootCommandHelp(of)
			case len(of.VisibleCommands()) == 0:
				return cli.ShowCommandHelp(ctx, lineage[2], of.Name)
			}
			return cli.ShowSubcommandHelp(of)
		},
	}
}

// headings are urfave's help headings, by catalog key.
var headings = map[string]string{
	"NAME:":           "help.heading.name",
	"USAGE:":          "help.heading.usage",
	"VERSION:":        "help.heading.version",
	"DESCRIPTION:":    "help.heading.description",
	"CATEGORY:":       "help.heading.category",
	"COMMANDS:":       "help.heading.commands",
	"OPTIONS:":        "help.heading.options",
	"GLOBAL OPTIONS:": "help.heading.global_options",
}

// usageWords are the words urfave puts in a usage line, longest first.
var usageWords = []struct{ en, key string }{
	{"[command [command options]]", "help.usage_line.command"},
	{"[global options]", "help.usage_line.global_options"},
	{"[options]", "help.usage_line.options"},
	{"[arguments...]", "help.usage_line.arguments"},
}

// printHelp is urfave's help printer with the headings and the words of
// the usage line in the language of the command's root (English when it
// has none).
func printHelp(w io.Writer, templ string, data any) {
	c, ok := data.(*cli.Command)
	if !ok {
		cli.DefaultPrintHelp(w, templ, data)
		return
	}
	p, _ := c.Root().Metadata[printerKey].(i18n.Printer)
	if c.Root() == c && c.Metadata[printerKey] != nil {
		printRootHelp(w, p, c)
		return
	}
	var b bytes.Buffer
	cli.DefaultPrintHelp(&b, templ, data)
	lines := strings.Split(b.String(), "\n")
	for i, l := range lines {
		// A heading is a line of its own; everything under one is
		// indented.
		key, ok := headings[l]
		if !ok {
			continue
		}
		lines[i] = p.T(key)
		if key == "help.heading.usage" && i+1 < len(lines) {
			for _, u := range usageWords {
				lines[i+1] = strings.ReplaceAll(lines[i+1], u.en, p.T(u.key))
			}
		}
	}
	io.WriteString(w, strings.Join(lines, "\n"))
}

// rootGroups are the root help's groups of commands, each under its
// heading (by catalog key), in the order listed. Category holds the same
// heading; TestRootHelpGroups keeps every visible command in a group.
var rootGroups = []struct {
	heading  string
	commands []string
}{
	{"help.group_core", []string{"status", "permissions", "answer", "plan", "events", "dashboard", "serve"}},
	{"help.group_agents", []string{"install", "uninstall", "agents", "doctor"}},
	{"help.group_more", []string{"history", "resume", "rename", "recap", "dnd", "automations", "remote", "channels", "autostart", "completion", "version", "help"}},
	{"help.group_topics", []string{"environment", "exit-codes"}},
}

// groupCommands sets the Category of each of root's commands to the
// heading of its group.
func groupCommands(p i18n.Printer, root *cli.Command) {
	for _, g := range rootGroups {
		for _, name := range g.commands {
			if c := root.Command(name); c != nil {
				c.Category = strings.TrimSuffix(strings.TrimSuffix(p.T(g.heading), ":"), "：")
			}
		}
	}
}

// printRootHelp prints `clawd --help` as gh does: what clawd is, the
// usage line, the commands in groups (core, agents, more, help topics),
// the options, examples, and where to learn more; the hidden ones (hook,
// which the agents run) left out.
func printRootHelp(w io.Writer, p i18n.Printer, root *cli.Command) {
	var b strings.Builder
	section := func(heading string) {
		b.WriteString("\n" + heading + "\n")
	}
	indented := func(body string) {
		for _, l := range strings.Split(strings.Trim(body, "\n"), "\n") {
			for _, l := range wrap(l, helpWidth) {
				b.WriteString(strings.TrimRight("   "+l, " ") + "\n")
			}
		}
	}
	b.WriteString(root.Name + " - " + root.Usage + "\n")
	section(p.T("help.heading.usage"))
	indented(p.T("help.root_usage"))
	if root.Version != "" {
		section(p.T("help.heading.version"))
		indented(root.Version)
	}
	section(p.T("help.heading.description"))
	indented(root.Description)
	for _, g := range rootGroups {
		tw := newTable(&b).Indent(3)
		n := 0
		for _, name := range g.commands {
			c := root.Command(name)
			if c == nil || c.Hidden {
				continue
			}
			tw.Row(strings.Join(c.Names(), ", "), c.Usage)
			n++
		}
		if n > 0 {
			section(p.T(g.heading))
			tw.Flush()
		}
	}
	section(p.T("help.heading.global_options"))
	tw := newTable(&b).Indent(3)
	for _, f := range root.VisibleFlags() {
		names := make([]string, 0, len(f.Names()))
		for _, n := range f.Names() {
			if len(n) == 1 {
				names = append(names, "-"+n)
			} else {
				names = append(names, "--"+n)
			}
		}
		usage := ""
		if d, ok := f.(cli.DocGenerationFlag); ok {
			usage = d.GetUsage()
		}
		tw.Row(strings.Join(names, ", "), usage)
	}
	tw.Flush()
	section(p.T("help.examples_heading"))
	indented(p.T("help.examples"))
	section(p.T("help.learn_more_heading"))
	indented(p.T("help.learn_more"))
	io.WriteString(w, b.String())
}

// topicCommands are the help topics: `clawd help environment` and `clawd
// help exit-codes` (or `clawd environment`) print their text.
func topicCommands(e *env) []*cli.Command {
	topic := func(name, key string) *cli.Command {
		return &cli.Command{
			Name:            name,
			Usage:           e.t("help." + key + ".usage"),
			Description:     e.t("help." + key + ".description"),
			HideHelpCommand: true,
			Action: func(ctx context.Context, c *cli.Command) error {
				_, err := io.WriteString(e.stdout, strings.Trim(c.Description, "\n")+"\n")
				return err
			},
		}
	}
	return []*cli.Command{topic("environment", "environment"), topic("exit-codes", "exit_codes")}
}

// helpWidth is the width the root help wraps its long lines at (the
// list of agents), in terminal columns.
const helpWidth = 88

// wrap breaks line at spaces into lines of at most width columns; a word
// longer than that stays whole.
func wrap(line string, width int) []string {
	if text.Width(line) <= width {
		return []string{line}
	}
	var out []string
	cur := ""
	for _, word := range strings.Fields(line) {
		switch {
		case cur == "":
			cur = word
		case text.Width(cur)+1+text.Width(word) > width:
			out = append(out, cur)
			cur = word
		default:
			cur += " " + word
		}
	}
	return append(out, cur)
}
