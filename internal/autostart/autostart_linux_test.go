package autostart

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// fakeSystemctl records the systemctl calls; manager says whether a user
// manager answers.
type fakeSystemctl struct {
	manager bool
	active  bool
	calls   []string
}

func (f *fakeSystemctl) run(ctx context.Context, name string, args ...string) ([]byte, error) {
	call := name + " " + strings.Join(args, " ")
	if name != "systemctl" || !f.manager {
		return nil, errors.New("Failed to connect to bus: No medium found")
	}
	switch strings.Join(args, " ") {
	case "--user show-environment":
		return []byte("HOME=/\n"), nil
	case "--user is-active clawd.service":
		if f.active {
			return []byte("active\n"), nil
		}
		return []byte("inactive\n"), errors.New("exit status 3")
	}
	f.calls = append(f.calls, call)
	return nil, nil
}

// clawdBinary is an executable standing in for clawd, in a folder with a
// blank in its name.
func clawdBinary(t *testing.T, dir string) string {
	t.Helper()
	bin := filepath.Join(dir, "my tools", "clawd")
	if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return bin
}

func options(t *testing.T, f *fakeSystemctl) Options {
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	return Options{
		Home:      home,
		Getenv:    func(string) string { return "" },
		Binary:    clawdBinary(t, dir),
		ClawdHome: filepath.Join(dir, "clawd home"),
		Run:       f.run,
	}
}

// TestSystemdUnit enables clawd where a user manager runs: the unit is
// written where systemd looks, systemd-analyze accepts it without a
// warning, and systemctl is asked to reload, enable and start it.
func TestSystemdUnit(t *testing.T) {
	f := &fakeSystemctl{manager: true}
	o := options(t, f)
	st, err := Enable(context.Background(), o, true)
	if err != nil {
		t.Fatal(err)
	}
	want := Status{Enabled: true, Kind: Systemd, Path: filepath.Join(o.Home, ".config/systemd/user/clawd.service"), Binary: o.Binary, Running: true}
	if st != want {
		t.Errorf("Enable = %+v, want %+v", st, want)
	}
	wantCalls := []string{"systemctl --user daemon-reload", "systemctl --user enable clawd.service", "systemctl --user restart clawd.service"}
	if !reflect.DeepEqual(f.calls, wantCalls) {
		t.Errorf("systemctl calls = %q, want %q", f.calls, wantCalls)
	}
	verifyUnit(t, st.Path)

	f.active = true
	if got, err := Check(context.Background(), o); err != nil || got != want {
		t.Errorf("Check = %+v, %v, want %+v", got, err, want)
	}

	f.calls = nil
	if _, err := Disable(context.Background(), o, true); err != nil {
		t.Fatal(err)
	}
	wantCalls = []string{"systemctl --user disable --now clawd.service", "systemctl --user daemon-reload"}
	if !reflect.DeepEqual(f.calls, wantCalls) {
		t.Errorf("systemctl calls of Disable = %q, want %q", f.calls, wantCalls)
	}
	if _, err := os.Stat(st.Path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the unit is still there after Disable: %v", err)
	}
	if got, err := Check(context.Background(), o); err != nil || got.Enabled {
		t.Errorf("Check after Disable = %+v, %v, want nothing enabled", got, err)
	}
}

// verifyUnit runs systemd-analyze verify on the unit as a user unit, in
// a runtime folder of its own: it must exit 0 and say nothing (an
// unknown key or a bad ExecStart is only a warning).
func verifyUnit(t *testing.T, path string) {
	t.Helper()
	sa, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Fatalf("systemd-analyze not found (scripts/install-tools.sh installs systemd): %v", err)
	}
	rt := t.TempDir()
	cmd := exec.Command(sa, "--user", "verify", path)
	cmd.Env = append(os.Environ(), "XDG_RUNTIME_DIR="+rt)
	out, err := cmd.CombinedOutput()
	if err != nil || len(bytes.TrimSpace(out)) > 0 {
		t.Errorf("systemd-analyze --user verify %s: %v\n%s", path, err, out)
	}
}

// TestSystemdAnalyzeFires proves verifyUnit's check catches a bad unit.
func TestSystemdAnalyzeFires(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "clawd.service")
	unit := bytes.Replace(SystemdUnit(clawdBinary(t, dir), nil), []byte("Restart=on-failure"), []byte("Restart=sometimes"), 1)
	if err := os.WriteFile(bad, unit, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("systemd-analyze", "--user", "verify", bad)
	cmd.Env = append(os.Environ(), "XDG_RUNTIME_DIR="+t.TempDir())
	out, _ := cmd.CombinedOutput()
	if !bytes.Contains(out, []byte("restart specifier")) {
		t.Errorf("systemd-analyze said %q of Restart=sometimes, want a complaint", out)
	}
}

