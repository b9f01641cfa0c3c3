package automations

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/clawdhq/clawd/runtime/client"
)

// TestWireStates: the wire's run states are the engine's.
func TestWireStates(t *testing.T) {
	if !slices.Equal(client.RunStates, RunStates) {
		t.Errorf("client.RunStates = %v, want the engine's %v", client.RunStates, RunStates)
	}
}

// TestFileState: automations.toml read without a serve gives each
// definition with its hash, leaves and effective policy, its bindings'
// trust unknown (disabled ones disabled); a file with problems gives its
// error with the line; no file, nothing.
func TestFileState(t *testing.T) {
	home := t.TempDir()
	if st := FileState(home); st.Error != "" || len(st.Definitions) != 0 || !st.FromFile {
		t.Errorf("FileState(no file) = %+v, want nothing, from the file", st)
	}
	doc := soundDef("a") + "bindings = [ { scope = \"application\" }, { scope = \"agent\", id = \"claude\", enabled = false } ]\n" +
		"[[automation]]\nid = \"w\"\nevent = \"turn.failed\"\naction = { type = \"webhook\", url = \"https://example.com/x\" }\npolicy = { timeout = \"7s\" }\n"
	if err := os.WriteFile(filepath.Join(home, File), []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	st := FileState(home)
	if st.Error != "" || len(st.Definitions) != 2 {
		t.Fatalf("FileState = %+v", st)
	}
	a, w := st.Definitions[0], st.Definitions[1]
	defs, _ := Parse([]byte(doc), "x")
	if a.Hash != defs[0].Hash() || len(a.BindingStates) != 2 || a.BindingStates[0].State != client.BindingUnknown ||
		a.BindingStates[1].State != client.BindingDisabled {
		t.Errorf("a = %+v, want its hash and bindings unknown, disabled", a)
	}
	if w.EffectivePolicy.Timeout != "7s" || w.EffectivePolicy.MaxAttempts == 0 || len(w.Leaves) != 1 || !strings.Contains(w.Leaves[0], "https://example.com/x") {
		t.Errorf("w = %+v, want its policy with defaults and its leaves", w)
	}
	if err := os.WriteFile(filepath.Join(home, File), []byte(soundDef("a")+"bogus = 1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if st := FileState(home); !strings.Contains(st.Error, "automations.toml:5: unknown key") || len(st.Definitions) != 0 {
		t.Errorf("FileState(bad) = %+v, want the error with its line, no definition", st)
	}
}
