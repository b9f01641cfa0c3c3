package cmd

import (
	"context"
	_ "embed"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/internal/present"
	"github.com/clawdhq/clawd/internal/text"
	"github.com/clawdhq/clawd/runtime/client"
)

// Shell completion is urfave/cli's own: `clawd completion bash|zsh|fish|
// pwsh` prints a script, which asks `clawd ... --generate-shell-
// completion` for the words at the cursor, "word:description" a line.
// The bash script is clawd's (completion.bash): urfave/cli's needs the
// bash-completion package, which many machines do not have. Commands and
// flags complete by themselves; the completers below add the arguments:
// agent names, and the ids of pending permission requests.

// bashCompletion is the bash script, CLAWD standing for the program's
// name.
//
//go:embed completion.bash
var bashCompletion string

// enableCompletion turns on the completion command of root.
func enableCompletion(e *env, root *cli.Command) {
	root.EnableShellCompletion = true
	root.ConfigureShellCompletionCommand = func(c *cli.Command) {
		c.Hidden = false
		c.Usage = e.t("help.completion.usage")
		c.Description = e.t("help.completion.description")
		for _, shell := range c.Commands {
			shell.Usage = e.t("help.completion.shell", shell.Name)
			if shell.Name == "bash" {
				shell.Action = func(ctx context.Context, c *cli.Command) error {
					_, err := io.WriteString(c.Root().Writer, strings.ReplaceAll(bashCompletion, "CLAWD", c.Root().Name))
					return err
				}
			}
		}
		addHelp(e, c)
		c.Action = func(ctx context.Context, c *cli.Command) error {
			if c.Args().Present() {
				return exitCode(2, fmt.Errorf("unknown shell %q: use bash, zsh, fish or pwsh", c.Args().First()))
			}
			return cli.ShowSubcommandHelp(c)
		}
	}
}

// completeArgs returns a completer that offers words(ctx) as the
// command's arguments, each once, or the command's flags when the word
// at the cursor starts with "-".
func completeArgs(words func(ctx context.Context, c *cli.Command) []completion) cli.ShellCompleteFunc {
	return func(ctx context.Context, c *cli.Command) {
		args := c.Args().Slice()
		if n := len(args); n > 0 && strings.HasPrefix(args[n-1], "-") {
			cli.DefaultCompleteWithFlags(ctx, c)
			return
		}
		for _, w := range words(ctx, c) {
			if slices.Contains(args, w.word) {
				continue
			}
			if w.about != "" {
				fmt.Fprintf(c.Root().Writer, "%s:%s\n", w.word, w.about)
			} else {
				fmt.Fprintln(c.Root().Writer, w.word)
			}
		}
	}
}

// completion is one word offered, and what it is.
type completion struct{ word, about string }

// agentWords are the agents' ids, with their names.
func agentWords(context.Context, *cli.Command) []completion {
	var out []completion
	for _, a := range agents.All() {
		out = append(out, completion{a.ID, a.Name})
	}
	return out
}

// pendingWords are the ids of the pending permission requests, with what
// they ask; nothing when no runtime answers within a moment.
func pendingWords(e *env) func(context.Context, *cli.Command) []completion {
	return func(ctx context.Context, c *cli.Command) []completion {
		if len(c.Args().Slice()) > 0 {
			return nil // one id per answer; then the command's own words
		}
		ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		defer cancel()
		cl, err := client.Discover(ctx, e.home(), client.Options{DialTimeout: 500 * time.Millisecond, ProbeTimeout: time.Second})
		if err != nil {
			return nil
		}
		list, err := cl.Permissions(ctx)
		if err != nil {
			return nil
		}
		var out []completion
		for _, p := range list {
			// One inert line: the script splits on newlines and the
			// first colon.
			out = append(out, completion{text.Line(p.ID, 0), text.Line(present.AgentName(p.Agent)+": "+p.Summary, 60)})
		}
		return out
	}
}