// TestXDGEntry enables clawd where no user manager runs: the XDG
// autostart entry is written, desktop-file-validate accepts it, and no
// unit is left behind.
func TestXDGEntry(t *testing.T) {
	f := &fakeSystemctl{manager: false}
	o := options(t, f)
	st, err := Enable(context.Background(), o, true)
	if err != nil {
		t.Fatal(err)
	}
	want := Status{Enabled: true, Kind: XDG, Path: filepath.Join(o.Home, ".config/autostart/clawd.desktop"), Binary: o.Binary}
	if st != want {
		t.Errorf("Enable = %+v, want %+v", st, want)
	}
	dfv, err := exec.LookPath("desktop-file-validate")
	if err != nil {
		t.Fatalf("desktop-file-validate not found (scripts/install-tools.sh installs desktop-file-utils): %v", err)
	}
	if out, err := exec.Command(dfv, st.Path).CombinedOutput(); err != nil || len(bytes.TrimSpace(out)) > 0 {
		t.Errorf("desktop-file-validate %s: %v\n%s", st.Path, err, out)
	}
	if got, err := Check(context.Background(), o); err != nil || got != want {
		t.Errorf("Check = %+v, %v, want %+v", got, err, want)
	}
	if st, err := Disable(context.Background(), o, false); err != nil || st.Kind != XDG {
		t.Errorf("Disable = %+v, %v, want the XDG entry removed", st, err)
	}
	if _, err := os.Stat(want.Path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the entry is still there after Disable: %v", err)
	}
}

// TestDesktopValidateFires proves desktop-file-validate catches a bad
// entry.
func TestDesktopValidateFires(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "clawd.desktop")
	entry := bytes.Replace(DesktopEntry("/usr/bin/clawd", nil), []byte("Type=Application"), []byte("Type=Program"), 1)
	if err := os.WriteFile(bad, entry, 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("desktop-file-validate", bad).CombinedOutput(); err == nil {
		t.Errorf("desktop-file-validate accepted Type=Program: %s", out)
	}
}

// TestStale: the entry names a binary that moved, or another clawd.
func TestStale(t *testing.T) {
	f := &fakeSystemctl{manager: true}
	o := options(t, f)
	if _, err := Enable(context.Background(), o, false); err != nil {
		t.Fatal(err)
	}
	if st, _ := Check(context.Background(), o); st.Stale != "" {
		t.Errorf("Check right after Enable: stale %q, want fresh", st.Stale)
	}
	other := o
	other.Binary = clawdBinary(t, t.TempDir())
	if st, _ := Check(context.Background(), other); !strings.Contains(st.Stale, "not this clawd") {
		t.Errorf("Check from another clawd: stale %q, want it to say it starts another one", st.Stale)
	}
	moved := o.Binary + ".moved"
	if err := os.Rename(o.Binary, moved); err != nil {
		t.Fatal(err)
	}
	o.Binary = moved
	if st, _ := Check(context.Background(), o); !strings.Contains(st.Stale, "is gone") {
		t.Errorf("Check after the binary moved: stale %q, want it gone", st.Stale)
	}
	// Enabling again from where it is now repairs the entry.
	if _, err := Enable(context.Background(), o, false); err != nil {
		t.Fatal(err)
	}
	if st, _ := Check(context.Background(), o); st.Stale != "" || st.Binary != moved {
		t.Errorf("Check after enabling again = %+v, want it to start %s", st, moved)
	}
}

// TestEnableRefusesRelative: an entry must name clawd absolutely.
func TestEnableRefusesRelative(t *testing.T) {
	o := options(t, &fakeSystemctl{})
	o.Binary = "clawd"
	if _, err := Enable(context.Background(), o, false); !errors.Is(err, ErrNotAbsolute) {
		t.Errorf("Enable(relative binary) = %v, want ErrNotAbsolute", err)
	}
}

// plistRoundTrip has libplist (Debian's plistutil) read a property list
// and write it back as XML; "" when it cannot read it.
func plistRoundTrip(t *testing.T, plist []byte) string {
	t.Helper()
	pu, err := exec.LookPath("plistutil")
	if err != nil {
		t.Fatalf("plistutil not found (scripts/install-tools.sh installs libplist-utils): %v", err)
	}
	in := filepath.Join(t.TempDir(), "in.plist")
	if err := os.WriteFile(in, plist, 0o644); err != nil {
		t.Fatal(err)
	}
	// Through the binary form: XML to XML would copy the file as it is.
	// plistutil exits 0 on every error: its "ERROR" says it.
	bin := in + ".bin"
	out, err := exec.Command(pu, "-i", in, "-f", "bin", "-o", bin).CombinedOutput()
	if err != nil || bytes.Contains(out, []byte("ERROR")) {
		return ""
	}
	out, err = exec.Command(pu, "-i", bin, "-f", "xml").CombinedOutput()
	if err != nil || bytes.Contains(out, []byte("ERROR")) {
		return ""
	}
	return string(out)
}

// TestLaunchAgentPlist: another property list parser reads the
// LaunchAgent as written, key for key (launchd itself is macOS's only;
// its XML is what is checked here).
func TestLaunchAgentPlist(t *testing.T) {
	plist := LaunchAgent("/Applications/clawd tools/clawd", []string{"CLAWD_HOME=/Users/u/.clawd <work> & co"}, "/Users/u/.clawd/serve.log")
	// plistutil writes no comments.
	var want bytes.Buffer
	for _, line := range bytes.SplitAfter(plist, []byte("\n")) {
		if !bytes.HasPrefix(line, []byte("<!--")) {
			want.Write(line)
		}
	}
	if got := plistRoundTrip(t, plist); got != want.String() {
		t.Errorf("plistutil reads the LaunchAgent as\n%s\nwant\n%s", got, want.String())
	}
	// The check fires on a broken one.
	bad := bytes.Replace(plist, []byte("</array>"), nil, 1)
	if got := plistRoundTrip(t, bad); got == want.String() {
		t.Errorf("plistutil read a LaunchAgent without </array> as the good one")
	}
}
