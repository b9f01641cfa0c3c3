package main

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
)

// maxScanFile bounds a file scanTree reads (Claude Code's native binary
// is ~400 MB).
const maxScanFile = 1 << 30

// scanTree returns the event names the files under root name beside the
// known ones (see scanNames). A file reached twice (a hard link) is read
// once.
func scanTree(root string, known map[string]bool) (map[string]bool, error) {
	names := map[string]bool{}
	var seen []os.FileInfo
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.Type().IsRegular() {
			return nil
		}
		fi, err := d.Info()
		if err != nil || fi.Size() == 0 || fi.Size() > maxScanFile {
			return err
		}
		if fi.Size() > 1<<20 {
			for _, s := range seen {
				if os.SameFile(s, fi) {
					return nil
				}
			}
			seen = append(seen, fi)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		scanNames(b, known, names)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("scan %s: %w", root, err)
	}
	return names, nil
}

// isQuote reports whether c opens a string in JavaScript or Rust's serde
// messages.
func isQuote(c byte) bool { return c == '"' || c == '\'' || c == '`' }

// isNameByte reports whether c may be part of an event name: SessionStart,
// sessionStart, session.created, tool_execution_start.
func isNameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.'
}

// maxName bounds an event name.
const maxName = 64

// quotedAt reads a quoted name whose opening quote is at i: its end (one
// past the closing quote) and the name, or ok false.
func quotedAt(b []byte, i int) (end int, name string, ok bool) {
	if i >= len(b) || !isQuote(b[i]) {
		return 0, "", false
	}
	q := b[i]
	j := i + 1
	for j < len(b) && j-i <= maxName && isNameByte(b[j]) {
		j++
	}
	if j == i+1 || j >= len(b) || b[j] != q || !(b[i+1] >= 'a' && b[i+1] <= 'z' || b[i+1] >= 'A' && b[i+1] <= 'Z') {
		return 0, "", false
	}
	return j + 1, string(b[i+1 : j]), true
}

// quotedBefore reads a quoted name whose closing quote is at i: its start
// (the opening quote) and the name.
func quotedBefore(b []byte, i int) (start int, name string, ok bool) {
	if i <= 0 || !isQuote(b[i]) {
		return 0, "", false
	}
	q := b[i]
	j := i - 1
	for j >= 0 && i-j <= maxName && isNameByte(b[j]) {
		j--
	}
	if j < 0 || b[j] != q || j == i-1 {
		return 0, "", false
	}
	if _, n, ok := quotedAt(b, j); ok {
		return j, n, true
	}
	return 0, "", false
}

func isSpace(c byte) bool { return c == ' ' || c == '\n' || c == '\t' || c == '\r' }

// minKnown is how many known events a list must hold to be a list of
// events.
const minKnown = 3

// scanNames adds to names the event names b holds beside known ones:
//
//   - every name of a comma-separated list of quoted names (a JavaScript
//     array, a serde "expected one of `A`, `B`" message) that holds at
//     least minKnown known events;
//   - every member of a TypeScript string enum (HookEventName["Stop"] =
//     "Stop") that holds at least minKnown known events;
//   - the constant a hook input schema gives hook_event_name (JSON schema
//     `"hook_event_name": {"const": "Stop"`, zod `hook_event_name:P("Stop")`,
//     `hookEventName: "Stop"`).
//
// Both releases of an agent are read alike, so what else such lists hold
// cancels out when they are compared.
func scanNames(b []byte, known map[string]bool, names map[string]bool) {
	done := map[int]bool{} // lists already read, by their start
	for i := 0; i < len(b); i++ {
		if !isQuote(b[i]) {
			continue
		}
		end, name, ok := quotedAt(b, i)
		if !ok {
			continue
		}
		if known[name] {
			start, list := listAround(b, i, end)
			if !done[start] {
				done[start] = true
				n := 0
				for _, s := range list {
					if known[s] {
						n++
					}
				}
				if n >= minKnown {
					for _, s := range list {
						names[s] = true
					}
				}
			}
		}
		i = end - 1
	}
	for _, anchor := range [][]byte{[]byte("hook_event_name"), []byte("hookEventName")} {
		for off := 0; ; {
			k := bytes.Index(b[off:], anchor)
			if k < 0 {
				break
			}
			at := off + k
			if m := hookEventConst.FindSubmatch(b[at:min(len(b), at+128)]); m != nil {
				names[string(m[1])] = true
			}
			off = at + len(anchor)
		}
	}
	enums := map[string][]string{}
	for _, anchor := range [][]byte{[]byte(`"] = "`), []byte(`"]="`), []byte(`'] = '`), []byte(`']='`)} {
		for off := 0; ; {
			k := bytes.Index(b[off:], anchor)
			if k < 0 {
				break
			}
			at := off + k
			if enum, key, ok := enumMemberAt(b, at, len(anchor)); ok {
				enums[enum] = append(enums[enum], key)
			}
			off = at + len(anchor)
		}
	}
	for _, members := range enums {
		n := 0
		for _, s := range members {
			if known[s] {
				n++
			}
		}
		if n >= minKnown {
			for _, s := range members {
				names[s] = true
			}
		}
	}
}

// enumMemberAt reads a member of a TypeScript string enum as tsc compiles
// it, HookEventName2["BeforeTool"] = "BeforeTool", around its `"] = "` at
// at (n bytes long): the enum's name and the member, which must be its
// own value.
func enumMemberAt(b []byte, at, n int) (enum, member string, ok bool) {
	start, key, ok := quotedBefore(b, at)
	if !ok || start == 0 || b[start-1] != '[' {
		return "", "", false
	}
	_, val, ok := quotedAt(b, at+n-1)
	if !ok || val != key {
		return "", "", false
	}
	j := start - 1
	for j > 0 && j > start-64 && isIdentByte(b[j-1]) {
		j--
	}
	if j == start-1 {
		return "", "", false
	}
	return string(b[j : start-1]), key, true
}

func isIdentByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '$'
}

// hookEventConst matches a schema's constant for hook_event_name.
var hookEventConst = regexp.MustCompile(`^(?:hook_event_name|hookEventName)["']?\s*:\s*(?:\{\s*"const"\s*:\s*|[A-Za-z_$][A-Za-z0-9_$]{0,7}\()?["']([A-Za-z][A-Za-z0-9_.]{0,63})["']`)

// listAround returns the comma-separated list of quoted names that the
// quoted name at [i, end) belongs to, and where the list starts.
func listAround(b []byte, i, end int) (int, []string) {
	_, first, _ := quotedAt(b, i)
	list := []string{first}
	start := i
	for {
		k := start - 1
		for k >= 0 && isSpace(b[k]) {
			k--
		}
		if k < 0 || b[k] != ',' {
			break
		}
		k--
		for k >= 0 && isSpace(b[k]) {
			k--
		}
		s, name, ok := quotedBefore(b, k)
		if !ok {
			break
		}
		list = append(list, name)
		start = s
	}
	for j := end; ; {
		for j < len(b) && isSpace(b[j]) {
			j++
		}
		if j >= len(b) || b[j] != ',' {
			break
		}
		j++
		for j < len(b) && isSpace(b[j]) {
			j++
		}
		e, name, ok := quotedAt(b, j)
		if !ok {
			break
		}
		list = append(list, name)
		j = e
	}
	return start, list
}
