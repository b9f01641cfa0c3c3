package cmd

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/clawdhq/clawd/internal/i18n"
	"github.com/clawdhq/clawd/internal/present"
	"github.com/clawdhq/clawd/internal/text"
	"github.com/clawdhq/clawd/remote"
	"github.com/clawdhq/clawd/runtime/client"
)

// remotePrograms are the programs clawd reaches remote machines with;
// $CLAWD_SSH and $CLAWD_WSL name others (a wrapper of the person's, or a
// test's).
func remotePrograms(e *env) remote.Programs {
	return remote.Programs{SSH: e.getenv("CLAWD_SSH"), WSL: e.getenv("CLAWD_WSL")}
}

func newRemoteCmd(e *env) *cli.Command {
	return &cli.Command{
		Name:        "remote",
		Usage:       e.t("help.remote.usage"),
		Description: e.t("help.remote.description"),
		Commands: []*cli.Command{
			newRemoteAddCmd(e),
			newRemoteRemoveCmd(e),
			newRemoteListCmd(e),
			newRemoteTestCmd(e),
			newRemoteSwitchCmd(e, "enable", e.t("help.remote.enable.usage"), false),
			newRemoteSwitchCmd(e, "disable", e.t("help.remote.disable.usage"), true),
			newRemoteHereCmd(e, "setup-here", runSetupHere),
			newRemoteHereCmd(e, "teardown-here", runTeardownHere),
			newRemoteHereCmd(e, "test-here", runTestHere),
		},
	}
}

type remoteAddOptions struct {
	port       int
	identity   string
	sshConfig  string
	remotePort int
	binary     string
	wsl        string
}

func newRemoteAddCmd(e *env) *cli.Command {
	o := &remoteAddOptions{}
	return &cli.Command{
		Name:        "add",
		Usage:       e.t("help.remote.add.usage"),
		ArgsUsage:   "NAME [USER@]HOST | NAME --wsl DISTRO",
		Description: e.t("help.remote.add.description"),
		Flags: []cli.Flag{
			&cli.IntFlag{Name: "port", HideDefault: true, Usage: e.t("help.remote.add.flag_port"), Destination: &o.port},
			&cli.StringFlag{Name: "identity", Usage: e.t("help.remote.add.flag_identity"), Destination: &o.identity},
			&cli.StringFlag{Name: "ssh-config", Usage: e.t("help.remote.add.flag_ssh_config"), Destination: &o.sshConfig},
			&cli.IntFlag{Name: "remote-port", HideDefault: true, Usage: e.t("help.remote.add.flag_remote_port"), Destination: &o.remotePort},
			&cli.StringFlag{Name: "binary", Usage: e.t("help.remote.add.flag_binary"), Destination: &o.binary},
			&cli.StringFlag{Name: "wsl", Usage: e.t("help.remote.add.flag_wsl"), Destination: &o.wsl},
		},
		Action: func(ctx context.Context, c *cli.Command) error {
			return runRemoteAdd(ctx, e, o, c.Args().Slice())
		},
	}
}

func runRemoteAdd(ctx context.Context, e *env, o *remoteAddOptions, args []string) error {
	p := &remote.Profile{Kind: client.LinkSSH, Port: o.port, RemotePort: o.remotePort}
	switch {
	case o.wsl != "" && len(args) == 1:
		p.Kind, p.Distro = client.LinkWSL, o.wsl
	case o.wsl == "" && len(args) == 2:
		p.Target = args[1]
	default:
		return exitCode(2, errors.New("usage: clawd remote add NAME [USER@]HOST, or clawd remote add NAME --wsl DISTRO"))
	}
	p.Name = args[0]
	if err := remote.CheckName(p.Name); err != nil {
		return exitCode(2, err)
	}
	if o.remotePort < 0 || o.remotePort > 65535 || o.port < 0 || o.port > 65535 {
		return exitCode(2, errors.New("a port is 1-65535"))
	}
	for _, f := range []*string{&o.identity, &o.sshConfig, &o.binary} {
		if *f != "" {
			abs, err := filepath.Abs(*f)
			if err != nil {
				return err
			}
			*f = abs
		}
	}
	p.Identity, p.SSHConfig = o.identity, o.sshConfig
	st, err := remote.Load(e.home())
	if err != nil {
		return exitCode(1, err)
	}
	d := deployer(e)
	if p.Kind == client.LinkSSH {
		s, err := d.Resolve(ctx, p)
		if err != nil {
			return exitCode(1, err)
		}
		fmt.Fprintln(e.stdout, e.t("remote.ssh_connects", p.Name, text.Line(s.User, 0), text.Line(s.Hostname, 0), s.Port))
	}
	p, err = d.Add(ctx, st, p, remote.AddOptions{Binary: o.binary})
	if err != nil {
		return exitCode(1, err)
	}
	fmt.Fprintln(e.stdout, e.t("remote.ready", p.Name, p.RemotePort, p.Generation, reloadRemotes(ctx, e, e.t("remote.starts_with_serve"))))
	return nil
}

