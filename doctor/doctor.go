// Package doctor checks that every integration of clawd works end to end:
// the runtime, each agent clawd knows (its settings parse, clawd's hooks
// are there once each and run this clawd, the agent's own switches let
// them run, and a connection test: the installed hook command, run as the
// agent would, reaches the runtime), and the desktop. Fix repairs an
// agent's hooks through its installer. `clawd doctor` and the dashboard
// show the result.
//
// Nothing here is agent-specific: the agents come from the registry, their
// settings from their installers (installers.Lister, installers.Checker).
package doctor

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/installers"
	"github.com/clawdhq/clawd/internal/agentbin"
	"github.com/clawdhq/clawd/internal/autostart"
	"github.com/clawdhq/clawd/internal/config"
	"github.com/clawdhq/clawd/internal/desktop"
	"github.com/clawdhq/clawd/internal/health"
	"github.com/clawdhq/clawd/internal/i18n"
	"github.com/clawdhq/clawd/runtime/client"
)

// Check is one check's result (see health.Check).
type Check = health.Check

// Status is how a check came out.
type Status = health.Status

// The statuses.
const (
	OK      = health.OK
	Skipped = health.Skipped
	Warn    = health.Warn
	Fail    = health.Fail
)

// Options say where doctor looks and with what.
type Options struct {
	// Home is the clawd home.
	Home string
	// Getenv is the environment the agents' settings are found with.
	Getenv func(string) string
	// Environ is the whole environment, which the connection test runs
	// the hook with (PATH made minimal); nil: HOME and CLAWD_HOME from
	// Getenv.
	Environ []string
	// Binary is the running clawd, what a fix writes; Version its
	// version.
	Binary, Version string
	// Now is the clock.
	Now func() time.Time
	// Desktop looks for the desktop; nil: desktop.Probe.
	Desktop func() desktop.Session
	// NoConnection skips the connection tests.
	NoConnection bool
	// Ports are the ports runtime.ports looks at; nil: client.Ports,
	// where the runtime listens and the original app's scripts post.
	Ports []int
	// Autostart reads what starts clawd serve at login (autostart.Check
	// of the running binary); nil: no autostart check.
	Autostart func(ctx context.Context) (autostart.Status, error)
	// AgentVersion reads the release of an agent's executable; nil:
	// agentbin.Version.
	AgentVersion func(a *agents.Agent, cmd string) string
	// All checks every agent clawd knows when Run is given none; without
	// it an agent that is not on this machine (no settings folder with
	// anything in it, no command on PATH, none of clawd's hooks) is left
	// out and named in Report.NotHere.
	All bool
}

func (o *Options) defaults() {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Desktop == nil {
		o.Desktop = desktop.Probe
	}
	if o.Ports == nil {
		o.Ports = client.Ports
	}
}

// Report is a doctor run: `clawd doctor --json`.
type Report struct {
	Checks []Check `json:"checks"`
	// NotHere are the agents left out because they are not on this
	// machine (see Options.All), by id.
	NotHere []string `json:"not_here,omitempty"`
}

// Failed reports whether a check failed.
func (r Report) Failed() bool {
	return slices.ContainsFunc(r.Checks, func(c Check) bool { return c.Status == Fail })
}

// Run checks the runtime, then each agent of list (nil: every agent clawd
// knows, those not on this machine only with o.All), then, when list is
// nil, the desktop and what starts clawd at login.
func Run(ctx context.Context, o Options, list []*agents.Agent) Report {
	o.defaults()
	all := list == nil
	if all {
		list = agents.All()
	}
	rt := checkRuntime(ctx, o)
	r := Report{Checks: slices.Clone(rt.checks)}
	rec, recErr := installers.ReadRecord(o.Home)
	if recErr != nil {
		r.Checks = append(r.Checks, health.New("record", "", Fail, i18n.M("doctor.finding.error", recErr.Error()),
			i18n.M("doctor.fixes.record", filepath.Join(o.Home, installers.RecordFile))))
		rec = noRecord(o)
	}
	cfg, cfgErr := config.Load(o.Home)
	if cfgErr != nil {
		// Which agents are disabled cannot be told either: the checks
		// below take every agent for enabled.
		r.Checks = append(r.Checks, health.New("config", "", Fail, i18n.M("doctor.finding.error", cfgErr.Error()),
			i18n.M("doctor.fixes.config", config.Path(o.Home))))
	}
	for _, a := range list {
		checks, absent := checkAgent(ctx, o, a, rec, rt)
		if absent && all && !o.All {
			r.NotHere = append(r.NotHere, a.ID)
			continue
		}
		if !cfg.Enabled(a.ID) {
			r.Checks = append(r.Checks, disabledCheck(o, a))
		}
		r.Checks = append(r.Checks, checks...)
	}
	if all {
		r.Checks = append(r.Checks, checkChannels(o, cfg, rt)...)
		r.Checks = append(r.Checks, checkDesktop(o)...)
		if o.Autostart != nil {
			r.Checks = append(r.Checks, checkAutostart(ctx, o, rt))
		}
	}
	return r
}

