package installers

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/internal/golden"
)

// qwenCases are the golden cases under testdata/qwen/<name>/: in.json
// (absent for "missing"), installed.json = install(in), uninstalled.json
// = uninstall(installed), or error.txt when install must refuse.
var qwenCases = []struct {
	name      string
	roundTrip bool
	wantErr   error
}{
	{name: "missing"},
	// The file as Qwen leaves it once it started: "$version" added.
	{name: "as-qwen-leaves-it", roundTrip: true},
	// Qwen reads its settings as JSON with comments.
	{name: "comments", roundTrip: true},
	{name: "foreign-hooks", roundTrip: true},
	// An old binary's entry with a millisecond timeout, a duplicate, an
	// event clawd no longer registers.
	{name: "stale"},
	{name: "malformed", wantErr: ErrUnparseable},
	{name: "hooks-not-object", wantErr: ErrUnexpectedShape},
}

func TestQwenGolden(t *testing.T) {
	for _, tc := range qwenCases {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join("testdata", "qwen", tc.name)
			in, err := os.ReadFile(filepath.Join(dir, "in.json"))
			if err != nil && !errors.Is(err, os.ErrNotExist) {
				t.Fatal(err)
			}
			if tc.wantErr != nil {
				_, _, err := InstallQwen(in, goldenBinary, Known{})
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("InstallQwen(%s) error = %v, want %v", tc.name, err, tc.wantErr)
				}
				if _, _, uerr := UninstallQwen(in, Known{}); !errors.Is(uerr, tc.wantErr) {
					t.Fatalf("UninstallQwen(%s) error = %v, want %v", tc.name, uerr, tc.wantErr)
				}
				golden.Check(t, filepath.Join(dir, "error.txt"), []byte(err.Error()+"\n"))
				return
			}
			installed, ch, err := InstallQwen(in, goldenBinary, Known{})
			if err != nil {
				t.Fatalf("InstallQwen: %v", err)
			}
			if !ch.Any() {
				t.Errorf("InstallQwen(%s) reported no changes", tc.name)
			}
			golden.Check(t, filepath.Join(dir, "installed.json"), installed)
			checkQwenInstalled(t, installed, goldenBinary)
			checkQwenForeign(t, in, installed)

			again, ch2, err := InstallQwen(installed, goldenBinary, Known{})
			if err != nil || ch2.Any() || !bytes.Equal(again, installed) {
				t.Errorf("second InstallQwen = %+v, %v; want no change", ch2, err)
			}
			uninstalled, uch, err := UninstallQwen(installed, Known{})
			if err != nil {
				t.Fatalf("UninstallQwen: %v", err)
			}
			if uch.Removed != len(agents.Qwen.Hooks) || uch.Added+uch.Repaired != 0 {
				t.Errorf("UninstallQwen changes = %+v, want %d removed", uch, len(agents.Qwen.Hooks))
			}
			golden.Check(t, filepath.Join(dir, "uninstalled.json"), uninstalled)
			if n := len(qwenHandlers(t, uninstalled, true)); n != 0 {
				t.Errorf("uninstalled file still has %d clawd handlers", n)
			}
			checkQwenForeign(t, in, uninstalled)
			if tc.roundTrip && !bytes.Equal(uninstalled, in) {
				t.Errorf("uninstall(install(in)) differs from in:\n%s", unifiedDiff("in.json", "uninstalled.json", in, uninstalled))
			}
		})
	}
}

// qwenHandlers reads a Qwen settings file (JSON with comments) with the
// installer's own parser and returns clawd's handlers (ours) or everyone
// else's.
func qwenHandlers(t *testing.T, data []byte, ours bool) []handler {
	t.Helper()
	root, err := parseJSONC(data)
	if err != nil {
		t.Fatalf("not JSON with comments: %v\n%s", err, data)
	}
	if root == nil {
		return nil
	}
	hooks, _, err := hooksObject(root)
	if err != nil || hooks == nil {
		return nil
	}
	var out []handler
	for _, m := range hooks.members {
		for _, g := range m.value.elems {
			hs, _ := g.get("hooks")
			if hs == nil {
				continue
			}
			for _, h := range hs.elems {
				var hd handler
				hd.Event = m.key
				if c, _ := h.get("command"); c != nil {
					hd.Command = c.str
				}
				if ty, _ := h.get("type"); ty != nil {
					hd.Type = ty.str
				}
				if to, _ := h.get("timeout"); to != nil {
					f, _ := strconv.ParseFloat(string(data[to.start:to.end]), 64)
					hd.Timeout = f
				}
				if _, mine := (Known{}).Ours(hd.Command, "qwen"); mine == ours {
					out = append(out, hd)
				}
			}
		}
	}
	return out
}

