package installers

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/internal/golden"
)

// beyondCases are the golden cases of the agents past the seed's, under
// testdata/<agent>/<case>/: in (the user's file, absent for "missing"),
// installed = install(in) with goldenBinary, and uninstall(installed)
// giving in back byte for byte (no file for "missing"); or error.txt when
// install must refuse the file and leave it as it is.
var beyondCases = []struct {
	agent *agents.Agent
	file  string // the settings file, relative to HOME
	name  string
	// stale: in holds clawd's entries already, so uninstall gives back
	// in without them (uninstalled), not in.
	stale   bool
	wantErr error
}{
	{agents.Droid, ".factory/hooks.json", "missing", false, nil},
	{agents.Droid, ".factory/hooks.json", "foreign-hooks", false, nil},
	{agents.Droid, ".factory/hooks.json", "stale", true, nil},
	{agents.Droid, ".factory/hooks.json", "not-object", false, ErrUnexpectedShape},
	{agents.Droid, ".factory/hooks.json", "event-not-array", false, ErrUnexpectedShape},
	{agents.Auggie, ".augment/settings.json", "missing", false, nil},
	{agents.Auggie, ".augment/settings.json", "foreign-hooks", false, nil},
	{agents.Crush, ".config/crush/crush.json", "missing", false, nil},
	{agents.Crush, ".config/crush/crush.json", "foreign-hooks", false, nil},
}

func TestBeyondGolden(t *testing.T) {
	for _, tc := range beyondCases {
		t.Run(tc.agent.ID+"/"+tc.name, func(t *testing.T) {
			dir := filepath.Join("testdata", tc.agent.ID, tc.name)
			ext := filepath.Ext(tc.file)
			in, err := os.ReadFile(filepath.Join(dir, "in"+ext))
			missing := errors.Is(err, os.ErrNotExist)
			if err != nil && !missing {
				t.Fatal(err)
			}
			home := t.TempDir()
			path := filepath.Join(home, tc.file)
			if !missing {
				if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, in, 0o600); err != nil {
					t.Fatal(err)
				}
			}
			inst, err := For(tc.agent, envMap(map[string]string{"HOME": home}))
			if err != nil {
				t.Fatal(err)
			}
			_, err = inst.Install(goldenBinary, Options{})
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("Install(%s) = %v, want %v", tc.name, err, tc.wantErr)
				}
				if now, _ := os.ReadFile(path); string(now) != string(in) {
					t.Errorf("Install(%s) refused yet changed the file:\n%s", tc.name, now)
				}
				msg := strings.ReplaceAll(err.Error(), home, "$HOME")
				golden.Check(t, filepath.Join(dir, "error.txt"), []byte(msg+"\n"))
				return
			}
			if err != nil {
				t.Fatalf("Install(%s): %v", tc.name, err)
			}
			installed, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			golden.Check(t, filepath.Join(dir, "installed"+ext), installed)
			if rep, err := inst.Install(goldenBinary, Options{}); err != nil || rep.Any() {
				t.Errorf("second Install = %+v, %v; want nothing to do", rep, err)
			}
			if _, err := inst.Uninstall(Options{}); err != nil {
				t.Fatalf("Uninstall: %v", err)
			}
			after, err := os.ReadFile(path)
			switch {
			case missing && !errors.Is(err, os.ErrNotExist):
				t.Errorf("after uninstall the file clawd created is there: %q (%v)", after, err)
			case tc.stale:
				golden.Check(t, filepath.Join(dir, "uninstalled"+ext), after)
			case !missing && string(after) != string(in):
				t.Errorf("after uninstall =\n%s\nwant the user's file back byte for byte\n%s", after, in)
			}
		})
	}
}

// TestClineFiles: clawd's hook files for Cline are bash scripts that run
// the hook for their event; a file of the person's at one of their places
// stops the install untouched, and one clawd wrote for another binary is
// rewritten for this one. Uninstall leaves the person's own hooks.
func TestClineFiles(t *testing.T) {
	home := t.TempDir()
	dir := filepath.Join(home, ".cline", "hooks")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	inst, err := NewCline(envMap(map[string]string{"HOME": home}))
	if err != nil {
		t.Fatal(err)
	}
	mine := filepath.Join(dir, "PreToolUse.bash")
	if err := os.WriteFile(mine, []byte("#!/bin/bash\necho mine\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := inst.Install(goldenBinary, Options{}); !errors.Is(err, ErrNotOurs) {
		t.Fatalf("Install beside the person's PreToolUse.bash = %v, want ErrNotOurs", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Fatalf("a refused install wrote files: %v", entries)
	}
	os.Rename(mine, filepath.Join(dir, "PreToolUse"))
	if _, err := inst.Install("/old/bin/clawd", Options{}); err != nil {
		t.Fatal(err)
	}
	rep, err := inst.Install(goldenBinary, Options{})
	if err != nil || len(rep.Files) != len(agents.Cline.Hooks) {
		t.Fatalf("Install for a moved clawd = %+v, %v", rep, err)
	}
	got, err := os.ReadFile(filepath.Join(dir, "TaskStart.bash"))
	if want := "#!/bin/bash\n" + clineMarker + "\nexec /usr/local/bin/clawd hook cline TaskStart\n"; err != nil || string(got) != want {
		t.Errorf("TaskStart.bash = %q (%v), want %q", got, err, want)
	}
	if _, err := inst.Uninstall(Options{}); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 || entries[0].Name() != "PreToolUse" {
		t.Errorf("after uninstall the folder holds %v, want the person's PreToolUse alone", entries)
	}
}

// TestKiloPlugin: clawd's Kilo plugin is its opencode plugin with Kilo's
// first line and hook command, nothing else changed; it renders this
// clawd's command for Kilo and is known as clawd's own, as opencode's is
// not taken for it.
func TestKiloPlugin(t *testing.T) {
	_, orest, _ := strings.Cut(opencodePluginJS, "\n")
	_, krest, _ := strings.Cut(kiloPluginJS(), "\n")
	if strings.Count(orest, `spawn(CLAWD, ["hook", "opencode", name]`) != 1 {
		t.Fatalf("the opencode plugin no longer spawns the hook in one place: the Kilo plugin would not run Kilo's hook")
	}
	if krest != strings.Replace(orest, `["hook", "opencode", name]`, `["hook", "kilo", name]`, 1) || !strings.Contains(kiloPluginJS(), "clawd install kilo") {
		t.Errorf("the Kilo plugin is not the opencode plugin with Kilo's hook and first line")
	}
	out, n := kiloScript().render(goldenBinary)
	if n != len(agents.Kilo.Hooks) || !strings.Contains(string(out), `const CLAWD_COMMAND = "/usr/local/bin/clawd hook kilo"`) {
		t.Errorf("rendered Kilo plugin (%d hooks):\n%.600s", n, out)
	}
	if _, ok := kiloScript().ours(out, Known{}); !ok {
		t.Errorf("the rendered Kilo plugin is not known as clawd's")
	}
	if op, _ := opencodeScript.render(goldenBinary); func() bool { _, ok := kiloScript().ours(op, Known{}); return ok }() {
		t.Errorf("clawd's opencode plugin is taken for its Kilo plugin")
	}
}
