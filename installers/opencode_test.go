package installers

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/internal/golden"
)

// TestOpencodePluginGolden: the plugin clawd writes for a binary, against
// testdata/opencode/clawd.js (rewritten with -update).
func TestOpencodePluginGolden(t *testing.T) {
	got, n := OpencodePlugin(goldenBinary)
	if n != len(agents.OpencodeV1Hooks()) {
		t.Errorf("OpencodePlugin hooks = %d, want %d", n, len(agents.OpencodeV1Hooks()))
	}
	golden.Check(t, filepath.Join("testdata", "opencode", "clawd.js"), got)
	for _, ph := range []string{"__CLAWD__", "__CLAWD_COMMAND__", "__STATE_TIMEOUT_MS__", "__PERMISSION_TIMEOUT_MS__"} {
		if strings.Contains(string(got), ph) {
			t.Errorf("the plugin still holds the placeholder %s", ph)
		}
	}
	if !strings.Contains(string(got), "const STATE_TIMEOUT_MS = 10000\n") || !strings.Contains(string(got), "const PERMISSION_TIMEOUT_MS = 3600000\n") {
		t.Errorf("the plugin's timeouts are not agents.Opencode's, in ms")
	}
}

// pluginConst returns the value of the JS string constant name of a
// rendered plugin.
func pluginConst(t *testing.T, data []byte, name string) string {
	t.Helper()
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "const "+name+" = "); ok {
			var s string
			if err := json.Unmarshal([]byte(v), &s); err != nil {
				t.Fatalf("const %s = %s: %v", name, v, err)
			}
			return s
		}
	}
	t.Fatalf("no const %s in the plugin", name)
	return ""
}

// TestOpencodePluginPaths: whatever the binary's path holds, it goes into
// the plugin as one JS string (node parses the file) that is the path,
// and the file stays clawd's.
func TestOpencodePluginPaths(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("node is needed to test the opencode plugin (see the README): %v", err)
	}
	dir := t.TempDir()
	for i, bin := range []string{
		goldenBinary,
		`C:\Program Files\clawd\clawd.exe`,
		"/opt/my tools/clawd",
		`/opt/"quoted"/$HOME/clawd`,
		"/opt/line\nbreak/clawd",
		"/opt/sep\u2028arator\u2029/clawd",
		"/opt/ünï/clawd",
	} {
		data, _ := OpencodePlugin(bin)
		if got := pluginConst(t, data, "CLAWD"); got != bin {
			t.Errorf("CLAWD for %q = %q", bin, got)
		}
		if got, want := pluginConst(t, data, "CLAWD_COMMAND"), Command(bin, agents.Opencode.ID); got != want {
			t.Errorf("CLAWD_COMMAND for %q = %q, want %q", bin, got, want)
		}
		if _, ok := opencodeOurs(data, NewKnown()); !ok {
			t.Errorf("the plugin for %q is not recognised as clawd's", bin)
		}
		f := filepath.Join(dir, "p"+string(rune('0'+i))+".mjs")
		if err := os.WriteFile(f, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command(node, "--check", f).CombinedOutput(); err != nil {
			t.Errorf("the plugin for %q is not valid JS: %v\n%s", bin, err, out)
		}
	}
}

func TestOpencodeOurs(t *testing.T) {
	ours, _ := OpencodePlugin("/opt/aw/aw")
	named, _ := OpencodePlugin("/usr/local/bin/clawd")
	withCommand := func(cmd string) []byte {
		b, _ := json.Marshal(cmd)
		return []byte(strings.Replace(string(named), `const CLAWD_COMMAND = "/usr/local/bin/clawd hook opencode"`, "const CLAWD_COMMAND = "+string(b), 1))
	}
	for _, c := range []struct {
		name  string
		data  []byte
		known Known
		want  bool
	}{
		{"named like clawd", named, NewKnown(), true},
		{"with Windows line ends", []byte(strings.ReplaceAll(string(named), "\n", "\r\n")), NewKnown(), true},
		{"another name, in the record", ours, NewKnown("/opt/aw/aw"), true},
		{"another name, unknown", ours, NewKnown(), false},
		{"no marker", []byte(strings.Replace(string(named), opencodeMarker, "// my plugin", 1)), NewKnown(), false},
		{"marker, no command", []byte(opencodeMarker + "\nexport const X = async () => ({})\n"), NewKnown(), false},
		{"marker, another program's command", withCommand("/usr/bin/notify hook opencode"), NewKnown(), false},
		{"marker, a command of another shape", withCommand("/usr/local/bin/clawd hook opencode; rm -rf ~"), NewKnown(), false},
		{"marker, another agent's command", withCommand("/usr/local/bin/clawd hook claude"), NewKnown(), false},
		{"marker, command not a string", []byte(strings.Replace(string(named), `const CLAWD_COMMAND = "/usr/local/bin/clawd hook opencode"`, "const CLAWD_COMMAND = 42", 1)), NewKnown(), false},
		{"someone else's plugin", []byte("export const Mine = async () => ({})\n"), NewKnown(), false},
		{"empty", nil, NewKnown(), false},
	} {
		n, ok := opencodeOurs(c.data, c.known)
		if ok != c.want || (ok && n != len(agents.OpencodeV1Hooks())) {
			t.Errorf("opencodeOurs(%s) = %d, %v; want %v", c.name, n, ok, c.want)
		}
	}
}

