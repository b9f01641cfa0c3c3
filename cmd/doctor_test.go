package cmd

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/doctor"
	"github.com/clawdhq/clawd/installers"
	"github.com/clawdhq/clawd/internal/desktop"
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
		if c.Status != doctor.Warn || !strings.Contains(c.Finding, "the hook ran, but nothing arrived: clawd serve is not running") || c.Fix != "clawd serve" {
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

// TestDoctorExitCodes: 0 when nothing fails, 1 when something does, 2
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
	code, out, errs := run("doctor", "--agent", "claude", "--json")
	if code != 1 || errs != "" || !strings.HasPrefix(out, "{\n  \"checks\": [\n") || !strings.Contains(out, `"id": "claude.hooks.missing"`) {
		t.Errorf("doctor --json on a broken install exited %d, stderr %q, stdout:\n%s", code, errs, out)
	}
	// --fix --dry-run shows the diff, writes nothing, and still fails.
	code, out, _ = run("doctor", "--agent", "claude", "--fix", "--dry-run")
	if b, _ := os.ReadFile(filepath.Join(home, ".claude", "settings.json")); code != 1 || string(b) != "{}\n" ||
		!strings.Contains(out, "+++ "+filepath.Join(home, ".claude", "settings.json")) || !strings.Contains(out, "(dry run, nothing written)") {
		t.Errorf("doctor --fix --dry-run exited %d, settings %q, stdout:\n%s", code, b, out)
	}
}
