package remote

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	goruntime "runtime"
	"slices"
	"strings"
	"time"

	"github.com/clawdhq/clawd/internal/i18n"
	"github.com/clawdhq/clawd/internal/spool"
	"github.com/clawdhq/clawd/runtime/client"
)

// The remote machine's side. `clawd remote add` copies this clawd there,
// as ~/.clawd/bin/clawd, and runs it as `clawd remote setup-here` with a
// SetupSpec on its standard input: it writes runtime.json in remote mode
// and installs every agent's hooks, which then run that binary. `clawd
// remote remove` runs `clawd remote teardown-here`, which uninstalls them
// (each file back as it was) and deletes what clawd created there. The
// clawd home on a remote machine is always ~/.clawd.

// SetupSpec is what the desktop hands `clawd remote setup-here`.
type SetupSpec struct {
	Profile    string `json:"profile"`
	Port       int    `json:"port"` // 0: pick a free one
	Token      string `json:"token"`
	Generation int64  `json:"generation"`
	// Version is the desktop's clawd version: the remote's must be the
	// same.
	Version string `json:"version"`
}

// SetupResult is what `clawd remote setup-here` answers.
type SetupResult struct {
	Port int `json:"port"`
	// Install is what `clawd install --all` printed there.
	Install string `json:"install"`
}

// TeardownSpec is what the desktop hands `clawd remote teardown-here`.
type TeardownSpec struct {
	Profile string   `json:"profile"`
	Created []string `json:"created"`
}

// TeardownResult is what `clawd remote teardown-here` answers.
type TeardownResult struct {
	// Uninstall is what `clawd uninstall --all` printed there.
	Uninstall string `json:"uninstall"`
	// Removed are the paths it deleted; Kept the folders of Created it
	// left because something else is in them.
	Removed []string `json:"removed"`
	Kept    []string `json:"kept,omitempty"`
}

// Tracked are the paths under the remote's HOME that clawd may create
// there, deepest last: the clawd home, its binary folder and binary,
// runtime.json, the lock clawd install takes (and the runtime's
// self-repair, on a machine that has one), the hook log the hooks
// write when they cannot reach the desktop, and the spool a hook writes
// when the home has no runtime.json at all (internal/spool). Those that did not exist before the first add are the
// profile's Created. (The agents' settings files are the installers'
// business: `clawd uninstall --all` gives them back as they were.)
var Tracked = []string{
	".clawd",
	".clawd/bin",
	".clawd/bin/clawd",
	".clawd/runtime.json",
	".clawd/install.lock",
	".clawd/logs",
	".clawd/logs/hook.log",
	".clawd/logs/hook.log.1",
	".clawd/" + spool.File,
	".clawd/" + spool.OldFile,
	".clawd/" + spool.LockFile,
}

// Deployer sets remote machines up and takes them down again.
type Deployer struct {
	// Home is this desktop's clawd home; Version its clawd's version.
	Home    string
	Version string
	Programs
	// Executable returns the running clawd binary, which is what a
	// remote of this platform gets.
	Executable func() (string, error)
	// Progress hears a line for each step, in Printer's language (the
	// zero Printer: English).
	Progress io.Writer
	Printer  i18n.Printer
	Now      func() time.Time
}

// say tells Progress the step of key (a message of the catalogs' remote
// section).
func (d *Deployer) say(key string, a ...any) {
	d.relay(d.Printer.T(key, a...))
}

// relay tells Progress line as it is.
func (d *Deployer) relay(line string) {
	if d.Progress != nil {
		fmt.Fprintln(d.Progress, line)
	}
}

// place names p's machine in the progress lines, as where does in
// errors.
func (d *Deployer) place(p *Profile) string {
	if p.Kind == client.LinkWSL {
		return d.Printer.T("remote.wsl_distro", p.Distro)
	}
	return p.Target
}

// AddOptions are `clawd remote add`'s choices beyond the profile.
type AddOptions struct {
	// Binary is the clawd to copy to a remote of another platform than
	// this one; by default the running binary.
	Binary string
}

// probe is what the first command on the remote finds.
type probe struct {
	os, arch, home string
	exists         map[string]bool
	sum            string // of ~/.clawd/bin/clawd, if there
}

const probeScript = `printf 'os=%s\n' "$(uname -s)"
printf 'arch=%s\n' "$(uname -m)"
printf 'home=%s\n' "$HOME"
for p in PATHS; do
  if [ -e "$HOME/$p" ] || [ -L "$HOME/$p" ]; then printf 'exists=%s\n' "$p"; fi
done
f="$HOME/.clawd/bin/clawd"
if [ -f "$f" ]; then printf 'sum=%s\n' "$( (sha256sum "$f" || shasum -a 256 "$f") 2>/dev/null | cut -d' ' -f1)"; fi
`

