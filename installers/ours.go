package installers

import "strings"

// Which hook handlers are clawd's. One rule, used by install (to repair
// rather than duplicate), uninstall (to remove) and doctor (to check):
// a handler is clawd's when its command has the shape clawd writes (see
// SplitCommand: `<executable> hook <agent>[ <Event>]`) and its executable
// is one clawd wrote, which is the case when
//
//   - its file name is clawd's: "clawd", or "clawd" then '-', '.', '_' or
//     a digit and anything (clawd-dev, clawd.1, clawd_test, clawd-1.4,
//     clawd.exe), compared without case, unless it ends like a script
//     (clawd.sh, clawd-wrap.py: a person's own wrapper stays theirs); or
//   - the install record lists it for that agent (Record, which keeps every
//     path clawd wrote, so a binary called anything at all, or renamed
//     since, is still found); or
//   - it is the running binary itself.
//
// Without the record, a binary whose name is not clawd's is found only
// while it runs from the path it wrote.

// Known is what clawd knows it wrote for one agent, beyond executables
// named like clawd: the paths of the install record and of the running
// binary.
type Known struct {
	binaries map[string]bool
}

// NewKnown returns a Known holding paths, as written in commands or as
// native paths: separators do not matter.
func NewKnown(paths ...string) Known {
	k := Known{binaries: map[string]bool{}}
	for _, p := range paths {
		k.add(p)
	}
	return k
}

// With returns k with path added: the binary an install writes is clawd's
// from then on.
func (k Known) With(path string) Known {
	out := Known{binaries: make(map[string]bool, len(k.binaries)+2)}
	for p := range k.binaries {
		out.binaries[p] = true
	}
	out.add(path)
	return out
}

func (k Known) add(p string) {
	if p != "" {
		k.binaries[slashed(p)] = true
	}
}

// slashed writes a path with forward slashes, as Command does on
// Windows, whatever platform reads it.
func slashed(p string) string { return strings.ReplaceAll(p, `\`, "/") }

// Ours reports whether cmd is a hook command of clawd's for agentID, and
// the executable it runs.
func (k Known) Ours(cmd, agentID string) (binary string, ok bool) {
	path, ok := SplitCommand(cmd, agentID)
	if !ok {
		return "", false
	}
	if NamedLikeClawd(path) || k.binaries[slashed(path)] {
		return path, true
	}
	return "", false
}

// NamedLikeClawd reports whether the file name of path (slashes or
// backslashes) is one clawd goes by: clawd itself, or clawd followed by a
// version, a flavour or an extension, but not a script's.
func NamedLikeClawd(path string) bool {
	base := strings.ToLower(path[strings.LastIndexAny(path, `/\`)+1:])
	rest, ok := strings.CutPrefix(base, "clawd")
	if !ok {
		return false
	}
	if rest == "" {
		return true
	}
	if c := rest[0]; c != '-' && c != '.' && c != '_' && (c < '0' || c > '9') {
		return false
	}
	for _, ext := range scriptExtensions {
		if strings.HasSuffix(rest, ext) {
			return false
		}
	}
	return true
}

// scriptExtensions end the names of wrappers people write around clawd.
var scriptExtensions = []string{".sh", ".bash", ".zsh", ".fish", ".py", ".js", ".mjs", ".cjs", ".ts", ".rb", ".pl", ".ps1", ".bat", ".cmd"}