// Fix installs clawd's hooks for the running binary into agent a's
// settings through its installer, repairing what is missing, stale or
// extra, under the install lock and with the installers' safety rules
// (backup, temp file and rename, a file that does not parse left alone).
// A dry run writes nothing: the report's files carry their diffs.
func Fix(o Options, a *agents.Agent, dryRun bool) (*installers.Report, error) {
	return installers.Install(o.Home, a, o.Getenv, o.Binary, dryRun)
}

// Fixable reports whether Fix would change agent a's files: the agent
// is installed (the record lists it, or its files hold clawd's hooks)
// and an install's dry run changes something.
func Fixable(o Options, a *agents.Agent) bool {
	st := inspect(o, a, nil)
	return st.installed && st.dryErr == nil && st.dry != nil && st.dry.Any()
}

// noRecord is an empty install record, for checking on when the record
// cannot be read (its own check says so): clawd's entries are then found
// by their shape alone.
func noRecord(o Options) *installers.Record {
	rec, _ := installers.ReadRecord(filepath.Join(o.Home, "nonexistent"))
	return rec
}

// agentState is what doctor read of one agent.
type agentState struct {
	found     Found
	inst      installers.Installer
	instErr   error
	dry       *installers.Report
	dryErr    error
	hooks     []installers.Hook
	hooksErr  error
	listed    bool // the installer lists its hooks
	recorded  []string
	installed bool
	known     installers.Known
}

// inspect reads agent a's files (rec nil: the record is read here).
func inspect(o Options, a *agents.Agent, rec *installers.Record) *agentState {
	if rec == nil {
		var err error
		if rec, err = installers.ReadRecord(o.Home); err != nil {
			rec = noRecord(o)
		}
	}
	version := o.AgentVersion
	if version == nil {
		version = agentbin.Version
	}
	st := &agentState{found: detect(a, o.Getenv, version)}
	if ar := rec.Agents[a.ID]; ar != nil {
		st.recorded = ar.Files
	}
	st.known = rec.Known(a.ID).With(o.Binary)
	st.inst, st.instErr = installers.For(a, o.Getenv)
	if st.instErr != nil {
		return st
	}
	st.dry, st.dryErr = st.inst.Install(o.Binary, installers.Options{DryRun: true, Known: st.known})
	if l, ok := st.inst.(installers.Lister); ok {
		st.listed = true
		st.hooks, st.hooksErr = l.Hooks(installers.Options{Known: st.known})
	}
	st.installed = len(st.recorded) > 0 || len(st.hooks) > 0
	return st
}

