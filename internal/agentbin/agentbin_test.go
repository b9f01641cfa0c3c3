package agentbin

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/clawdhq/clawd/agents"
)

// TestVersion reads a release from files: the npm package above the
// executable, else the name of the file it links to (Claude Code's native
// installer's versions/<release>) or of its folder (Homebrew's
// Caskroom/<cask>/<release>/).
func TestVersion(t *testing.T) {
	dir := t.TempDir()
	write := func(p, s string) string {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	link := func(target, p string) string {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	pkg := filepath.Join(dir, "npm", "node_modules", "@anthropic-ai", "claude-code")
	write(filepath.Join(pkg, "package.json"), `{"name": "@anthropic-ai/claude-code", "version": "2.1.332"}`)
	npm := link(filepath.Join(pkg, "bin", "claude.exe"), filepath.Join(dir, "npm", "node_modules", ".bin", "claude"))
	write(filepath.Join(pkg, "bin", "claude.exe"), "")
	// Another package's package.json says nothing of Claude Code.
	other := filepath.Join(dir, "other", "node_modules", "x")
	write(filepath.Join(other, "package.json"), `{"name": "x", "version": "9.9.9"}`)
	foreign := write(filepath.Join(other, "bin", "claude"), "")
	native := link(write(filepath.Join(dir, "share", "claude", "versions", "2.1.340"), ""), filepath.Join(dir, "local", "bin", "claude"))
	brew := link(write(filepath.Join(dir, "Caskroom", "claude-code", "2.1.341", "claude"), ""), filepath.Join(dir, "brew", "bin", "claude"))
	plain := write(filepath.Join(dir, "plain", "claude"), "")
	for cmd, want := range map[string]string{npm: "2.1.332", native: "2.1.340", brew: "2.1.341", foreign: "", plain: ""} {
		if got := Version(agents.Claude, cmd); got != want {
			t.Errorf("Version(%s) = %q, want %q", cmd, got, want)
		}
	}
	path := filepath.Dir(plain) + string(os.PathListSeparator) + filepath.Dir(native)
	if cmd, v := Installed(agents.Claude, func(k string) string { return map[string]string{"PATH": path}[k] }); cmd != plain || v != "" {
		t.Errorf("Installed(PATH=%s) = %s, %q; want the first claude on PATH, whose release nothing says", path, cmd, v)
	}
}