// checkQwenInstalled checks that exactly the registered events have one
// clawd handler each, naming its event, with its timeout in seconds.
func checkQwenInstalled(t *testing.T, data []byte, binary string) {
	t.Helper()
	seen := map[string]int{}
	for _, h := range qwenHandlers(t, data, true) {
		seen[h.Event]++
		s, ok := agents.Qwen.Hook(h.Event)
		if !ok {
			t.Errorf("clawd handler under unregistered event %s", h.Event)
			continue
		}
		want := Command(binary, "qwen") + " " + h.Event
		if h.Command != want || h.Type != "command" || h.Timeout != float64(s.Timeout) {
			t.Errorf("%s handler = %+v, want command %q timeout %d", h.Event, h, want, s.Timeout)
		}
		// Qwen reads a timeout of 1000 or more as milliseconds.
		if f, _ := h.Timeout.(float64); f >= 1000 {
			t.Errorf("%s handler timeout %v, which Qwen reads as milliseconds", h.Event, f)
		}
	}
	for _, s := range agents.Qwen.Hooks {
		if seen[s.Event] != 1 {
			t.Errorf("%d clawd handlers for %s, want 1", seen[s.Event], s.Event)
		}
	}
}

// checkQwenForeign checks that every handler that is not clawd's survives.
func checkQwenForeign(t *testing.T, before, after []byte) {
	t.Helper()
	b, a := qwenHandlers(t, before, false), qwenHandlers(t, after, false)
	if len(b) != len(a) {
		t.Errorf("foreign handlers changed:\nbefore %v\nafter  %v", b, a)
	}
}

// newTestQwen returns an installer for the settings file of a Qwen home
// that QWEN_HOME names.
func newTestQwen(t *testing.T) *Qwen {
	t.Helper()
	home := filepath.Join(t.TempDir(), "qwen-home")
	q, err := NewQwen(envMap(map[string]string{"HOME": t.TempDir(), "QWEN_HOME": home}))
	if err != nil {
		t.Fatal(err)
	}
	if q.Path != filepath.Join(home, "settings.json") {
		t.Fatalf("NewQwen with QWEN_HOME=%s: path %s", home, q.Path)
	}
	return q
}

func TestQwenSettingsPath(t *testing.T) {
	for _, tt := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"HOME": "/home/ann"}, filepath.Join("/home/ann", ".qwen", "settings.json")},
		{map[string]string{"HOME": "/home/ann", "QWEN_HOME": "/srv/qwen"}, filepath.Join("/srv/qwen", "settings.json")},
	} {
		if got, err := QwenSettingsPath(envMap(tt.env)); err != nil || got != tt.want {
			t.Errorf("QwenSettingsPath(%v) = %q, %v; want %q", tt.env, got, err, tt.want)
		}
	}
	if _, err := QwenSettingsPath(envMap(nil)); err == nil {
		t.Errorf("QwenSettingsPath(no HOME) succeeded")
	}
}

