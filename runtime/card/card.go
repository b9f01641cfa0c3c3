// Package card works out, once per request, what a request's card shows
// beyond its one line: the folder it runs in, named by its repository, and
// what it would change in a file, as a bounded unified diff whose every
// line is safe to show. The runtime puts both into the request's
// client.PermissionView; the dashboard, the tray and the CLI only read
// them.
package card

import (
	"path/filepath"
	"strings"

	"github.com/aymanbagabas/go-udiff"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/internal/repo"
	"github.com/clawdhq/clawd/internal/text"
	"github.com/clawdhq/clawd/runtime/client"
)

// Where names the folder cwd for people (repo.Name) and returns the
// repository root it found ("" for none). Only a local session's folder is
// looked for on disk: a remote machine's path means nothing here, and is
// named by itself.
func Where(cwd string, local bool) (folder, root string) {
	if local {
		root = repo.Root(cwd)
	}
	return repo.Name(cwd, root), root
}

// Bounds of the work, past the agent's own MaxEditText: what the runtime
// diffs of a side, and how long a line it shows.
const (
	maxSide  = 256 << 10
	maxLine  = 400 // runes
	contextN = 3
)

// Diff is c as a client.Diff: the file relative to base (the request's
// repository root, else its folder) when it is inside, the lines bounded by
// client.MaxDiffLines and client.MaxDiffBytes, each through
// text.CodeLine. nil for a nil change.
func Diff(c *agents.FileChange, base string) *client.Diff {
	if c == nil {
		return nil
	}
	d := &client.Diff{Path: text.Line(shownPath(c.Path, base), 0), Whole: c.Whole, Cut: c.Cut, Lines: []string{}}
	w := &writer{d: d}
	switch {
	case c.Patch != "":
		p, cut := side(c.Patch)
		d.Cut = d.Cut || cut
		w.patch(p)
	case c.Whole:
		for _, e := range c.Edits {
			n, cut := side(e.New)
			d.Cut = d.Cut || cut
			for _, l := range lines(n) {
				w.add('+', l)
			}
		}
	default:
		for i, e := range c.Edits {
			d.All = d.All || e.All
			if i > 0 {
				w.add('@', "")
			}
			w.edit(e)
		}
	}
	return d
}

// shownPath is path relative to base when it is inside it (a relative
// path, such as Codex's patches name, stays as it is: filepath.Rel
// refuses it).
func shownPath(path, base string) string {
	if base == "" || path == "" {
		return path
	}
	rel, err := filepath.Rel(base, path)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return path
	}
	return filepath.ToSlash(rel)
}

// side is s cut to maxSide at a line's end, and whether it was cut.
func side(s string) (string, bool) {
	if len(s) <= maxSide {
		return s, false
	}
	s = text.ClipBytes(s, maxSide)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[:i+1]
	}
	return s, true
}

// lines splits s into its lines, without their ends.
func lines(s string) []string {
	var out []string
	for l := range strings.Lines(s) {
		out = append(out, strings.TrimSuffix(l, "\n"))
	}
	return out
}

// writer adds lines to a Diff within its bounds and counts those past
// them.
type writer struct {
	d     *client.Diff
	bytes int
}

func (w *writer) add(kind byte, line string) {
	if len(w.d.Lines) >= client.MaxDiffLines || w.bytes >= client.MaxDiffBytes {
		w.d.More++
		return
	}
	l := string(kind) + text.CodeLine(line, maxLine)
	if w.bytes+len(l) > client.MaxDiffBytes {
		w.bytes = client.MaxDiffBytes
		w.d.More++
		return
	}
	w.bytes += len(l)
	w.d.Lines = append(w.d.Lines, l)
}

// edit adds the diff of one replacement: its hunks, with contextN lines
// around each change, an empty header between two.
func (w *writer) edit(e agents.TextEdit) {
	old, cut1 := side(e.Old)
	repl, cut2 := side(e.New)
	w.d.Cut = w.d.Cut || cut1 || cut2
	if old == repl {
		return
	}
	u, err := udiff.ToUnifiedDiff("", "", old, udiff.Lines(old, repl), contextN)
	if err != nil {
		// Not expected from udiff's own edits: show the texts as they are.
		for _, l := range lines(old) {
			w.add('-', l)
		}
		for _, l := range lines(repl) {
			w.add('+', l)
		}
		return
	}
	for i, h := range u.Hunks {
		if i > 0 {
			w.add('@', "")
		}
		for _, l := range h.Lines {
			kind := byte(' ')
			switch l.Kind {
			case udiff.Delete:
				kind = '-'
			case udiff.Insert:
				kind = '+'
			}
			w.add(kind, strings.TrimSuffix(l.Content, "\n"))
		}
	}
}

// patch adds a diff the agent wrote itself, line by line: a unified diff
// (opencode's, of the whole file) or Codex's apply_patch text. Inside a
// hunk (after "@@", or Codex's "*** Add File:") a line keeps its kind;
// the lines that say which file ("*** Update File: a.go") are headers; the
// ones that only frame the patch (Index:, ===, ---/+++ file names, Codex's
// Begin and End Patch) are left out, the file being the Diff's Path.
func (w *writer) patch(p string) {
	hunk := false
	for _, l := range lines(p) {
		l = strings.TrimSuffix(l, "\r")
		switch {
		case strings.HasPrefix(l, "@@"):
			hunk = true
			w.add('@', l)
		case l == "*** Begin Patch" || l == "*** End Patch" || l == "*** End of File":
		case strings.HasPrefix(l, "*** "):
			hunk = strings.HasPrefix(l, "*** Add File: ") || strings.HasPrefix(l, "*** Update File: ")
			w.add('@', l)
		case strings.HasPrefix(l, "Index: ") || strings.HasPrefix(l, "====") || strings.HasPrefix(l, "diff "):
			hunk = false
		case !hunk && (strings.HasPrefix(l, "--- ") || strings.HasPrefix(l, "+++ ")):
		case hunk && l != "" && (l[0] == '+' || l[0] == '-' || l[0] == ' '):
			w.add(l[0], l[1:])
		case hunk && l == "":
			w.add(' ', "") // an empty context line whose space was trimmed
		default:
			w.add('@', l) // "\ No newline at end of file", a line of its own
		}
	}
}
