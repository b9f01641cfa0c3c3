package installers

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/clawdhq/clawd/agents"
)

func TestCodexHome(t *testing.T) {
	real := t.TempDir()
	link := filepath.Join(t.TempDir(), "codex-link")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	realResolved, err := filepath.EvalSymlinks(real)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		env     map[string]string
		want    string
		wantErr string
	}{
		{env: map[string]string{"HOME": "/home/ann"}, want: filepath.Join("/home/ann", ".codex")},
		{env: map[string]string{"USERPROFILE": `C:\Users\ann`}, want: filepath.Join(`C:\Users\ann`, ".codex")},
		// Codex canonicalizes CODEX_HOME, so the trust keys must too.
		{env: map[string]string{"HOME": "/home/ann", "CODEX_HOME": link}, want: realResolved},
		{env: map[string]string{"CODEX_HOME": filepath.Join(real, "nope")}, wantErr: "does not exist"},
		{env: map[string]string{}, wantErr: "neither HOME nor CODEX_HOME"},
	}
	for _, tt := range tests {
		got, err := CodexHome(envMap(tt.env))
		if got != tt.want || (err == nil) != (tt.wantErr == "") || err != nil && !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("CodexHome(%v) = %q, %v, want %q, error %q", tt.env, got, err, tt.want, tt.wantErr)
		}
	}
}

