package installers

import (
	"fmt"
	"strings"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/internal/health"
	"github.com/clawdhq/clawd/internal/i18n"
)

// codexState is what Codex's two files hold, as far as doctor looks.
type codexState struct {
	files        CodexFiles
	config       map[string]any
	json, inline []codexHandler
}

// read reads Codex's files and lists their handlers; an error is a file
// that cannot be read or parsed.
func (c *Codex) read(known Known) (*codexState, error) {
	hooks, err := readTarget(agents.Codex.ID, c.HooksPath())
	if err != nil {
		return nil, err
	}
	config, err := readTarget(agents.Codex.ID, c.ConfigPath())
	if err != nil {
		return nil, err
	}
	s := &codexState{files: CodexFiles{HooksPath: hooks.path, Hooks: hooks.old, ConfigPath: config.path, Config: config.old}}
	if s.json, err = jsonCodexHandlers(hooks.old, known); err != nil {
		return nil, fmt.Errorf("%s: %w", hooks.path, err)
	}
	if s.config, err = decodeTOML(config.old); err != nil {
		return nil, fmt.Errorf("%s: %w", config.path, err)
	}
	if s.inline, err = inlineCodexHandlers(s.config, known); err != nil {
		return nil, fmt.Errorf("%s: %w", config.path, err)
	}
	return s, nil
}

// Hooks lists clawd's handlers in hooks.json and inline in config.toml.
func (c *Codex) Hooks(opts Options) ([]Hook, error) {
	s, err := c.read(opts.Known)
	if err != nil {
		return nil, err
	}
	return append(codexHooksOf(s.files.HooksPath, s.json, opts.Known), codexHooksOf(s.files.ConfigPath, s.inline, opts.Known)...), nil
}

// Checks says whether Codex runs clawd's handlers: its hooks feature on,
// every handler of clawd's trusted by a [hooks.state] entry whose hash is
// the one Codex computes for it (Codex silently skips the rest), and one
// form of hooks that Codex accepts.
func (c *Codex) Checks(opts Options) []health.Check {
	s, err := c.read(opts.Known)
	if err != nil {
		return nil // Install's dry run reports it
	}
	a := agents.Codex
	var out []health.Check
	features, _ := s.config["features"].(map[string]any)
	hooksOn, hasHooks := features["hooks"].(bool)
	legacyOn, hasLegacy := features["codex_hooks"].(bool)
	switch {
	case hasHooks && !hooksOn:
		out = append(out, check(a, "feature.disabled", health.Fail,
			i18n.M("installers.codex_hooks_off", s.files.ConfigPath, a.Name),
			i18n.M("installers.fix_codex_hooks_off", s.files.ConfigPath)))
	case !hasHooks && hasLegacy && !legacyOn:
		out = append(out, check(a, "feature.disabled", health.Fail,
			i18n.M("installers.codex_legacy_off", s.files.ConfigPath, a.Name),
			i18n.M("installers.fix_codex_legacy_off", s.files.ConfigPath)))
	case hasLegacy:
		out = append(out, check(a, "feature.disabled", health.Warn,
			i18n.M("installers.codex_legacy", s.files.ConfigPath, a.Name),
			i18n.M("installers.fix_codex_legacy", s.files.ConfigPath)))
	default:
		out = append(out, check(a, "feature.disabled", health.OK, i18n.M("installers.codex_hooks_on", a.Name), i18n.Msg{}))
	}

	state, _ := trustState(s.config)
	var ours, stale int
	for _, src := range []struct {
		path string
		hs   []codexHandler
	}{{s.files.HooksPath, s.json}, {s.files.ConfigPath, s.inline}} {
		for _, h := range src.hs {
			if !h.ours {
				continue
			}
			ours++
			if !h.hashable || stateHash(state, CodexHookKey(src.path, h.Event, h.group, h.handler)) != CodexTrustHash(h.CodexHook) {
				stale++
			}
		}
	}
	switch {
	case ours == 0:
	case stale > 0:
		out = append(out, check(a, "trust.stale", health.Fail,
			i18n.M("installers.codex_untrusted", stale, ours, s.files.ConfigPath, a.Name),
			i18n.Literal("clawd doctor --fix --agent "+a.ID)))
	default:
		out = append(out, check(a, "trust.stale", health.OK, i18n.M("installers.codex_trusted", a.Name, ours), i18n.Msg{}))
	}

	if keys := extraRootKeys(s.files.Hooks); len(keys) > 0 {
		out = append(out, check(a, "hooks.layout", health.Fail,
			i18n.M("installers.codex_extra_keys", s.files.HooksPath, strings.Join(keys, ", "), a.Name),
			i18n.M("installers.fix_codex_extra_keys", s.files.HooksPath)))
	} else if len(s.json) > 0 && len(s.inline) > 0 {
		out = append(out, check(a, "hooks.layout", health.Warn,
			i18n.M("installers.codex_both_forms", s.files.HooksPath, s.files.ConfigPath, a.Name),
			i18n.M("installers.fix_codex_both_forms")))
	}
	return out
}
