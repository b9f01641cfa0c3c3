// Command clawd makes every AI coding agent on the machine visible and
// answerable from the desktop.
package main

import (
	"context"
	"os"

	"github.com/clawdhq/clawd/cmd"
)

func main() {
	os.Exit(cmd.Main(context.Background(), os.Args, os.Stdin, os.Stdout, os.Stderr))
}
