package installers

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/internal/golden"
)

// codexCases are the golden cases under testdata/codex/<name>/: the input
// hooks.json and config.toml (each absent when the file is missing), and
// for each file installed-* = install(in) and uninstalled-* =
// uninstall(installed), absent when the file is; warnings.txt holds what
// install warns about, error.txt what it fails with. CODEX_HOME is
// /home/user/.codex.
var codexCases = []struct {
	name string
	// hooks and config name the input files when they are not
	// hooks.json and config.toml.
	hooks, config string
	binary        string
	// roundTrip: uninstall(install(in)) gives both files back byte for
	// byte (as files: one clawd created is deleted again).
	roundTrip bool
	// inline: clawd's handlers go inline into config.toml.
	inline  bool
	wantErr error
}{
	{name: "missing", roundTrip: true},
	{name: "empty-config", roundTrip: true},
	{name: "config-comments", roundTrip: true},
	{name: "foreign", roundTrip: true},
	{name: "shift"},
	{name: "stale"},
	{name: "fixture", config: "config.hooks-state.toml"},
	{name: "fixture", config: "config.inline-hooks.toml", hooks: "-", inline: true},
	{name: "inline-only", roundTrip: true, inline: true},
	{name: "inline-and-json", roundTrip: true},
	{name: "features-off", roundTrip: true},
	{name: "crlf", roundTrip: true},
	{name: "no-newline", roundTrip: true},
	{name: "windows", binary: "C:/Users/Ann Lee/AppData/Local/clawd/clawd.exe", roundTrip: true},
	{name: "malformed-hooks", wantErr: ErrUnparseable},
	{name: "malformed-config", wantErr: ErrUnparseableTOML},
	{name: "state-inline", wantErr: ErrUnexpectedShape},
}

// readOptional returns a file's bytes, or nil when it does not exist.
func readOptional(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// goldenOptional is golden for a file that may be absent (got nil).
func goldenOptional(t *testing.T, path string, got []byte) {
	t.Helper()
	if got != nil {
		golden.Check(t, path, got)
		return
	}
	if golden.Update() {
		os.Remove(path)
		return
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s exists, want no such file (go test -update removes it)", path)
	}
}

func TestCodexGolden(t *testing.T) {
	for _, tc := range codexCases {
		prefix := ""
		if tc.config != "" {
			prefix = strings.TrimSuffix(tc.config, ".toml") + "."
		}
		t.Run(tc.name+"/"+prefix, func(t *testing.T) {
			binary := cmpOr(tc.binary, goldenBinary)
			dir := filepath.Join("testdata", "codex", tc.name)
			in := CodexFiles{HooksPath: fixtureHooks, ConfigPath: fixtureConfig}
			if tc.hooks != "-" {
				in.Hooks = readOptional(t, filepath.Join(dir, cmpOr(tc.hooks, "hooks.json")))
			}
			in.Config = readOptional(t, filepath.Join(dir, cmpOr(tc.config, "config.toml")))
			out := func(name string) string { return filepath.Join(dir, prefix+name) }

			if tc.wantErr != nil {
				_, err := InstallCodex(in, binary, Known{})
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("InstallCodex(%s) error = %v, want %v", tc.name, err, tc.wantErr)
				}
				// Uninstall refuses the same file, unless it has nothing
				// to do in it.
				u, uerr := UninstallCodex(in, Known{})
				if !errors.Is(uerr, tc.wantErr) && (uerr != nil || u.Any()) {
					t.Fatalf("UninstallCodex(%s) = %+v, %v; want error %v or no change", tc.name, u, uerr, tc.wantErr)
				}
				golden.Check(t, out("error.txt"), []byte(err.Error()+"\n"))
				return
			}

			e, err := InstallCodex(in, binary, Known{})
			if err != nil {
				t.Fatalf("InstallCodex: %v", err)
			}
			if !e.Any() {
				t.Errorf("InstallCodex(%s) reported no changes", tc.name)
			}
			if e.Inline != tc.inline {
				t.Errorf("InstallCodex(%s).Inline = %v, want %v", tc.name, e.Inline, tc.inline)
			}
			installed := CodexFiles{HooksPath: in.HooksPath, Hooks: e.Hooks, ConfigPath: in.ConfigPath, Config: e.Config}
			goldenOptional(t, out("installed-hooks.json"), installed.Hooks)
			goldenOptional(t, out("installed-config.toml"), installed.Config)
			var warnings []byte
			if len(e.Warnings) > 0 {
				warnings = []byte(strings.Join(e.Warnings, "\n") + "\n")
			}
			goldenOptional(t, out("warnings.txt"), warnings)
			checkCodexInstalled(t, installed, binary, tc.inline)
			checkCodexSameConfig(t, in, installed)
			checkCodexForeign(t, in, installed)

			again, err := InstallCodex(installed, binary, Known{})
			if err != nil || again.Any() || !bytes.Equal(again.Hooks, installed.Hooks) || !bytes.Equal(again.Config, installed.Config) {
				t.Errorf("second InstallCodex = %+v, %v; want no change", again, err)
			}

			u, err := UninstallCodex(installed, Known{})
			if err != nil {
				t.Fatalf("UninstallCodex: %v", err)
			}
			if removed := u.HooksChanges.Removed + u.InlineChanges.Removed; removed != len(agents.Codex.Hooks) {
				t.Errorf("UninstallCodex removed %d handlers, want %d", removed, len(agents.Codex.Hooks))
			}
			uninstalled := CodexFiles{HooksPath: in.HooksPath, Hooks: u.Hooks, ConfigPath: in.ConfigPath, Config: u.Config}
			goldenOptional(t, out("uninstalled-hooks.json"), uninstalled.Hooks)
			goldenOptional(t, out("uninstalled-config.toml"), uninstalled.Config)
			checkCodexClean(t, in, uninstalled)
			checkCodexSameConfig(t, in, uninstalled)
			checkCodexForeign(t, in, uninstalled)
			if tc.roundTrip && in.Hooks != nil && !bytes.Equal(uninstalled.Hooks, in.Hooks) {
				t.Errorf("uninstall(install(hooks.json)) differs:\n%s", unifiedDiff("in", "uninstalled", in.Hooks, uninstalled.Hooks))
			}
			if tc.roundTrip && in.Config != nil && !bytes.Equal(uninstalled.Config, in.Config) {
				t.Errorf("uninstall(install(config.toml)) differs:\n%s", unifiedDiff("in", "uninstalled", in.Config, uninstalled.Config))
			}

			again, err = UninstallCodex(uninstalled, Known{})
			if err != nil || again.Any() {
				t.Errorf("second UninstallCodex = %+v, %v; want no change", again, err)
			}
		})
	}
}

