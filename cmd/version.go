package cmd

import (
	"context"
	"fmt"
	goruntime "runtime"
	"runtime/debug"

	"github.com/urfave/cli/v3"
)

// version is set at release time with
// -ldflags "-X github.com/clawdhq/clawd/cmd.version=1.2.3".
var version = ""

// Version returns clawd's version: the release version, else the module
// version `go install` recorded, else "dev".
func Version() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

func versionString() string {
	return fmt.Sprintf("%s (%s, %s/%s)", Version(), goruntime.Version(), goruntime.GOOS, goruntime.GOARCH)
}

func newVersionCmd(e *env) *cli.Command {
	return &cli.Command{
		Name:  "version",
		Usage: "print clawd's version",
		Action: func(ctx context.Context, c *cli.Command) error {
			fmt.Fprintf(e.stdout, "clawd %s\n", versionString())
			return nil
		},
	}
}
