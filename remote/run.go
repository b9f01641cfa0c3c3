package remote

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"

	"github.com/clawdhq/clawd/runtime/client"
)

// Runner runs a POSIX sh script on a remote machine, with stdin as its
// standard input, and returns what it printed.
type Runner interface {
	Run(ctx context.Context, script string, stdin io.Reader) ([]byte, error)
}

// Programs are the commands clawd reaches remote machines with: the
// person's own ssh (their config, agent and known_hosts) and, for WSL,
// wsl.exe. Tests put programs of their own in their place.
type Programs struct {
	SSH string // default "ssh"
	WSL string // default "wsl.exe"
}

func (p Programs) ssh() string {
	if p.SSH == "" {
		return "ssh"
	}
	return p.SSH
}

func (p Programs) wsl() string {
	if p.WSL == "" {
		return "wsl.exe"
	}
	return p.WSL
}

// RunnerFor returns the runner that reaches p's machine.
func (pr Programs) RunnerFor(p *Profile) Runner {
	if p.Kind == client.LinkWSL {
		return wslRunner{prog: pr.wsl(), distro: p.Distro}
	}
	return sshRunner{prog: pr.ssh(), p: p}
}

// sshOptions are the ssh options of every connection to p that clawd
// makes by itself: its config file, port and identity, and never a
// question (BatchMode: clawd runs ssh without a terminal; an unknown host
// key or a password prompt is an error to fix by running ssh once by
// hand).
func sshOptions(p *Profile) []string {
	return append(sshConnOptions(p), "-o", "BatchMode=yes")
}

// sshConnOptions are p's config file, port and identity, and a bound on
// connecting.
func sshConnOptions(p *Profile) []string {
	var args []string
	if p.SSHConfig != "" {
		args = append(args, "-F", p.SSHConfig)
	}
	if p.Port != 0 {
		args = append(args, "-p", strconv.Itoa(p.Port))
	}
	if p.Identity != "" {
		args = append(args, "-i", p.Identity, "-o", "IdentitiesOnly=yes")
	}
	return append(args, "-o", "ConnectTimeout=15")
}

type sshRunner struct {
	prog string
	p    *Profile
}

// Run runs `sh -c script` through ssh: the remote login shell, whatever
// it is, only ever sees one single-quoted word after sh -c.
func (r sshRunner) Run(ctx context.Context, script string, stdin io.Reader) ([]byte, error) {
	args := append(sshOptions(r.p), "-T", "--", r.p.Target, "sh -c "+shellQuote(script))
	return runCmd(exec.CommandContext(ctx, r.prog, args...), stdin)
}

type wslRunner struct {
	prog, distro string
}

// Run runs the script in the distro with wsl.exe, as its default user.
func (r wslRunner) Run(ctx context.Context, script string, stdin io.Reader) ([]byte, error) {
	return runCmd(exec.CommandContext(ctx, r.prog, "-d", r.distro, "--exec", "/bin/sh", "-c", script), stdin)
}

// Interactive returns the command (the program and its arguments) that
// runs argv in folder dir of p's machine in this terminal: ssh with a
// terminal of its own (-t; no BatchMode, a person is there to answer ssh),
// or wsl.exe. argv runs under the remote user's login shell
// (`$SHELL -lc`), so the agent is found where a terminal there finds it.
func (pr Programs) Interactive(p *Profile, dir string, argv []string) []string {
	q := make([]string, len(argv))
	for i, a := range argv {
		q[i] = shellWord(a)
	}
	script := "cd " + shellWord(dir) + ` && exec "${SHELL:-/bin/sh}" -lc ` + shellWord("exec "+strings.Join(q, " "))
	if p.Kind == client.LinkWSL {
		return []string{pr.wsl(), "-d", p.Distro, "--exec", "/bin/sh", "-c", script}
	}
	return append(append([]string{pr.ssh()}, sshConnOptions(p)...), "-t", "--", p.Target, "sh -c "+shellQuote(script))
}

// runCmd runs cmd and returns its stdout; a failure carries the last
// lines of its stderr.
func runCmd(cmd *exec.Cmd, stdin io.Reader) ([]byte, error) {
	var stdout, stderr bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, &stdout, &stderr
	if err := cmd.Run(); err != nil {
		msg := lastLines(stderr.String(), 4)
		var ee *exec.ExitError
		if errors.As(err, &ee) && msg != "" {
			return stdout.Bytes(), fmt.Errorf("%s exited %d: %s", cmd.Args[0], ee.ExitCode(), msg)
		}
		if msg != "" {
			return stdout.Bytes(), fmt.Errorf("%s: %v: %s", cmd.Args[0], err, msg)
		}
		return stdout.Bytes(), fmt.Errorf("%s: %w", cmd.Args[0], err)
	}
	return stdout.Bytes(), nil
}

// lastLines returns the last n non-empty lines of s, joined with "; ".
func lastLines(s string, n int) string {
	var lines []string
	sc := bufio.NewScanner(strings.NewReader(s))
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); l != "" {
			lines = append(lines, l)
		}
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "; ")
}

// shellQuote quotes s as one word for a POSIX shell (and fish, csh, zsh:
// single quotes mean the same there), with ' written as '\”.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// shellWord is s as one word for a POSIX shell: as it is when it holds
// nothing a shell reads specially, else shellQuote'd. The command stays
// readable where clawd prints it.
func shellWord(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789@%+=:,./_-") == "" {
		return s
	}
	return shellQuote(s)
}

// Settings are the effective settings of an SSH profile as ssh itself
// resolves them from the person's config (`ssh -G`).
type Settings struct {
	User, Hostname string
	Port           int
}

// Resolve runs `ssh -G` for p: what ssh would connect to. It fails on a
// config ssh cannot read.
func (pr Programs) Resolve(ctx context.Context, p *Profile) (Settings, error) {
	args := append(sshOptions(p), "-G", "--", p.Target)
	out, err := runCmd(exec.CommandContext(ctx, pr.ssh(), args...), nil)
	if err != nil {
		return Settings{}, fmt.Errorf("read the ssh settings of %s: %w", p.Target, err)
	}
	var s Settings
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		k, v, _ := strings.Cut(sc.Text(), " ")
		switch k {
		case "user":
			s.User = v
		case "hostname":
			s.Hostname = v
		case "port":
			s.Port, _ = strconv.Atoi(v)
		}
	}
	if s.Hostname == "" {
		return s, fmt.Errorf("ssh -G %s named no host name", p.Target)
	}
	return s, nil
}
