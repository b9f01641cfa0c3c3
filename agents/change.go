package agents

import (
	"strings"

	"github.com/tidwall/gjson"
)

// FileChange is what a tool call would change in a file, as the agent's
// payload says it: text replaced (Edits), the file's whole new text
// (Whole), or a patch the agent made itself (Patch). The runtime shows it
// as a diff; it is never applied.
type FileChange struct {
	// Path is the file, as the agent names it.
	Path string `json:"path,omitempty"`
	// Edits are the replacements in their order: Claude's Edit has one,
	// MultiEdit several; a Write one from "" to the new text.
	Edits []TextEdit `json:"edits,omitempty"`
	// Whole says Edits holds the file's whole new text (a Write): what the
	// file held before is not in the request.
	Whole bool `json:"whole,omitempty"`
	// Patch is a diff the agent wrote itself: opencode's unified diff of
	// the whole file, Codex's apply_patch text.
	Patch string `json:"patch,omitempty"`
	// Cut says there is more than is here: the texts passed MaxEditText
	// (their start is kept, at a line's end where there is one, and the
	// edits that did not fit at all are left out), or the payload was cut
	// before them.
	Cut bool `json:"cut,omitempty"`
}

// TextEdit is one replacement of a FileChange.
type TextEdit struct {
	Old string `json:"old"`
	New string `json:"new"`
	// All replaces every occurrence of Old (Claude's replace_all).
	All bool `json:"all,omitempty"`
}

// Limits of what a Request says beside its tool input.
const (
	// MaxEditText caps the text a FileChange carries, old and new text
	// and patch together: more than the diff a person is shown (the
	// runtime shows a few hundred lines), and small enough that the
	// request, its text JSON-escaped, stays well within what the runtime
	// accepts beside the tool input's own MaxRequestInput.
	MaxEditText = 32 << 10
	// maxDescription, maxURL and maxPrompt bound what a request says of
	// itself in the agent's words: a call's description, a fetch's address
	// and what it asks of the page.
	maxDescription = 2 << 10
	maxURL         = 8 << 10
	maxPrompt      = 4 << 10
)

// editBudget hands out the MaxEditText of one FileChange.
type editBudget struct{ left int }

// take returns as much of s as the budget has left, cut at the end of a
// line when one ends in what fits, and whether it had to cut.
func (b *editBudget) take(s string) (string, bool) {
	if len(s) <= b.left {
		b.left -= len(s)
		return s, false
	}
	kept := clipUTF8(s, b.left)
	if i := strings.LastIndexByte(kept, '\n'); i >= 0 {
		kept = kept[:i+1]
	}
	b.left -= len(kept)
	return kept, true
}

// The input fields of the file tools of Claude Code, which Qwen Code's
// edit and write_file share (read in Qwen Code 0.24.4's tool schemas).
const (
	fieldPath    = "file_path"
	fieldOld     = "old_string"
	fieldNew     = "new_string"
	fieldAll     = "replace_all"
	fieldEdits   = "edits"
	fieldContent = "content"
)

// editChange reads an Edit's input (file_path, old_string, new_string,
// replace_all); cut says the payload was cut, so a text that is not there
// may have been. nil without a file.
func editChange(in gjson.Result, cut bool) *FileChange {
	return textChange(in, cut, func(b *editBudget, c *FileChange) {
		c.Cut = addEdit(b, c, in, cut)
	})
}

// multiEditChange reads a MultiEdit's input: file_path and edits, each an
// Edit's old_string, new_string and replace_all.
func multiEditChange(in gjson.Result, cut bool) *FileChange {
	return textChange(in, cut, func(b *editBudget, c *FileChange) {
		edits := in.Get(fieldEdits)
		if !edits.IsArray() {
			c.Cut = c.Cut || cut
			return
		}
		edits.ForEach(func(_, e gjson.Result) bool {
			if b.left == 0 {
				c.Cut = true // the edits left are not shown
				return false
			}
			c.Cut = addEdit(b, c, e, cut) || c.Cut
			return true
		})
	})
}

// writeChange reads a Write's input (file_path, content): the whole new
// text of the file.
func writeChange(in gjson.Result, cut bool) *FileChange {
	return textChange(in, cut, func(b *editBudget, c *FileChange) {
		c.Whole = true
		content := in.Get(fieldContent)
		if content.Type != gjson.String {
			c.Cut = c.Cut || cut
			return
		}
		text, short := b.take(content.String())
		c.Edits = []TextEdit{{New: text}}
		c.Cut = c.Cut || short
	})
}

// textChange is the FileChange of a file tool's input whose texts read
// puts in: nil without a file_path.
func textChange(in gjson.Result, cut bool, read func(*editBudget, *FileChange)) *FileChange {
	path := in.Get(fieldPath)
	if path.Type != gjson.String || path.String() == "" {
		return nil
	}
	c := &FileChange{Path: clipUTF8(path.String(), MaxPathLen)}
	read(&editBudget{left: MaxEditText}, c)
	return c
}

// addEdit adds the edit e (old_string, new_string, replace_all) to c
// within the budget and reports whether any of it did not fit or was not
// there (in a cut payload).
func addEdit(b *editBudget, c *FileChange, e gjson.Result, cut bool) bool {
	old, repl := e.Get(fieldOld), e.Get(fieldNew)
	if old.Type != gjson.String || repl.Type != gjson.String {
		return cut
	}
	o, short1 := b.take(old.String())
	n, short2 := b.take(repl.String())
	c.Edits = append(c.Edits, TextEdit{Old: o, New: n, All: e.Get(fieldAll).Bool()})
	return short1 || short2
}

// patchChange is the FileChange of a patch the agent wrote itself.
func patchChange(path, patch string) *FileChange {
	b := editBudget{left: MaxEditText}
	p, short := b.take(patch)
	return &FileChange{Path: clipUTF8(path, MaxPathLen), Patch: p, Cut: short}
}

// codexPatchFiles are the files a Codex apply_patch text names, in its
// order ("*** Add File: hello.txt", "*** Update File: ...", "*** Delete
// File: ...").
func codexPatchFiles(patch string) []string {
	var files []string
	for line := range strings.Lines(patch) {
		for _, op := range []string{"*** Add File: ", "*** Update File: ", "*** Delete File: "} {
			if f, ok := strings.CutPrefix(strings.TrimRight(line, "\r\n"), op); ok && f != "" {
				files = append(files, f)
			}
		}
	}
	return files
}

// inputText is the string field name of a tool input, clipped to n
// bytes; "" when it has none.
func inputText(in gjson.Result, name string, n int) string {
	if v := in.Get(name); v.Type == gjson.String {
		return clipUTF8(strings.TrimSpace(v.String()), n)
	}
	return ""
}
