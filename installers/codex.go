package installers

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/clawdhq/clawd/agents"
)

// Codex installs clawd's hooks into Codex CLI's user layer: the handlers
// into $CODEX_HOME/hooks.json (or inline into config.toml, for a user who
// keeps every hook there) and, since Codex silently skips a user hook it
// does not trust, the matching [hooks.state] trust entries into
// $CODEX_HOME/config.toml.
type Codex struct {
	// Home is Codex's folder, $CODEX_HOME (see CodexHome).
	Home string

	// beforeCheck runs just before a file is re-read ahead of its rename;
	// tests use it to change files under the installer's feet.
	beforeCheck func(path string)
}

// NewCodex returns the installer for the Codex folder getenv points at.
func NewCodex(getenv func(string) string) (*Codex, error) {
	h, err := CodexHome(getenv)
	if err != nil {
		return nil, err
	}
	return &Codex{Home: h}, nil
}

// CodexHome returns Codex's folder (agents.Codex.ConfigDir) as Codex
// itself resolves it, since the path goes into every trust key:
// $CODEX_HOME made absolute with its symlinks resolved (Codex
// canonicalizes it, and refuses to start when it does not exist), else
// ~/.codex as is.
func CodexHome(getenv func(string) string) (string, error) {
	if d := getenv("CODEX_HOME"); d != "" {
		abs, err := filepath.Abs(d)
		if err != nil {
			return "", fmt.Errorf("CODEX_HOME=%s: %w", d, err)
		}
		real, err := filepath.EvalSymlinks(abs)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return "", fmt.Errorf("CODEX_HOME=%s does not exist; Codex does not start without it either: create the folder, or unset CODEX_HOME", d)
			}
			return "", fmt.Errorf("CODEX_HOME=%s: %w", d, err)
		}
		return real, nil
	}
	return agents.Codex.ConfigDir(getenv)
}

// HooksPath is $CODEX_HOME/hooks.json.
func (c *Codex) HooksPath() string { return filepath.Join(c.Home, "hooks.json") }

// ConfigPath is $CODEX_HOME/config.toml.
func (c *Codex) ConfigPath() string { return filepath.Join(c.Home, "config.toml") }

// CodexFiles are Codex's two user files: where they are (the paths are
// part of the trust keys) and their bytes (nil when a file is absent).
type CodexFiles struct {
	HooksPath  string
	Hooks      []byte
	ConfigPath string
	Config     []byte
}

// CodexEdit is what InstallCodex or UninstallCodex computed.
type CodexEdit struct {
	// Hooks and Config are the new bytes of hooks.json and config.toml.
	Hooks, Config []byte
	// HooksChanges counts clawd's handlers changed in hooks.json,
	// InlineChanges those inline in config.toml.
	HooksChanges, InlineChanges Changes
	// Trust counts the [hooks.state] entries changed in config.toml.
	Trust TrustChanges
	// Inline is set when clawd's handlers are in config.toml rather than
	// hooks.json.
	Inline bool
	// Warnings are things the person should know; the edit is still good.
	Warnings []string
}

// Any reports whether anything changed.
func (e *CodexEdit) Any() bool {
	return e.HooksChanges.Any() || e.InlineChanges.Any() || e.Trust.Any()
}

// InstallCodex returns Codex's files with clawd's handlers installed for
// binary, one per event in agents.Codex.Hooks, and trusted; known says
// which other handlers are clawd's, to repair. It is the pure core of
// Codex.Install.
func InstallCodex(f CodexFiles, binary string, known Known) (*CodexEdit, error) {
	return editCodex(f, binary, known.With(binary), true)
}

// UninstallCodex returns Codex's files with every clawd handler and its
// trust entry removed, and foreign trust entries moved along with their
// handlers. After InstallCodex it gives both files back byte for byte,
// with the JSON engine's known exceptions (see the package doc) and one
// more: a trust table left from a handler that is gone, at the key a new
// clawd handler took, was taken over by install and leaves with clawd's
// handler.
func UninstallCodex(f CodexFiles, known Known) (*CodexEdit, error) {
	return editCodex(f, "", known, false)
}

