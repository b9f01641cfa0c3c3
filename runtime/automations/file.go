package automations

import (
	"bytes"
	"fmt"
	"strings"
)

// automations.toml is written by people and by `clawd automations
// add|edit|rm`, which change only the [[automation]] tables they name and
// keep every other byte (comments, layout, other definitions).

// block is one [[automation]] table of the file: its id and the byte range
// from its header to the comments before the next one.
type block struct {
	id         string
	start, end int
}

// blocks finds the [[automation]] tables of data.
func blocks(data []byte) ([]block, error) {
	defs, err := Parse(data, File)
	if err != nil {
		return nil, err
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	var starts []int // byte offsets of the headers
	off := 0
	for _, l := range lines {
		if t := strings.TrimSpace(string(l)); strings.HasPrefix(t, "[[") && strings.TrimSpace(strings.Trim(t, "[]")) == "automation" {
			starts = append(starts, off)
		}
		off += len(l)
	}
	if len(starts) != len(defs) {
		return nil, fmt.Errorf("%s: %d [[automation]] headers for %d definitions: write each as a [[automation]] table to edit it with clawd", File, len(starts), len(defs))
	}
	out := make([]block, len(defs))
	for i, d := range defs {
		end := len(data)
		if i+1 < len(starts) {
			end = commentsBefore(data, starts[i+1])
		}
		out[i] = block{id: d.ID, start: starts[i], end: end}
	}
	return out, nil
}

// commentsBefore moves off back over the comment lines right above it,
// which belong to the table there.
func commentsBefore(data []byte, off int) int {
	for off > 0 {
		prev := bytes.LastIndexByte(data[:off-1], '\n') + 1
		if !bytes.HasPrefix(bytes.TrimSpace(data[prev:off]), []byte("#")) {
			return off
		}
		off = prev
	}
	return off
}

// Add returns data with the definitions of snippet appended, after
// checking that the whole file is valid and the ids new.
func Add(data, snippet []byte) ([]byte, []string, error) {
	defs, err := Parse(snippet, "the new definition")
	if err != nil {
		return nil, nil, err
	}
	if len(defs) == 0 {
		return nil, nil, fmt.Errorf("no [[automation]] table in the new definition")
	}
	var out bytes.Buffer
	out.Write(data)
	if len(data) > 0 && !bytes.HasSuffix(data, []byte("\n")) {
		out.WriteByte('\n')
	}
	if len(data) > 0 {
		out.WriteByte('\n')
	}
	out.Write(bytes.TrimLeft(snippet, "\n"))
	if !bytes.HasSuffix(out.Bytes(), []byte("\n")) {
		out.WriteByte('\n')
	}
	if _, err := Parse(out.Bytes(), File); err != nil {
		return nil, nil, err
	}
	ids := make([]string, len(defs))
	for i, d := range defs {
		ids[i] = d.ID
	}
	return out.Bytes(), ids, nil
}

// Block returns the text of definition id's table.
func Block(data []byte, id string) ([]byte, error) {
	bs, err := blocks(data)
	if err != nil {
		return nil, err
	}
	for _, b := range bs {
		if b.id == id {
			return data[b.start:b.end], nil
		}
	}
	return nil, fmt.Errorf("%w: %s", ErrNoDefinition, id)
}

// Replace returns data with definition id's table replaced by snippet
// (nil: removed), after checking that the result is valid.
func Replace(data []byte, id string, snippet []byte) ([]byte, error) {
	bs, err := blocks(data)
	if err != nil {
		return nil, err
	}
	for _, b := range bs {
		if b.id != id {
			continue
		}
		var out bytes.Buffer
		out.Write(data[:b.start])
		if snippet != nil {
			s := bytes.TrimLeft(snippet, "\n")
			out.Write(s)
			if !bytes.HasSuffix(s, []byte("\n")) {
				out.WriteByte('\n')
			}
			if b.end < len(data) && !bytes.HasSuffix(s, []byte("\n\n")) {
				out.WriteByte('\n')
			}
		}
		out.Write(data[b.end:])
		if _, err := Parse(out.Bytes(), File); err != nil {
			return nil, err
		}
		return out.Bytes(), nil
	}
	return nil, fmt.Errorf("%w: %s", ErrNoDefinition, id)
}
