package installers

import (
	"errors"
	"fmt"

	"github.com/clawdhq/clawd/internal/health"
)

// ErrNotOurs reports a file at the place of clawd's own file that clawd
// did not write: it is left alone.
var ErrNotOurs = errors.New("not clawd's file")

// OwnFile is the engine for an agent that reads hooks from a file of
// clawd's own (Copilot's ~/.copilot/hooks/clawd.json, opencode's
// plugin/clawd.js): install writes the whole file, or rewrites it when it
// is clawd's but differs (another binary, an older version); uninstall
// deletes it. A file at that place that is not clawd's is never touched.
// No backup is taken: the file holds nothing but clawd's.
type OwnFile struct {
	// Agent is the agent's id.
	Agent string
	// Path is the file.
	Path string
	// Render returns the file's content for binary and how many hooks it
	// registers.
	Render func(binary string) (data []byte, hooks int)
	// Ours reports whether data is a file clawd wrote, for any binary
	// known names (its command shape, a marker of clawd's), and how many
	// hooks it registers.
	Ours func(data []byte, known Known) (hooks int, ok bool)
	// Commands returns the handlers of a file of clawd's, for doctor
	// (see Lister): their events ("" for one command of every event) and
	// commands; nil lists none.
	Commands func(data []byte) []Hook
	// Check, when set, is the agent's own checks (see Checker): its
	// settings beyond clawd's file that keep it from running hooks.
	Check func(opts Options) []health.Check

	// beforeCheck runs just before the file is replaced; tests use it.
	beforeCheck func(path string)
}

// Install writes the file for binary, unless it is there already as is.
func (f *OwnFile) Install(binary string, opts Options) (*Report, error) {
	if err := CheckBinary(binary); err != nil {
		return nil, err
	}
	t, err := f.read(opts)
	if err != nil {
		return nil, err
	}
	known := opts.Known.With(binary)
	out, n := f.Render(binary)
	ch := Changes{Added: n}
	if t.existed {
		old, ok := f.Ours(t.old, known)
		if !ok {
			return nil, f.notOurs()
		}
		kept := min(old, n)
		ch = Changes{Repaired: kept, Added: n - kept, Removed: old - kept}
	}
	return f.commit(t, out, ch, false, opts)
}

// Uninstall deletes the file if it is clawd's.
func (f *OwnFile) Uninstall(opts Options) (*Report, error) {
	t, err := f.read(opts)
	if err != nil {
		return nil, err
	}
	if !t.existed {
		return f.commit(t, nil, Changes{}, false, opts)
	}
	n, ok := f.Ours(t.old, opts.Known)
	if !ok {
		return nil, f.notOurs()
	}
	return f.commit(t, nil, Changes{Removed: n}, true, opts)
}

func (f *OwnFile) read(opts Options) (*target, error) {
	t, err := readTarget(f.Agent, f.Path)
	if err != nil {
		return nil, err
	}
	t.only, t.diff, t.noBackup = true, opts.DryRun, true
	return t, nil
}

func (f *OwnFile) notOurs() error {
	return fmt.Errorf("%s: %w: another program put a file there; move it away and run again (the file was left untouched)", f.Path, ErrNotOurs)
}

// commit plans and, unless a dry run, writes the change of the file.
func (f *OwnFile) commit(t *target, out []byte, ch Changes, remove bool, opts Options) (*Report, error) {
	if !remove && string(out) == string(t.old) && t.existed {
		ch = Changes{}
	}
	r := t.plan(out, ch, remove)
	if !opts.DryRun {
		if err := write([]*target{t}, []*Result{&r}, f.beforeCheck); err != nil {
			return nil, err
		}
	}
	return &Report{Agent: f.Agent, Handlers: f.Path, Files: []Result{r}}, nil
}

// Checks runs the agent's own checks (OwnFile.Check), if it has any.
func (f *OwnFile) Checks(opts Options) []health.Check {
	if f.Check == nil {
		return nil
	}
	return f.Check(opts)
}

// Hooks lists the hook commands of the file, if it is clawd's.
func (f *OwnFile) Hooks(opts Options) ([]Hook, error) {
	t, err := readTarget(f.Agent, f.Path)
	if err != nil || !t.existed {
		return nil, err
	}
	if _, ok := f.Ours(t.old, opts.Known); !ok || f.Commands == nil {
		return nil, nil
	}
	out := f.Commands(t.old)
	for i := range out {
		out[i].File = f.Path
		out[i].Binary, _ = opts.Known.Ours(out[i].Command, f.Agent)
	}
	return out, nil
}