func cmpOr(s, def string) string {
	if s != "" {
		return s
	}
	return def
}

// codexAll lists the handlers of both files, with the source path.
type sourced struct {
	codexHandler
	source string
}

func codexAll(t *testing.T, f CodexFiles) []sourced {
	t.Helper()
	var out []sourced
	js, err := jsonCodexHandlers(f.Hooks, Known{})
	if err != nil {
		t.Fatalf("hooks.json: %v", err)
	}
	for _, h := range js {
		out = append(out, sourced{h, f.HooksPath})
	}
	m, err := decodeTOML(f.Config)
	if err != nil {
		t.Fatalf("config.toml: %v", err)
	}
	is, err := inlineCodexHandlers(m, Known{})
	if err != nil {
		t.Fatalf("config.toml: %v", err)
	}
	for _, h := range is {
		out = append(out, sourced{h, f.ConfigPath})
	}
	return out
}

// checkCodexClean checks that after uninstall no clawd handler is left,
// and every trust table either trusts a foreign handler where it is now or
// was in the original file as it is.
func checkCodexClean(t *testing.T, orig, f CodexFiles) {
	t.Helper()
	origTrust := trustTables(t, orig.Config)
	foreignAt := map[string]bool{}
	for _, h := range codexAll(t, f) {
		if h.ours {
			t.Errorf("clawd handler left for %s in %s", h.Event, h.source)
			continue
		}
		foreignAt[CodexHookKey(h.source, h.Event, h.group, h.handler)] = true
	}
	for k, v := range trustTables(t, f.Config) {
		if !foreignAt[k] && origTrust[k] != v {
			t.Errorf("trust table %s = %q left behind", k, v)
		}
	}
}