// TestOpencodeInstall: install writes plugin/clawd.js in the config
// folder (created when missing), a second one does nothing, a moved
// binary's file is rewritten, uninstall deletes it; a file of someone
// else's at that place is never touched.
func TestOpencodeInstall(t *testing.T) {
	home := t.TempDir()
	inst, err := NewOpencode(envMap(map[string]string{"HOME": home}))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(home, ".config", "opencode", "plugin", "clawd.js")
	if inst.Path != path {
		t.Fatalf("plugin path = %q, want %q", inst.Path, path)
	}
	rep, err := inst.Install(goldenBinary, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r := rep.Files[0]; !r.Written || r.Existed || r.Added != len(agents.OpencodeV1Hooks()) || rep.Handlers != path {
		t.Errorf("Install = %+v, want a new file at %s", rep, path)
	}
	want, _ := OpencodePlugin(goldenBinary)
	if got := readFile(t, path); got != string(want) {
		t.Errorf("the plugin written differs from OpencodePlugin's")
	}
	if rep, err := inst.Install(goldenBinary, Options{}); err != nil || rep.Any() {
		t.Errorf("second Install = %+v, %v; want nothing to do", rep, err)
	}
	// A moved clawd (the old path is clawd-named) repairs the file.
	rep, err = inst.Install("/opt/clawd-2/clawd", Options{Known: NewKnown(goldenBinary)})
	if err != nil {
		t.Fatal(err)
	}
	if r := rep.Files[0]; r.Repaired != len(agents.OpencodeV1Hooks()) || !r.Written {
		t.Errorf("Install by a moved clawd = %+v, want the file rewritten", r)
	}
	if !strings.Contains(readFile(t, path), `const CLAWD = "/opt/clawd-2/clawd"`) {
		t.Errorf("the plugin does not run the moved clawd")
	}
	rep, err = inst.Uninstall(Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r := rep.Files[0]; !r.Deleted {
		t.Errorf("Uninstall = %+v, want the file deleted", r)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the plugin is still there after uninstall (%v)", err)
	}

	const theirs = "// my own plugin\nexport const Mine = async () => ({})\n"
	if err := os.WriteFile(path, []byte(theirs), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := inst.Install(goldenBinary, Options{}); !errors.Is(err, ErrNotOurs) {
		t.Errorf("Install over a foreign clawd.js = %v, want ErrNotOurs", err)
	}
	if _, err := inst.Uninstall(Options{}); !errors.Is(err, ErrNotOurs) {
		t.Errorf("Uninstall of a foreign clawd.js = %v, want ErrNotOurs", err)
	}
	if got := readFile(t, path); got != theirs {
		t.Errorf("the foreign file became %q", got)
	}
}

// TestOpencodePluginPath: the plugin goes where opencode looks for
// plugins: OPENCODE_CONFIG_DIR, else $XDG_CONFIG_HOME/opencode, else
// ~/.config/opencode.
func TestOpencodePluginPath(t *testing.T) {
	for _, c := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"HOME": "/h"}, "/h/.config/opencode/plugin/clawd.js"},
		{map[string]string{"HOME": "/h", "XDG_CONFIG_HOME": "/x"}, "/x/opencode/plugin/clawd.js"},
		{map[string]string{"HOME": "/h", "XDG_CONFIG_HOME": "/x", "OPENCODE_CONFIG_DIR": "/o"}, "/o/plugin/clawd.js"},
	} {
		got, err := OpencodePluginPath(envMap(c.env))
		if err != nil || filepath.ToSlash(got) != c.want {
			t.Errorf("OpencodePluginPath(%v) = %q, %v; want %q", c.env, got, err, c.want)
		}
	}
	if _, err := NewOpencode(envMap(nil)); err == nil {
		t.Errorf("NewOpencode with no HOME = nil error, want one")
	}
}
