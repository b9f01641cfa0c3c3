package installers

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"
)

// TestInstallRemovesStaleTemps: the temporary files a killed install or
// uninstall left beside the settings file and its backup, named as clawd
// names them, go with the next run; another program's look-alikes and a
// live writer's fresh one stay.
func TestInstallRemovesStaleTemps(t *testing.T) {
	for _, op := range []string{"install", "uninstall"} {
		t.Run(op, func(t *testing.T) {
			c := newTestClaude(t)
			writeSettings(t, c, `{"model": "opus"}`+"\n", 0o644)
			dir := filepath.Dir(c.Path)
			touch := func(name string) time.Time {
				t.Helper()
				p := filepath.Join(dir, name)
				if err := os.WriteFile(p, []byte(`{"half": `), 0o600); err != nil {
					t.Fatal(err)
				}
				fi, err := os.Stat(p)
				if err != nil {
					t.Fatal(err)
				}
				return fi.ModTime()
			}
			stale := []string{".settings.json.2581234567.tmp", ".settings.json.17.tmp", ".settings.json.clawd-backup.99.tmp"}
			others := []string{".settings.json.tmp", "settings.json.tmp", ".settings.json.12x.tmp", ".settings.local.json.5.tmp"}
			var last time.Time
			for _, n := range append(slices.Clone(stale), others...) {
				last = touch(n)
			}
			// The cutoff lies after those, before the live writer's.
			var cutoff time.Time
			for i := 0; !cutoff.After(last); i++ {
				cutoff = touch("tick" + strconv.Itoa(i))
				os.Remove(filepath.Join(dir, "tick"+strconv.Itoa(i)))
			}
			live := ".settings.json.3000000000.tmp"
			touch(live)
			old := staleBefore
			staleBefore = func() time.Time { return cutoff }
			t.Cleanup(func() { staleBefore = old })

			var err error
			if op == "install" {
				_, err = c.Install(goldenBinary, Options{})
			} else {
				_, err = c.Uninstall(Options{})
			}
			if err != nil {
				t.Fatal(err)
			}
			entries, err := os.ReadDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range entries {
				got = append(got, e.Name())
			}
			want := append([]string{"settings.json", live}, others...)
			if op == "install" {
				want = append(want, "settings.json"+BackupSuffix)
			}
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("after %s the folder holds %q, want %q", op, got, want)
			}
		})
	}
}
