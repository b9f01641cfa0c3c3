package installers

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/internal/golden"
)

// newTestCopilot returns the installer of a Copilot home that
// COPILOT_HOME names (not yet created).
func newTestCopilot(t *testing.T) (*OwnFile, string) {
	t.Helper()
	home := filepath.Join(t.TempDir(), "copilot-home")
	f, err := NewCopilot(envMap(map[string]string{"HOME": t.TempDir(), "COPILOT_HOME": home}))
	if err != nil {
		t.Fatal(err)
	}
	if f.Path != filepath.Join(home, "hooks", "clawd.json") || f.Agent != "copilot" {
		t.Fatalf("NewCopilot with COPILOT_HOME=%s = %+v", home, f)
	}
	return f, home
}

func TestCopilotHooksPath(t *testing.T) {
	for _, tt := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"HOME": "/home/ann"}, filepath.Join("/home/ann", ".copilot", "hooks", "clawd.json")},
		{map[string]string{"HOME": "/home/ann", "COPILOT_HOME": "/srv/copilot"}, filepath.Join("/srv/copilot", "hooks", "clawd.json")},
	} {
		if got, err := CopilotHooksPath(envMap(tt.env)); err != nil || got != tt.want {
			t.Errorf("CopilotHooksPath(%v) = %q, %v; want %q", tt.env, got, err, tt.want)
		}
	}
}

// copilotFile is clawd's hook file as Copilot reads it.
type copilotFile struct {
	Version int `json:"version"`
	Hooks   map[string][]struct {
		Type       string `json:"type"`
		Bash       string `json:"bash"`
		TimeoutSec int    `json:"timeoutSec"`
	} `json:"hooks"`
}

