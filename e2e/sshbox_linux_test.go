package e2e

import (
	"bufio"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// sshBox is "the remote" of the remote tests: Debian's sshd on a loopback
// port of its own, with its own host key and config, and a throwaway user
// made for the test (removed after it) whose HOME is the remote's. The
// desktop (the test's world, as root) reaches it with ssh, a key made by
// the test and a known_hosts file holding the box's host key.
type sshBox struct {
	t        *testing.T
	dir      string // root's: keys and configs
	base     string // the user's HOME's parent, open to the user
	user     string
	uid, gid int
	home     string
	port     int

	sshdConfig   string
	clientConfig string
	identity     string
	sshd         *proc
}

// sshd is Debian's sshd, which scripts/install-agents.sh installs.
const sshdPath = "/usr/sbin/sshd"

func newSSHBox(t *testing.T) *sshBox {
	t.Helper()
	if _, err := os.Stat(sshdPath); err != nil {
		t.Fatalf("%s not found (%v): run scripts/test.sh (scripts/install-agents.sh installs openssh-server)", sshdPath, err)
	}
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var rnd [4]byte
	rand.Read(rnd[:])
	b := &sshBox{t: t, dir: dir, user: "clawdr" + hex.EncodeToString(rnd[:])}
	b.base, err = os.MkdirTemp("", "clawd-remote-")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(b.base, 0o755); err != nil {
		t.Fatal(err)
	}
	b.home = filepath.Join(b.base, "home")
	t.Cleanup(b.cleanup)
	// useradd takes /etc/passwd's lock: a parallel test's useradd can
	// hold it a moment.
	for try := 0; ; try++ {
		out, err := exec.Command("useradd", "-m", "-d", b.home, "-s", "/bin/bash", "-p", "*", b.user).CombinedOutput()
		if err == nil {
			break
		}
		if try == 20 || !strings.Contains(string(out), "lock") {
			t.Fatalf("useradd %s: %v\n%s", b.user, err, out)
		}
		time.Sleep(200 * time.Millisecond)
	}
	fi, err := os.Stat(b.home)
	if err != nil {
		t.Fatal(err)
	}
	st := fi.Sys().(*syscall.Stat_t)
	b.uid, b.gid = int(st.Uid), int(st.Gid)

	keygen := func(path string) {
		if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "clawd-e2e", "-f", path).CombinedOutput(); err != nil {
			t.Fatalf("ssh-keygen %s: %v\n%s", path, err, out)
		}
	}
	hostKey := filepath.Join(dir, "host_key")
	b.identity = filepath.Join(dir, "id_ed25519")
	keygen(hostKey)
	keygen(b.identity)
	pub, err := os.ReadFile(b.identity + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	b.writeFile(".ssh/authorized_keys", string(pub), 0o600)
	b.port = freeTCPPort(t)
	b.sshdConfig = filepath.Join(dir, "sshd_config")
	b.writeSSHDConfig(true)
	hostPub, err := os.ReadFile(hostKey + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	known := filepath.Join(dir, "known_hosts")
	if err := os.WriteFile(known, []byte(fmt.Sprintf("[127.0.0.1]:%d %s", b.port, hostPub)), 0o600); err != nil {
		t.Fatal(err)
	}
	b.clientConfig = filepath.Join(dir, "ssh_config")
	client := fmt.Sprintf("Host *\n  UserKnownHostsFile %s\n  GlobalKnownHostsFile /dev/null\n  StrictHostKeyChecking yes\n", known)
	if err := os.WriteFile(b.clientConfig, []byte(client), 0o600); err != nil {
		t.Fatal(err)
	}
	// sshd's privilege separation folder.
	if err := os.MkdirAll("/run/sshd", 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(sshdPath, "-D", "-e", "-f", b.sshdConfig)
	b.sshd = startProc(t, "sshd", cmd, io.Discard)
	b.waitListening(1)
	return b
}

// writeSSHDConfig writes the box's sshd_config, with remote port
// forwarding allowed or not.
func (b *sshBox) writeSSHDConfig(forwarding bool) {
	b.t.Helper()
	allow := "yes"
	if !forwarding {
		allow = "no"
	}
	cfg := strings.Join([]string{
		"Port " + strconv.Itoa(b.port),
		"ListenAddress 127.0.0.1",
		"HostKey " + filepath.Join(b.dir, "host_key"),
		"PidFile " + filepath.Join(b.dir, "sshd.pid"),
		// No PAM here: the throwaway user has no password, only the key.
		"UsePAM no",
		"AuthorizedKeysFile .ssh/authorized_keys",
		"PasswordAuthentication no",
		"KbdInteractiveAuthentication no",
		"PubkeyAuthentication yes",
		"StrictModes yes",
		"AllowUsers " + b.user,
		"AllowTcpForwarding " + allow,
		"PermitUserEnvironment no",
		"LogLevel VERBOSE",
		"",
	}, "\n")
	if err := os.WriteFile(b.sshdConfig, []byte(cfg), 0o600); err != nil {
		b.t.Fatal(err)
	}
}

// setForwarding switches remote port forwarding for new connections on or
// off: sshd reads its config again on SIGHUP; connections already up
// keep what they had.
func (b *sshBox) setForwarding(on bool) {
	b.t.Helper()
	n := strings.Count(b.sshd.stderr.String(), "Server listening on")
	b.writeSSHDConfig(on)
	if err := b.sshd.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		b.t.Fatal(err)
	}
	b.waitListening(n + 1)
}

// waitListening waits until sshd said n times that it listens.
func (b *sshBox) waitListening(n int) {
	b.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for strings.Count(b.sshd.stderr.String(), "Server listening on") < n {
		if b.sshd.exited() || time.Now().After(deadline) {
			b.t.Fatalf("sshd is not listening: %v\n%s", b.sshd.err, b.sshd.stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (b *sshBox) cleanup() {
	if b.sshd != nil {
		b.sshd.stop()
	}
	killUser(b.uid)
	if out, err := exec.Command("userdel", "-r", "-f", b.user).CombinedOutput(); err != nil && b.uid != 0 {
		b.t.Logf("userdel %s: %v\n%s", b.user, err, out)
	}
	os.RemoveAll(b.base)
}

// killUser kills every process of the throwaway user uid (never root's).
func killUser(uid int) {
	if uid == 0 {
		return
	}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		fi, err := os.Stat(filepath.Join("/proc", e.Name()))
		if err == nil && int(fi.Sys().(*syscall.Stat_t).Uid) == uid {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// writeFile writes a file of the user's under its HOME, making its
// folders (the user's too) as needed.
func (b *sshBox) writeFile(rel, content string, mode os.FileMode) {
	b.t.Helper()
	path := filepath.Join(b.home, rel)
	var dirs []string
	for d := filepath.Dir(path); d != b.home; d = filepath.Dir(d) {
		dirs = append([]string{d}, dirs...)
	}
	for _, d := range dirs {
		if err := os.Mkdir(d, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
			b.t.Fatal(err)
		}
		os.Chown(d, b.uid, b.gid)
	}
	if err := os.WriteFile(path, []byte(content), mode); err != nil {
		b.t.Fatal(err)
	}
	if err := os.Chown(path, b.uid, b.gid); err != nil {
		b.t.Fatal(err)
	}
}

func (b *sshBox) readFile(rel string) string {
	b.t.Helper()
	data, err := os.ReadFile(filepath.Join(b.home, rel))
	if err != nil {
		b.t.Fatal(err)
	}
	return string(data)
}

// target is the box for `clawd remote add`.
func (b *sshBox) target() string { return b.user + "@127.0.0.1" }

// addArgs are `clawd remote add NAME target` with the box's port, key and
// ssh config.
func (b *sshBox) addArgs(name string) []string {
	return []string{"remote", "add", name, b.target(), "--port", strconv.Itoa(b.port),
		"--identity", b.identity, "--ssh-config", b.clientConfig}
}

// run runs a script on the box, through ssh, as the person would.
func (b *sshBox) run(ctx context.Context, stdin, script string) result {
	b.t.Helper()
	cmd := exec.CommandContext(ctx, "ssh", "-F", b.clientConfig, "-p", strconv.Itoa(b.port), "-i", b.identity,
		"-o", "IdentitiesOnly=yes", "-o", "BatchMode=yes", "-T", "--", b.target(), "sh -c "+shQuote(script))
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + b.dir, "LANG=C.UTF-8"}
	cmd.Stdin = strings.NewReader(stdin)
	return run(b.t, cmd)
}

// hook runs `clawd hook claude` on the box with payload, as Claude Code
// there would: the binary clawd remote add put there, a plain
// environment.
func (b *sshBox) hook(ctx context.Context, payload string) result {
	b.t.Helper()
	return b.run(ctx, payload, b.envPrefix()+`exec "$HOME/.clawd/bin/clawd" hook claude`)
}

// envPrefix quiets a -race clawd's exit on the box.
func (b *sshBox) envPrefix() string {
	var s string
	for _, kv := range raceEnv() {
		s += "export " + kv + "; "
	}
	return s
}

func shQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// snapshot is the box's HOME as a tree: every entry's type, mode, owner
// and (files) content hash or (links) target; folder times are left out.
func (b *sshBox) snapshot() map[string]string {
	b.t.Helper()
	snap := map[string]string{}
	err := filepath.WalkDir(b.home, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(b.home, path)
		fi, err := d.Info()
		if err != nil {
			return err
		}
		st := fi.Sys().(*syscall.Stat_t)
		desc := fmt.Sprintf("%v uid=%d", fi.Mode(), st.Uid)
		switch {
		case fi.Mode().IsRegular():
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			sum := sha256.Sum256(data)
			desc += fmt.Sprintf(" %d bytes sha256 %x", len(data), sum[:8])
		case fi.Mode()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(path)
			desc += " -> " + target
		}
		snap[rel] = desc
		return nil
	})
	if err != nil {
		b.t.Fatal(err)
	}
	return snap
}

// diffSnapshots lists what differs between two snapshots.
func diffSnapshots(before, after map[string]string) []string {
	var out []string
	for k, v := range before {
		if w, ok := after[k]; !ok {
			out = append(out, "gone: "+k+" ("+v+")")
		} else if w != v {
			out = append(out, "changed: "+k+": "+v+" -> "+w)
		}
	}
	for k, v := range after {
		if _, ok := before[k]; !ok {
			out = append(out, "new: "+k+" ("+v+")")
		}
	}
	sort.Strings(out)
	return out
}

// freeTCPPort returns a loopback port free now.
func freeTCPPort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// squatter listens on a port and keeps every byte anyone sends it: a
// stranger's server on the remote port while the tunnel is down.
type squatter struct {
	ln   net.Listener
	got  chan []byte
	done chan struct{}
}

func newSquatter(t *testing.T, port int) *squatter {
	t.Helper()
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		t.Fatalf("listen on the remote port %d as a stranger: %v", port, err)
	}
	s := &squatter{ln: ln, got: make(chan []byte, 16), done: make(chan struct{})}
	go func() {
		defer close(s.done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				c.SetDeadline(time.Now().Add(10 * time.Second))
				r := bufio.NewReader(c)
				var all []byte
				for {
					line, err := r.ReadBytes('\n')
					all = append(all, line...)
					if err != nil || len(line) <= 2 {
						break // end of the headers: answer like a server would
					}
				}
				// Answer the hello with a made-up proof, as a stranger can.
				io.WriteString(c, "HTTP/1.1 204 No Content\r\nX-Clawd-Server: clawd\r\nX-Clawd-Proof: 00\r\n\r\n")
				rest, _ := io.ReadAll(r)
				s.got <- append(all, rest...)
			}()
		}
	}()
	return s
}

func (s *squatter) close() []byte {
	s.ln.Close()
	<-s.done
	var all []byte
	for {
		select {
		case b := <-s.got:
			all = append(all, b...)
		case <-time.After(2 * time.Second):
			return all
		}
	}
}

// linkOf runs `clawd remote list --json` and returns the link of name.
func (w *world) linkOf(ctx context.Context, name string) (remoteLink, bool) {
	w.t.Helper()
	r := w.mustClawd(ctx, "remote", "list", "--json")
	var list []struct {
		Name       string      `json:"name"`
		Generation int64       `json:"generation"`
		RemotePort int         `json:"remote_port"`
		Link       *remoteLink `json:"link"`
	}
	if err := jsonUnmarshal(r.stdout, &list); err != nil {
		w.t.Fatalf("clawd remote list --json printed %q: %v", r.stdout, err)
	}
	for _, e := range list {
		if e.Name == name && e.Link != nil {
			return *e.Link, true
		}
	}
	return remoteLink{}, false
}

// remoteLink is a link as `clawd remote list --json` shows it.
type remoteLink struct {
	Profile    string `json:"profile"`
	Label      string `json:"label"`
	State      string `json:"state"`
	Error      string `json:"error"`
	Ingress    string `json:"ingress"`
	RemotePort int    `json:"remote_port"`
	Generation int64  `json:"generation"`
	TunnelPID  int    `json:"tunnel_pid"`
}

// waitLink waits until name's link is in state.
func (w *world) waitLink(ctx context.Context, name, state string, timeout time.Duration) remoteLink {
	w.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		l, ok := w.linkOf(ctx, name)
		if ok && l.State == state {
			return l
		}
		if time.Now().After(deadline) {
			w.t.Fatalf("the link of %s is not %s within %v: %+v (found %v)", name, state, timeout, l, ok)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// ownedBy reports the owner of a path.
func ownedBy(t *testing.T, path string) (int, os.FileMode) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return int(fi.Sys().(*syscall.Stat_t).Uid), fi.Mode().Perm()
}

// withoutPrefix drops the entries of snap under any of the prefixes.
func withoutPrefix(snap map[string]string, prefixes ...string) map[string]string {
	out := map[string]string{}
	for k, v := range snap {
		if !slices.ContainsFunc(prefixes, func(p string) bool { return k == p || strings.HasPrefix(k, p+"/") }) {
			out[k] = v
		}
	}
	return out
}
