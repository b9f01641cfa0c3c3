package installers

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/internal/golden"
)

// geminiCases are the golden cases under testdata/gemini/<name>/, laid
// out as claudeCases' are. Gemini's settings are JSON with comments.
var geminiCases = []struct {
	name   string
	binary string
	// roundTrip: uninstall(install(in)) must give in back byte for byte.
	roundTrip bool
	wantErr   error
}{
	{name: "missing"},
	{name: "empty-object", roundTrip: true},
	{name: "user-settings", roundTrip: true},
	{name: "comments", roundTrip: true},
	{name: "foreign-hooks", roundTrip: true},
	{name: "disabled", roundTrip: true},
	{name: "windows", binary: "C:/Users/Ann Lee/AppData/Local/clawd/clawd.exe", roundTrip: true},
	// Stale clawd handlers (another binary, no name, seconds, an event
	// clawd no longer registers, a duplicate) are repaired or removed.
	{name: "stale"},
	{name: "malformed", wantErr: ErrUnparseable},
	// Gemini strips comments and then JSON.parse's: a trailing comma
	// breaks the file for Gemini too, and clawd does not guess.
	{name: "trailing-comma", wantErr: ErrUnparseable},
	{name: "hooks-not-object", wantErr: ErrUnexpectedShape},
}

func TestGeminiGolden(t *testing.T) {
	for _, tc := range geminiCases {
		t.Run(tc.name, func(t *testing.T) {
			binary := tc.binary
			if binary == "" {
				binary = goldenBinary
			}
			dir := filepath.Join("testdata", "gemini", tc.name)
			in, err := os.ReadFile(filepath.Join(dir, "in.json"))
			if err != nil && !errors.Is(err, os.ErrNotExist) {
				t.Fatal(err)
			}
			if err != nil {
				in = nil
			}

			if tc.wantErr != nil {
				_, _, err := InstallGemini(in, binary, Known{})
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("InstallGemini(%s) error = %v, want %v", tc.name, err, tc.wantErr)
				}
				if _, _, uerr := UninstallGemini(in, Known{}); !errors.Is(uerr, tc.wantErr) {
					t.Fatalf("UninstallGemini(%s) error = %v, want %v", tc.name, uerr, tc.wantErr)
				}
				golden.Check(t, filepath.Join(dir, "error.txt"), []byte(err.Error()+"\n"))
				return
			}

			installed, ch, err := InstallGemini(in, binary, Known{})
			if err != nil {
				t.Fatalf("InstallGemini: %v", err)
			}
			if !ch.Any() {
				t.Errorf("InstallGemini(%s) reported no changes", tc.name)
			}
			golden.Check(t, filepath.Join(dir, "installed.json"), installed)
			checkGeminiInstalled(t, installed, binary)
			checkGeminiKept(t, in, installed)

			again, ch2, err := InstallGemini(installed, binary, Known{})
			if err != nil || ch2.Any() || !bytes.Equal(again, installed) {
				t.Errorf("second InstallGemini = %+v, %v, changed bytes %v; want no change", ch2, err, !bytes.Equal(again, installed))
			}

			uninstalled, uch, err := UninstallGemini(installed, Known{})
			if err != nil {
				t.Fatalf("UninstallGemini: %v", err)
			}
			if uch.Removed != len(agents.Gemini.Hooks) || uch.Added+uch.Repaired != 0 {
				t.Errorf("UninstallGemini changes = %+v, want %d removed", uch, len(agents.Gemini.Hooks))
			}
			golden.Check(t, filepath.Join(dir, "uninstalled.json"), uninstalled)
			if hs := geminiHandlers(t, uninstalled); slices.ContainsFunc(hs, isGeminiOurs) {
				t.Errorf("uninstalled file still has clawd handlers: %+v", hs)
			}
			checkGeminiKept(t, in, uninstalled)
			if tc.roundTrip && !bytes.Equal(uninstalled, in) {
				t.Errorf("uninstall(install(in)) differs from in:\n%s", unifiedDiff("in.json", "uninstalled.json", in, uninstalled))
			}
			again, ch2, err = UninstallGemini(uninstalled, Known{})
			if err != nil || ch2.Any() || !bytes.Equal(again, uninstalled) {
				t.Errorf("second UninstallGemini = %+v, %v; want no change", ch2, err)
			}
		})
	}
}

// geminiHandler is one handler of a Gemini settings file, its values as
// written.
type geminiHandler struct {
	Event, Name, Type, Command, Timeout string
	// Group is the handler's group's members other than "hooks"
	// (matcher, sequential), as written.
	Group string
}

func isGeminiOurs(h geminiHandler) bool {
	_, ok := (Known{}).Ours(h.Command, "gemini")
	return ok
}