// deployer is the remote.Deployer of the clawd home.
func deployer(e *env) *remote.Deployer {
	return &remote.Deployer{
		Home: e.home(), Version: Version(), Programs: remotePrograms(e),
		Executable: e.executable, Progress: e.stdout, Printer: e.printer(), Now: e.now,
	}
}

// reloadRemotes tells a running clawd serve that the profiles changed,
// and says what became of it; idle is what it says when none runs.
func reloadRemotes(ctx context.Context, e *env, idle string) string {
	dctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	c, err := client.Discover(dctx, e.home(), client.Options{DialTimeout: time.Second, ProbeTimeout: 2 * time.Second})
	if err != nil {
		return idle
	}
	if err := c.Call(dctx, http.MethodPost, "/api/v1/remotes/reload", nil, nil); err != nil {
		return e.t("remote.serve_refused", err)
	}
	return e.t("remote.serve_took")
}

type remoteRemoveOptions struct{ force bool }

func newRemoteRemoveCmd(e *env) *cli.Command {
	o := &remoteRemoveOptions{}
	return &cli.Command{
		Name:        "remove",
		Usage:       e.t("help.remote.remove.usage"),
		ArgsUsage:   "NAME",
		Description: e.t("help.remote.remove.description"),
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "force", Usage: e.t("help.remote.remove.flag_force"), Destination: &o.force},
		},
		Action: func(ctx context.Context, c *cli.Command) error {
			if c.Args().Len() != 1 {
				return exitCode(2, errors.New("usage: clawd remote remove NAME"))
			}
			return runRemoteRemove(ctx, e, o, c.Args().First())
		},
	}
}

func runRemoteRemove(ctx context.Context, e *env, o *remoteRemoveOptions, name string) error {
	st, err := remote.Load(e.home())
	if err != nil {
		return exitCode(1, err)
	}
	p := st.Get(name)
	if p == nil {
		return exitCode(1, fmt.Errorf("no remote %q (clawd remote list)", name))
	}
	res, err := deployer(e).Remove(ctx, st, p, o.force)
	if err != nil {
		return exitCode(1, err)
	}
	for _, line := range strings.Split(strings.TrimSpace(res.Uninstall), "\n") {
		if line != "" {
			fmt.Fprintf(e.stdout, "%s: %s\n", name, line)
		}
	}
	for _, r := range res.Removed {
		fmt.Fprintln(e.stdout, e.t("remote.deleted", name, text.Line(r, 0)))
	}
	for _, k := range res.Kept {
		fmt.Fprintln(e.stdout, e.t("remote.kept", name, text.Line(k, 0)))
	}
	fmt.Fprintln(e.stdout, e.t("remote.removed", name, reloadRemotes(ctx, e, e.t("remote.serve_not_running"))))
	return nil
}

type remoteListOptions struct{ json bool }

func newRemoteListCmd(e *env) *cli.Command {
	o := &remoteListOptions{}
	return &cli.Command{
		Name:  "list",
		Usage: e.t("help.remote.list.usage"),
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: e.t("help.remote.list.flag_json"), Destination: &o.json},
		},
		Action: func(ctx context.Context, c *cli.Command) error {
			return runRemoteList(ctx, e, o)
		},
	}
}

// remoteEntry is one remote of `clawd remote list --json`: the profile
// without its token, and its link while clawd serve runs.
type remoteEntry struct {
	Name       string             `json:"name"`
	Kind       string             `json:"kind"`
	Target     string             `json:"target,omitempty"`
	Distro     string             `json:"distro,omitempty"`
	Label      string             `json:"label"`
	RemotePort int                `json:"remote_port"`
	Generation int64              `json:"generation"`
	Platform   string             `json:"platform,omitempty"`
	Version    string             `json:"version,omitempty"`
	Disabled   bool               `json:"disabled,omitempty"`
	Link       *client.RemoteLink `json:"link,omitempty"`
}