func editCodex(f CodexFiles, binary string, known Known, install bool) (*CodexEdit, error) {
	inHooks := func(err error) error { return fmt.Errorf("%s: %w", f.HooksPath, err) }
	inConfig := func(err error) error { return fmt.Errorf("%s: %w", f.ConfigPath, err) }

	jsonBefore, err := jsonCodexHandlers(f.Hooks, known)
	if err != nil {
		return nil, inHooks(err)
	}
	m, err := decodeTOML(f.Config)
	if err != nil {
		return nil, inConfig(err)
	}
	if _, err := trustState(m); err != nil {
		return nil, inConfig(err)
	}
	inlineBefore, err := inlineCodexHandlers(m, known)
	if err != nil {
		return nil, inConfig(err)
	}

	res := &CodexEdit{}
	var jsonSpecs, inlineSpecs []agents.HookSpec
	if install {
		oursJSON, foreignJSON := count(jsonBefore)
		oursInline, foreignInline := count(inlineBefore)
		// Keep to the one form the person uses: inline only when their
		// hooks are all there and hooks.json has none.
		res.Inline = oursJSON == 0 && (oursInline > 0 || foreignInline > 0 && foreignJSON == 0)
		if res.Inline {
			inlineSpecs = agents.Codex.Hooks
		} else {
			jsonSpecs = agents.Codex.Hooks
		}
	}

	res.Hooks, res.HooksChanges, err = editHooks(f.Hooks, codexHooks(binary, jsonSpecs, known))
	if err != nil {
		return nil, inHooks(err)
	}
	config, inlineChanges, err := editInlineHooks(f.Config, m, binary, inlineSpecs, known)
	if err != nil {
		return nil, inConfig(err)
	}
	res.InlineChanges = inlineChanges
	jsonAfter, err := jsonCodexHandlers(res.Hooks, known)
	if err != nil {
		return nil, inHooks(fmt.Errorf("internal error: %w", err))
	}
	m2, err := decodeTOML(config)
	if err != nil {
		return nil, inConfig(fmt.Errorf("internal error: %w", err))
	}
	inlineAfter, err := inlineCodexHandlers(m2, known)
	if err != nil {
		return nil, inConfig(fmt.Errorf("internal error: %w", err))
	}
	res.Config, res.Trust, err = editTrust(config, []trustSource{
		{path: f.HooksPath, before: jsonBefore, after: jsonAfter},
		{path: f.ConfigPath, before: inlineBefore, after: inlineAfter},
	})
	if err != nil {
		return nil, inConfig(err)
	}
	if install {
		res.Warnings = codexWarnings(f, m, res, len(jsonAfter) > 0 && len(inlineAfter) > 0)
	}
	return res, nil
}

// count returns how many of hs are clawd's and how many are not.
func count(hs []codexHandler) (ours, foreign int) {
	for _, h := range hs {
		if h.ours {
			ours++
		} else {
			foreign++
		}
	}
	return ours, foreign
}

// codexWarnings says what would keep Codex from running the hooks, or
// makes it complain, though the files are right.
func codexWarnings(f CodexFiles, m map[string]any, res *CodexEdit, both bool) []string {
	var out []string
	features, _ := m["features"].(map[string]any)
	hooksOn, hasHooks := features["hooks"].(bool)
	legacyOn, hasLegacy := features["codex_hooks"].(bool)
	switch {
	case hasHooks && !hooksOn:
		out = append(out, fmt.Sprintf("Codex hooks are disabled: %s has [features] hooks = false; set it to true (or remove it) so that Codex runs clawd's hooks", f.ConfigPath))
	case !hasHooks && hasLegacy && !legacyOn:
		out = append(out, fmt.Sprintf("Codex hooks are disabled: %s has [features] codex_hooks = false; remove it (hooks are on by default) so that Codex runs clawd's hooks", f.ConfigPath))
	}
	if _, ok := features["codex_hooks"]; ok {
		fix := "rename it to hooks"
		if hasHooks {
			fix = "remove it, hooks is set"
		}
		out = append(out, fmt.Sprintf("%s has the deprecated [features] codex_hooks key, which Codex warns about at every start: %s", f.ConfigPath, fix))
	}
	if both {
		where := f.HooksPath
		if res.Inline {
			where = f.ConfigPath
		}
		out = append(out, fmt.Sprintf("hooks are set both in %s and inline in %s: Codex loads both and warns at every start; clawd's are in %s, move the others there to keep to one form", f.HooksPath, f.ConfigPath, where))
	}
	if keys := extraRootKeys(res.Hooks); len(keys) > 0 {
		out = append(out, fmt.Sprintf("%s has top-level keys other than hooks and description (%s); Codex refuses such a file, remove them", f.HooksPath, strings.Join(keys, ", ")))
	}
	return out
}

