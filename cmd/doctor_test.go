package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/doctor"
	"github.com/clawdhq/clawd/installers"
	"github.com/clawdhq/clawd/internal/desktop"
	"github.com/clawdhq/clawd/remote"
	"github.com/clawdhq/clawd/runtime"
)

// clawdBin is this test binary as testscript's `clawd`: a hook command
// that runs it runs clawd.
func clawdBin(t *testing.T) string {
	t.Helper()
	bin, err := exec.LookPath("clawd")
	if err != nil {
		t.Fatal(err)
	}
	if bin, err = filepath.EvalSymlinks(bin); err != nil {
		t.Fatal(err)
	}
	return bin
}

// doctorHome is a HOME with Claude Code's settings holding clawd's hooks
// for binary, and its options for doctor with clawd home clawdHome.
func doctorHome(t *testing.T, binary string) (doctor.Options, string) {
	t.Helper()
	home := t.TempDir()
	clawdHome := filepath.Join(home, ".clawd")
	getenv := func(k string) string {
		switch k {
		case "HOME":
			return home
		case "CLAWD_HOME":
			return clawdHome
		}
		return ""
	}
	if err := os.MkdirAll(filepath.Join(home, ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := installers.Install(clawdHome, agents.Claude, getenv, binary, false); err != nil {
		t.Fatal(err)
	}
	return doctor.Options{
		Home: clawdHome, Getenv: getenv, Binary: clawdBin(t), Version: Version(),
		Environ: []string{"HOME=" + home, "CLAWD_HOME=" + clawdHome},
		Desktop: func() desktop.Session { return desktop.Session{Available: true, TrayHost: true, Notifications: true} },
	}, home
}

func connection(t *testing.T, r doctor.Report) doctor.Check {
	t.Helper()
	i := slices.IndexFunc(r.Checks, func(c doctor.Check) bool { return c.ID == "claude.connection" })
	if i < 0 {
		t.Fatalf("no claude.connection in %+v", r.Checks)
	}
	return r.Checks[i]
}

// TestDoctorConnectionTest runs the installed hook command against a real
// runtime, with none, with one of another clawd home, and with a command
// that cannot run, and tells the four apart. The test event never shows
// as a session.
func TestDoctorConnectionTest(t *testing.T) {
	ctx := context.Background()
	list := []*agents.Agent{agents.Claude}

	t.Run("arrived", func(t *testing.T) {
		o, _ := doctorHome(t, clawdBin(t))
		s := startRuntime(t, o.Home)
		o.Version = "test" // the runtime's
		c := connection(t, doctor.Run(ctx, o, list))
		if c.Status != doctor.OK || !strings.HasPrefix(c.Finding, "the hook's test event arrived in ") || !strings.HasSuffix(c.Finding, " ms") {
			t.Errorf("claude.connection = %+v, want ok, arrived in N ms", c)
		}
		if snap := s.Snapshot(); len(snap.Sessions) != 0 {
			t.Errorf("the test event shows as sessions: %+v", snap.Sessions)
		}
	})

	t.Run("runtime down", func(t *testing.T) {
		o, _ := doctorHome(t, clawdBin(t))
		c := connection(t, doctor.Run(ctx, o, list))
		if c.Status != doctor.Warn || !strings.Contains(c.Finding, "the hook ran, but nothing arrived: clawd serve is not running") ||
			!strings.HasPrefix(c.Fix, "clawd serve (now), or clawd autostart enable") {
			t.Errorf("claude.connection = %+v, want warn: ran, nothing arrived, serve not running", c)
		}
	})

	t.Run("another home", func(t *testing.T) {
		o, _ := doctorHome(t, clawdBin(t))
		startRuntime(t, o.Home)
		// The agent runs its hooks with another CLAWD_HOME.
		o.Environ = append(o.Environ, "CLAWD_HOME="+t.TempDir())
		c := connection(t, doctor.Run(ctx, o, list))
		if c.Status != doctor.Fail || !strings.Contains(c.Finding, "the hook ran, but nothing arrived at the runtime of "+o.Home) {
			t.Errorf("claude.connection = %+v, want fail: ran, nothing arrived at this runtime", c)
		}
	})

	t.Run("not runnable", func(t *testing.T) {
		// A clawd that is a file, not a program.
		bad := filepath.Join(t.TempDir(), "clawd")
		if err := os.WriteFile(bad, []byte("not a program"), 0o644); err != nil {
			t.Fatal(err)
		}
		o, _ := doctorHome(t, bad)
		startRuntime(t, o.Home)
		r := doctor.Run(ctx, o, list)
		c := connection(t, r)
		if c.Status != doctor.Fail || !strings.HasPrefix(c.Finding, "hook not runnable: `"+bad+" hook claude` failed (exit status 126") {
			t.Errorf("claude.connection = %+v, want fail: not runnable, exit 126", c)
		}
		if !r.Failed() {
			t.Error("Report.Failed() = false with a failed check")
		}
	})
}

// TestDoctorExitCodes: 0 when nothing fails, 1 when something does
// (clawd serve not running included: nothing reaches the person then), 2
// for a usage error; --json is the report alone.
func TestDoctorExitCodes(t *testing.T) {
	o, home := doctorHome(t, clawdBin(t))
	run := func(args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		e := &env{
			stdin: strings.NewReader(""), stdout: &out, stderr: &errb, getenv: o.Getenv,
			environ: func() []string { return o.Environ }, now: time.Now,
			executable: func() (string, error) { return o.Binary, nil },
		}
		return run(context.Background(), e, append([]string{"clawd"}, args...)), out.String(), errb.String()
	}
	code, out, errs := run("doctor", "--agent", "claude")
	if verdict, _, _ := strings.Cut(out, "\n"); code != 1 || errs != "" ||
		verdict != "1 failed, 1 warning: clawd serve is not running, nothing reaches you" {
		t.Errorf("doctor with clawd serve down exited %d, stderr %q; stdout:\n%s\nwant 1, the verdict first", code, errs, out)
	}
	startRuntime(t, o.Home)
	if code, out, errs := run("doctor", "--agent", "claude"); code != 0 || errs != "" {
		t.Errorf("doctor on a good install exited %d, stderr %q; stdout:\n%s", code, errs, out)
	}
	if code, _, errs := run("doctor", "--agent", "kodex"); code != 2 || !strings.Contains(errs, `unknown agent "kodex"`) {
		t.Errorf("doctor --agent kodex exited %d, stderr %q; want 2", code, errs)
	}
	if code, _, errs := run("doctor", "--dry-run"); code != 2 || !strings.Contains(errs, "--dry-run goes with --fix") {
		t.Errorf("doctor --dry-run exited %d, stderr %q; want 2", code, errs)
	}
	if err := os.WriteFile(filepath.Join(home, ".claude", "settings.json"), []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs = run("doctor", "--agent", "claude", "--json")
	if code != 1 || errs != "" || !strings.HasPrefix(out, "{\n  \"checks\": [\n") || !strings.Contains(out, `"id": "claude.hooks.missing"`) {
		t.Errorf("doctor --json on a broken install exited %d, stderr %q, stdout:\n%s", code, errs, out)
	}
	// --agent claude: the runtime's checks and Claude Code's, nothing else.
	var rep doctor.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	for _, c := range rep.Checks {
		if c.Agent != "claude" && !strings.HasPrefix(c.ID, "runtime.") {
			t.Errorf("doctor --agent claude ran %s", c.ID)
		}
	}
	// --fix --dry-run shows the diff, writes nothing, and still fails.
	code, out, _ = run("doctor", "--agent", "claude", "--fix", "--dry-run")
	if b, _ := os.ReadFile(filepath.Join(home, ".claude", "settings.json")); code != 1 || string(b) != "{}\n" ||
		!strings.Contains(out, "+++ "+filepath.Join(home, ".claude", "settings.json")) || !strings.Contains(out, "(dry run, nothing written)") {
		t.Errorf("doctor --fix --dry-run exited %d, settings %q, stdout:\n%s", code, b, out)
	}
}

// check returns the check id of r.
func check(t *testing.T, r doctor.Report, id string) doctor.Check {
	t.Helper()
	i := slices.IndexFunc(r.Checks, func(c doctor.Check) bool { return c.ID == id })
	if i < 0 {
		t.Fatalf("no %s in %+v", id, r.Checks)
	}
	return r.Checks[i]
}

// TestDoctorRemote: on a remote machine (runtime.json in remote mode, no
// runtime of its own) doctor tests the link to the desktop instead of
// asking for a local clawd serve, and the connection test's probe goes
// through the profile's ingress to the desktop's runtime, never as a
// session; a link that is down is a warning that names the profile, and
// a listener that cannot prove it is the desktop fails.
func TestDoctorRemote(t *testing.T) {
	ctx := context.Background()
	list := []*agents.Agent{agents.Claude}
	const token = "0123456789abcdef0123456789abcdef"
	remoteDoctor := func(t *testing.T, port int, token string) doctor.Options {
		o, _ := doctorHome(t, clawdBin(t))
		o.Version = "test" // the desktop's
		if _, err := remote.SetUp(o.Home, remote.SetupSpec{Profile: "box", Port: port, Token: token, Generation: 1, Version: "test"}, time.Now()); err != nil {
			t.Fatal(err)
		}
		return o
	}

	t.Run("up", func(t *testing.T) {
		in := &runtime.Ingress{Label: "box"}
		in.SetCredentials(token, 1)
		s, port := desktopIngress(t, in)
		r := doctor.Run(ctx, remoteDoctor(t, port, token), list)
		if c := check(t, r, "runtime.reachable"); c.Status != doctor.OK || !strings.Contains(c.Finding, "the desktop's clawd answers for profile box") {
			t.Errorf("runtime.reachable = %+v, want ok: the desktop answers", c)
		}
		if c := check(t, r, "runtime.info"); c.Status != doctor.OK || !strings.Contains(c.Finding, "is in remote mode") {
			t.Errorf("runtime.info = %+v, want ok: remote mode", c)
		}
		if c := connection(t, r); c.Status != doctor.OK || !regexp.MustCompile(`^the hook's test event arrived at the desktop \(profile box\) within \d+ ms$`).MatchString(c.Finding) {
			t.Errorf("claude.connection = %+v, want ok: arrived at the desktop", c)
		}
		if r.Failed() {
			t.Errorf("a remote machine with its link up fails: %+v", r.Checks)
		}
		if snap := s.Snapshot(); len(snap.Sessions) != 0 {
			t.Errorf("the test event shows as sessions on the desktop: %+v", snap.Sessions)
		}
	})

	t.Run("link down", func(t *testing.T) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		port := ln.Addr().(*net.TCPAddr).Port
		ln.Close()
		r := doctor.Run(ctx, remoteDoctor(t, port, token), list)
		if c := check(t, r, "runtime.reachable"); c.Status != doctor.Warn || !strings.Contains(c.Finding, "the desktop of profile box does not answer") ||
			c.Fix != "on the desktop: clawd serve running, then clawd remote test box" {
			t.Errorf("runtime.reachable = %+v, want warn: the desktop does not answer", c)
		}
		if c := connection(t, r); c.Status != doctor.Warn || c.Finding != "the hook ran, but nothing arrived: the desktop of profile box does not answer" {
			t.Errorf("claude.connection = %+v, want warn: nothing arrived, the desktop does not answer", c)
		}
	})

	t.Run("impostor", func(t *testing.T) {
		// Something listens on the port that does not hold the
		// profile's token.
		in := &runtime.Ingress{Label: "box"}
		in.SetCredentials("another token of another runtime", 1)
		s, port := desktopIngress(t, in)
		r := doctor.Run(ctx, remoteDoctor(t, port, token), list)
		if c := check(t, r, "runtime.reachable"); c.Status != doctor.Fail || !strings.Contains(c.Finding, "something other than the desktop's clawd of profile box answers") {
			t.Errorf("runtime.reachable = %+v, want fail: not the desktop", c)
		}
		if !r.Failed() {
			t.Error("Report.Failed() = false with an impostor on the remote port")
		}
		if snap := s.Snapshot(); len(snap.Sessions) != 0 {
			t.Errorf("the impostor got sessions: %+v", snap.Sessions)
		}
	})
}