// checkAgent runs agent a's checks, and reports whether a is absent: not
// on this machine, and none of clawd's hooks in its files.
func checkAgent(ctx context.Context, o Options, a *agents.Agent, rec *installers.Record, rt *runtimeState) (_ []Check, absent bool) {
	st := inspect(o, a, rec)
	c := func(id string, s Status, finding, fix i18n.Msg) Check {
		return health.New(a.ID+"."+id, a.ID, s, finding, fix)
	}
	fixCmd := i18n.Literal(fixCommand(a))
	var none i18n.Msg
	var out []Check

	switch f := st.found; {
	case errors.Is(st.instErr, installers.ErrUnsupported):
		return []Check{c("detected", Skipped, i18n.M("doctor.finding.unsupported", a.Name), none)}, !f.Detected()
	case f.DirErr != nil:
		return []Check{c("detected", Fail, i18n.M("doctor.finding.error", f.DirErr.Error()), i18n.M("doctor.fixes.set_home"))}, false
	case !f.Detected() && !st.installed:
		return []Check{c("detected", Skipped, i18n.M("doctor.finding.not_here", a.Name, f.Dir, a.Command), none)}, true
	default:
		out = append(out, c("detected", OK, foundText(a, f), none))
		if vc, ok := versionCheck(a, f); ok {
			out = append(out, vc)
		}
	}

	if st.instErr != nil {
		return append(out, c("config", Fail, i18n.M("doctor.finding.error", st.instErr.Error()), i18n.M("doctor.fixes.env"))), false
	}
	if st.dryErr != nil {
		return append(out, c("config", Fail, i18n.M("doctor.finding.error", st.dryErr.Error()),
			i18n.M("doctor.fixes.by_hand", fixCommand(a)))), false
	}
	out = append(out, c("config", OK, i18n.M("doctor.finding.config_ok", strings.Join(st.dry.Paths(), ", ")), none))
	if !st.installed {
		return append(out, c("hooks.missing", Warn,
			i18n.M("doctor.finding.not_installed", st.dry.Handlers, a.Name),
			i18n.Literal("clawd install "+a.ID))), false
	}

	var ch installers.Changes
	for _, f := range st.dry.Files {
		ch.Added += f.Added
		ch.Repaired += f.Repaired
		ch.Removed += f.Removed
	}
	if ch.Added > 0 {
		out = append(out, c("hooks.missing", Fail, missingText(a, st, ch.Added), fixCmd))
	} else {
		out = append(out, c("hooks.missing", OK, i18n.M("doctor.finding.all_events", len(a.Required(st.found.Version)), st.dry.Handlers), none))
	}
	if ch.Removed > 0 {
		out = append(out, c("hooks.duplicate", Fail,
			i18n.MN("doctor.finding.duplicate", ch.Removed, st.dry.Handlers),
			fixCmd))
	} else {
		out = append(out, c("hooks.duplicate", OK, i18n.M("doctor.finding.once"), none))
	}
	if ch.Repaired > 0 {
		out = append(out, c("hooks.stale", Fail,
			i18n.M("doctor.finding.stale", ch.Repaired, st.dry.Handlers),
			fixCmd))
	} else {
		out = append(out, c("hooks.stale", OK, i18n.M("doctor.finding.current"), none))
	}
	out = append(out, binaryCheck(ctx, o, a, st, fixCmd))
	if oc, ok := overrideCheck(a, st); ok {
		out = append(out, oc)
	}
	if ck, ok := st.inst.(installers.Checker); ok {
		out = append(out, ck.Checks(installers.Options{Known: st.known})...)
	}
	if !o.NoConnection {
		out = append(out, connectionCheck(ctx, o, a, st, rt))
	}
	if sc, ok := selfRepairCheck(a, rt, !st.dry.Any()); ok {
		out = append(out, sc)
	}
	return out, false
}

// versionCheck compares the installed release of agent a with those
// clawd was tested with: one newer than all of them is a warning, never a
// failure (it mostly works; a changed payload may leave clawd blind to
// part of it). No check when the release is unknown or nothing was tested.
func versionCheck(a *agents.Agent, f Found) (Check, bool) {
	if f.Version == "" || len(a.Tested) == 0 {
		return Check{}, false
	}
	tested := strings.Join(a.Tested, ", ")
	if !a.NewerThanTested(f.Version) {
		return health.New(a.ID+".version", a.ID, OK, i18n.M("doctor.finding.version_ok", a.Name, f.Version, tested), i18n.Msg{}), true
	}
	fix := i18n.M("doctor.fixes.version", a.Name, a.Pinned())
	if a.Package != "" {
		fix = i18n.M("doctor.fixes.version_npm", a.Name, a.Package, a.Pinned())
	}
	return health.New(a.ID+".version", a.ID, Warn, i18n.M("doctor.finding.version_newer", a.Name, f.Version, tested), fix), true
}

// disabledCheck says that config.toml switches agent a off: a warning,
// since its hooks (if installed) still run and report to nobody, which is
// what the person asked for but easy to forget.
func disabledCheck(o Options, a *agents.Agent) Check {
	return health.New(a.ID+".enabled", a.ID, Warn, i18n.M("doctor.finding.disabled", a.Name),
		i18n.M("doctor.fixes.enable", a.ID, config.Path(o.Home)))
}

// fixCommand is the command that repairs agent a's hooks.
func fixCommand(a *agents.Agent) string { return "clawd doctor --fix --agent " + a.ID }

