package installers

import "fmt"

// eachFile runs do on each of the installers of one agent's files (Kiro's
// agent files, MiniMax's plugin): first as a dry run of them all, so that
// a file that does not parse, or is not clawd's, stops the change before
// anything is written; then for real (unless opts is a dry run). The
// report is one: the first installer's handlers file, every file.
func eachFile(agent string, list []Installer, opts Options, do func(Installer, Options) (*Report, error)) (*Report, error) {
	dry := opts
	dry.DryRun = true
	var reps []*Report
	for _, i := range list {
		rep, err := do(i, dry)
		if err != nil {
			return nil, fmt.Errorf("%w (nothing was written)", err)
		}
		reps = append(reps, rep)
	}
	if !opts.DryRun {
		reps = reps[:0]
		for _, i := range list {
			rep, err := do(i, opts)
			if err != nil {
				return nil, err
			}
			reps = append(reps, rep)
		}
	}
	out := &Report{Agent: agent, Handlers: reps[0].Handlers}
	for _, r := range reps {
		out.Files = append(out.Files, r.Files...)
		out.Warnings = append(out.Warnings, r.Warnings...)
	}
	return out, nil
}

// eachHooks lists clawd's handlers in each of the installers of one
// agent's files, in order (see Lister).
func eachHooks(list []Installer, opts Options) ([]Hook, error) {
	var out []Hook
	for _, i := range list {
		l, ok := i.(Lister)
		if !ok {
			continue
		}
		hs, err := l.Hooks(opts)
		if err != nil {
			return nil, err
		}
		out = append(out, hs...)
	}
	return out, nil
}

// hookCommands lists the commands of a file of clawd's own in the hooks
// shape cfg says (its "hooks" object), by event: an OwnFile's Commands
// (Kiro's agent of clawd's, MiniMax's plugin).
func hookCommands(cfg hooksConfig) func(data []byte) []Hook {
	return func(data []byte) []Hook {
		root, err := cfg.parse(data)
		if err != nil || root == nil {
			return nil
		}
		hooks, _, err := hooksObject(root)
		if err != nil || hooks == nil {
			return nil
		}
		var out []Hook
		eachHandler(hooks, cfg, func(ei, _, _ int, _ *node, command string) {
			out = append(out, Hook{Event: hooks.members[ei].key, Command: command})
		})
		return out
	}
}
