package installers

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/internal/golden"
)

const goldenBinary = "/usr/local/bin/clawd"

// claudeCases are the golden cases under testdata/claude/<name>/: in.json
// (absent for "missing"), installed.json = install(in), uninstalled.json =
// uninstall(installed), or error.txt when install must refuse.
var claudeCases = []struct {
	name   string
	binary string
	// roundTrip: uninstall(install(in)) must give in back byte for byte.
	roundTrip bool
	// wantErr is the sentinel install and uninstall must fail with.
	wantErr error
}{
	{name: "missing"},
	{name: "empty"},
	{name: "empty-object", roundTrip: true},
	{name: "no-hooks", roundTrip: true},
	{name: "foreign-hooks", roundTrip: true},
	{name: "shared-group"},
	{name: "stale"},
	{name: "fixture"},
	{name: "duplicates"},
	{name: "worktree"},
	{name: "windows", binary: "C:/Users/Ann Lee/AppData/Local/clawd/clawd.exe", roundTrip: true},
	{name: "compact", roundTrip: true},
	{name: "compact-spaced", roundTrip: true},
	{name: "tabs", roundTrip: true},
	{name: "four-spaces", roundTrip: true},
	{name: "bom", roundTrip: true},
	{name: "crlf", roundTrip: true},
	{name: "lookalikes", roundTrip: true},
	// The pure edit drops an empty "hooks" object once clawd's entries
	// were all it held; Claude.Uninstall puts it back from the backup
	// (TestClaudeUninstallRestoresExactly).
	{name: "hooks-empty"},
	{name: "malformed", wantErr: ErrUnparseable},
	{name: "hooks-not-object", wantErr: ErrUnexpectedShape},
	{name: "event-not-array", wantErr: ErrUnexpectedShape},
	{name: "group-hooks-not-array", wantErr: ErrUnexpectedShape},
}

func TestClaudeGolden(t *testing.T) {
	for _, tc := range claudeCases {
		t.Run(tc.name, func(t *testing.T) {
			binary := tc.binary
			if binary == "" {
				binary = goldenBinary
			}
			dir := filepath.Join("testdata", "claude", tc.name)
			in, err := os.ReadFile(filepath.Join(dir, "in.json"))
			if err != nil && !errors.Is(err, os.ErrNotExist) {
				t.Fatal(err)
			}
			if err != nil {
				in = nil
			}

			if tc.wantErr != nil {
				_, _, err := InstallClaude(in, binary, agents.Claude.Pinned(), Known{})
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("InstallClaude(%s) error = %v, want %v", tc.name, err, tc.wantErr)
				}
				_, _, uerr := UninstallClaude(in, Known{})
				if !errors.Is(uerr, tc.wantErr) {
					t.Fatalf("UninstallClaude(%s) error = %v, want %v", tc.name, uerr, tc.wantErr)
				}
				golden.Check(t, filepath.Join(dir, "error.txt"), []byte(err.Error()+"\n"))
				return
			}

			installed, ch, err := InstallClaude(in, binary, agents.Claude.Pinned(), Known{})
			if err != nil {
				t.Fatalf("InstallClaude: %v", err)
			}
			if !ch.Any() {
				t.Errorf("InstallClaude(%s) reported no changes", tc.name)
			}
			golden.Check(t, filepath.Join(dir, "installed.json"), installed)
			checkInstalled(t, installed, binary)
			checkSameSettings(t, in, installed)
			checkForeign(t, in, installed)

			again, ch2, err := InstallClaude(installed, binary, agents.Claude.Pinned(), Known{})
			if err != nil || ch2.Any() || !bytes.Equal(again, installed) {
				t.Errorf("second InstallClaude = %+v, %v, changed bytes %v; want no change", ch2, err, !bytes.Equal(again, installed))
			}

			uninstalled, uch, err := UninstallClaude(installed, Known{})
			if err != nil {
				t.Fatalf("UninstallClaude: %v", err)
			}
			if uch.Removed != len(agents.Claude.Hooks) || uch.Added+uch.Repaired != 0 {
				t.Errorf("UninstallClaude changes = %+v, want %d removed", uch, len(agents.Claude.Hooks))
			}
			golden.Check(t, filepath.Join(dir, "uninstalled.json"), uninstalled)
			if n := len(clawdHandlers(t, uninstalled)); n != 0 {
				t.Errorf("uninstalled file still has %d clawd handlers", n)
			}
			checkSameSettings(t, in, uninstalled)
			checkForeign(t, in, uninstalled)
			if tc.roundTrip && !bytes.Equal(uninstalled, in) {
				t.Errorf("uninstall(install(in)) differs from in:\n%s", unifiedDiff("in.json", "uninstalled.json", in, uninstalled))
			}

			again, ch2, err = UninstallClaude(uninstalled, Known{})
			if err != nil || ch2.Any() || !bytes.Equal(again, uninstalled) {
				t.Errorf("second UninstallClaude = %+v, %v; want no change", ch2, err)
			}
		})
	}
}

