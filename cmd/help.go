package cmd

import (
	"bytes"
	"context"
	"io"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/clawdhq/clawd/internal/i18n"
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
