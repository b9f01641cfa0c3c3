package cmd

import (
	"context"
	"fmt"
	goruntime "runtime"
	"runtime/debug"

	"github.com/urfave/cli/v3"
)

// version, commit and date are set at release time (goreleaser.yaml):
//
//	-ldflags "-X github.com/clawdhq/clawd/cmd.version=1.2.3
//	          -X github.com/clawdhq/clawd/cmd.commit=<sha>
//	          -X github.com/clawdhq/clawd/cmd.date=<RFC 3339>"
var version, commit, date = "", "", ""

// BuildInfo is what `clawd version` reports.
type BuildInfo struct {
	Version string `json:"version"`
	Commit  string `json:"commit"`
	Date    string `json:"date"`
	Go      string `json:"go"`
	OS      string `json:"os"`
	Arch    string `json:"arch"`
}

// Build returns how this binary was built: the linker flags of a release,
// else what the Go toolchain recorded (the module version of `go install`,
// the VCS revision and time of a build in a checkout), else "dev" and
// blanks.
func Build() BuildInfo {
	b := BuildInfo{Version: version, Commit: commit, Date: date,
		Go: goruntime.Version(), OS: goruntime.GOOS, Arch: goruntime.GOARCH}
	if bi, ok := debug.ReadBuildInfo(); ok {
		if b.Version == "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			b.Version = bi.Main.Version
		}
		for _, s := range bi.Settings {
			switch {
			case s.Key == "vcs.revision" && b.Commit == "":
				b.Commit = s.Value
			case s.Key == "vcs.time" && b.Date == "":
				b.Date = s.Value
			}
		}
	}
	if b.Version == "" {
		b.Version = "dev"
	}
	return b
}

// Version returns clawd's version: the release version, else the module
// version `go install` recorded, else "dev".
func Version() string { return Build().Version }

func versionString() string {
	b := Build()
	return fmt.Sprintf("%s (%s, %s/%s)", b.Version, b.Go, b.OS, b.Arch)
}

type versionOptions struct{ json bool }

func newVersionCmd(e *env) *cli.Command {
	o := &versionOptions{}
	return &cli.Command{
		Name:  "version",
		Usage: e.t("help.version.usage"),
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: e.t("help.flag_json"), Destination: &o.json},
		},
		Action: func(ctx context.Context, c *cli.Command) error {
			return runVersion(e, o)
		},
	}
}

func runVersion(e *env, o *versionOptions) error {
	b := Build()
	if o.json {
		return printJSON(e.stdout, b, true)
	}
	fmt.Fprintf(e.stdout, "clawd %s\n", b.Version)
	none := func(s string) string {
		if s == "" {
			return "-"
		}
		return s
	}
	fmt.Fprintf(e.stdout, "%s: %s\n%s: %s\n%s: %s %s/%s\n",
		e.t("version.commit"), none(b.Commit), e.t("version.date"), none(b.Date), "go", b.Go, b.OS, b.Arch)
	return nil
}
