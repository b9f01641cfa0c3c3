package installers

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOMPInstall: clawd's extension goes into the agent folder OMP's
// variables point at, runs this clawd for every event it sends, and goes
// away on uninstall.
func TestOMPInstall(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin", "clawd")
	getenv := func(k string) string {
		return map[string]string{"HOME": dir, "PI_CONFIG_DIR": ".omp-work"}[k]
	}
	inst, err := NewOMP(getenv)
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(dir, ".omp-work", "agent", "extensions", "clawd.ts")
	if inst.Path != want {
		t.Fatalf("extension at %s, want %s", inst.Path, want)
	}
	if _, err := inst.Install(bin, Options{}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(want)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{`const CLAWD = "` + bin + `"`, `spawn(CLAWD, ["hook", "omp", name]`, `ev?.willContinue === true`, `"session_switch"`} {
		if !strings.Contains(string(data), s) {
			t.Errorf("the extension lacks %q", s)
		}
	}
	if _, err := inst.Uninstall(Options{}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(want); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the extension is still there after uninstall: %v", err)
	}
}

// TestOMPBeside: with the community bridge in the extensions folder,
// install refuses and writes nothing.
func TestOMPBeside(t *testing.T) {
	dir := t.TempDir()
	getenv := func(k string) string { return map[string]string{"HOME": dir}[k] }
	inst, err := NewOMP(getenv)
	if err != nil {
		t.Fatal(err)
	}
	ext := filepath.Dir(inst.Path)
	if err := os.MkdirAll(ext, 0o700); err != nil {
		t.Fatal(err)
	}
	bridge := filepath.Join(ext, "clawd-on-desk-omp.ts")
	if err := os.WriteFile(bridge, []byte("export default function () {}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = inst.Install(filepath.Join(dir, "clawd"), Options{})
	if !errors.Is(err, ErrBeside) || !strings.Contains(err.Error(), bridge) {
		t.Errorf("Install beside the bridge = %v, want ErrBeside naming %s", err, bridge)
	}
	if _, err := os.Stat(inst.Path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("install beside the bridge wrote the extension (stat: %v)", err)
	}
}