// geminiHandlers lists every handler of a settings file, read the way
// Gemini reads it (comments allowed).
func geminiHandlers(t *testing.T, data []byte) []geminiHandler {
	t.Helper()
	root, err := parseJSONC(data)
	if err != nil {
		t.Fatalf("the file does not parse as JSON with comments: %v\n%s", err, data)
	}
	if root == nil {
		return nil
	}
	hooks, _, err := hooksObject(root)
	if err != nil {
		t.Fatal(err)
	}
	if hooks == nil {
		return nil
	}
	raw := func(n *node) string {
		if n == nil {
			return ""
		}
		if n.kind == kindString {
			return n.str
		}
		return string(data[n.start:n.end])
	}
	var out []geminiHandler
	for _, m := range hooks.members {
		for _, g := range m.value.elems {
			var group []string
			for _, gm := range g.members {
				if gm.key != "hooks" {
					group = append(group, gm.key+"="+raw(gm.value))
				}
			}
			hs, _ := g.get("hooks")
			for _, h := range hs.elems {
				get := func(k string) string { v, _ := h.get(k); return raw(v) }
				out = append(out, geminiHandler{Event: m.key, Name: get("name"), Type: get("type"),
					Command: get("command"), Timeout: get("timeout"), Group: strings.Join(group, " ")})
			}
		}
	}
	return out
}

// checkGeminiInstalled checks that exactly the registered events have one
// clawd handler each, as Gemini needs it: named clawd, the event on the
// command line, the timeout in milliseconds, and no matcher, so it fires
// for every tool and source.
func checkGeminiInstalled(t *testing.T, data []byte, binary string) {
	t.Helper()
	seen := map[string]int{}
	for _, h := range geminiHandlers(t, data) {
		if !isGeminiOurs(h) {
			continue
		}
		seen[h.Event]++
		s, ok := agents.Gemini.Hook(h.Event)
		if !ok {
			t.Errorf("clawd handler under unregistered event %s", h.Event)
			continue
		}
		want := geminiHandler{Event: h.Event, Name: "clawd", Type: "command",
			Command: Command(binary, "gemini") + " " + h.Event, Timeout: strconv.Itoa(s.Timeout * 1000)}
		if h.Group == "matcher=*" {
			want.Group = h.Group // a stale handler's group: "*" matches all
		}
		if h != want {
			t.Errorf("%s handler = %+v, want %+v", h.Event, h, want)
		}
	}
	for _, s := range agents.Gemini.Hooks {
		if seen[s.Event] != 1 {
			t.Errorf("%d clawd handlers for %s, want 1", seen[s.Event], s.Event)
		}
	}
}

// checkGeminiKept checks that every handler that is not clawd's, and
// every comment, survives.
func checkGeminiKept(t *testing.T, before, after []byte) {
	t.Helper()
	foreign := func(data []byte) []geminiHandler {
		var out []geminiHandler
		for _, h := range geminiHandlers(t, data) {
			if !isGeminiOurs(h) {
				out = append(out, h)
			}
		}
		return out
	}
	if b, a := foreign(before), foreign(after); !slices.Equal(b, a) {
		t.Errorf("foreign handlers changed:\nbefore %+v\nafter  %+v", b, a)
	}
	for _, c := range commentsOf(string(before)) {
		if !bytes.Contains(after, []byte(c)) {
			t.Errorf("lost the comment %q", c)
		}
	}
}