func runRemoteList(ctx context.Context, e *env, o *remoteListOptions) error {
	st, err := remote.Load(e.home())
	if err != nil {
		return exitCode(1, err)
	}
	links := runtimeLinks(ctx, e)
	entries := []remoteEntry{}
	for _, p := range st.Profiles {
		en := remoteEntry{Name: p.Name, Kind: p.Kind, Target: p.Target, Distro: p.Distro, Label: p.Label(),
			RemotePort: p.RemotePort, Generation: p.Generation, Version: p.Version, Disabled: p.Disabled}
		if p.OS != "" {
			en.Platform = p.OS + "/" + p.Arch
		}
		for _, l := range links {
			if l.Profile == p.Name {
				en.Link = &l
			}
		}
		entries = append(entries, en)
	}
	if o.json {
		return printJSON(e.stdout, entries, true)
	}
	if len(entries) == 0 {
		fmt.Fprintln(e.stdout, e.t("remote.none"))
		return nil
	}
	// The link is what a person reads the list for: the generation goes
	// first, then the port, and only then is the widest cell (the
	// link's) cut.
	tw := newTable(e.stdout).Fit(e.columns()).Drop(3, 2)
	tw.Row(e.t("remote.header"))
	for _, en := range entries {
		machine := en.Target
		if en.Kind == client.LinkWSL {
			machine = "WSL " + en.Distro
		}
		summary := linkSummary(e.printer(), en.Link, links != nil, e.now())
		if en.Disabled {
			summary = e.t("remote.disabled", en.Name)
		}
		tw.Row(en.Name, text.Line(machine, 0), strconv.Itoa(en.RemotePort), strconv.FormatInt(en.Generation, 10), summary)
	}
	return tw.Flush()
}

// runtimeLinks returns the links of a running clawd serve; nil when none
// runs.
func runtimeLinks(ctx context.Context, e *env) []client.RemoteLink {
	dctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	c, err := client.Discover(dctx, e.home(), client.Options{DialTimeout: time.Second, ProbeTimeout: 2 * time.Second})
	if err != nil {
		return nil
	}
	links := []client.RemoteLink{}
	if err := c.Call(dctx, http.MethodGet, "/api/v1/remotes", nil, &links); err != nil {
		return nil
	}
	return links
}

// linkSummary says how a link is, in a few words.
func linkSummary(p i18n.Printer, l *client.RemoteLink, running bool, now time.Time) string {
	switch {
	case !running:
		return p.T("remote.not_running")
	case l == nil:
		return p.T("remote.off")
	}
	s := present.LinkState(p, l.State)
	if now.Sub(l.Since) >= 5*time.Second {
		s = p.T("remote.for", s, age(p, now, l.Since))
	}
	if l.State == client.LinkUp && l.Kind == client.LinkSSH {
		s += p.T("remote.tunnel", l.RemotePort, l.Ingress)
	}
	if l.Error != "" {
		s += ": " + text.Line(l.Error, 120)
	}
	if !l.NextTry.IsZero() && l.State == client.LinkDown {
		s += p.T("remote.next_try", max(0, int(l.NextTry.Sub(now).Seconds())))
	}
	return s
}

func newRemoteTestCmd(e *env) *cli.Command {
	return &cli.Command{
		Name:        "test",
		Usage:       e.t("help.remote.test.usage"),
		ArgsUsage:   "NAME",
		Description: e.t("help.remote.test.description"),
		Action: func(ctx context.Context, c *cli.Command) error {
			if c.Args().Len() != 1 {
				return exitCode(2, errors.New("usage: clawd remote test NAME"))
			}
			return runRemoteTest(ctx, e, c.Args().First())
		},
	}
}

func runRemoteTest(ctx context.Context, e *env, name string) error {
	st, err := remote.Load(e.home())
	if err != nil {
		return exitCode(1, err)
	}
	p := st.Get(name)
	if p == nil {
		return exitCode(1, fmt.Errorf("no remote %q (clawd remote list)", name))
	}
	if _, err := connect(ctx, e); err != nil {
		return err
	}
	link := func() *client.RemoteLink {
		for _, l := range runtimeLinks(ctx, e) {
			if l.Profile == name {
				return &l
			}
		}
		return nil
	}
	fmt.Fprintln(e.stdout, e.t("remote.link", name, linkSummary(e.printer(), link(), true, e.now())))
	var n [16]byte
	rand.Read(n[:])
	nonce := hex.EncodeToString(n[:])
	start := time.Now()
	out, err := remotePrograms(e).RunnerFor(p).Run(ctx,
		`CLAWD_HOME="$HOME/.clawd"; export CLAWD_HOME; exec "$HOME/.clawd/bin/clawd" remote test-here `+nonce, nil)
	took := time.Since(start)
	if err != nil {
		return exitCode(1, fmt.Errorf("%s: the test did not come through: %w", name, err))
	}
	var ans client.RemoteTest
	if err := json.Unmarshal(out, &ans); err != nil || ans.Nonce != nonce || ans.Profile != p.Label() {
		return exitCode(1, fmt.Errorf("%s: unexpected answer to the test: %q", name, out))
	}
	if l := link(); l == nil || l.LastTest == nil || l.LastTest.Nonce != nonce {
		return exitCode(1, fmt.Errorf("%s: the remote got an answer, but not from this clawd serve", name))
	}
	fmt.Fprintln(e.stdout, e.t("remote.test_ok", name, text.Line(ans.Version, 40), p.Generation, took.Milliseconds()))
	return nil
}

