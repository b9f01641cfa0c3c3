package installers

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clawdhq/clawd/agents"
)

// TestClaudeUninstallRestoresExactly: whatever the file held before the
// install, uninstall gives exactly that back when nothing else changed,
// "no file" included, and removes the backup that did its job.
func TestClaudeUninstallRestoresExactly(t *testing.T) {
	tests := []struct {
		name     string
		original *string // nil: no file
	}{
		{"missing", nil},
		{"zero bytes", ptr("")},
		{"blank lines", ptr("\n\n")},
		{"spaces", ptr("   ")},
		{"empty object", ptr("{}")},
		{"empty object with blanks", ptr("{ }")},
		{"empty object on lines", ptr("{\n\n}\n")},
		{"empty hooks", ptr("{\n  \"model\": \"opus\",\n  \"hooks\": {}\n}\n")},
		{"empty hooks with blanks", ptr("{\"hooks\": {  }, \"x\": 1}")},
		{"empty event", ptr("{\n  \"hooks\": {\n    \"Stop\": []\n  }\n}\n")},
		{"empty event and foreign", ptr("{\"hooks\": {\"Stop\": [ ], \"PreToolUse\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"guard.sh\"}]}]}}")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newTestClaude(t)
			if tt.original != nil {
				writeSettings(t, c, *tt.original, 0o600)
			}
			if _, err := c.install(goldenBinary, Options{}); err != nil {
				t.Fatal(err)
			}
			res, err := c.uninstall(Options{})
			if err != nil {
				t.Fatal(err)
			}
			if res.Removed != len(agents.Claude.Hooks) || !res.Restored {
				t.Errorf("Uninstall = %+v, want %d removed and restored", res, len(agents.Claude.Hooks))
			}
			got, err := os.ReadFile(c.Path)
			switch {
			case tt.original == nil:
				if !errors.Is(err, os.ErrNotExist) || !res.Deleted {
					t.Errorf("after install and uninstall the file holds %q (%v), deleted %v; want no file", got, err, res.Deleted)
				}
			case err != nil:
				t.Fatal(err)
			case string(got) != *tt.original:
				t.Errorf("after install and uninstall the file holds %q, want %q", got, *tt.original)
			}
			if _, err := os.Lstat(c.Path + BackupSuffix); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("backup left behind after an exact restore (%v)", err)
			}
			if tt.original != nil && res.BackupRemoved != c.Path+BackupSuffix {
				t.Errorf("Uninstall BackupRemoved = %q, want %s", res.BackupRemoved, c.Path+BackupSuffix)
			}
		})
	}
}

