package installers

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/internal/health"
)

// TestEveryInstallerInspects: doctor checks every agent's hooks through
// its installer, so every installer lists clawd's hooks, and after an
// install lists one command per event (or one for all of them) running
// the binary installed.
func TestEveryInstallerInspects(t *testing.T) {
	for _, a := range agents.All() {
		if a.Unsupported != "" {
			continue
		}
		t.Run(a.ID, func(t *testing.T) {
			home := t.TempDir()
			getenv := func(k string) string {
				if k == "HOME" {
					return home
				}
				return ""
			}
			inst, err := For(a, getenv)
			if err != nil {
				t.Fatal(err)
			}
			l, ok := inst.(Lister)
			if !ok {
				t.Fatalf("the installer of %s (%T) lists no hooks: doctor cannot check its commands", a.Name, inst)
			}
			if hs, err := l.Hooks(Options{}); err != nil || len(hs) != 0 {
				t.Errorf("Hooks() before install = %v, %v; want none", hs, err)
			}
			bin := filepath.Join(home, "bin", "clawd")
			if _, err := inst.Install(bin, Options{}); err != nil {
				t.Fatal(err)
			}
			hs, err := l.Hooks(Options{})
			if err != nil {
				t.Fatal(err)
			}
			// No agent's executable on PATH: no release known, so no event
			// only some releases know.
			if want := len(a.Required("")); len(hs) != want && !(len(hs) == 1 && hs[0].Event == "") {
				t.Errorf("Hooks() = %d hooks, want %d (or one for every event)", len(hs), want)
			}
			for _, h := range hs {
				// A command names its event, or it is the one command of
				// every event, or the agent says the event in the payload.
				if h.Binary != bin || h.File == "" || !strings.HasPrefix(h.Command, bin+" hook "+a.ID) ||
					h.Event != "" && h.Command != bin+" hook "+a.ID && h.Command != bin+" hook "+a.ID+" "+h.Event {
					t.Errorf("Hooks() has %+v, want a command of %s for its event in a file", h, bin)
				}
			}
		})
	}
}

func TestAgentChecks(t *testing.T) {
	tests := []struct {
		name  string
		agent *agents.Agent
		files map[string]string // relative to HOME
		id    string
		want  health.Status
		find  string
	}{
		{"claude hooks on", agents.Claude, map[string]string{".claude/settings.json": `{"model": "x"}`}, "claude.hooks.disabled", health.OK, "runs hooks"},
		{"claude disableAllHooks", agents.Claude, map[string]string{".claude/settings.json": `{"disableAllHooks": true}`}, "claude.hooks.disabled", health.Fail, `"disableAllHooks": true`},
		{"gemini clawd disabled", agents.Gemini, map[string]string{".gemini/settings.json": `{"hooksConfig": {"disabled": ["clawd"]}} // mine`}, "gemini.hooks.disabled", health.Fail, `lists "clawd" in hooksConfig.disabled`},
		{"gemini hooks off", agents.Gemini, map[string]string{".gemini/settings.json": `{"hooksConfig": {"enabled": false}}`}, "gemini.hooks.disabled", health.Fail, `"enabled": false`},
		{"gemini no folder trusted", agents.Gemini, map[string]string{".gemini/settings.json": `{}`}, "gemini.folder_trust", health.Warn, "no folder is trusted yet"},
		{"gemini folders trusted", agents.Gemini, map[string]string{".gemini/settings.json": `{}`, ".gemini/trustedFolders.json": `{"/src": "TRUST_FOLDER", "/tmp": "DO_NOT_TRUST"}`}, "gemini.folder_trust", health.OK, "the 1 folder(s) trusted"},
		{"gemini folder trust off", agents.Gemini, map[string]string{".gemini/settings.json": `{"security": {"folderTrust": {"enabled": false}}}`}, "gemini.folder_trust", health.OK, "folder trust is off"},
		{"qwen disableAllHooks", agents.Qwen, map[string]string{".qwen/settings.json": `{"disableAllHooks": true /* mine */}`}, "qwen.hooks.disabled", health.Fail, `"disableAllHooks": true`},
		{"copilot disableAllHooks", agents.Copilot, map[string]string{".copilot/config.json": "// the CLI's\n{\"disableAllHooks\": true}"}, "copilot.hooks.disabled", health.Fail, "config.json has"},
		{"copilot hooks on", agents.Copilot, map[string]string{".copilot/settings.json": `{"disableAllHooks": false}`}, "copilot.hooks.disabled", health.OK, "runs hooks"},
		{"zcode hooks off", agents.ZCode, map[string]string{".zcode/cli/config.json": `{"hooks": {"enabled": false, "events": {}}}`}, "zcode.hooks.disabled", health.Fail, `"enabled": false`},
		{"zcode hooks on", agents.ZCode, map[string]string{".zcode/cli/config.json": `{"hooks": {"enabled": true, "events": {}}}`}, "zcode.hooks.disabled", health.OK, "runs hooks"},
		{"codex hooks off", agents.Codex, map[string]string{".codex/config.toml": "[features]\nhooks = false\n"}, "codex.feature.disabled", health.Fail, "hooks = false"},
		{"codex legacy key", agents.Codex, map[string]string{".codex/config.toml": "[features]\ncodex_hooks = true\n"}, "codex.feature.disabled", health.Warn, "deprecated"},
		{"codex extra keys", agents.Codex, map[string]string{".codex/hooks.json": `{"hooks": {}, "version": 1}`}, "codex.hooks.layout", health.Fail, "Codex refuses the file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home := t.TempDir()
			for p, c := range tt.files {
				p = filepath.Join(home, p)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(c), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			inst, err := For(tt.agent, func(k string) string {
				if k == "HOME" {
					return home
				}
				return ""
			})
			if err != nil {
				t.Fatal(err)
			}
			checks := inst.(Checker).Checks(Options{})
			i := slices.IndexFunc(checks, func(c health.Check) bool { return c.ID == tt.id })
			if i < 0 {
				t.Fatalf("Checks() = %+v, want one with id %s", checks, tt.id)
			}
			c := checks[i]
			if c.Status != tt.want || !strings.Contains(c.Finding, tt.find) || c.Agent != tt.agent.ID || (c.Status != health.OK) != (c.Fix != "") {
				t.Errorf("%s = %+v, want status %s, a finding with %q, a fix exactly when not ok", tt.id, c, tt.want, tt.find)
			}
		})
	}
}