// foundText says where agent a was found.
func foundText(a *agents.Agent, f Found) i18n.Msg {
	var parts []string
	if f.DirExists {
		parts = append(parts, f.Dir)
	}
	if f.Command != "" {
		cmd := f.Command
		if f.Version != "" {
			cmd += " " + f.Version
		}
		parts = append(parts, cmd)
	}
	if len(parts) == 0 {
		return i18n.M("doctor.finding.found_hooks_only", a.Name, f.Dir, a.Command)
	}
	return i18n.M("doctor.finding.found", a.Name, strings.Join(parts, ", "))
}

// missingText says which of the events clawd registers have no handler
// of clawd's, when the installer lists them.
func missingText(a *agents.Agent, st *agentState, n int) i18n.Msg {
	have := map[string]bool{}
	for _, h := range st.hooks {
		have[h.Event] = true
	}
	var missing []string
	hooks := a.Required(st.found.Version)
	for _, h := range hooks {
		if !have[h.Event] {
			missing = append(missing, h.Event)
		}
	}
	if len(missing) == 0 || have[""] || len(missing) > 6 {
		return i18n.M("doctor.finding.missing_n", n, len(hooks), st.dry.Handlers, a.Name)
	}
	return i18n.MN("doctor.finding.missing", len(missing), st.dry.Handlers, strings.Join(missing, ", "), a.Name)
}

// binaryCheck checks that every command of clawd's runs an executable
// that is there and is this clawd, or one of the same version.
func binaryCheck(ctx context.Context, o Options, a *agents.Agent, st *agentState, fixCmd i18n.Msg) Check {
	c := func(s Status, finding, fix i18n.Msg) Check {
		return health.New(a.ID+".hooks.binary", a.ID, s, finding, fix)
	}
	var none i18n.Msg
	switch {
	case !st.listed:
		return c(Skipped, i18n.M("doctor.finding.not_listed", a.Name), none)
	case st.hooksErr != nil:
		return c(Fail, i18n.M("doctor.finding.error", st.hooksErr.Error()), fixCmd)
	case len(st.hooks) == 0:
		return c(Skipped, i18n.M("doctor.finding.no_hook_check"), none)
	}
	var bins []string
	for _, h := range st.hooks {
		if !slices.Contains(bins, h.Binary) {
			bins = append(bins, h.Binary)
		}
	}
	self, selfErr := os.Stat(o.Binary)
	var others []string
	for _, b := range bins {
		native := filepath.FromSlash(b)
		fi, err := os.Stat(native)
		switch {
		case err != nil:
			return c(Fail, i18n.M("doctor.finding.binary_gone", b, a.Name), fixCmd)
		case !fi.Mode().IsRegular() || fi.Mode()&0o111 == 0 && !isWindows:
			return c(Fail, i18n.M("doctor.finding.binary_not_exec", b), fixCmd)
		case selfErr == nil && os.SameFile(fi, self):
			continue
		}
		v, err := binaryVersion(ctx, native)
		switch {
		case err != nil:
			return c(Fail, i18n.M("doctor.finding.binary_not_clawd", b, err), fixCmd)
		case v != o.Version:
			return c(Warn, i18n.M("doctor.finding.binary_version", b, v, o.Version, o.Binary), fixCmd)
		}
		others = append(others, b)
	}
	if len(others) > 0 {
		return c(OK, i18n.M("doctor.finding.binary_same_version", strings.Join(others, ", ")), none)
	}
	return c(OK, i18n.M("doctor.finding.binary_self", o.Binary), none)
}

// overrideCheck says whether clawd installed into files the agent does
// not read with this environment (an override variable such as
// CLAUDE_CONFIG_DIR set now and not then, or the other way round).
func overrideCheck(a *agents.Agent, st *agentState) (Check, bool) {
	id := a.ID + ".config.override"
	var elsewhere []string
	current := false
	for _, f := range st.recorded {
		if slices.Contains(st.dry.Paths(), f) {
			current = true
		} else {
			elsewhere = append(elsewhere, f)
		}
	}
	switch {
	case len(elsewhere) == 0:
		return Check{}, false
	case current:
		return health.New(id, a.ID, OK, i18n.M("doctor.finding.also_elsewhere", strings.Join(elsewhere, ", "), a.Name), i18n.Msg{}), true
	}
	return health.New(id, a.ID, Warn,
		i18n.M("doctor.finding.override", strings.Join(elsewhere, ", "), a.Name, st.dry.Handlers),
		i18n.M("doctor.fixes.override", fixCommand(a), st.dry.Handlers)), true
}
