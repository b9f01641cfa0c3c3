package doctor

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clawdhq/clawd/internal/i18n"
)

// TestDisabledAgentCheck: an agent config.toml switches off gets a
// warning naming the file, first among its checks, by whatever alias the
// table uses; the others get none. A config.toml that does not parse is a
// failed check of its own, with the file's own words.
func TestDisabledAgentCheck(t *testing.T) {
	home := t.TempDir()
	o := Options{Home: home, Getenv: func(string) string { return "" }, NoConnection: true, Ports: []int{}}
	write := func(s string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	byID := func(r Report) (map[string]Check, []string) {
		m := map[string]Check{}
		var codex []string
		for _, c := range r.Checks {
			m[c.ID] = c
			if c.Agent == "codex" {
				codex = append(codex, c.ID)
			}
		}
		return m, codex
	}

	write("[agents.codex]\nenabled = false\n[agents.claude-code]\nenabled = true\n")
	r := Run(context.Background(), o, nil)
	wantKeys(t, r)
	checks, codex := byID(r)
	c, ok := checks["codex.enabled"]
	switch {
	case !ok:
		t.Fatalf("no codex.enabled check: %v", codex)
	case c.Status != Warn || c.Finding != "Codex is disabled in config.toml (enabled = false): clawd ignores its sessions and requests; its hooks stay as they are" ||
		!strings.Contains(c.Fix, "enabled = true under [agents.codex] in "+filepath.Join(home, "config.toml")):
		t.Errorf("codex.enabled = %+v, want a warning that says so and how to undo it", c)
	case codex[0] != "codex.enabled":
		t.Errorf("codex's checks %v, want codex.enabled first", codex)
	}
	if c, ok := checks["claude.enabled"]; ok {
		t.Errorf("claude.enabled = %+v, want none: claude is enabled", c)
	}
	var b strings.Builder
	r.WriteText(&b, false, i18n.For(i18n.Chinese), 0)
	if !strings.Contains(b.String(), "Codex 已在 config.toml 中停用") {
		t.Errorf("the Chinese report lacks the disabled agent:\n%s", b.String())
	}

	write("[agents.codex]\nenabled = \"no\"\n")
	r = Run(context.Background(), o, nil)
	wantKeys(t, r)
	checks, _ = byID(r)
	if c := checks["config"]; c.Status != Fail || !strings.Contains(c.Finding, "config.toml:2: agents.codex.enabled has the wrong type") {
		t.Errorf("config check of a bad config.toml = %+v, want a failure quoting its line", c)
	}
	if _, ok := checks["codex.enabled"]; ok {
		t.Error("codex.enabled with a config.toml that does not parse, want none")
	}
	b.Reset()
	r.WriteText(&b, false, i18n.Printer{}, 0)
	if !strings.Contains(b.String(), "settings (config.toml)\n  fail    config: ") {
		t.Errorf("the report lacks the config group:\n%s", b.String())
	}
}
