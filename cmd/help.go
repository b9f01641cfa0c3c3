package cmd

import (
	"bytes"
	"context"
	"io"
	"strings"
	"unicode/utf8"

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

// columnsKey is the root command's Metadata entry that holds the width
// the root help wraps at (env.columns; 0 for helpWidth).
const columnsKey = "clawd.columns"

// localizeHelp makes root's help, and that of every command under it,
// speak the person's language.
func localizeHelp(e *env, root *cli.Command) {
	if root.Metadata == nil {
		root.Metadata = map[string]any{}
	}
	root.Metadata[printerKey] = e.printer()
	root.Metadata[columnsKey] = e.columns()
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
	width, _ := root.Metadata[columnsKey].(int)
	if width <= 0 || width > helpWidth {
		width = helpWidth
	}
	var b strings.Builder
	section := func(heading string) {
		b.WriteString("\n" + heading + "\n")
	}
	indented := func(body string) {
		for _, l := range strings.Split(strings.Trim(body, "\n"), "\n") {
			for _, l := range wrap(l, width-3) {
				b.WriteString(strings.TrimRight("   "+l, " ") + "\n")
			}
		}
	}
	// columns prints rows of a name and what it is, the second column's
	// lines wrapped to the width under its start.
	columns := func(rows [][2]string) {
		namew := 0
		for _, r := range rows {
			namew = max(namew, text.Width(r[0]))
		}
		hang := strings.Repeat(" ", 3+namew+2)
		for _, r := range rows {
			for i, l := range wrap(r[1], max(width-len(hang), 20)) {
				if i == 0 {
					b.WriteString("   " + r[0] + strings.Repeat(" ", namew-text.Width(r[0])+2) + l + "\n")
				} else {
					b.WriteString(hang + l + "\n")
				}
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
	// The description's paragraphs, each rewrapped to the width.
	for i, para := range strings.Split(strings.Trim(root.Description, "\n"), "\n\n") {
		if i > 0 {
			b.WriteString("\n")
		}
		indented(joinLines(para))
	}
	for _, g := range rootGroups {
		var rows [][2]string
		for _, name := range g.commands {
			c := root.Command(name)
			if c == nil || c.Hidden {
				continue
			}
			rows = append(rows, [2]string{strings.Join(c.Names(), ", "), c.Usage})
		}
		if len(rows) > 0 {
			section(p.T(g.heading))
			columns(rows)
		}
	}
	section(p.T("help.heading.global_options"))
	var flags [][2]string
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
		flags = append(flags, [2]string{strings.Join(names, ", "), usage})
	}
	columns(flags)
	section(p.T("help.examples_heading"))
	var examples [][2]string
	for _, l := range strings.Split(strings.Trim(p.T("help.examples"), "\n"), "\n") {
		// A command, then at two spaces or more what it does.
		cmd, what, _ := strings.Cut(l, "  ")
		examples = append(examples, [2]string{cmd, strings.TrimSpace(what)})
	}
	columns(examples)
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

// helpWidth is the widest the root help's lines get, in terminal
// columns: on a narrower terminal they wrap at its width.
const helpWidth = 80

// wrap breaks line into lines of at most width columns: at spaces, and
// between any two characters of Chinese (which has no spaces); a word
// longer than width stays whole.
func wrap(line string, width int) []string {
	if text.Width(line) <= width {
		return []string{line}
	}
	var out []string
	cur := ""
	for _, t := range wrapTokens(line) {
		piece := t.s
		if t.space && cur != "" {
			piece = " " + t.s
		}
		if cur != "" && text.Width(cur)+text.Width(piece) > width {
			out = append(out, cur)
			cur, piece = "", t.s
		}
		cur += piece
	}
	return append(out, cur)
}

// wrapToken is a piece of a line wrap does not break: a word, or one
// wide character; space says a space comes before it.
type wrapToken struct {
	s     string
	space bool
}

func wrapTokens(line string) []wrapToken {
	var ts []wrapToken
	for _, word := range strings.Fields(line) {
		space := true
		run := ""
		for _, r := range word {
			if text.Width(string(r)) < 2 {
				run += string(r)
				continue
			}
			if run != "" {
				ts = append(ts, wrapToken{run, space})
				space, run = false, ""
			}
			if strings.ContainsRune("，。、；：）」』！？", r) && len(ts) > 0 && !space {
				// Closing punctuation never starts a line.
				ts[len(ts)-1].s += string(r)
				continue
			}
			ts = append(ts, wrapToken{string(r), space})
			space = false
		}
		if run != "" {
			ts = append(ts, wrapToken{run, space})
		}
	}
	return ts
}

// joinLines joins the lines of a paragraph into one: with a space, but
// none between Chinese characters.
func joinLines(para string) string {
	var b strings.Builder
	for _, l := range strings.Split(para, "\n") {
		l = strings.Join(strings.Fields(l), " ")
		if l == "" {
			continue
		}
		if b.Len() > 0 {
			prev, _ := utf8.DecodeLastRuneInString(b.String())
			next, _ := utf8.DecodeRuneInString(l)
			if text.Width(string(prev)) < 2 && text.Width(string(next)) < 2 {
				b.WriteByte(' ')
			}
		}
		b.WriteString(l)
	}
	return b.String()
}
