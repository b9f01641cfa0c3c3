package selfrepair

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/installers"
	"github.com/clawdhq/clawd/runtime/client"
)

// fixture is a home with clawd's hooks installed into Claude Code's
// settings, a clawd binary to write, and a fake clock.
type fixture struct {
	t        *testing.T
	home     string // HOME
	clawd    string // the clawd home
	binary   string
	settings string
	now      time.Time
	mu       sync.Mutex
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	dir := t.TempDir()
	f := &fixture{t: t, home: filepath.Join(dir, "home"), clawd: filepath.Join(dir, "home", ".clawd"),
		binary: filepath.Join(dir, "bin", "clawd"), now: time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)}
	f.settings = filepath.Join(f.home, ".claude", "settings.json")
	if err := os.MkdirAll(filepath.Dir(f.binary), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f.binary, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	f.install()
	return f
}

func (f *fixture) getenv(k string) string {
	if k == "HOME" {
		return f.home
	}
	return ""
}

func (f *fixture) clock() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.now
}

func (f *fixture) advance(d time.Duration) {
	f.mu.Lock()
	f.now = f.now.Add(d)
	f.mu.Unlock()
}

// install is `clawd install claude` (or a person's fix).
func (f *fixture) install() {
	f.t.Helper()
	if _, err := installers.Install(f.clawd, agents.Claude, f.getenv, f.binary, false); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) repairer(repair bool) *Repairer {
	return New(Options{Home: f.clawd, Getenv: f.getenv, Binary: f.binary, Repair: repair, Now: f.clock})
}

// strip is another tool rewriting the settings without clawd's hooks,
// as editors do: a temp file renamed over it.
func (f *fixture) strip() {
	f.t.Helper()
	f.write(`{"model": "opus"}` + "\n")
}

func (f *fixture) write(content string) {
	f.t.Helper()
	tmp := f.settings + ".tmp"
	if err := os.WriteFile(tmp, []byte(content), 0o644); err != nil {
		f.t.Fatal(err)
	}
	if err := os.Rename(tmp, f.settings); err != nil {
		f.t.Fatal(err)
	}
}

// hooked reports whether the settings run clawd's hooks.
func (f *fixture) hooked() bool {
	b, err := os.ReadFile(f.settings)
	return err == nil && strings.Contains(string(b), f.binary+" hook claude")
}

func claude(r *Repairer) client.Integration {
	for _, in := range r.Integrations() {
		if in.Agent == agents.Claude.ID {
			return in
		}
	}
	return client.Integration{}
}

func TestRepairsAndGivesUpAfterThreeWithinTheWindow(t *testing.T) {
	f := newFixture(t)
	r := f.repairer(true)
	r.Check()
	if in := claude(r); in.State != client.IntegrationOK || in.ConfigPath != f.settings || in.Repairs != 0 {
		t.Fatalf("after install: %+v, want ok at %s", in, f.settings)
	}
	for i := 1; i <= MaxRepairs; i++ {
		f.strip()
		f.advance(time.Minute)
		if _, changed := r.Check(); !changed {
			t.Errorf("repair %d: Check reported no change", i)
		}
		if !f.hooked() {
			t.Fatalf("repair %d: hooks not back", i)
		}
		if in := claude(r); in.State != client.IntegrationRepaired || in.Repairs != i || !strings.Contains(in.Detail, "last repaired at 09:0") {
			t.Errorf("repair %d: %+v, want repaired, %d repairs", i, in, i)
		}
		// Its own write shows up as a change; checking again is quiet.
		if _, changed := r.Check(); changed {
			t.Errorf("repair %d: a second check changed %+v", i, claude(r))
		}
	}
	f.strip()
	r.Check()
	if f.hooked() {
		t.Fatal("a fourth breakage within 10 minutes was repaired")
	}
	in := claude(r)
	if in.State != client.IntegrationNeedsManualFix || in.Repairs != MaxRepairs || !strings.Contains(in.Detail, "3 times within 10 minutes") {
		t.Errorf("after giving up: %+v, want needs_manual_fix after 3 repairs", in)
	}
	// Past the window it still leaves the file alone: the person decides.
	f.advance(time.Hour)
	r.Check()
	if f.hooked() || claude(r).State != client.IntegrationNeedsManualFix {
		t.Errorf("an hour later: hooked %v, %+v; want still left alone", f.hooked(), claude(r))
	}
	// The person's fix: back to good, and repairs resume.
	f.install()
	r.Check()
	if in := claude(r); in.State != client.IntegrationRepaired || in.Repairs != MaxRepairs {
		t.Errorf("after the person's fix: %+v, want repaired (ok, %d repairs so far)", in, MaxRepairs)
	}
	f.strip()
	r.Check()
	if !f.hooked() {
		t.Error("after the person's fix, a new breakage was not repaired")
	}
}

