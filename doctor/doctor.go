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
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/installers"
	"github.com/clawdhq/clawd/internal/desktop"
	"github.com/clawdhq/clawd/internal/health"
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
}

// Failed reports whether a check failed.
func (r Report) Failed() bool {
	return slices.ContainsFunc(r.Checks, func(c Check) bool { return c.Status == Fail })
}

// Run checks the runtime, then each agent of list (nil: every agent clawd
// knows), then, when list is nil, the desktop.
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
		r.Checks = append(r.Checks, Check{ID: "record", Status: Fail, Finding: recErr.Error(),
			Fix: "fix " + filepath.Join(o.Home, installers.RecordFile) + ", or move it away (clawd then finds its hooks by their shape only)"})
		rec = noRecord(o)
	}
	for _, a := range list {
		r.Checks = append(r.Checks, checkAgent(ctx, o, a, rec, rt)...)
	}
	if all {
		r.Checks = append(r.Checks, checkDesktop(o)...)
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
	st := &agentState{found: Detect(a, o.Getenv)}
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

// checkAgent runs agent a's checks.
func checkAgent(ctx context.Context, o Options, a *agents.Agent, rec *installers.Record, rt *runtimeState) []Check {
	st := inspect(o, a, rec)
	c := func(id string, s Status, finding, fix string) Check {
		return Check{ID: a.ID + "." + id, Agent: a.ID, Status: s, Finding: finding, Fix: fix}
	}
	fixCmd := "clawd doctor --fix --agent " + a.ID
	var out []Check

	switch f := st.found; {
	case errors.Is(st.instErr, installers.ErrUnsupported):
		return []Check{c("detected", Skipped, fmt.Sprintf("clawd cannot install into %s", a.Name), "")}
	case f.DirErr != nil:
		return []Check{c("detected", Fail, f.DirErr.Error(), "set HOME")}
	case !f.Detected() && !st.installed:
		return []Check{c("detected", Skipped, fmt.Sprintf("%s is not on this machine (no %s, no %s on PATH)", a.Name, f.Dir, a.Command), "")}
	default:
		out = append(out, c("detected", OK, foundText(a, f), ""))
	}

	if st.instErr != nil {
		return append(out, c("config", Fail, st.instErr.Error(), "fix the environment variable it names"))
	}
	if st.dryErr != nil {
		return append(out, c("config", Fail, st.dryErr.Error(),
			"fix the file by hand (clawd never rewrites a file it cannot read or parse), then run "+fixCmd))
	}
	out = append(out, c("config", OK, "its settings parse: "+strings.Join(st.dry.Paths(), ", "), ""))
	if !st.installed {
		return append(out, c("hooks.missing", Warn,
			fmt.Sprintf("clawd's hooks are not installed in %s: %s reports nothing to clawd", st.dry.Handlers, a.Name),
			"clawd install "+a.ID))
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
		out = append(out, c("hooks.missing", OK, fmt.Sprintf("all %d events clawd needs are registered in %s", len(a.Hooks), st.dry.Handlers), ""))
	}
	if ch.Removed > 0 {
		out = append(out, c("hooks.duplicate", Fail,
			fmt.Sprintf("%s has %d clawd %s too many (a second entry for an event, or one under an event clawd does not register): the agent runs clawd more than once", st.dry.Handlers, ch.Removed, plural(ch.Removed, "entry", "entries")),
			fixCmd))
	} else {
		out = append(out, c("hooks.duplicate", OK, "each event runs clawd once", ""))
	}
	if ch.Repaired > 0 {
		out = append(out, c("hooks.stale", Fail,
			fmt.Sprintf("%d of clawd's entries in %s differ from what this clawd writes (another binary's path, or another timeout)", ch.Repaired, st.dry.Handlers),
			fixCmd))
	} else {
		out = append(out, c("hooks.stale", OK, "every entry is what this clawd writes", ""))
	}
	out = append(out, binaryCheck(ctx, o, a, st, fixCmd))
	if oc, ok := overrideCheck(a, st, fixCmd); ok {
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
	return out
}

// foundText says where agent a was found.
func foundText(a *agents.Agent, f Found) string {
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
		return fmt.Sprintf("%s: clawd's hooks are installed, but neither %s nor %s on PATH is here", a.Name, f.Dir, a.Command)
	}
	return a.Name + ": " + strings.Join(parts, ", ")
}

// missingText says which of the events clawd registers have no handler
// of clawd's, when the installer lists them.
func missingText(a *agents.Agent, st *agentState, n int) string {
	have := map[string]bool{}
	for _, h := range st.hooks {
		have[h.Event] = true
	}
	var missing []string
	for _, h := range a.Hooks {
		if !have[h.Event] {
			missing = append(missing, h.Event)
		}
	}
	if len(missing) == 0 || have[""] || len(missing) > 6 {
		return fmt.Sprintf("%d of the %d events clawd needs have no clawd entry in %s: %s does not report them", n, len(a.Hooks), st.dry.Handlers, a.Name)
	}
	return fmt.Sprintf("%s: no clawd entry for %s: %s does not report %s", st.dry.Handlers, strings.Join(missing, ", "), a.Name, plural(len(missing), "it", "them"))
}

// binaryCheck checks that every command of clawd's runs an executable
// that is there and is this clawd, or one of the same version.
func binaryCheck(ctx context.Context, o Options, a *agents.Agent, st *agentState, fixCmd string) Check {
	id := a.ID + ".hooks.binary"
	switch {
	case !st.listed:
		return Check{ID: id, Agent: a.ID, Status: Skipped, Finding: "clawd's installer for " + a.Name + " does not list its hook commands"}
	case st.hooksErr != nil:
		return Check{ID: id, Agent: a.ID, Status: Fail, Finding: st.hooksErr.Error(), Fix: fixCmd}
	case len(st.hooks) == 0:
		return Check{ID: id, Agent: a.ID, Status: Skipped, Finding: "no hook command of clawd's to check"}
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
			return Check{ID: id, Agent: a.ID, Status: Fail,
				Finding: fmt.Sprintf("clawd's hooks run %s, which is not there (clawd moved or was deleted): %s's events go nowhere", b, a.Name), Fix: fixCmd}
		case !fi.Mode().IsRegular() || fi.Mode()&0o111 == 0 && !isWindows:
			return Check{ID: id, Agent: a.ID, Status: Fail,
				Finding: fmt.Sprintf("clawd's hooks run %s, which is not an executable file", b), Fix: fixCmd}
		case selfErr == nil && os.SameFile(fi, self):
			continue
		}
		v, err := binaryVersion(ctx, native)
		switch {
		case err != nil:
			return Check{ID: id, Agent: a.ID, Status: Fail,
				Finding: fmt.Sprintf("clawd's hooks run %s, which does not answer as clawd (%v)", b, err), Fix: fixCmd}
		case v != o.Version:
			return Check{ID: id, Agent: a.ID, Status: Warn,
				Finding: fmt.Sprintf("clawd's hooks run %s, clawd %s; this is clawd %s at %s", b, v, o.Version, o.Binary), Fix: fixCmd}
		}
		others = append(others, b)
	}
	if len(others) > 0 {
		return Check{ID: id, Agent: a.ID, Status: OK, Finding: fmt.Sprintf("clawd's hooks run %s, the same version as this clawd", strings.Join(others, ", "))}
	}
	return Check{ID: id, Agent: a.ID, Status: OK, Finding: "clawd's hooks run this clawd, " + o.Binary}
}

// overrideCheck says whether clawd installed into files the agent does
// not read with this environment (an override variable such as
// CLAUDE_CONFIG_DIR set now and not then, or the other way round).
func overrideCheck(a *agents.Agent, st *agentState, fixCmd string) (Check, bool) {
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
		return Check{ID: id, Agent: a.ID, Status: OK, Finding: fmt.Sprintf("clawd's hooks are also in %s, which %s reads with another environment", strings.Join(elsewhere, ", "), a.Name)}, true
	}
	return Check{ID: id, Agent: a.ID, Status: Warn,
		Finding: fmt.Sprintf("clawd installed its hooks into %s, but with this environment %s reads %s (an override variable or HOME differs)", strings.Join(elsewhere, ", "), a.Name, st.dry.Handlers),
		Fix:     fixCmd + " (installs into " + st.dry.Handlers + ")"}, true
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
