// Package selfrepair keeps clawd's hooks in the agents' settings while the
// runtime runs: other tools rewrite those files (settings managers, sync
// tools, an agent's own migration) and clawd's entries go missing or
// stale, and the agent silently stops reporting.
//
// For every agent the install record lists, the Repairer checks the
// agent's files the way `clawd doctor` does (an install's dry run: nothing
// to change means the hooks are in place) when anything in their folders
// changes (fsnotify on the folder, since editors and tools replace files
// by rename) and on a slow timer, and repairs them through the installer,
// with the same safety rules: a file that does not parse is never
// touched. It never fights another tool in a loop: after MaxRepairs
// repairs of one agent's file within Window it stops touching it and
// reports "needs manual fix" until the file is found right again.
package selfrepair

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/installers"
	"github.com/clawdhq/clawd/runtime/client"
)

// The give-up rule: MaxRepairs repairs (done or failed) of one agent's
// file within Window, and the next breakage is left to the person.
const (
	MaxRepairs = 3
	Window     = 10 * time.Minute
	// window is Window for people.
	window = "10 minutes"
)

// Defaults of Options.
const (
	// DefaultEvery is the slow re-check, for what no folder event tells
	// (a binary deleted, a file changed through a symlink).
	DefaultEvery = 5 * time.Minute
	// DefaultSettle coalesces a burst of writes (an editor's temp file,
	// rename and backup) into one check.
	DefaultSettle = 100 * time.Millisecond
)

// Options configure a Repairer.
type Options struct {
	// Home is the clawd home: its install record says what to keep.
	Home string
	// Getenv is the runtime's environment, where the agents' settings
	// are found (HOME, their override variables).
	Getenv func(string) string
	// Binary is the running clawd: what a repair writes when the binary
	// the record last wrote for the agent is gone.
	Binary string
	// Repair turns repairing on; off, the Repairer only reports
	// (config: [doctor] self_repair = false).
	Repair bool
	// Now is the clock of the give-up rule.
	Now func() time.Time
	Log *slog.Logger
	// Every is the periodic re-check (DefaultEvery); Settle the wait
	// after a folder event (DefaultSettle).
	Every, Settle time.Duration
}

// Repairer watches and repairs the agents' hooks. Create it with New.
type Repairer struct {
	o Options

	mu     sync.Mutex
	states map[string]*state // by agent id
}

// state is one agent's integration and its recent repairs.
type state struct {
	client.Integration
	// tries are the times of the repairs within Window.
	tries []time.Time
	// gaveUp is set once the give-up rule hit, until the file is right.
	gaveUp bool
	// repaired says when and where the last repair was.
	repaired string
}

// New returns a Repairer.
func New(o Options) *Repairer {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.Every <= 0 {
		o.Every = DefaultEvery
	}
	if o.Settle <= 0 {
		o.Settle = DefaultSettle
	}
	return &Repairer{o: o, states: map[string]*state{}}
}

// Integrations returns every agent's integration, in the registry's
// order; empty before the first check.
func (r *Repairer) Integrations() []client.Integration {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []client.Integration
	for _, a := range agents.All() {
		if s := r.states[a.ID]; s != nil {
			out = append(out, s.Integration)
		}
	}
	return out
}

// Check checks every agent once, repairing what it may, and returns the
// files it watches (the record and every installed agent's files) and
// whether any integration changed.
func (r *Repairer) Check() (files []string, changed bool) {
	files = []string{filepath.Join(r.o.Home, installers.RecordFile)}
	err := installers.Locked(r.o.Home, func() error {
		rec, err := installers.ReadRecord(r.o.Home)
		if err != nil {
			return err
		}
		for _, a := range agents.All() {
			in, watch := r.checkAgent(rec, a)
			files = append(files, watch...)
			changed = r.set(a.ID, in) || changed
		}
		return rec.Save()
	})
	if err != nil {
		r.o.Log.Warn("self-repair: check", "err", err)
	}
	return files, changed
}