// TestGeminiFiles drives the installer through its files: the settings
// under $GEMINI_CLI_HOME/.gemini, a backup before the first change, and
// uninstall giving back the file with its comments byte for byte, or no
// file when there was none.
func TestGeminiFiles(t *testing.T) {
	home, cliHome := t.TempDir(), t.TempDir()
	env := envMap(map[string]string{"HOME": home, "GEMINI_CLI_HOME": cliHome})
	g, err := NewGemini(env)
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(cliHome, ".gemini", "settings.json")
	if g.Path != want {
		t.Fatalf("NewGemini with GEMINI_CLI_HOME: path %s, want %s", g.Path, want)
	}
	inst, err := For(agents.Gemini, env)
	if err != nil || inst.(*Gemini).Path != want {
		t.Fatalf("For(Gemini) = %+v, %v; want the installer of %s", inst, err, want)
	}

	// No file: install creates it, uninstall removes it.
	rep, err := g.Install(goldenBinary, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Agent != "gemini" || rep.Handlers != want || !rep.Files[0].Written || rep.Files[0].Existed {
		t.Errorf("Install report = %+v", rep)
	}
	if _, err := os.Stat(filepath.Join(home, ".gemini")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Install touched ~/.gemini although GEMINI_CLI_HOME is set (stat: %v)", err)
	}
	rep, err = g.Uninstall(Options{})
	if err != nil || !rep.Files[0].Deleted {
		t.Fatalf("Uninstall = %+v, %v; want the file clawd created deleted", rep, err)
	}
	if _, err := os.Stat(want); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("settings.json after uninstall: %v, want none", err)
	}

	// A file with comments: back byte for byte, backup gone.
	orig, err := os.ReadFile(filepath.Join("testdata", "gemini", "comments", "in.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(want, orig, 0o600); err != nil {
		t.Fatal(err)
	}
	rep, err = g.Install(goldenBinary, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(want + BackupSuffix); err != nil || !bytes.Equal(b, orig) || rep.Files[0].Backup == "" {
		t.Errorf("backup = %q, %v (report %+v), want the original", b, err, rep.Files[0])
	}
	if rep, err := g.Install(goldenBinary, Options{}); err != nil || rep.Any() {
		t.Errorf("second Install = %+v, %v; want nothing to do", rep, err)
	}
	rep, err = g.Uninstall(Options{})
	if err != nil || !rep.Files[0].Restored {
		t.Fatalf("Uninstall = %+v, %v; want the original restored", rep, err)
	}
	if b, _ := os.ReadFile(want); !bytes.Equal(b, orig) {
		t.Errorf("settings.json after install and uninstall differs:\n%s", unifiedDiff("orig", "after", orig, b))
	}
	if _, err := os.Stat(want + BackupSuffix); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("backup still there after a clean uninstall (stat: %v)", err)
	}
	if fi, err := os.Stat(want); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("settings.json mode after uninstall = %v (%v), want 0600 kept", fi.Mode().Perm(), err)
	}
}

// TestGeminiMalformedUntouched: a file clawd cannot read is left exactly
// as it is, with an error that names the file and the place.
func TestGeminiMalformedUntouched(t *testing.T) {
	cliHome := t.TempDir()
	g, err := NewGemini(envMap(map[string]string{"GEMINI_CLI_HOME": cliHome}))
	if err != nil {
		t.Fatal(err)
	}
	bad := []byte("{\n  // a comment\n  \"ui\": { \"theme\": \"GitHub\", },\n}\n")
	if err := os.MkdirAll(filepath.Dir(g.Path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(g.Path, bad, 0o600); err != nil {
		t.Fatal(err)
	}
	for op, f := range map[string]func() error{
		"Install":   func() error { _, err := g.Install(goldenBinary, Options{}); return err },
		"Uninstall": func() error { _, err := g.Uninstall(Options{}); return err },
	} {
		err := f()
		if !errors.Is(err, ErrUnparseable) || !strings.Contains(err.Error(), g.Path) ||
			!strings.Contains(err.Error(), "line 3") || !strings.Contains(err.Error(), "left untouched") {
			t.Errorf("%s(malformed) = %v, want ErrUnparseable naming %s, line 3, and that the file was left untouched", op, err, g.Path)
		}
		if b, _ := os.ReadFile(g.Path); !bytes.Equal(b, bad) {
			t.Errorf("%s changed the malformed file:\n%s", op, b)
		}
		if _, err := os.Stat(g.Path + BackupSuffix); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s left a backup of a file it did not change (stat: %v)", op, err)
		}
	}
}

// TestGeminiUninstallAfterEdits: the person changed the settings (a
// comment, a setting, hooksConfig.disabled) after the install: uninstall
// takes out clawd's handlers only and keeps all of that.
func TestGeminiUninstallAfterEdits(t *testing.T) {
	in, err := os.ReadFile(filepath.Join("testdata", "gemini", "comments", "in.json"))
	if err != nil {
		t.Fatal(err)
	}
	installed, _, err := InstallGemini(in, goldenBinary, Known{})
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(installed), `"enabled": true /* on by default anyway */`,
		`"enabled": true, /* on by default anyway */ "disabled": ["clawd"] // quiet for now`, 1)
	edited = strings.Replace(edited, `"BeforeAgent": [`, "// clawd's\n    \"BeforeAgent\": [", 1)
	if edited == string(installed) || !strings.Contains(edited, "// clawd's") {
		t.Fatalf("the edit did not apply:\n%s", edited)
	}
	out, ch, err := UninstallGemini([]byte(edited), Known{})
	if err != nil {
		t.Fatal(err)
	}
	if ch.Removed != len(agents.Gemini.Hooks) || slices.ContainsFunc(geminiHandlers(t, out), isGeminiOurs) {
		t.Errorf("uninstall after edits = %+v:\n%s", ch, out)
	}
	for _, s := range []string{`"disabled": ["clawd"] // quiet for now`, "// clawd's", "// more to come", "/* end of settings */"} {
		if !strings.Contains(string(out), s) {
			t.Errorf("uninstall after edits lost %q:\n%s", s, out)
		}
	}
	checkGeminiKept(t, []byte(edited), out)
}