// newTestCodex returns an installer for a fresh $CODEX_HOME holding the
// given files ("" content: absent).
func newTestCodex(t *testing.T, hooks, config string) *Codex {
	t.Helper()
	c := &Codex{Home: filepath.Join(t.TempDir(), ".codex")}
	for path, data := range map[string]string{c.HooksPath(): hooks, c.ConfigPath(): config} {
		if data == "" {
			continue
		}
		if err := os.MkdirAll(c.Home, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return c
}

// files lists the names in dir.
func files(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}

// TestCodexNoFiles installs where Codex has no files yet: both are
// created, without backups, and uninstall deletes them again.
func TestCodexNoFiles(t *testing.T) {
	c := newTestCodex(t, "", "")
	res, err := c.install(goldenBinary, Options{})
	if err != nil {
		t.Fatal(err)
	}
	n := len(agents.Codex.Hooks)
	if res.Hooks.Added != n || res.Trust.Added != n || !res.Hooks.Written || !res.Config.Written || res.Hooks.Existed || res.Config.Existed {
		t.Errorf("Install = %+v, want %d handlers and trust entries added to two new files", res, n)
	}
	if got, want := files(t, c.Home), []string{"config.toml", "hooks.json"}; !slices.Equal(got, want) {
		t.Errorf("after install %s holds %v, want %v", c.Home, got, want)
	}
	checkCodexInstalled(t, CodexFiles{
		HooksPath: c.HooksPath(), Hooks: []byte(readFile(t, c.HooksPath())),
		ConfigPath: c.ConfigPath(), Config: []byte(readFile(t, c.ConfigPath())),
	}, goldenBinary, false)

	res, err = c.uninstall(Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Hooks.Deleted || !res.Config.Deleted || res.Hooks.Removed != n || res.Trust.Removed != n {
		t.Errorf("Uninstall = %+v, want both files deleted, %d handlers and trust entries removed", res, n)
	}
	if got := files(t, c.Home); len(got) != 0 {
		t.Errorf("after uninstall %s holds %v, want nothing", c.Home, got)
	}
}

// TestCodexEmptyConfig: a config.toml that was there, even empty, is
// backed up and comes back, not deleted.
func TestCodexEmptyConfig(t *testing.T) {
	c := newTestCodex(t, "", "")
	if err := os.MkdirAll(c.Home, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(c.ConfigPath(), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	res, err := c.install(goldenBinary, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Config.Backup != c.ConfigPath()+BackupSuffix || res.Hooks.Backup != "" {
		t.Errorf("Install backups = %q, %q; want only %s", res.Config.Backup, res.Hooks.Backup, c.ConfigPath()+BackupSuffix)
	}
	if fi, err := os.Stat(c.ConfigPath()); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("config.toml mode after install = %v, %v; want 0600 kept", fi.Mode(), err)
	}
	res, err = c.uninstall(Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Config.Deleted || !res.Hooks.Deleted {
		t.Errorf("Uninstall deleted config %v, hooks %v; want only hooks.json deleted", res.Config.Deleted, res.Hooks.Deleted)
	}
	if got := readFile(t, c.ConfigPath()); got != "" {
		t.Errorf("config.toml after uninstall = %q, want empty", got)
	}
}

// TestCodexRoundTripFiles runs the golden round-trip cases through the
// files, with the real paths in the trust keys.
func TestCodexRoundTripFiles(t *testing.T) {
	for _, tc := range codexCases {
		if !tc.roundTrip {
			continue
		}
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join("testdata", "codex", tc.name)
			hooks := readOptional(t, filepath.Join(dir, "hooks.json"))
			config := readOptional(t, filepath.Join(dir, "config.toml"))
			c := newTestCodex(t, "", "")
			// The inputs' trust keys name /home/user/.codex.
			config = bytes.ReplaceAll(config, []byte(fixtureHome), []byte(filepath.ToSlash(c.Home)))
			for path, data := range map[string][]byte{c.HooksPath(): hooks, c.ConfigPath(): config} {
				if data == nil {
					continue
				}
				if err := os.MkdirAll(c.Home, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			binary := cmpOr(tc.binary, goldenBinary)
			if !filepath.IsAbs(binary) {
				binary = goldenBinary // a Windows path, on another system
			}
			if _, err := c.install(binary, Options{}); err != nil {
				t.Fatal(err)
			}
			res, err := c.install(binary, Options{})
			if err != nil || res.Any() || res.Hooks.Written || res.Config.Written {
				t.Errorf("second Install = %+v, %v; want nothing to do", res, err)
			}
			if _, err := c.uninstall(Options{}); err != nil {
				t.Fatal(err)
			}
			for path, want := range map[string][]byte{c.HooksPath(): hooks, c.ConfigPath(): config} {
				got, err := os.ReadFile(path)
				if want == nil {
					if !errors.Is(err, os.ErrNotExist) {
						t.Errorf("%s after install and uninstall: %q, %v; want no file", path, got, err)
					}
					continue
				}
				if !bytes.Equal(got, want) {
					t.Errorf("%s after install and uninstall:\n%s", path, unifiedDiff("before", "after", want, got))
				}
				// The restore is exact: the backup has done its job.
				if _, err := os.Lstat(path + BackupSuffix); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("backup of %s left behind after an exact restore (%v)", path, err)
				}
			}
		})
	}
}

func TestCodexDryRun(t *testing.T) {
	const config = "model = \"gpt-5.5\"\n"
	c := newTestCodex(t, "", config)
	res, err := c.install(goldenBinary, Options{DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Hooks.Written || res.Config.Written || !res.Any() {
		t.Errorf("dry-run Install = %+v, want changes and nothing written", res)
	}
	if !strings.HasPrefix(res.Hooks.Diff, "--- /dev/null\n+++ "+c.HooksPath()+"\n") {
		t.Errorf("hooks.json diff = %q, want a new file", res.Hooks.Diff)
	}
	if want := "--- " + c.ConfigPath() + "\n+++ " + c.ConfigPath() + "\n@@ -1 +1,37 @@\n model = \"gpt-5.5\"\n+\n+[hooks.state."; !strings.HasPrefix(res.Config.Diff, want) {
		t.Errorf("config.toml diff = %q, want it to start with %q", res.Config.Diff, want)
	}
	if got, want := files(t, c.Home), []string{"config.toml"}; !slices.Equal(got, want) {
		t.Errorf("after a dry run %s holds %v, want %v", c.Home, got, want)
	}
	if got := readFile(t, c.ConfigPath()); got != config {
		t.Errorf("config.toml after a dry run = %q", got)
	}
}

// TestCodexMalformedWritesNothing: either file unparseable, nothing is
// written to either, and no backup is made.
func TestCodexMalformedWritesNothing(t *testing.T) {
	tests := []struct {
		name, hooks, config string
		want                error
	}{
		{"hooks.json", `{"hooks": {"Stop": [}}`, "model = \"x\"\n", ErrUnparseable},
		{"config.toml", `{"hooks": {}}`, "model = \"x\"\nmodel = \"y\"\n", ErrUnparseableTOML},
		{"config.toml shape", `{"hooks": {}}`, "hooks = 1\n", ErrUnexpectedShape},
	}
	for _, tt := range tests {
		c := newTestCodex(t, tt.hooks, tt.config)
		for _, run := range []func() error{
			func() error { _, err := c.install(goldenBinary, Options{}); return err },
			func() error { _, err := c.uninstall(Options{}); return err },
		} {
			err := run()
			if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), "neither file was changed") {
				t.Errorf("%s: error = %v, want %v and that neither file changed", tt.name, err, tt.want)
			}
		}
		if readFile(t, c.HooksPath()) != tt.hooks || readFile(t, c.ConfigPath()) != tt.config {
			t.Errorf("%s: a file changed", tt.name)
		}
		if got, want := files(t, c.Home), []string{"config.toml", "hooks.json"}; !slices.Equal(got, want) {
			t.Errorf("%s: %s holds %v, want %v", tt.name, c.Home, got, want)
		}
	}
}

// TestCodexRollback: when hooks.json changes under the installer after
// config.toml was written, config.toml is put back and the error says so.
func TestCodexRollback(t *testing.T) {
	const hooks = `{"hooks": {}}` + "\n"
	const config = "model = \"gpt-5.5\"\n"
	const theirs = `{"hooks": {}, "description": "theirs"}` + "\n"
	c := newTestCodex(t, hooks, config)
	c.beforeCheck = func(path string) {
		if path == c.HooksPath() {
			if err := os.WriteFile(path, []byte(theirs), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	_, err := c.install(goldenBinary, Options{})
	if !errors.Is(err, ErrConcurrentChange) || !strings.Contains(err.Error(), c.ConfigPath()+" had already been written and was put back as it was") {
		t.Fatalf("Install error = %v, want a concurrent change and config.toml put back", err)
	}
	if got := readFile(t, c.ConfigPath()); got != config {
		t.Errorf("config.toml = %q, want it put back to %q", got, config)
	}
	if got := readFile(t, c.HooksPath()); got != theirs {
		t.Errorf("hooks.json = %q, want the other program's %q", got, theirs)
	}
}

// TestCodexRollbackNewFile: a config.toml clawd created is removed again
// when hooks.json cannot be written.
func TestCodexRollbackNewFile(t *testing.T) {
	c := newTestCodex(t, `{}`, "")
	c.beforeCheck = func(path string) {
		if path == c.HooksPath() {
			os.WriteFile(path, []byte(`{"x": 1}`), 0o644)
		}
	}
	if _, err := c.install(goldenBinary, Options{}); !errors.Is(err, ErrConcurrentChange) {
		t.Fatalf("Install error = %v, want a concurrent change", err)
	}
	if _, err := os.Stat(c.ConfigPath()); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("config.toml left behind after the rollback: %v", err)
	}
}

// TestCodexSymlinkedHooks writes through a symlinked hooks.json (dotfile
// managers) and never deletes it.
func TestCodexSymlinkedHooks(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symlinks need privileges on Windows")
	}
	c := newTestCodex(t, "", "")
	if err := os.MkdirAll(c.Home, 0o755); err != nil {
		t.Fatal(err)
	}
	real := filepath.Join(t.TempDir(), "dotfiles-hooks.json")
	if err := os.WriteFile(real, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, c.HooksPath()); err != nil {
		t.Fatal(err)
	}
	if _, err := c.install(goldenBinary, Options{}); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(c.HooksPath()); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("hooks.json is no longer a symlink: %v, %v", fi, err)
	}
	if !strings.Contains(readFile(t, real), codexCommand(goldenBinary, "Stop")) {
		t.Errorf("the link's target did not get clawd's handlers")
	}
	if _, err := c.uninstall(Options{}); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, real); got != "{}\n" {
		t.Errorf("link target after uninstall = %q, want %q", got, "{}\n")
	}
}

// TestCodexOrphanTrust documents the one exception to uninstall restoring
// config.toml: a trust table at the key clawd's new handler takes, left
// from a handler that is no longer there, is taken over (its hash
// replaced) and leaves with clawd's handler.
func TestCodexOrphanTrust(t *testing.T) {
	orphan := "[hooks.state.\"/home/user/.codex/hooks.json:stop:0:0\"]\ntrusted_hash = \"sha256:0\"\n"
	in := CodexFiles{HooksPath: fixtureHooks, ConfigPath: fixtureConfig, Config: []byte(orphan)}
	e, err := InstallCodex(in, goldenBinary, Known{})
	if err != nil {
		t.Fatal(err)
	}
	if e.Trust.Updated != 1 || e.Trust.Added != len(agents.Codex.Hooks)-1 {
		t.Errorf("InstallCodex trust changes = %+v, want 1 updated, %d added", e.Trust, len(agents.Codex.Hooks)-1)
	}
	if bytes.Count(e.Config, []byte(`"/home/user/.codex/hooks.json:stop:0:0"`)) != 1 {
		t.Errorf("InstallCodex wrote the stop:0:0 table twice or not at all:\n%s", e.Config)
	}
	u, err := UninstallCodex(CodexFiles{HooksPath: fixtureHooks, Hooks: e.Hooks, ConfigPath: fixtureConfig, Config: e.Config}, Known{})
	if err != nil {
		t.Fatal(err)
	}
	if len(u.Config) != 0 {
		t.Errorf("UninstallCodex left %q, want the taken-over table gone too", u.Config)
	}
}