// set records agent's integration in, reporting whether it changed.
func (r *Repairer) set(agent string, in client.Integration) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := r.state(agent)
	if s.Integration == in {
		return false
	}
	s.Integration = in
	return true
}

// state returns agent's state, made on first use; the caller holds mu.
func (r *Repairer) state(agent string) *state {
	s := r.states[agent]
	if s == nil {
		s = &state{Integration: client.Integration{Agent: agent}}
		r.states[agent] = s
	}
	return s
}

// checkAgent checks agent a's hooks and repairs them if they broke and
// the give-up rule allows; the caller holds the install lock. It returns
// the integration and the files to watch.
func (r *Repairer) checkAgent(rec *installers.Record, a *agents.Agent) (client.Integration, []string) {
	inst, err := installers.For(a, r.o.Getenv)
	ar := rec.Agents[a.ID]
	if ar == nil || len(ar.Files) == 0 || errors.Is(err, installers.ErrUnsupported) {
		r.forget(a.ID)
		in := client.Integration{Agent: a.ID, State: client.IntegrationNotInstalled}
		if err == nil {
			if dry, err := inst.Install(r.o.Binary, installers.Options{DryRun: true}); err == nil {
				in.ConfigPath = dry.Handlers
			}
		}
		return in, nil
	}
	r.mu.Lock()
	s := r.state(a.ID)
	in := client.Integration{Agent: a.ID, Repairs: s.Repairs, ConfigPath: ar.Files[0]}
	r.mu.Unlock()
	if err != nil {
		return manual(in, err.Error()), ar.Files
	}
	binary := r.binary(ar)
	dry, err := installers.Apply(rec, a.ID, inst, binary, true, true)
	if err != nil {
		// A file that does not parse, or that clawd may not write: never
		// touched, watched for the person's fix.
		return manual(in, err.Error()), ar.Files
	}
	in.ConfigPath = dry.Handlers
	if !slices.Contains(ar.Files, dry.Handlers) {
		in.State = client.IntegrationNotInstalled
		in.Detail = fmt.Sprintf("clawd installed %s's hooks into %s, but with the runtime's environment %s reads %s", a.Name, ar.Files[0], a.Name, dry.Handlers)
		return in, ar.Files
	}
	watch := dry.Paths()
	if !dry.Any() {
		r.mu.Lock()
		if s.gaveUp {
			// The person fixed it: a fresh start. Otherwise the repairs
			// count until they are older than Window, however often the
			// file is right in between.
			s.tries, s.gaveUp = nil, false
		}
		in.State = client.IntegrationOK
		if in.Repairs > 0 {
			in.State, in.Detail = client.IntegrationRepaired, s.repaired
		}
		r.mu.Unlock()
		return in, watch
	}
	if !r.o.Repair {
		return manual(in, fmt.Sprintf("clawd's hooks in %s are missing or stale and self-repair is off ([doctor] self_repair = false): run clawd doctor --fix", dry.Handlers)), watch
	}

	now := r.o.Now()
	r.mu.Lock()
	s.tries = slices.DeleteFunc(s.tries, func(t time.Time) bool { return now.Sub(t) >= Window })
	if !s.gaveUp && len(s.tries) >= MaxRepairs {
		s.gaveUp = true
		r.o.Log.Warn("self-repair: giving up; another program keeps changing the file", "agent", a.ID, "file", dry.Handlers, "repairs", len(s.tries), "within", window)
	}
	gaveUp := s.gaveUp
	if !gaveUp {
		s.tries = append(s.tries, now)
	}
	r.mu.Unlock()
	if gaveUp {
		return manual(in, fmt.Sprintf("clawd repaired its hooks in %s %d times within %s and they broke again: another program keeps rewriting the file, so clawd stopped touching it; run clawd doctor", dry.Handlers, MaxRepairs, window)), watch
	}

	rep, err := installers.Apply(rec, a.ID, inst, binary, true, false)
	if err != nil {
		r.o.Log.Warn("self-repair: repair failed", "agent", a.ID, "file", dry.Handlers, "err", err)
		return manual(in, "repair failed: "+err.Error()), watch
	}
	in.Repairs++
	in.State = client.IntegrationRepaired
	in.Detail = fmt.Sprintf("clawd's hooks in %s broke; last repaired at %s", rep.Handlers, now.Format("15:04:05"))
	r.mu.Lock()
	s.Repairs, s.repaired = in.Repairs, in.Detail
	r.mu.Unlock()
	r.o.Log.Info("self-repair: repaired clawd's hooks", "agent", a.ID, "file", rep.Handlers, "repairs", in.Repairs)
	return in, watch
}

