package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// userManager is a real systemd user manager (Debian's /lib/systemd/systemd
// --user) for one world: its runtime folder is the world's
// XDG_RUNTIME_DIR, where systemctl --user finds it. systemd runs as a user
// manager only on a machine booted with systemd (/run/systemd/system
// exists), which a container is not: it runs in a mount namespace of its
// own with a tmpfs on /run/systemd that says so, seen by nothing else.
// systemctl, which also looks there to tell a running system from files
// to edit offline, runs in that namespace too: the world's PATH has a
// systemctl that enters it.
type userManager struct {
	w   *world
	ctl string // the systemctl wrapper
}

func startUserManager(ctx context.Context, t *testing.T, w *world) *userManager {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Fatal("the user manager's mount namespace needs root (tests run as root)")
	}
	for _, tool := range []string{"unshare", "nsenter", "/lib/systemd/systemd"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s: %v (Debian's systemd and util-linux; scripts/install-tools.sh installs systemd)", tool, err)
		}
	}
	systemctl, err := exec.LookPath("systemctl")
	if err != nil {
		t.Fatalf("systemctl: %v (scripts/install-tools.sh installs systemd)", err)
	}
	cmd := exec.Command("unshare", "--mount", "--propagation", "private", "sh", "-c",
		"mount -t tmpfs clawd-test /run/systemd && mkdir /run/systemd/system && exec /lib/systemd/systemd --user")
	// The manager's own environment, which its units inherit: no
	// CLAWD_HOME, so the unit must carry the world's clawd home itself.
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + w.home, "XDG_RUNTIME_DIR=" + w.dir, "LANG=C.UTF-8"}, raceEnv()...)
	var out syncBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatalf("start systemd --user: %v", err)
	}
	bin := filepath.Join(w.dir, "bin")
	m := &userManager{w: w, ctl: filepath.Join(bin, "systemctl")}
	script := "#!/bin/sh\nexec nsenter --target " + strconv.Itoa(cmd.Process.Pid) + " --mount -- " + systemctl + ` "$@"` + "\n"
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(m.ctl, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	w.pathPrefix = bin
	t.Cleanup(func() {
		// SIGTERM: the manager stops its units (clawd serve among them)
		// and exits.
		cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
			<-done
			t.Errorf("systemd --user did not exit on SIGTERM in 30 s\n%s", out.String())
		}
	})
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, err := m.systemctl(ctx, "show-environment"); err == nil {
			return m
		}
		if time.Now().After(deadline) {
			t.Fatalf("systemd --user did not answer in 30 s:\n%s", out.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// systemctl runs systemctl --user against the manager.
func (m *userManager) systemctl(ctx context.Context, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, m.ctl, append([]string{"--user"}, args...)...)
	cmd.Env = m.w.clawdEnv()
	out, err := cmd.CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

// mainPID is the pid of clawd.service's serve, 0 when none runs.
func (m *userManager) mainPID(ctx context.Context) int {
	out, err := m.systemctl(ctx, "show", "--property", "MainPID", "--value", "clawd.service")
	if err != nil {
		m.w.t.Fatalf("systemctl --user show clawd.service: %v: %s", err, out)
	}
	pid, _ := strconv.Atoi(out)
	return pid
}

// waitServe waits until clawd.service runs a serve other than not that
// answers clawd status, and returns its pid.
func (m *userManager) waitServe(ctx context.Context, not int, within time.Duration) int {
	m.w.t.Helper()
	deadline := time.Now().Add(within)
	for {
		if pid := m.mainPID(ctx); pid != 0 && pid != not {
			if r := m.w.clawd(ctx, "", "status"); r.code == 0 {
				return pid
			}
		}
		if time.Now().After(deadline) {
			st, _ := m.systemctl(ctx, "status", "--no-pager", "clawd.service")
			m.w.t.Fatalf("no clawd serve of clawd.service answered in %v:\n%s", within, st)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestAutostartSystemd: with a real systemd user manager, `clawd autostart
// enable` writes the user unit, and systemctl --user enables and starts it:
// the serve it runs is this clawd, on the world's clawd home. Killed, it
// is started again (Restart=on-failure). `clawd autostart status` says it
// runs, and `clawd uninstall --all --purge` stops it and removes the unit
// and the clawd home.
func TestAutostartSystemd(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	w := newWorld(t)
	m := startUserManager(ctx, t, w)

	r := w.mustClawd(ctx, "autostart", "enable")
	unit := filepath.Join(w.home, ".config", "systemd", "user", "clawd.service")
	if !strings.Contains(r.stdout, unit+" starts "+clawdBin+" serve at login") || !strings.Contains(r.stdout, "started it now") {
		t.Errorf("clawd autostart enable:\n%s\nwant the unit %s, started now", r.stdout, unit)
	}
	if st, err := m.systemctl(ctx, "is-enabled", "clawd.service"); st != "enabled" {
		t.Errorf("systemctl --user is-enabled clawd.service = %q, %v, want enabled", st, err)
	}
	pid := m.waitServe(ctx, 0, 30*time.Second)
	if exe, err := os.Readlink("/proc/" + strconv.Itoa(pid) + "/exe"); err != nil || exe != clawdBin {
		t.Errorf("clawd.service runs %q (%v), want %s", exe, err, clawdBin)
	}
	env, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil || !strings.Contains("\x00"+string(env), "\x00CLAWD_HOME="+w.clawdHome+"\x00") {
		t.Errorf("clawd.service's serve lacks CLAWD_HOME=%s (%v)", w.clawdHome, err)
	}
	r = w.mustClawd(ctx, "autostart", "status")
	if !strings.Contains(r.stdout, "systemd") || !strings.Contains(r.stdout, "running") || strings.Contains(r.stdout, "stale") {
		t.Errorf("clawd autostart status:\n%s\nwant the systemd unit, running, not stale", r.stdout)
	}

	// A crash: the manager starts it again (RestartSec=5s).
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	pid = m.waitServe(ctx, pid, 30*time.Second)

	// Purge: the autostart's serve is stopped with its entry, then the
	// clawd home goes.
	r = w.mustClawd(ctx, "uninstall", "--all", "--purge", "--yes")
	if !strings.Contains(r.stdout, "autostart: removed "+unit) || !strings.Contains(r.stdout, "removed the clawd home "+w.clawdHome) {
		t.Errorf("clawd uninstall --all --purge --yes:\n%s", r.stdout)
	}
	if st, _ := m.systemctl(ctx, "is-active", "clawd.service"); st == "active" {
		t.Errorf("clawd.service is still active after the purge")
	}
	if err := syscall.Kill(pid, 0); err == nil {
		t.Errorf("serve %d still runs after the purge", pid)
	}
	for _, p := range []string{unit, w.clawdHome} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s is still there after the purge (%v)", p, err)
		}
	}
}
