package release

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestWindowsAutostart runs the Windows clawd under Wine (see wine) and
// drives `clawd autostart` against Wine's registry: enable sets the HKCU
// Run value to start this clawd.exe's serve, reg.exe reads it back,
// status says it is enabled, and stale from another clawd.exe, disable
// deletes it.
func TestWindowsAutostart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	exe := filepath.Join(dir, "clawd.exe")
	build := exec.Command("go", "build", "-trimpath", "-o", exe, ".")
	build.Dir = root
	build.Env = append(os.Environ(), "GOOS=windows", "GOARCH=amd64", "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build clawd.exe: %v\n%s", err, out)
	}
	other := filepath.Join(dir, "other", "clawd.exe")
	if err := os.MkdirAll(filepath.Dir(other), 0o755); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(other, data, 0o755); err != nil {
		t.Fatal(err)
	}

	w := wine(t)
	// A clawd home in the prefix: nothing of this machine's own.
	w.env = append(w.env, `CLAWD_HOME=C:\clawd-home`, "LANG=C.UTF-8")
	// What clawd.exe prints, its stdout; Wine's own diagnostics go to
	// stderr (a helper process of the prefix crashing, seen once as
	// "wine: Unhandled page fault ... starting debugger"), which is
	// logged, not checked.
	clawd := func(bin string, args ...string) (string, int) {
		t.Helper()
		var out, stderr bytes.Buffer
		cmd := w.command(bin, args...)
		cmd.Stdout, cmd.Stderr = &out, &stderr
		err := cmd.Run()
		if stderr.Len() > 0 {
			t.Logf("%s %s: stderr:\n%s", filepath.Base(bin), strings.Join(args, " "), stderr.String())
		}
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatalf("clawd.exe %s: %v", strings.Join(args, " "), err)
		}
		return strings.ReplaceAll(out.String(), "\r\n", "\n"), code
	}
	const runValue = `HKCU\Software\Microsoft\Windows\CurrentVersion\Run\clawd`
	reg := func() (string, int) {
		return clawd("reg", "query", `HKCU\Software\Microsoft\Windows\CurrentVersion\Run`, "/v", "clawd")
	}

	if out, code := clawd(exe, "autostart", "status"); code != 0 || out != "autostart: nothing starts clawd at login\n" {
		t.Fatalf("clawd.exe autostart status before = %d:\n%s", code, out)
	}
	out, code := clawd(exe, "autostart", "enable")
	if code != 0 || !strings.HasPrefix(out, "autostart: "+runValue+" starts ") || !strings.Contains(out, "clawd.exe serve at login\n") {
		t.Fatalf("clawd.exe autostart enable = %d:\n%s", code, out)
	}
	// The path Windows sees this clawd.exe at, as the entry names it.
	winExe := strings.TrimSuffix(strings.TrimPrefix(strings.Split(out, "\n")[0], "autostart: "+runValue+" starts "), " serve at login")
	t.Logf("Windows runs this clawd.exe as %s", winExe)
	if out, code := reg(); code != 0 || !strings.Contains(out, `REG_SZ    "`+winExe+`" serve`) {
		t.Errorf("reg query of the Run value = %d:\n%s\nwant \"%s\" serve", code, out, winExe)
	}
	out, code = clawd(exe, "autostart", "status", "--json")
	var st struct {
		Enabled      bool
		Kind, Binary string
		Stale        string
	}
	if err := json.Unmarshal([]byte(out), &st); code != 0 || err != nil || !st.Enabled || st.Kind != "registry" || st.Binary != winExe || st.Stale != "" {
		t.Errorf("clawd.exe autostart status --json = %d, %v:\n%s", code, err, out)
	}
	// Another clawd.exe: the entry is not its own.
	if out, code := clawd(other, "autostart", "status"); code != 1 || !strings.Contains(out, "not this clawd") {
		t.Errorf("other clawd.exe autostart status = %d:\n%s\nwant 1 and stale", code, out)
	}
	if out, code := clawd(exe, "autostart", "disable"); code != 0 || !strings.HasPrefix(out, "autostart: removed "+runValue) {
		t.Errorf("clawd.exe autostart disable = %d:\n%s", code, out)
	}
	if out, code := reg(); code == 0 {
		t.Errorf("the Run value is still there after disable:\n%s", out)
	}
}
