package installers

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/clawdhq/clawd/agents"
)

func envMap(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestClaudeSettingsPath(t *testing.T) {
	tests := []struct {
		env     map[string]string
		want    string
		wantErr bool
	}{
		{map[string]string{"HOME": "/home/ann"}, filepath.Join("/home/ann", ".claude", "settings.json"), false},
		{map[string]string{"HOME": "/home/ann", "CLAUDE_CONFIG_DIR": "/etc/claude-ann"}, filepath.Join("/etc/claude-ann", "settings.json"), false},
		{map[string]string{"USERPROFILE": `C:\Users\ann`}, filepath.Join(`C:\Users\ann`, ".claude", "settings.json"), false},
		{map[string]string{}, "", true},
	}
	for _, tt := range tests {
		got, err := ClaudeSettingsPath(envMap(tt.env))
		if got != tt.want || (err != nil) != tt.wantErr {
			t.Errorf("ClaudeSettingsPath(%v) = %q, %v, want %q, error %v", tt.env, got, err, tt.want, tt.wantErr)
		}
	}
}

// newTestClaude returns an installer for a settings file in a fresh home,
// where Claude Code's pinned release is installed (every event of
// agents.Claude.Hooks is registered).
func newTestClaude(t *testing.T) *Claude {
	t.Helper()
	c, err := NewClaude(envMap(map[string]string{"HOME": t.TempDir()}))
	if err != nil {
		t.Fatal(err)
	}
	c.Version = agents.Claude.Pinned()
	return c
}

func writeSettings(t *testing.T, c *Claude, data string, perm os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(c.Path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(c.Path, []byte(data), perm); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(c.Path, perm); err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// leftovers lists files in dir other than the settings file and its backup:
// temporary files must never be left behind.
func leftovers(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if n := e.Name(); n != "settings.json" && n != "settings.json"+BackupSuffix {
			out = append(out, n)
		}
	}
	return out
}

func TestClaudeInstallCreates(t *testing.T) {
	c := newTestClaude(t)
	res, err := c.install(goldenBinary, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Existed || !res.Written || res.Added != len(agents.Claude.Hooks) || res.Backup != "" {
		t.Errorf("Install into a new home = %+v, want written, %d added, no backup", res, len(agents.Claude.Hooks))
	}
	if res.Diff != "" || !res.Changed {
		t.Errorf("Install computed a diff %q or did not say the file changed: the diff is a dry run's only", res.Diff)
	}
	want := readFile(t, "testdata/claude/missing/installed.json")
	if got := readFile(t, c.Path); got != want {
		t.Errorf("created settings differ from testdata/claude/missing/installed.json")
	}
	if runtime.GOOS != "windows" {
		fi, _ := os.Stat(c.Path)
		di, _ := os.Stat(filepath.Dir(c.Path))
		if fi.Mode().Perm() != 0o644 || di.Mode().Perm() != 0o755 {
			t.Errorf("created file mode %v, dir mode %v, want 0644 and 0755", fi.Mode().Perm(), di.Mode().Perm())
		}
	}
}

func TestClaudeSecondInstallWritesNothing(t *testing.T) {
	c := newTestClaude(t)
	if _, err := c.install(goldenBinary, Options{}); err != nil {
		t.Fatal(err)
	}
	old := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
	if err := os.Chtimes(c.Path, old, old); err != nil {
		t.Fatal(err)
	}
	res, err := c.install(goldenBinary, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Written || res.Any() || res.Diff != "" || res.Backup != "" {
		t.Errorf("second Install = %+v, want nothing done", res)
	}
	fi, err := os.Stat(c.Path)
	if err != nil {
		t.Fatal(err)
	}
	if !fi.ModTime().Equal(old) {
		t.Errorf("second Install touched the file: mtime %v, want %v", fi.ModTime(), old)
	}
	if _, err := os.Stat(c.Path + BackupSuffix); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("backup exists after installs into a new file: %v", err)
	}
}

func TestClaudeBackupKeepsPristineCopy(t *testing.T) {
	c := newTestClaude(t)
	const original = "{\n  \"model\": \"opus\"\n}\n"
	writeSettings(t, c, original, 0o600)

	res, err := c.install(goldenBinary, Options{})
	if err != nil {
		t.Fatal(err)
	}
	backup := c.Path + BackupSuffix
	if res.Backup != backup || readFile(t, backup) != original {
		t.Fatalf("Install backup = %q holding %q, want %s with the original", res.Backup, readFile(t, backup), backup)
	}
	if runtime.GOOS != "windows" {
		for _, p := range []string{c.Path, backup} {
			if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o600 {
				t.Errorf("%s mode = %v, want the original 0600 kept", p, fi.Mode().Perm())
			}
		}
	}

	// A later change (here a new binary path) must not replace the
	// pristine backup.
	res, err = c.install("/opt/clawd/clawd", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Repaired != len(agents.Claude.Hooks) || res.Backup != "" {
		t.Errorf("Install with a moved binary = %+v, want all repaired and no new backup", res)
	}
	if got := readFile(t, backup); got != original {
		t.Errorf("backup = %q, want the pristine original", got)
	}
	res, err = c.uninstall(Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Removed != len(agents.Claude.Hooks) || res.Backup != "" || !res.Restored || res.BackupRemoved != backup {
		t.Errorf("Uninstall = %+v, want all removed, no new backup, restored and the backup removed", res)
	}
	if got := readFile(t, c.Path); got != original {
		t.Errorf("after uninstall settings = %q, want the original %q", got, original)
	}
	if _, err := os.Lstat(backup); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("backup left behind after an exact restore (%v)", err)
	}
	if l := leftovers(t, filepath.Dir(c.Path)); len(l) > 0 {
		t.Errorf("files left behind: %v", l)
	}
}

func TestClaudeDryRun(t *testing.T) {
	c := newTestClaude(t)
	const original = "{\"model\":\"opus\"}"
	writeSettings(t, c, original, 0o644)

	res, err := c.install(goldenBinary, Options{DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Written || res.Backup != "" || res.Added != len(agents.Claude.Hooks) {
		t.Errorf("dry-run Install = %+v, want %d added, nothing written", res, len(agents.Claude.Hooks))
	}
	if got := readFile(t, c.Path); got != original {
		t.Errorf("dry run changed the file to %q", got)
	}
	if l := leftovers(t, filepath.Dir(c.Path)); len(l) > 0 {
		t.Errorf("dry run left files: %v", l)
	}
	if _, err := os.Stat(c.Path + BackupSuffix); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("dry run wrote a backup")
	}
	installed, _, _ := InstallClaude([]byte(original), goldenBinary, agents.Claude.Pinned(), Known{})
	if want := unifiedDiff(c.Path, c.Path, []byte(original), installed); res.Diff != want {
		t.Errorf("dry-run diff =\n%s\nwant\n%s", res.Diff, want)
	}

	// A dry run into a missing home creates nothing either.
	c = newTestClaude(t)
	if res, err = c.install(goldenBinary, Options{DryRun: true}); err != nil || res.Written {
		t.Fatalf("dry-run Install into a new home = %+v, %v", res, err)
	}
	if _, err := os.Stat(filepath.Dir(c.Path)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("dry run created %s", filepath.Dir(c.Path))
	}
}

func TestClaudeRefusesUnparseable(t *testing.T) {
	for _, name := range []string{"malformed", "hooks-not-object", "event-not-array", "group-hooks-not-array"} {
		t.Run(name, func(t *testing.T) {
			in := readFile(t, filepath.Join("testdata/claude", name, "in.json"))
			for _, op := range []string{"install", "uninstall"} {
				c := newTestClaude(t)
				writeSettings(t, c, in, 0o644)
				var err error
				if op == "install" {
					_, err = c.install(goldenBinary, Options{})
				} else {
					_, err = c.uninstall(Options{})
				}
				if err == nil {
					t.Fatalf("%s on %s succeeded", op, name)
				}
				if !errors.Is(err, ErrUnparseable) && !errors.Is(err, ErrUnexpectedShape) {
					t.Errorf("%s error %v is neither ErrUnparseable nor ErrUnexpectedShape", op, err)
				}
				if !strings.Contains(err.Error(), c.Path) {
					t.Errorf("%s error %q does not name the file", op, err)
				}
				if got := readFile(t, c.Path); got != in {
					t.Errorf("%s changed the file", op)
				}
				if l := leftovers(t, filepath.Dir(c.Path)); len(l) > 0 {
					t.Errorf("%s left files: %v", op, l)
				}
				if _, err := os.Stat(c.Path + BackupSuffix); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("%s wrote a backup of a file it refused", op)
				}
			}
		})
	}
}

func TestClaudeMalformedMessage(t *testing.T) {
	c := newTestClaude(t)
	writeSettings(t, c, readFile(t, "testdata/claude/malformed/in.json"), 0o644)
	_, err := c.install(goldenBinary, Options{})
	if !errors.Is(err, ErrUnparseable) {
		t.Fatalf("Install(malformed) = %v, want ErrUnparseable", err)
	}
	want := c.Path + ": invalid JSON at line 5, column 17: trailing comma before ']'"
	if !strings.HasPrefix(err.Error(), want) {
		t.Errorf("Install(malformed) error = %q, want it to start %q", err, want)
	}
}

func TestClaudeConcurrentChange(t *testing.T) {
	c := newTestClaude(t)
	const original = "{\"model\":\"opus\"}\n"
	const theirs = "{\"model\":\"sonnet\"}\n"
	writeSettings(t, c, original, 0o644)
	// Another program (Claude Code's /model, say) writes the file after
	// clawd parsed it and before the rename.
	c.beforeCheck = func(string) {
		if err := os.WriteFile(c.Path, []byte(theirs), 0o644); err != nil {
			t.Error(err)
		}
	}
	_, err := c.install(goldenBinary, Options{})
	if !errors.Is(err, ErrConcurrentChange) {
		t.Fatalf("Install with a concurrent write = %v, want ErrConcurrentChange", err)
	}
	if got := readFile(t, c.Path); got != theirs {
		t.Errorf("settings = %q, want the other program's %q kept", got, theirs)
	}
	if l := leftovers(t, filepath.Dir(c.Path)); len(l) > 0 {
		t.Errorf("temp files left: %v", l)
	}

	// The same for a file that appears while clawd creates it.
	c = newTestClaude(t)
	c.beforeCheck = func(string) {
		if err := os.WriteFile(c.Path, []byte(theirs), 0o644); err != nil {
			t.Error(err)
		}
	}
	if _, err := c.install(goldenBinary, Options{}); !errors.Is(err, ErrConcurrentChange) {
		t.Fatalf("Install racing a new file = %v, want ErrConcurrentChange", err)
	}
	if got := readFile(t, c.Path); got != theirs {
		t.Errorf("settings = %q, want %q kept", got, theirs)
	}
}

func TestClaudeUninstallMissing(t *testing.T) {
	c := newTestClaude(t)
	res, err := c.uninstall(Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Existed || res.Written || res.Any() {
		t.Errorf("Uninstall without a file = %+v, want nothing done", res)
	}
	if _, err := os.Stat(filepath.Dir(c.Path)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Uninstall created %s", filepath.Dir(c.Path))
	}
}

func TestClaudeKeepsSymlink(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symlinks need privileges on Windows")
	}
	c := newTestClaude(t)
	dotfiles := filepath.Join(t.TempDir(), "settings.json")
	if err := os.WriteFile(dotfiles, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(c.Path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(dotfiles, c.Path); err != nil {
		t.Fatal(err)
	}
	if _, err := c.install(goldenBinary, Options{}); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Lstat(c.Path)
	if err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("settings.json is no longer a symlink: %v, %v", fi.Mode(), err)
	}
	if !strings.Contains(readFile(t, dotfiles), Command(goldenBinary, "claude")) {
		t.Errorf("the link's target was not updated")
	}
}

func TestClaudeRefusesGoRunBinary(t *testing.T) {
	if filepath.Separator != '/' {
		t.Skip("POSIX path")
	}
	c := newTestClaude(t)
	_, err := c.install("/tmp/go-build123/b001/exe/clawd", Options{})
	if !errors.Is(err, ErrTemporaryBinary) || !strings.Contains(err.Error(), "go install") {
		t.Errorf("Install(go run binary) = %v, want ErrTemporaryBinary saying to go install", err)
	}
	if _, err := os.Stat(c.Path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Install(go run binary) wrote %s", c.Path)
	}
}

func TestClaudeWindowsPathRoundTrip(t *testing.T) {
	// Installing with one binary then another repairs in place: the file
	// keeps one handler per event and its layout.
	in := []byte("{\n  \"model\": \"opus\"\n}\n")
	a, _, err := InstallClaude(in, "C:/Users/Ann Lee/AppData/Local/clawd/clawd.exe", agents.Claude.Pinned(), Known{})
	if err != nil {
		t.Fatal(err)
	}
	b, ch, err := InstallClaude(a, goldenBinary, agents.Claude.Pinned(), Known{})
	if err != nil {
		t.Fatal(err)
	}
	direct, _, _ := InstallClaude(in, goldenBinary, agents.Claude.Pinned(), Known{})
	if ch.Repaired != len(agents.Claude.Hooks) || !bytes.Equal(b, direct) {
		t.Errorf("moving the binary: %+v; result differs from a direct install:\n%s", ch, unifiedDiff("direct", "moved", direct, b))
	}
}
