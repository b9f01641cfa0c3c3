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