// checkCodexInstalled checks that every registered event has exactly one
// clawd handler, as clawd writes it, in the expected file, trusted with
// the hash of what is written.
func checkCodexInstalled(t *testing.T, f CodexFiles, binary string, inline bool) {
	t.Helper()
	trust := trustTables(t, f.Config)
	seen := map[string]int{}
	for _, h := range codexAll(t, f) {
		if !h.ours {
			continue
		}
		seen[h.Event]++
		spec, ok := agents.Codex.Hook(h.Event)
		if !ok {
			t.Errorf("clawd handler under unregistered event %s", h.Event)
			continue
		}
		if want := codexCommand(binary, h.Event); h.Command != want || h.Timeout == nil || *h.Timeout != spec.Timeout || !h.hashable {
			t.Errorf("%s handler = %+v, want command %q timeout %d", h.Event, h, want, spec.Timeout)
		}
		if wantSource := map[bool]string{false: f.HooksPath, true: f.ConfigPath}[inline]; h.source != wantSource {
			t.Errorf("%s handler is in %s, want %s", h.Event, h.source, wantSource)
		}
		key := CodexHookKey(h.source, h.Event, h.group, h.handler)
		if got, want := trust[key], CodexTrustHash(h.CodexHook); got != want {
			t.Errorf("trust of %s = %q, want %q", key, got, want)
		}
	}
	for _, s := range agents.Codex.Hooks {
		if seen[s.Event] != 1 {
			t.Errorf("%d clawd handlers for %s, want 1", seen[s.Event], s.Event)
		}
	}
}

// checkCodexForeign checks that every foreign handler survives, and keeps
// the trust it had: the hash at its key after equals the hash at its key
// before.
func checkCodexForeign(t *testing.T, before, after CodexFiles) {
	t.Helper()
	foreign := func(f CodexFiles) []string {
		trust := trustTables(t, f.Config)
		var out []string
		for _, h := range codexAll(t, f) {
			if !h.ours {
				key := CodexHookKey(h.source, h.Event, h.group, h.handler)
				out = append(out, fmt.Sprintf("%s %s %q trust=%q", filepath.Base(h.source), h.Event, h.Command, trust[key]))
			}
		}
		slices.Sort(out)
		return out
	}
	if b, a := foreign(before), foreign(after); !reflect.DeepEqual(b, a) {
		t.Errorf("foreign handlers or their trust changed:\nbefore %q\nafter  %q", b, a)
	}
}

// checkCodexSameConfig checks that config.toml outside hooks is unchanged,
// as is hooks.json outside "hooks".
func checkCodexSameConfig(t *testing.T, before, after CodexFiles) {
	t.Helper()
	decode := func(data []byte) map[string]any {
		m, err := decodeTOML(data)
		if err != nil {
			t.Fatal(err)
		}
		delete(m, "hooks")
		return m
	}
	if b, a := decode(before.Config), decode(after.Config); !reflect.DeepEqual(b, a) {
		t.Errorf("config.toml outside hooks changed:\nbefore %v\nafter  %v", b, a)
	}
	checkSameSettings(t, before.Hooks, after.Hooks)
}

// TestCodexRefuses checks the layouts clawd will not edit: nothing is
// written, and the error says where.
func TestCodexRefuses(t *testing.T) {
	ours := `"/home/user/.codex/hooks.json:stop:0:0"`
	tests := []struct {
		name, hooks, config string
		want                error
		msg                 string
	}{
		{"hooks not an object", `{"hooks": []}`, "", ErrUnexpectedShape, `"hooks" must be an object, not an array`},
		{"event not an array", `{"hooks": {"Stop": {}}}`, "", ErrUnexpectedShape, "hooks.Stop must be an array, not an object"},
		{"group hooks not an array", `{"hooks": {"Stop": [{"hooks": 1}]}}`, "", ErrUnexpectedShape, "hooks.Stop[0].hooks must be an array, not a number"},
		{"top level not an object", `[]`, "", ErrUnexpectedShape, "the top level must be an object"},
		{"hooks not a table", "", "hooks = 1\n", ErrUnexpectedShape, "hooks must be a table"},
		{"state not a table", "", "[hooks]\nstate = 1\n", ErrUnexpectedShape, "hooks.state must be a table"},
		{"our trust entry as dotted keys", `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "/old/clawd hook codex Stop"}]}]}}`,
			"[hooks]\nstate." + ours + ".trusted_hash = \"sha256:0\"\n", ErrUnexpectedShape, "is not written as a [hooks.state." + ours + "] table"},
		{"inline hooks as an inline array", "", "[hooks]\nStop = [{ hooks = [{ type = \"command\", command = \"x\" }] }]\n", ErrUnexpectedShape, "hooks.Stop is not written as [[hooks.Stop]] and [[hooks.Stop.hooks]] tables"},
	}
	for _, tt := range tests {
		in := CodexFiles{HooksPath: fixtureHooks, ConfigPath: fixtureConfig}
		if tt.hooks != "" {
			in.Hooks = []byte(tt.hooks)
		}
		if tt.config != "" {
			in.Config = []byte(tt.config)
		}
		_, err := InstallCodex(in, goldenBinary, Known{})
		if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("%s: InstallCodex error = %v, want %v containing %q", tt.name, err, tt.want, tt.msg)
		}
	}
}
