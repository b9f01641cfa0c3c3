package installers

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestRecordRoundTrip(t *testing.T) {
	home := filepath.Join(t.TempDir(), ".clawd")
	r, err := ReadRecord(home)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := r.Known("claude").Ours("/opt/aw hook claude", "claude"); ok {
		t.Fatal("an empty record knows /opt/aw")
	}
	r.Installed("claude", "/opt/aw", "/h/.claude/settings.json")
	r.Installed("claude", "/opt/aw", "/h/.claude/settings.json") // once only
	r.Installed("claude", `C:\Tools\aw.exe`, "/other/settings.json")
	r.Installed("codex", "/opt/aw", "/h/.codex/hooks.json", "/h/.codex/config.toml")
	if err := r.Save(); err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "windows" {
		fi, err := os.Stat(filepath.Join(home, RecordFile))
		if err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("record file mode %v (%v), want 0600", fi.Mode(), err)
		}
	}

	r, err = ReadRecord(home)
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Agents["claude"]; len(got.Binaries) != 2 || got.Binaries[1] != "C:/Tools/aw.exe" || len(got.Files) != 2 {
		t.Errorf("claude's record = %+v, want two binaries (slashed) and two files", got)
	}
	for _, cmd := range []string{"/opt/aw hook claude", "C:/Tools/aw.exe hook claude Stop"} {
		if _, ok := r.Known("claude").Ours(cmd, "claude"); !ok {
			t.Errorf("the record does not own %q", cmd)
		}
	}

	// Uninstalling from one file keeps the agent for the other.
	r.Uninstalled("claude", "/h/.claude/settings.json")
	if _, ok := r.Known("claude").Ours("/opt/aw hook claude", "claude"); !ok {
		t.Error("claude forgotten while /other/settings.json still holds its entries")
	}
	r.Uninstalled("claude", "/other/settings.json")
	r.Uninstalled("codex", "/h/.codex/hooks.json", "/h/.codex/config.toml")
	if len(r.Agents) != 0 {
		t.Errorf("record after every uninstall = %+v, want no agent", r.Agents)
	}
	if err := r.Save(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(home, RecordFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("an empty record was left behind (%v)", err)
	}
}

func TestRecordRefusesWhatItCannotRead(t *testing.T) {
	for name, data := range map[string]string{
		"malformed": "{\"version\": 1, \"agents\": {",
		"future":    "{\"version\": 2, \"agents\": {}}",
	} {
		t.Run(name, func(t *testing.T) {
			home := t.TempDir()
			path := filepath.Join(home, RecordFile)
			if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := ReadRecord(home)
			if err == nil || !strings.Contains(err.Error(), path) {
				t.Errorf("ReadRecord(%s) = %v, want an error naming %s", name, err, path)
			}
			if got := readFile(t, path); got != data {
				t.Errorf("ReadRecord changed the file to %q", got)
			}
		})
	}
}

// TestUninstallKeepsStaleBackup: a backup taken over an older install
// holds clawd's entries itself; uninstall does not put those back, and
// keeps the backup.
func TestUninstallKeepsStaleBackup(t *testing.T) {
	c := newTestClaude(t)
	stale := "{\"hooks\": {\"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"/old/clawd hook claude\"}]}]}}\n"
	writeSettings(t, c, stale, 0o644)
	if _, err := c.install(goldenBinary, Options{}); err != nil {
		t.Fatal(err)
	}
	res, err := c.uninstall(Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Restored || res.BackupRemoved != "" {
		t.Errorf("Uninstall = %+v, want no restore of a backup holding clawd's entries", res)
	}
	if got := readFile(t, c.Path); strings.Contains(got, "hook claude") {
		t.Errorf("after uninstall the file still runs clawd:\n%s", got)
	}
	if got := readFile(t, c.Path+BackupSuffix); got != stale {
		t.Errorf("backup = %q, want it kept as it was", got)
	}
}

// TestApplyMadeDirs: an install that creates the folders of the agent's
// file notes them in the record; the uninstall that leaves the agent with
// nothing of clawd's removes those that are empty, and keeps one that
// holds something else.
func TestApplyMadeDirs(t *testing.T) {
	for _, keep := range []bool{false, true} {
		home := t.TempDir()
		getenv := func(k string) string {
			if k == "HOME" {
				return home
			}
			return ""
		}
		clawdHome := filepath.Join(home, ".clawd")
		copilotDir := filepath.Join(home, ".copilot")
		hooksDir := filepath.Join(copilotDir, "hooks")
		rec, err := ReadRecord(clawdHome)
		if err != nil {
			t.Fatal(err)
		}
		inst, err := NewCopilot(getenv)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := Apply(rec, "copilot", inst, goldenBinary, true, false)
		if err != nil {
			t.Fatal(err)
		}
		if got := rec.Agents["copilot"].Dirs; len(got) != 2 || got[0] != copilotDir || got[1] != hooksDir {
			t.Fatalf("record's dirs after install = %q, want [%s %s]", got, copilotDir, hooksDir)
		}
		if err := rec.Save(); err != nil {
			t.Fatal(err)
		}
		if rec, err = ReadRecord(clawdHome); err != nil {
			t.Fatal(err)
		}
		if keep {
			// The agent came meanwhile and keeps its own settings there.
			if err := os.WriteFile(filepath.Join(copilotDir, "config.json"), []byte("{}\n"), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		if rep, err = Apply(rec, "copilot", inst, goldenBinary, false, false); err != nil {
			t.Fatal(err)
		}
		_, hooksErr := os.Stat(hooksDir)
		_, dirErr := os.Stat(copilotDir)
		switch {
		case !keep && (!errors.Is(dirErr, os.ErrNotExist) || len(rep.RemovedDirs) != 2 || rep.RemovedDirs[0] != hooksDir):
			t.Errorf("uninstall removed %q (%s: %v), want %s and %s, the innermost first", rep.RemovedDirs, copilotDir, dirErr, hooksDir, copilotDir)
		case keep && (dirErr != nil || !errors.Is(hooksErr, os.ErrNotExist) || len(rep.RemovedDirs) != 1):
			t.Errorf("uninstall with the agent's own file removed %q (%s: %v), want %s alone", rep.RemovedDirs, copilotDir, dirErr, hooksDir)
		}
		if rec.Agents["copilot"] != nil {
			t.Errorf("record after uninstall = %+v, want no copilot", rec.Agents["copilot"])
		}
	}
}