func (d *Deployer) probe(ctx context.Context, r Runner) (probe, error) {
	out, err := r.Run(ctx, strings.Replace(probeScript, "PATHS", strings.Join(Tracked, " "), 1), nil)
	if err != nil {
		return probe{}, err
	}
	p := probe{exists: map[string]bool{}}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		k, v, _ := strings.Cut(sc.Text(), "=")
		switch k {
		case "os":
			p.os = goos(v)
		case "arch":
			p.arch = goarch(v)
		case "home":
			p.home = v
		case "exists":
			p.exists[v] = true
		case "sum":
			p.sum = v
		}
	}
	if p.os == "" || p.arch == "" || p.home == "" {
		return p, fmt.Errorf("the remote did not say what it is (uname -s, uname -m, $HOME): %q", out)
	}
	return p, nil
}

// goos maps `uname -s` onto Go's GOOS.
func goos(uname string) string {
	switch uname {
	case "Linux":
		return "linux"
	case "Darwin":
		return "darwin"
	case "FreeBSD":
		return "freebsd"
	case "OpenBSD":
		return "openbsd"
	case "NetBSD":
		return "netbsd"
	}
	return strings.ToLower(uname)
}

// goarch maps `uname -m` onto Go's GOARCH.
func goarch(uname string) string {
	switch uname {
	case "x86_64", "amd64":
		return "amd64"
	case "aarch64", "arm64":
		return "arm64"
	case "i386", "i686":
		return "386"
	case "armv6l", "armv7l":
		return "arm"
	}
	return uname
}

// Add sets the machine of p up (see the package comment) and records p in
// the store: the same clawd binary in ~/.clawd/bin/clawd (copied only
// when its checksum differs, and checked after the copy), runtime.json in
// remote mode with a new token and the next generation, and every
// agent's hooks. Running it again repairs the remote; the previous
// generation stops working.
func (d *Deployer) Add(ctx context.Context, st *Store, p *Profile, o AddOptions) (*Profile, error) {
	if err := CheckName(p.Name); err != nil {
		return nil, err
	}
	old := st.Get(p.Name)
	if old != nil && (old.Kind != p.Kind || old.Target != p.Target || old.Distro != p.Distro) {
		return nil, fmt.Errorf("remote %s is %s already: `clawd remote remove %s` first, or pick another name", p.Name, old.where(), p.Name)
	}
	p.Generation, p.AddedAt = 1, d.Now().UTC()
	if old != nil {
		p.Generation, p.AddedAt, p.Created = old.Generation+1, old.AddedAt, old.Created
		if p.RemotePort == 0 {
			p.RemotePort = old.RemotePort
		}
	}
	if p.Kind == client.LinkWSL && p.RemotePort == 0 {
		// The distro shares this machine's loopback: the port is the
		// ingress's own, free here.
		port, err := freePort()
		if err != nil {
			return nil, err
		}
		p.RemotePort = port
	}
	tok := make([]byte, 32)
	if _, err := rand.Read(tok); err != nil {
		return nil, err
	}
	p.Token = hex.EncodeToString(tok)

	r := d.RunnerFor(p)
	d.say("remote.looking", p.Name, d.place(p))
	pr, err := d.probe(ctx, r)
	if err != nil {
		return nil, fmt.Errorf("reach %s: %w", p.where(), err)
	}
	p.OS, p.Arch, p.Home = pr.os, pr.arch, pr.home
	for _, path := range Tracked {
		if !pr.exists[path] && !slices.Contains(p.Created, path) {
			p.Created = append(p.Created, path)
		}
	}
	bin, err := d.binaryFor(pr, o)
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(bin)
	if err != nil {
		return nil, fmt.Errorf("read the clawd binary to copy: %w", err)
	}
	sum := sha256.Sum256(data)
	want := hex.EncodeToString(sum[:])
	copied := false
	if pr.sum != want {
		d.say("remote.copying", p.Name, d.Version, pr.os, pr.arch, len(data)>>20)
		if err := d.copyBinary(ctx, r, data, want); err != nil {
			return nil, err
		}
		copied = true
	} else {
		d.say("remote.same_binary", p.Name, want[:12])
	}
	spec, _ := json.Marshal(SetupSpec{Profile: p.Name, Port: p.RemotePort, Token: p.Token, Generation: p.Generation, Version: d.Version})
	script := "set -e\n"
	if copied {
		script += `mv -f "$HOME/.clawd/bin/.clawd.new" "$HOME/.clawd/bin/clawd"` + "\n"
	}
	script += `CLAWD_HOME="$HOME/.clawd"; export CLAWD_HOME` + "\n" + `exec "$HOME/.clawd/bin/clawd" remote setup-here` + "\n"
	out, err := r.Run(ctx, script, bytes.NewReader(spec))
	if err != nil {
		return nil, fmt.Errorf("set up clawd on %s: %w", p.where(), err)
	}
	var res SetupResult
	if err := json.Unmarshal(out, &res); err != nil || res.Port <= 0 {
		return nil, fmt.Errorf("set up clawd on %s: unexpected answer %q", p.where(), out)
	}
	p.RemotePort, p.Version = res.Port, d.Version
	// What clawd install printed there, as it printed it.
	for _, line := range strings.Split(strings.TrimSpace(res.Install), "\n") {
		if line != "" {
			d.relay(p.Name + ": " + line)
		}
	}
	st.Put(p)
	if err := st.Save(); err != nil {
		return nil, fmt.Errorf("save the remote profiles: %w", err)
	}
	return p, nil
}