// Install makes Codex run `<binary> hook codex <Event>` on every event in
// agents.Codex.Hooks and trust those handlers, repairing stale clawd
// handlers, and leaves every other byte of both files alone.
//
// The report's files are hooks.json, then config.toml (with the trust
// entries' counts); Handlers is config.toml for a person who keeps hooks
// inline there.
func (c *Codex) Install(binary string, opts Options) (*Report, error) {
	if err := CheckBinary(binary); err != nil {
		return nil, err
	}
	return c.apply(opts, func(f CodexFiles) (*CodexEdit, error) { return InstallCodex(f, binary, opts.Known) }, false)
}

// Uninstall removes every clawd handler and its trust entry from Codex's
// files.
func (c *Codex) Uninstall(opts Options) (*Report, error) {
	return c.apply(opts, func(f CodexFiles) (*CodexEdit, error) { return UninstallCodex(f, opts.Known) }, true)
}

// apply reads both files, computes the edit, and writes what changed:
// config.toml first, then hooks.json; when the second write fails, the
// first is rolled back. An uninstall gives back the originals exactly
// where nothing but clawd's entries changed (see target.restore).
func (c *Codex) apply(opts Options, edit func(CodexFiles) (*CodexEdit, error), uninstall bool) (*Report, error) {
	hooks, err := readTarget(agents.Codex.ID, c.HooksPath())
	if err != nil {
		return nil, err
	}
	config, err := readTarget(agents.Codex.ID, c.ConfigPath())
	if err != nil {
		return nil, err
	}
	hooks.diff, config.diff = opts.DryRun, opts.DryRun
	e, err := edit(CodexFiles{HooksPath: hooks.path, Hooks: hooks.old, ConfigPath: config.path, Config: config.old})
	if err != nil {
		return nil, fmt.Errorf("%w (neither file was changed; fix it by hand and run again)", err)
	}
	var hooksRes, configRes Result
	if uninstall {
		origHooks, hooksAbsent := hooks.original()
		origConfig, configAbsent := config.original()
		orig := CodexFiles{HooksPath: hooks.path, Hooks: origHooks, ConfigPath: config.path, Config: origConfig}
		var rtHooks, rtConfig *[]byte
		if !hooksAbsent && !configAbsent && bytes.Equal(e.Hooks, origHooks) && bytes.Equal(e.Config, origConfig) {
			rtHooks, rtConfig = &e.Hooks, &e.Config // back as they were already
		} else if u, err := edit(orig); err != nil || u.Any() {
			// The originals hold clawd's entries themselves: not what to
			// go back to.
		} else if i, err := InstallCodex(orig, placeholderBinary, opts.Known); err == nil {
			installed := CodexFiles{HooksPath: hooks.path, Hooks: i.Hooks, ConfigPath: config.path, Config: i.Config}
			if u, err := edit(installed); err == nil {
				rtHooks, rtConfig = &u.Hooks, &u.Config
			}
		}
		hooksRes = hooks.restore(e.Hooks, e.HooksChanges, origHooks, hooksAbsent, rtHooks)
		configRes = config.restore(e.Config, e.InlineChanges, origConfig, configAbsent, rtConfig)
	} else {
		hooksRes = hooks.plan(e.Hooks, e.HooksChanges, false)
		configRes = config.plan(e.Config, e.InlineChanges, false)
	}
	configRes.Trust = e.Trust
	if !opts.DryRun {
		// config.toml first: trust entries without their handlers are
		// harmless, handlers without trust are silently skipped.
		if err := write([]*target{config, hooks}, []*Result{&configRes, &hooksRes}, c.beforeCheck); err != nil {
			return nil, err
		}
	}
	rep := &Report{Agent: agents.Codex.ID, Handlers: hooks.path, Files: []Result{hooksRes, configRes}, Warnings: e.Warnings}
	if e.Inline {
		rep.Handlers = config.path
	}
	return rep, nil
}