func TestRepairsSpreadOverTheWindowNeverGiveUp(t *testing.T) {
	f := newFixture(t)
	r := f.repairer(true)
	for i := 1; i <= 2*MaxRepairs; i++ {
		f.advance(Window / 2)
		f.strip()
		r.Check()
		if !f.hooked() {
			t.Fatalf("breakage %d, %v after the one before: not repaired (%+v)", i, Window/2, claude(r))
		}
	}
	if in := claude(r); in.Repairs != 2*MaxRepairs || in.State != client.IntegrationRepaired {
		t.Errorf("%+v, want %d repairs", in, 2*MaxRepairs)
	}
}

func TestNeverTouchesAFileThatDoesNotParse(t *testing.T) {
	f := newFixture(t)
	r := f.repairer(true)
	broken := "{\n  \"model\": \"opus\",\n}\n"
	f.write(broken)
	for range MaxRepairs + 1 {
		r.Check()
	}
	b, _ := os.ReadFile(f.settings)
	if string(b) != broken {
		t.Errorf("the malformed file became %q", b)
	}
	in := claude(r)
	if in.State != client.IntegrationNeedsManualFix || in.Repairs != 0 || !strings.Contains(in.Detail, "trailing comma") {
		t.Errorf("%+v, want needs_manual_fix naming the syntax error, no repairs", in)
	}
}

func TestSelfRepairOffOnlyReports(t *testing.T) {
	f := newFixture(t)
	r := f.repairer(false)
	f.strip()
	r.Check()
	if f.hooked() {
		t.Error("self_repair = false, and the hooks were put back")
	}
	if in := claude(r); in.State != client.IntegrationNeedsManualFix || !strings.Contains(in.Detail, "self_repair = false") {
		t.Errorf("%+v, want needs_manual_fix saying self-repair is off", in)
	}
}

func TestUninstallIsNotUndone(t *testing.T) {
	f := newFixture(t)
	r := f.repairer(true)
	r.Check()
	err := installers.Locked(f.clawd, func() error {
		rec, err := installers.ReadRecord(f.clawd)
		if err != nil {
			return err
		}
		inst, err := installers.For(agents.Claude, f.getenv)
		if err != nil {
			return err
		}
		if _, err := installers.Apply(rec, agents.Claude.ID, inst, f.binary, false, false); err != nil {
			return err
		}
		return rec.Save()
	})
	if err != nil {
		t.Fatal(err)
	}
	r.Check()
	if f.hooked() {
		t.Error("the runtime put back hooks the person uninstalled")
	}
	if in := claude(r); in.State != client.IntegrationNotInstalled {
		t.Errorf("%+v, want not_installed", in)
	}
}

// TestRunRepairsARenameWithinTwoSeconds: the watcher sees a file replaced
// by rename, as editors and settings tools write, and the hooks are back
// within 2 s; a tool that keeps removing them is given up on after three
// repairs.
func TestRunRepairsARenameWithinTwoSeconds(t *testing.T) {
	f := newFixture(t)
	r := f.repairer(true)
	ctx, cancel := context.WithCancel(context.Background())
	changes := make(chan struct{}, 16)
	done := make(chan struct{})
	go func() {
		defer close(done)
		r.Run(ctx, func() { changes <- struct{}{} })
	}()
	defer func() { cancel(); <-done }()
	waitFor(t, "the first check", func() bool { return claude(r).State == client.IntegrationOK })
	for i := 1; i <= MaxRepairs; i++ {
		f.strip()
		start := time.Now()
		waitFor(t, "the hooks back", func() bool { return f.hooked() && claude(r).Repairs == i })
		t.Logf("repair %d within %v", i, time.Since(start).Round(time.Millisecond))
	}
	f.strip()
	waitFor(t, "giving up", func() bool { return claude(r).State == client.IntegrationNeedsManualFix })
	if f.hooked() {
		t.Error("the fourth breakage was repaired")
	}
	select {
	case <-changes:
	default:
		t.Error("Run never reported a change")
	}
}

// waitFor waits up to 2 s for cond.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("no %s within 2 s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