// TestClaudeUninstallKeepsLaterChanges: a person's change after the
// install survives the uninstall; then only clawd's entries go, and the
// backup stays, since the file is not what it was.
func TestClaudeUninstallKeepsLaterChanges(t *testing.T) {
	c := newTestClaude(t)
	const original = "{\n  \"hooks\": {}\n}\n"
	writeSettings(t, c, original, 0o644)
	if _, err := c.install(goldenBinary, Options{}); err != nil {
		t.Fatal(err)
	}
	installed := readFile(t, c.Path)
	changed := strings.Replace(installed, "{\n", "{\n  \"model\": \"sonnet\",\n", 1)
	writeSettings(t, c, changed, 0o644)

	res, err := c.uninstall(Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Restored || res.BackupRemoved != "" {
		t.Errorf("Uninstall = %+v, want neither restored nor the backup removed", res)
	}
	if got, want := readFile(t, c.Path), "{\n  \"model\": \"sonnet\"\n}\n"; got != want {
		t.Errorf("after uninstall the file holds %q, want %q (the person's model kept)", got, want)
	}
	if got := readFile(t, c.Path+BackupSuffix); got != original {
		t.Errorf("backup = %q, want the original %q", got, original)
	}
}

// TestClaudeCreatedFileWithLaterSettings: a file clawd created stays when
// the person added settings to it.
func TestClaudeCreatedFileWithLaterSettings(t *testing.T) {
	c := newTestClaude(t)
	if _, err := c.install(goldenBinary, Options{}); err != nil {
		t.Fatal(err)
	}
	writeSettings(t, c, strings.Replace(readFile(t, c.Path), "{\n", "{\n  \"model\": \"opus\",\n", 1), 0o644)
	res, err := c.uninstall(Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Deleted || res.Restored {
		t.Errorf("Uninstall = %+v, want the file kept", res)
	}
	if got, want := readFile(t, c.Path), "{\n  \"model\": \"opus\"\n}\n"; got != want {
		t.Errorf("after uninstall the file holds %q, want %q", got, want)
	}
}

// TestClaudeSymlinkToNewFile: a link a person made to a file that did not
// exist yet stays a link; uninstall empties the target instead of
// deleting anything.
func TestClaudeSymlinkToNewFile(t *testing.T) {
	c := newTestClaude(t)
	target := filepath.Join(t.TempDir(), "settings.json")
	if err := os.WriteFile(target, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(c.Path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, c.Path); err != nil {
		t.Fatal(err)
	}
	if _, err := c.install(goldenBinary, Options{}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.uninstall(Options{}); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(c.Path); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("settings.json after uninstall: %v, %v; want the symlink", fi, err)
	}
	if got := readFile(t, target); got != "" {
		t.Errorf("link target after uninstall = %q, want it empty as before", got)
	}
}

// TestCodexUninstallRestoresExactly: both Codex files come back exactly,
// including what the edits alone cannot give back.
func TestCodexUninstallRestoresExactly(t *testing.T) {
	tests := []struct {
		name          string
		hooks, config *string
	}{
		{"neither", nil, nil},
		{"blank config", nil, ptr("\n")},
		{"empty hooks object with blanks", ptr("{ }"), nil},
		{"empty hooks member", ptr("{\n  \"hooks\": {}\n}\n"), ptr("model = \"o3\"\n")},
		{"empty event", ptr("{\"hooks\": {\"Stop\": []}}"), ptr("# mine\n")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newTestCodex(t, "", "")
			if err := os.MkdirAll(c.Home, 0o755); err != nil {
				t.Fatal(err)
			}
			for path, data := range map[string]*string{c.HooksPath(): tt.hooks, c.ConfigPath(): tt.config} {
				if data != nil {
					if err := os.WriteFile(path, []byte(*data), 0o600); err != nil {
						t.Fatal(err)
					}
				}
			}
			if _, err := c.install(goldenBinary, Options{}); err != nil {
				t.Fatal(err)
			}
			if _, err := c.uninstall(Options{}); err != nil {
				t.Fatal(err)
			}
			for path, want := range map[string]*string{c.HooksPath(): tt.hooks, c.ConfigPath(): tt.config} {
				got, err := os.ReadFile(path)
				switch {
				case want == nil:
					if !errors.Is(err, os.ErrNotExist) {
						t.Errorf("%s after install and uninstall: %q, %v; want no file", filepath.Base(path), got, err)
					}
				case err != nil:
					t.Error(err)
				case string(got) != *want:
					t.Errorf("%s after install and uninstall = %q, want %q", filepath.Base(path), got, *want)
				}
			}
			if got := files(t, c.Home); len(got) != countSet(tt.hooks, tt.config) {
				t.Errorf("%s holds %v after uninstall, want only the original files", c.Home, got)
			}
		})
	}
}

// TestRenamedBinary: handlers written by a binary whose name is not
// clawd's are found through Known (the install record) after it was
// renamed: a new install repairs them in place rather than adding
// duplicates, and uninstall takes them all out.
func TestRenamedBinary(t *testing.T) {
	const first, renamed = "/opt/tools/agentwatch", "/opt/tools/aw"
	c := newTestClaude(t)
	const original = "{\"model\": \"opus\"}\n"
	writeSettings(t, c, original, 0o644)
	if _, err := c.install(first, Options{}); err != nil {
		t.Fatal(err)
	}
	// The running binary always knows its own entries.
	res, err := c.install(first, Options{})
	if err != nil || res.Any() {
		t.Fatalf("second Install by the same binary = %+v, %v; want nothing to do", res, err)
	}
	// Without the record, the renamed binary cannot tell them apart from
	// another tool's; with it, they are repaired in place.
	known := NewKnown(first)
	res, err = c.install(renamed, Options{Known: known})
	if err != nil {
		t.Fatal(err)
	}
	if res.Repaired != len(agents.Claude.Hooks) || res.Added != 0 {
		t.Errorf("Install by the renamed binary = %+v, want every handler repaired, none added", res)
	}
	if n := strings.Count(readFile(t, c.Path), " hook claude"); n != len(agents.Claude.Hooks) {
		t.Errorf("settings hold %d clawd commands, want %d", n, len(agents.Claude.Hooks))
	}
	res, err = c.uninstall(Options{Known: known.With(renamed)})
	if err != nil {
		t.Fatal(err)
	}
	if res.Removed != len(agents.Claude.Hooks) {
		t.Errorf("Uninstall = %+v, want %d removed", res, len(agents.Claude.Hooks))
	}
	if got := readFile(t, c.Path); got != original {
		t.Errorf("after uninstall the file holds %q, want %q", got, original)
	}
}

func ptr(s string) *string { return &s }

func countSet(ps ...*string) int {
	n := 0
	for _, p := range ps {
		if p != nil {
			n++
		}
	}
	return n
}