// manual is in needing a person's fix, for the reason detail.
func manual(in client.Integration, detail string) client.Integration {
	in.State = client.IntegrationNeedsManualFix
	in.Detail = detail
	return in
}

// forget drops agent's history: it is not installed (any more).
func (r *Repairer) forget(agent string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := r.state(agent)
	s.tries, s.gaveUp, s.Repairs, s.repaired = nil, false, 0, ""
}

// binary is the clawd a repair of ar's hooks writes: the one clawd last
// wrote for the agent while it is there, else the running one.
func (r *Repairer) binary(ar *installers.AgentRecord) string {
	if n := len(ar.Binaries); n > 0 {
		b := filepath.FromSlash(ar.Binaries[n-1])
		if fi, err := os.Stat(b); err == nil && fi.Mode().IsRegular() {
			return b
		}
	}
	return r.o.Binary
}

// Run checks at once, then again whenever a watched file's folder reports
// a change to it and every Options.Every, until ctx ends. changed is
// called when an integration changed.
func (r *Repairer) Run(ctx context.Context, changed func()) {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		r.o.Log.Warn("self-repair: cannot watch files; checking every "+r.o.Every.String()+" only", "err", err)
	} else {
		defer w.Close()
	}
	watchedDirs := map[string]bool{}
	files := map[string]bool{}
	// watch follows the folders of list, and reports whether it began to
	// follow one.
	watch := func(list []string) (added bool) {
		clear(files)
		dirs := map[string]bool{}
		for _, f := range list {
			f = filepath.Clean(f)
			files[f] = true
			dirs[filepath.Dir(f)] = true
		}
		for d := range watchedDirs {
			if !dirs[d] {
				w.Remove(d)
				delete(watchedDirs, d)
			}
		}
		for d := range dirs {
			if watchedDirs[d] {
				continue
			}
			if err := w.Add(d); err != nil {
				if !errors.Is(err, fs.ErrNotExist) {
					r.o.Log.Warn("self-repair: cannot watch a folder", "folder", d, "err", err)
				}
				continue
			}
			watchedDirs[d] = true
			added = true
		}
		return added
	}
	check := func() {
		list, ch := r.Check()
		if w != nil && watch(list) {
			// What changed in a folder before it was watched.
			var again bool
			list, again = r.Check()
			watch(list)
			ch = ch || again
		}
		if ch && changed != nil {
			changed()
		}
	}
	check()
	tick := time.NewTicker(r.o.Every)
	defer tick.Stop()
	var events <-chan fsnotify.Event
	var errs <-chan error
	if w != nil {
		events, errs = w.Events, w.Errors
	}
	var settle <-chan time.Time
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-events:
			if !ok {
				events = nil
				continue
			}
			if files[filepath.Clean(ev.Name)] && settle == nil {
				settle = time.After(r.o.Settle)
			}
		case err, ok := <-errs:
			if !ok {
				errs = nil
				continue
			}
			r.o.Log.Warn("self-repair: watching files", "err", err)
		case <-settle:
			settle = nil
			check()
		case <-tick.C:
			check()
		}
	}
}