// newRemoteSwitchCmd is `clawd remote enable|disable NAME`: whether
// clawd serve keeps the remote's link (its ingress and tunnel).
func newRemoteSwitchCmd(e *env, name, usage string, disabled bool) *cli.Command {
	return &cli.Command{
		Name:      name,
		Usage:     usage,
		ArgsUsage: "NAME",
		Action: func(ctx context.Context, c *cli.Command) error {
			if c.Args().Len() != 1 {
				return exitCode(2, fmt.Errorf("usage: clawd remote %s NAME", name))
			}
			st, err := remote.Load(e.home())
			if err != nil {
				return exitCode(1, err)
			}
			p := st.Get(c.Args().First())
			if p == nil {
				return exitCode(1, fmt.Errorf("no remote %q (clawd remote list)", c.Args().First()))
			}
			p.Disabled = disabled
			if err := st.Save(); err != nil {
				return exitCode(1, err)
			}
			reload := reloadRemotes(ctx, e, e.t("remote.serve_not_running"))
			say := e.t("remote.now_enabled", p.Name, reload)
			if disabled {
				say = e.t("remote.now_disabled", p.Name, reload)
			}
			fmt.Fprintln(e.stdout, say)
			return nil
		},
	}
}

// newRemoteHereCmd is one of the hidden commands `clawd remote` runs on
// the remote machine itself.
func newRemoteHereCmd(e *env, name string, run func(ctx context.Context, e *env, args []string) error) *cli.Command {
	return &cli.Command{
		Name:   name,
		Hidden: true,
		Usage:  e.t("help.remote.here"),
		Action: func(ctx context.Context, c *cli.Command) error {
			if err := run(ctx, e, c.Args().Slice()); err != nil {
				return exitCode(1, err)
			}
			return nil
		},
	}
}

// readSpec decodes the JSON spec the desktop sent on stdin.
func readSpec(e *env, v any) error {
	dec := json.NewDecoder(io.LimitReader(e.stdin, 1<<20))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("read the desktop's spec: %w", err)
	}
	return nil
}

// runSetupHere is `clawd remote setup-here` on the remote: runtime.json
// in remote mode, then `clawd install --all`.
func runSetupHere(ctx context.Context, e *env, _ []string) error {
	var spec remote.SetupSpec
	if err := readSpec(e, &spec); err != nil {
		return err
	}
	if spec.Version != Version() {
		return fmt.Errorf("this clawd is %s, the desktop's is %s", Version(), spec.Version)
	}
	home := e.home()
	port, err := remote.SetUp(home, spec, e.now())
	if err != nil {
		return err
	}
	var out bytes.Buffer
	if err := runInstallers(e.writingTo(&out), true, true, false, nil); err != nil {
		return fmt.Errorf("install the hooks: %w\n%s", err, out.String())
	}
	return printJSON(e.stdout, remote.SetupResult{Port: port, Install: out.String()}, false)
}

// runTeardownHere is `clawd remote teardown-here` on the remote: `clawd
// uninstall --all`, then what clawd created.
func runTeardownHere(ctx context.Context, e *env, _ []string) error {
	var spec remote.TeardownSpec
	if err := readSpec(e, &spec); err != nil {
		return err
	}
	var out bytes.Buffer
	if err := runInstallers(e.writingTo(&out), false, true, false, nil); err != nil {
		return fmt.Errorf("uninstall the hooks (nothing else was removed): %w\n%s", err, out.String())
	}
	res, err := remote.TearDown(e.getenv("HOME"), e.home(), spec)
	res.Uninstall = out.String()
	if err != nil {
		return err
	}
	return printJSON(e.stdout, res, false)
}

// runTestHere is `clawd remote test-here NONCE` on the remote: the
// connection test through the link, as the hooks reach it.
func runTestHere(ctx context.Context, e *env, args []string) error {
	if len(args) != 1 {
		return errors.New("usage: clawd remote test-here NONCE")
	}
	r, err := client.ReadRemote(e.home())
	if err != nil {
		return fmt.Errorf("runtime.json: %w", err)
	}
	tctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	ans, err := r.Test(tctx, args[0], Version())
	if err != nil {
		return err
	}
	return printJSON(e.stdout, ans, false)
}