// TestQwenInstallUninstall runs the installer on files under QWEN_HOME:
// install backs the file up once, a second install writes nothing, and
// uninstall gives the file back byte for byte (comments included) and
// removes the backup.
func TestQwenInstallUninstall(t *testing.T) {
	q := newTestQwen(t)
	orig := readFile(t, "testdata/qwen/comments/in.json")
	if err := os.MkdirAll(filepath.Dir(q.Path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(q.Path, []byte(orig), 0o600); err != nil {
		t.Fatal(err)
	}
	rep, err := q.Install(goldenBinary, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r := rep.Files[0]; !r.Written || r.Added != len(agents.Qwen.Hooks) || r.Backup != q.Path+BackupSuffix {
		t.Errorf("Install = %+v, want written, %d added, a backup", r, len(agents.Qwen.Hooks))
	}
	if got, want := readFile(t, q.Path), readFile(t, "testdata/qwen/comments/installed.json"); got != want {
		t.Errorf("installed file differs from testdata/qwen/comments/installed.json:\n%s", unifiedDiff("want", "got", []byte(want), []byte(got)))
	}
	if fi, err := os.Stat(q.Path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("installed file mode = %v, %v; want the user's 0600 kept", fi.Mode(), err)
	}
	if rep, err := q.Install(goldenBinary, Options{}); err != nil || rep.Any() {
		t.Errorf("second Install = %+v, %v; want nothing to do", rep, err)
	}
	rep, err = q.Uninstall(Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r := rep.Files[0]; r.Removed != len(agents.Qwen.Hooks) {
		t.Errorf("Uninstall = %+v, want %d removed", r, len(agents.Qwen.Hooks))
	}
	if got := readFile(t, q.Path); got != orig {
		t.Errorf("after uninstall the file is\n%s\nwant the original\n%s", got, orig)
	}
	if _, err := os.Stat(q.Path + BackupSuffix); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("backup still there after an exact restore: %v", err)
	}
}

// TestQwenRewritesMeanwhile: Qwen rewrites its settings as it starts.
// When it does so between clawd's read and clawd's write, clawd writes
// nothing and says so; the next install works on Qwen's version.
func TestQwenRewritesMeanwhile(t *testing.T) {
	q := newTestQwen(t)
	const before = "{\n  \"model\": {\"name\": \"x\"}\n}\n"
	const qwens = "{\n  \"model\": {\"name\": \"x\"},\n  \"$version\": 4\n}\n"
	if err := os.MkdirAll(filepath.Dir(q.Path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(q.Path, []byte(before), 0o644); err != nil {
		t.Fatal(err)
	}
	q.beforeCheck = func(string) {
		if err := os.WriteFile(q.Path, []byte(qwens), 0o644); err != nil {
			t.Error(err)
		}
	}
	_, err := q.Install(goldenBinary, Options{})
	if !errors.Is(err, ErrConcurrentChange) || !strings.Contains(err.Error(), q.Path) {
		t.Fatalf("Install while Qwen rewrites its file = %v, want ErrConcurrentChange naming the file", err)
	}
	if got := readFile(t, q.Path); got != qwens {
		t.Errorf("settings = %q, want Qwen's %q kept", got, qwens)
	}
	q.beforeCheck = nil
	if _, err := q.Install(goldenBinary, Options{}); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, q.Path); !strings.Contains(got, `"$version": 4`) || !strings.Contains(got, " hook qwen PermissionRequest") {
		t.Errorf("second install did not keep Qwen's $version and add clawd's hooks:\n%s", got)
	}
}

// TestQwenRefusesMalformed: a settings file that does not parse is left
// as it is, with an error that names the file and the place.
func TestQwenRefusesMalformed(t *testing.T) {
	q := newTestQwen(t)
	in := readFile(t, "testdata/qwen/malformed/in.json")
	if err := os.MkdirAll(filepath.Dir(q.Path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(q.Path, []byte(in), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, op := range []string{"install", "uninstall"} {
		var err error
		if op == "install" {
			_, err = q.Install(goldenBinary, Options{})
		} else {
			_, err = q.Uninstall(Options{})
		}
		if !errors.Is(err, ErrUnparseable) || !strings.HasPrefix(err.Error(), q.Path+": invalid JSON at line 4") {
			t.Errorf("%s of a malformed file = %v, want ErrUnparseable naming %s and line 4", op, err, q.Path)
		}
		if got := readFile(t, q.Path); got != in {
			t.Errorf("%s changed the malformed file", op)
		}
		if _, err := os.Stat(q.Path + BackupSuffix); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s wrote a backup of a file it refused", op)
		}
	}
}