// handler is one decoded hook handler with where it sits.
type handler struct {
	Event   string
	Command string
	Type    string
	Timeout any
}

func decodeHandlers(t *testing.T, data []byte) []handler {
	t.Helper()
	data = bytes.TrimPrefix(data, []byte(utf8BOM))
	if len(bytes.TrimSpace(data)) == 0 {
		return nil
	}
	var doc struct {
		Hooks map[string][]struct {
			Hooks []map[string]any `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatalf("result is not valid JSON: %v\n%s", err, data)
	}
	var hs []handler
	for event, groups := range doc.Hooks {
		for _, g := range groups {
			for _, h := range g.Hooks {
				c, _ := h["command"].(string)
				ty, _ := h["type"].(string)
				hs = append(hs, handler{event, c, ty, h["timeout"]})
			}
		}
	}
	return hs
}

func clawdHandlers(t *testing.T, data []byte) []handler {
	var out []handler
	for _, h := range decodeHandlers(t, data) {
		if _, ok := (Known{}).Ours(h.Command, "claude"); ok {
			out = append(out, h)
		}
	}
	return out
}

// checkInstalled checks that exactly the registered events have exactly
// one clawd handler each, as clawd writes it.
func checkInstalled(t *testing.T, data []byte, binary string) {
	t.Helper()
	want := map[string]agents.HookSpec{}
	for _, s := range agents.Claude.Hooks {
		want[s.Event] = s
	}
	seen := map[string]int{}
	for _, h := range clawdHandlers(t, data) {
		seen[h.Event]++
		s, ok := want[h.Event]
		if !ok {
			t.Errorf("clawd handler under unregistered event %s", h.Event)
			continue
		}
		if h.Command != Command(binary, "claude") || h.Type != "command" || h.Timeout != float64(s.Timeout) {
			t.Errorf("%s handler = %+v, want command %q timeout %d", h.Event, h, Command(binary, "claude"), s.Timeout)
		}
	}
	for e := range want {
		if seen[e] != 1 {
			t.Errorf("%d clawd handlers for %s, want 1", seen[e], e)
		}
	}
}

// checkForeign checks that every handler that is not clawd's survives.
func checkForeign(t *testing.T, before, after []byte) {
	t.Helper()
	foreign := func(data []byte) []string {
		var out []string
		for _, h := range decodeHandlers(t, data) {
			if _, ok := (Known{}).Ours(h.Command, "claude"); !ok {
				b, _ := json.Marshal(h)
				out = append(out, string(b))
			}
		}
		slices.Sort(out)
		return out
	}
	if b, a := foreign(before), foreign(after); !reflect.DeepEqual(b, a) {
		t.Errorf("foreign handlers changed:\nbefore %v\nafter  %v", b, a)
	}
}

// checkSameSettings checks that everything outside "hooks" is unchanged.
func checkSameSettings(t *testing.T, before, after []byte) {
	t.Helper()
	decode := func(data []byte) map[string]any {
		m := map[string]any{}
		data = bytes.TrimPrefix(data, []byte(utf8BOM))
		if len(bytes.TrimSpace(data)) > 0 {
			if err := json.Unmarshal(data, &m); err != nil {
				t.Fatalf("not valid JSON: %v", err)
			}
		}
		delete(m, "hooks")
		return m
	}
	if b, a := decode(before), decode(after); !reflect.DeepEqual(b, a) {
		t.Errorf("settings outside hooks changed:\nbefore %v\nafter  %v", b, a)
	}
}

func TestClaudeParseErrorPosition(t *testing.T) {
	in, err := os.ReadFile("testdata/claude/malformed/in.json")
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = InstallClaude(in, goldenBinary, agents.Claude.Pinned(), Known{})
	var se *SyntaxError
	if !errors.As(err, &se) {
		t.Fatalf("InstallClaude(malformed) error = %v, want a *SyntaxError", err)
	}
	if se.Line != 5 || se.Col != 17 || !strings.Contains(se.Msg, "trailing comma") {
		t.Errorf("SyntaxError = %d:%d %q, want 5:17 trailing comma", se.Line, se.Col, se.Msg)
	}
}

// TestClaudeKeepsUserBytes makes sure a repair rewrites only the tokens
// that are wrong: the rest of a stale handler (key order, other fields)
// stays.
func TestClaudeRepairInPlace(t *testing.T) {
	in := []byte(`{"hooks":{"Stop":[{"hooks":[{"timeout":10,"command":"/old/clawd hook claude","async":true,"type":"command"}]}]}}`)
	out, _, err := InstallClaude(in, goldenBinary, agents.Claude.Pinned(), Known{})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"timeout":10,"command":"/usr/local/bin/clawd hook claude","async":true,"type":"command"}`
	if !bytes.Contains(out, []byte(want)) {
		t.Errorf("InstallClaude repaired Stop handler to\n%s\nwant it to contain %s", out, want)
	}
}