// TestCopilotInstall: install creates the hook file in Copilot's native
// format (golden: testdata/copilot/installed.json, the format Copilot CLI
// 1.0.102 ran), a second install writes nothing, a moved binary repairs
// it, and uninstall deletes it and nothing else in the folder.
func TestCopilotInstall(t *testing.T) {
	f, home := newTestCopilot(t)
	// Another tool's hook file beside clawd's.
	theirs := filepath.Join(home, "hooks", "audit.json")
	const theirData = `{"version":1,"hooks":{"preToolUse":[{"type":"command","bash":"audit","timeoutSec":5}]}}`
	if err := os.MkdirAll(filepath.Dir(theirs), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(theirs, []byte(theirData), 0o644); err != nil {
		t.Fatal(err)
	}

	rep, err := f.Install(goldenBinary, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r := rep.Files[0]; !r.Written || r.Existed || r.Added != len(agents.Copilot.Hooks) || r.Backup != "" {
		t.Errorf("Install = %+v, want a new file with %d hooks, no backup", r, len(agents.Copilot.Hooks))
	}
	data := readFile(t, f.Path)
	golden.Check(t, "testdata/copilot/installed.json", []byte(data))
	var doc copilotFile
	if err := json.Unmarshal([]byte(data), &doc); err != nil {
		t.Fatalf("hook file is not JSON: %v\n%s", err, data)
	}
	if doc.Version != 1 || len(doc.Hooks) != len(agents.Copilot.Hooks) {
		t.Errorf("hook file has version %d and %d events, want 1 and %d", doc.Version, len(doc.Hooks), len(agents.Copilot.Hooks))
	}
	for _, h := range agents.Copilot.Hooks {
		hs := doc.Hooks[h.Event]
		if len(hs) != 1 || hs[0].Type != "command" || hs[0].Bash != goldenBinary+" hook copilot "+h.Event || hs[0].TimeoutSec != h.Timeout {
			t.Errorf("%s: handlers %+v, want one running %q with timeoutSec %d", h.Event, hs, goldenBinary+" hook copilot "+h.Event, h.Timeout)
		}
	}

	if rep, err := f.Install(goldenBinary, Options{}); err != nil || rep.Any() {
		t.Errorf("second Install = %+v, %v; want nothing to do", rep, err)
	}
	rep, err = f.Install("/opt/clawd/clawd", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r := rep.Files[0]; r.Repaired != len(agents.Copilot.Hooks) || r.Added+r.Removed != 0 {
		t.Errorf("Install by a moved binary = %+v, want every hook repaired", r)
	}
	if !strings.Contains(readFile(t, f.Path), `"bash": "/opt/clawd/clawd hook copilot permissionRequest"`) {
		t.Errorf("hook file not rewritten for the moved binary:\n%s", readFile(t, f.Path))
	}

	rep, err = f.Uninstall(Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r := rep.Files[0]; !r.Deleted || r.Removed != len(agents.Copilot.Hooks) {
		t.Errorf("Uninstall = %+v, want the file deleted", r)
	}
	if got := files(t, filepath.Dir(f.Path)); !slices.Equal(got, []string{"audit.json"}) {
		t.Errorf("after uninstall the hooks folder holds %v, want only the other tool's file", got)
	}
	if got := readFile(t, theirs); got != theirData {
		t.Errorf("the other tool's hook file became %q", got)
	}
	if rep, err := f.Uninstall(Options{}); err != nil || rep.Any() {
		t.Errorf("Uninstall of nothing = %+v, %v", rep, err)
	}
}

// TestCopilotNotOurs: a file at clawd's place that clawd did not write,
// or one a person added a handler of their own to, or one that does not
// parse, is never rewritten or deleted, and the error says why.
func TestCopilotNotOurs(t *testing.T) {
	installed := readFile(t, "testdata/copilot/installed.json")
	cases := map[string]string{
		"someone else's":   `{"version":1,"hooks":{"preToolUse":[{"type":"command","bash":"my-audit","timeoutSec":5}]}}`,
		"a handler added":  strings.Replace(installed, `"sessionStart": [`, `"sessionStart": [{"type":"command","bash":"notify-send hi"},`, 1),
		"a field added":    strings.Replace(installed, `"timeoutSec": 10`, `"timeoutSec": 10, "env": {"X": "1"}`, 1),
		"a key added":      strings.Replace(installed, `"version": 1,`, `"version": 1, "disableAllHooks": true,`, 1),
		"an event renamed": strings.Replace(installed, `"agentStop": [`, `"sessionEnd2": [`, 1),
		"malformed":        installed[:len(installed)/2],
		"no hooks":         `{"version":1,"hooks":{}}`,
		"empty":            "",
	}
	for name, data := range cases {
		t.Run(name, func(t *testing.T) {
			f, _ := newTestCopilot(t)
			if err := os.MkdirAll(filepath.Dir(f.Path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(f.Path, []byte(data), 0o644); err != nil {
				t.Fatal(err)
			}
			for _, op := range []string{"install", "uninstall"} {
				var err error
				if op == "install" {
					_, err = f.Install(goldenBinary, Options{})
				} else {
					_, err = f.Uninstall(Options{})
				}
				if !errors.Is(err, ErrNotOurs) || !strings.Contains(err.Error(), f.Path) || !strings.Contains(err.Error(), "move it away") {
					t.Errorf("%s = %v, want ErrNotOurs naming %s and what to do", op, err, f.Path)
				}
				if got := readFile(t, f.Path); got != data {
					t.Errorf("%s changed the file to %q", op, got)
				}
			}
		})
	}
}

// TestCopilotOursAnyBinary: the file is clawd's whatever clawd binary
// wrote it, as the install record and clawd's name tell.
func TestCopilotOursAnyBinary(t *testing.T) {
	data, n := renderCopilot("/home/ann/bin/pet")
	if n != len(agents.Copilot.Hooks) {
		t.Fatalf("renderCopilot registers %d hooks, want %d", n, len(agents.Copilot.Hooks))
	}
	if _, ok := copilotOurs(data, Known{}); ok {
		t.Errorf("a file for /home/ann/bin/pet is clawd's without a record of that binary")
	}
	if got, ok := copilotOurs(data, NewKnown("/home/ann/bin/pet")); !ok || got != n {
		t.Errorf("copilotOurs(recorded binary) = %d, %v; want %d, true", got, ok, n)
	}
	spaced, _ := renderCopilot(`/home/ann/my tools/clawd`)
	if got, ok := copilotOurs(spaced, Known{}); !ok || got != n ||
		!strings.Contains(string(spaced), `"bash": "\"/home/ann/my tools/clawd\" hook copilot sessionStart"`) {
		t.Errorf("a path with a space: copilotOurs = %d, %v; file:\n%s", got, ok, spaced)
	}
}