// binaryFor picks the clawd to copy to the remote pr.
func (d *Deployer) binaryFor(pr probe, o AddOptions) (string, error) {
	if o.Binary != "" {
		return o.Binary, nil
	}
	if pr.os != goruntime.GOOS || pr.arch != goruntime.GOARCH {
		return "", fmt.Errorf("the remote is %s/%s and this clawd is %s/%s: pass --binary with clawd %s built for %s/%s",
			pr.os, pr.arch, goruntime.GOOS, goruntime.GOARCH, d.Version, pr.os, pr.arch)
	}
	return d.Executable()
}

const copyScript = `set -e
umask 077
mkdir -p "$HOME/.clawd/bin"
t="$HOME/.clawd/bin/.clawd.new"
cat > "$t"
chmod 700 "$t"
(sha256sum "$t" 2>/dev/null || shasum -a 256 "$t") | cut -d' ' -f1
`

// copyBinary writes data to ~/.clawd/bin/.clawd.new on the remote and
// checks its checksum there; a copy that arrived different is deleted.
func (d *Deployer) copyBinary(ctx context.Context, r Runner, data []byte, want string) error {
	out, err := r.Run(ctx, copyScript, bytes.NewReader(data))
	if err != nil {
		return fmt.Errorf("copy clawd: %w", err)
	}
	if got := strings.TrimSpace(string(out)); got != want {
		r.Run(ctx, `rm -f "$HOME/.clawd/bin/.clawd.new"`, nil)
		return fmt.Errorf("copy clawd: the copy's sha256 is %q, want %s; nothing was installed", got, want)
	}
	return nil
}

// ErrRemoteGone is wrapped by Remove's error when the remote could not
// be reached or set down: the profile stays.
var ErrRemoteGone = errors.New("could not take clawd off the remote")

// Remove takes clawd off p's machine: the agents' hooks (each settings
// file back as it was) and every path of p.Created; then it forgets p.
// With force, a remote that cannot be reached is forgotten all the same
// (and left as it is).
func (d *Deployer) Remove(ctx context.Context, st *Store, p *Profile, force bool) (TeardownResult, error) {
	spec, _ := json.Marshal(TeardownSpec{Profile: p.Name, Created: p.Created})
	script := `set -e
b="$HOME/.clawd/bin/clawd"
if [ ! -x "$b" ]; then echo "there is no clawd at ~/.clawd/bin/clawd" >&2; exit 3; fi
CLAWD_HOME="$HOME/.clawd"; export CLAWD_HOME
exec "$b" remote teardown-here
`
	d.say("remote.removing", p.Name, d.place(p))
	var res TeardownResult
	out, err := d.RunnerFor(p).Run(ctx, script, bytes.NewReader(spec))
	if err == nil {
		if jerr := json.Unmarshal(out, &res); jerr != nil {
			err = fmt.Errorf("unexpected answer %q", out)
		}
	}
	if err != nil && !force {
		return res, fmt.Errorf("%w %s: %v (with --force the profile is forgotten all the same)", ErrRemoteGone, p.where(), err)
	}
	if err != nil {
		d.say("remote.forgetting", p.Name, err)
	}
	st.Delete(p.Name)
	if err := st.Save(); err != nil {
		return res, fmt.Errorf("save the remote profiles: %w", err)
	}
	return res, nil
}

// where names p's machine for people.
func (p *Profile) where() string {
	if p.Kind == client.LinkWSL {
		return "WSL distro " + p.Distro
	}
	return p.Target
}

// freePort returns a port free on this machine's loopback now.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}
