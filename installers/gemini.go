package installers

import (
	"path/filepath"
	"time"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/internal/health"
	"github.com/clawdhq/clawd/internal/i18n"
)

// Gemini installs clawd's hooks into Gemini CLI's user settings file,
// ~/.gemini/settings.json: JSON with comments, which stay byte for byte.
// The file has Claude Code's hooks shape; clawd's handlers are named
// "clawd" (what Gemini shows while one runs, and what its
// hooksConfig.disabled takes), their command names the event, and their
// timeouts count milliseconds.
type Gemini struct {
	// Path is the settings file (see GeminiSettingsPath).
	Path string

	// beforeCheck runs just before the file is re-read ahead of the
	// rename; tests use it to change the file under the installer's feet.
	beforeCheck func(path string)
}

// NewGemini returns the installer for the settings file getenv points at.
func NewGemini(getenv func(string) string) (*Gemini, error) {
	p, err := GeminiSettingsPath(getenv)
	if err != nil {
		return nil, err
	}
	return &Gemini{Path: p}, nil
}

// GeminiSettingsPath returns Gemini CLI's user settings file:
// settings.json in its folder (agents.Gemini.ConfigDir).
func GeminiSettingsPath(getenv func(string) string) (string, error) {
	d, err := agents.Gemini.ConfigDir(getenv)
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "settings.json"), nil
}

// Install makes Gemini CLI run `<binary> hook gemini <Event>` on every
// event in agents.Gemini.Hooks, repairing stale clawd handlers and
// removing extra ones, and leaves every other byte of the file alone,
// comments included.
func (g *Gemini) Install(binary string, opts Options) (*Report, error) {
	if err := CheckBinary(binary); err != nil {
		return nil, err
	}
	return rewrite(agents.Gemini.ID, g.Path, opts, g.beforeCheck, func(data []byte) ([]byte, Changes, error) {
		return InstallGemini(data, binary, opts.Known)
	}, nil)
}

// Uninstall removes every clawd handler from Gemini CLI's settings. It
// leaves hooksConfig alone: a "clawd" the person put in its disabled list
// stays theirs.
func (g *Gemini) Uninstall(opts Options) (*Report, error) {
	return rewrite(agents.Gemini.ID, g.Path, opts, g.beforeCheck, func(data []byte) ([]byte, Changes, error) {
		return UninstallGemini(data, opts.Known)
	}, func(data []byte) ([]byte, Changes, error) {
		return InstallGemini(data, placeholderBinary, opts.Known)
	})
}

// InstallGemini returns the bytes of a Gemini CLI settings file (nil when
// there is none) with clawd's hooks installed for binary, and what
// changed; known says which other handlers are clawd's, to repair.
func InstallGemini(data []byte, binary string, known Known) ([]byte, Changes, error) {
	return editHooks(data, geminiHooks(binary, agents.Gemini.Hooks, known.With(binary)))
}

// UninstallGemini returns the bytes of a Gemini CLI settings file with
// every clawd handler (as known tells them) removed, and what changed.
func UninstallGemini(data []byte, known Known) ([]byte, Changes, error) {
	return editHooks(data, geminiHooks("", nil, known))
}

// geminiHandlerName is the name of clawd's handlers in Gemini's settings.
const geminiHandlerName = "clawd"

// geminiHooks says how clawd's handlers look in Gemini's settings: one
// for each of specs (nil: every clawd handler is removed).
func geminiHooks(binary string, specs []agents.HookSpec, known Known) hooksConfig {
	return hooksConfig{
		agentID:     agents.Gemini.ID,
		specs:       specs,
		command:     func(event string) string { return Command(binary, agents.Gemini.ID) + " " + event },
		known:       known,
		jsonc:       true,
		timeoutUnit: time.Millisecond,
		name:        geminiHandlerName,
	}
}

// Hooks lists clawd's handlers in Gemini CLI's settings.
func (g *Gemini) Hooks(opts Options) ([]Hook, error) {
	return listHooks(g.Path, geminiHooks("", nil, opts.Known))
}

// Checks says whether Gemini CLI runs clawd's handlers: not when
// hooksConfig turns hooks off or lists clawd as disabled, and not in a
// folder the person has not trusted (security.folderTrust, on unless set
// to false; the trusted folders are in trustedFolders.json beside the
// settings).
func (g *Gemini) Checks(opts Options) []health.Check {
	root, data, err := readSettings(agents.Gemini.ID, g.Path, true)
	if err != nil || root == nil || root.kind != kindObject {
		return nil // Install's dry run reports it
	}
	a := agents.Gemini
	var out []health.Check
	disabled := check(a, "hooks.disabled", health.OK, i18n.M("installers.gemini_hooks_on", a.Name), i18n.Msg{})
	if hc, _ := root.get("hooksConfig"); hc != nil && hc.kind == kindObject {
		if en, _ := hc.get("enabled"); en != nil && en.kind == kindBool && !isTrue(data, en) {
			disabled = check(a, "hooks.disabled", health.Fail,
				i18n.M("installers.gemini_hooks_off", g.Path, a.Name),
				i18n.M("installers.fix_gemini_hooks_off", g.Path))
		}
		if d, _ := hc.get("disabled"); d != nil && d.kind == kindArray {
			for _, e := range d.elems {
				if e.kind == kindString && e.str == geminiHandlerName {
					disabled = check(a, "hooks.disabled", health.Fail,
						i18n.M("installers.gemini_clawd_disabled", g.Path, a.Name),
						i18n.M("installers.fix_gemini_clawd_disabled", g.Path))
				}
			}
		}
	}
	out = append(out, disabled)

	trust := check(a, "folder_trust", health.OK, i18n.M("installers.gemini_trust_off", a.Name), i18n.Msg{})
	if !folderTrustOff(root, data) {
		folders := filepath.Join(filepath.Dir(g.Path), "trustedFolders.json")
		n, err := trustedFolders(folders)
		switch {
		case err != nil:
			trust = check(a, "folder_trust", health.Warn,
				i18n.M("installers.gemini_trust_unreadable", folders, err, a.Name),
				i18n.M("installers.fix_gemini_trust", a.Name))
		case n == 0:
			trust = check(a, "folder_trust", health.Warn,
				i18n.M("installers.gemini_trust_none", a.Name),
				i18n.M("installers.fix_gemini_trust", a.Name))
		default:
			trust = check(a, "folder_trust", health.OK, i18n.M("installers.gemini_trust_on", a.Name, n, folders), i18n.Msg{})
		}
	}
	return append(out, trust)
}

// folderTrustOff reports whether Gemini's settings turn folder trust off:
// "security": {"folderTrust": {"enabled": false}}.
func folderTrustOff(root *node, data []byte) bool {
	sec, _ := root.get("security")
	if sec == nil || sec.kind != kindObject {
		return false
	}
	ft, _ := sec.get("folderTrust")
	if ft == nil || ft.kind != kindObject {
		return false
	}
	en, _ := ft.get("enabled")
	return en != nil && en.kind == kindBool && !isTrue(data, en)
}

// trustedFolders counts the folders Gemini's trustedFolders.json trusts
// (an object of path → "TRUST_FOLDER", "TRUST_PARENT" or "DO_NOT_TRUST");
// a missing file trusts none.
func trustedFolders(path string) (int, error) {
	root, _, err := readSettings(agents.Gemini.ID, path, true)
	if err != nil || root == nil {
		return 0, err
	}
	n := 0
	for _, m := range root.members {
		if m.value.kind == kindString && m.value.str != "DO_NOT_TRUST" {
			n++
		}
	}
	return n, nil
}
