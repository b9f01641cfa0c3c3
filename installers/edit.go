package installers

import (
	"bytes"
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The minimal-edit engine. A file is never re-encoded: the parser records
// where every value sits, and a change is a list of byte-range edits
// computed from that tree. New fragments follow the file's own layout.
// Removing an item deletes exactly the bytes that appending it inserted
// (its preceding comma, the whitespace copied from its sibling, and the
// item), so install followed by uninstall restores the file byte for byte.

// edit replaces data[start:end] with text.
type edit struct {
	start, end int
	text       string
}

// applyEdits returns data with edits applied. Edits must not overlap;
// insertions at one offset keep their order.
func applyEdits(data []byte, edits []edit) ([]byte, error) {
	edits = slices.Clone(edits)
	slices.SortStableFunc(edits, func(a, b edit) int {
		if c := cmp.Compare(a.start, b.start); c != 0 {
			return c
		}
		return cmp.Compare(a.end, b.end)
	})
	var out bytes.Buffer
	pos := 0
	for _, e := range edits {
		if e.start < pos || e.end < e.start || e.end > len(data) {
			return nil, fmt.Errorf("internal error: overlapping edits at byte %d", e.start)
		}
		out.Write(data[pos:e.start])
		out.WriteString(e.text)
		pos = e.end
	}
	out.Write(data[pos:])
	return out.Bytes(), nil
}

// object and array are values to render, with their order kept.
type (
	object []field
	array  []any
)

// field is one member of an object to render.
type field struct {
	key   string
	value any // string, int, bool, object or array
}

// layout is how a file is formatted, so new fragments look like the rest.
type layout struct {
	nl    string // line ending: "\n" or "\r\n"
	unit  string // one level of indentation
	colon string // between a member name and its value: ":" or ": "
	// compact is set when the whole document is one line: new content is
	// written on one line too.
	compact bool
	comma   string // between items on one line: "," or ", "
}

// defaultLayout is what a new file gets: Claude Code's own formatting
// (JSON.stringify with two spaces).
var defaultLayout = layout{nl: "\n", unit: "  ", colon: ": ", comma: ", "}

// detectLayout reads the formatting of a parsed file.
func detectLayout(data []byte, root *node) layout {
	l := defaultLayout
	if i := bytes.IndexByte(data, '\n'); i > 0 && data[i-1] == '\r' {
		l.nl = "\r\n"
	}
	// The indentation unit is the leading whitespace of the first indented
	// line.
	for _, line := range bytes.Split(data[root.start:root.end], []byte("\n"))[1:] {
		trimmed := bytes.TrimLeft(line, " \t")
		if len(trimmed) < len(line) && len(bytes.TrimSpace(trimmed)) > 0 {
			l.unit = string(line[:len(line)-len(trimmed)])
			break
		}
	}
	if len(root.members) > 0 {
		m := root.members[0]
		gap := data[m.keyEnd:m.value.start]
		if string(gap) == ":" {
			l.colon = ":"
			l.comma = ","
		}
	}
	l.compact = (len(root.members) > 0 || len(root.elems) > 0) &&
		!bytes.ContainsAny(data[root.start:root.end], "\r\n")
	return l
}

// editor collects the edits of one change to a file.
type editor struct {
	data  []byte
	l     layout
	edits []edit
}

func (ed *editor) replace(n *node, v any) {
	ed.edits = append(ed.edits, edit{n.start, n.end, render(v, ed.l, "", false, "")})
}

// span is the bytes of one item of a container: an element, or a member
// from its name to the end of its value.
type span struct{ start, end int }

func items(c *node) []span {
	var s []span
	for _, m := range c.members {
		s = append(s, span{m.keyStart, m.value.end})
	}
	for _, e := range c.elems {
		s = append(s, span{e.start, e.end})
	}
	return s
}

// container removes the items of c whose indexes are in drop and appends
// add (fields for an object, values for an array). Removing every item
// empties c completely: "{}" or "[]". Comments (JSONC) between and around
// items are kept, byte for byte.
func (ed *editor) container(c *node, drop map[int]bool, add []any) {
	its := items(c)
	lastKept := -1
	for i := range its {
		if !drop[i] {
			lastKept = i
		}
	}
	if lastKept < 0 {
		if len(its) == 0 && len(add) == 0 {
			return
		}
		if !ed.commentBetween(c, its) {
			ed.edits = append(ed.edits, edit{c.start + 1, c.end - 1, ed.fresh(c, add)})
			return
		}
		// Keep the comments: the items go one by one, new ones come first.
		for i := range its {
			ed.dropItem(its, i, false)
		}
		if len(add) > 0 {
			ed.edits = append(ed.edits, edit{c.start + 1, c.start + 1, ed.fresh(c, add)})
		}
		return
	}
	keptBefore := false
	for i := range its {
		if !drop[i] {
			keptBefore = true
			continue
		}
		ed.dropItem(its, i, keptBefore)
	}
	if len(add) == 0 {
		return
	}
	last := its[lastKept]
	sep := string(leadingSpace(ed.data, last.start))
	var b strings.Builder
	if nl := strings.LastIndexByte(sep, '\n'); nl >= 0 {
		indent := sep[nl+1:]
		for _, v := range add {
			b.WriteString(",")
			b.WriteString(sep)
			b.WriteString(renderItem(v, ed.l, indent, true, ""))
		}
	} else {
		comma := "," + sep
		for _, v := range add {
			b.WriteString(comma)
			b.WriteString(renderItem(v, ed.l, "", false, comma))
		}
	}
	ed.edits = append(ed.edits, edit{last.end, last.end, b.String()})
}

// dropItem removes item i of its. With an item kept before it, it goes
// with the comma before it (",<ws>item": the inverse of an append);
// otherwise with the comma after it ("item,<ws>" up to the next item).
// Where a comment stands between the items, only the item, its comma and
// the blanks next to them go: comments are never removed.
func (ed *editor) dropItem(its []span, i int, keptBefore bool) {
	it := its[i]
	if keptBefore {
		prev := its[i-1].end
		gap := ed.data[prev:it.start]
		if !hasComment(gap) {
			ed.edits = append(ed.edits, edit{prev, it.end, ""})
			return
		}
		comma := prev + commaIn(gap)
		ed.edits = append(ed.edits, edit{comma, comma + 1, ""})
		ed.edits = append(ed.edits, edit{max(comma+1, it.start-len(leadingSpace(ed.data, it.start))), it.end, ""})
		return
	}
	if i+1 >= len(its) {
		ed.edits = append(ed.edits, edit{it.start, it.end, ""})
		return
	}
	next := its[i+1].start
	gap := ed.data[it.end:next]
	if !hasComment(gap) {
		ed.edits = append(ed.edits, edit{it.start, next, ""})
		return
	}
	end := it.end + commaIn(gap) + 1
	for end < next && (ed.data[end] == ' ' || ed.data[end] == '\t') {
		end++
	}
	ed.edits = append(ed.edits, edit{it.start, end, ""})
}

// hasComments reports whether a comment stands between the items of any
// of cs. Uninstall drops a container that only held clawd's entries,
// unless the person commented in it: then it stays, emptied, with the
// comments.
func (ed *editor) hasComments(cs ...*node) bool {
	for _, c := range cs {
		if ed.commentBetween(c, items(c)) {
			return true
		}
	}
	return false
}

// commentBetween reports whether a comment stands anywhere inside c but
// within its items.
func (ed *editor) commentBetween(c *node, its []span) bool {
	from := c.start + 1
	for _, it := range its {
		if hasComment(ed.data[from:it.start]) {
			return true
		}
		from = it.end
	}
	return hasComment(ed.data[from : c.end-1])
}

// hasComment reports whether gap, the bytes between two items of a
// container (blanks, a comma), holds a comment: only a comment has a '/'
// there.
func hasComment(gap []byte) bool { return bytes.IndexByte(gap, '/') >= 0 }

// commaIn returns the offset of the comma in gap, the bytes between two
// items, skipping comments.
func commaIn(gap []byte) int {
	for i := 0; i < len(gap); i++ {
		switch {
		case gap[i] == ',':
			return i
		case gap[i] == '/':
			i += commentLen(gap[i:]) - 1
		}
	}
	return -1
}

// fresh renders the inside of container c holding only add.
func (ed *editor) fresh(c *node, add []any) string {
	if len(add) == 0 {
		return ""
	}
	var b strings.Builder
	if ed.l.compact {
		for i, v := range add {
			if i > 0 {
				b.WriteString(ed.l.comma)
			}
			b.WriteString(renderItem(v, ed.l, "", false, ed.l.comma))
		}
		return b.String()
	}
	indent := lineIndent(ed.data, c.start)
	for i, v := range add {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(ed.l.nl)
		b.WriteString(indent + ed.l.unit)
		b.WriteString(renderItem(v, ed.l, indent+ed.l.unit, true, ""))
	}
	b.WriteString(ed.l.nl)
	b.WriteString(indent)
	return b.String()
}

// leadingSpace returns the whitespace just before offset.
func leadingSpace(data []byte, off int) []byte {
	i := off
	for i > 0 && isSpace(data[i-1]) {
		i--
	}
	return data[i:off]
}

// lineIndent returns the leading blanks of the line holding offset.
func lineIndent(data []byte, off int) string {
	start := bytes.LastIndexByte(data[:off], '\n') + 1
	end := start
	for end < off && (data[end] == ' ' || data[end] == '\t') {
		end++
	}
	return string(data[start:end])
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// renderItem renders a field as `"key": value` or any other value as
// itself.
func renderItem(v any, l layout, indent string, multi bool, comma string) string {
	if f, ok := v.(field); ok {
		return quote(f.key) + l.colon + render(f.value, l, indent, multi, comma)
	}
	return render(v, l, indent, multi, comma)
}

// render renders v. With multi, each item goes on its own line, indented
// one unit deeper than indent (the indentation of the line v starts on);
// otherwise items are joined by comma on one line.
func render(v any, l layout, indent string, multi bool, comma string) string {
	if comma == "" {
		comma = l.comma
	}
	var its []any
	open, close := "", ""
	switch v := v.(type) {
	case string:
		return quote(v)
	case int:
		return strconv.Itoa(v)
	case bool:
		return strconv.FormatBool(v)
	case object:
		open, close = "{", "}"
		for _, f := range v {
			its = append(its, f)
		}
	case array:
		open, close = "[", "]"
		its = v
	default:
		panic(fmt.Sprintf("installers: cannot render %T", v))
	}
	if len(its) == 0 {
		return open + close
	}
	var b strings.Builder
	b.WriteString(open)
	for i, it := range its {
		if multi {
			if i > 0 {
				b.WriteString(",")
			}
			b.WriteString(l.nl + indent + l.unit)
			b.WriteString(renderItem(it, l, indent+l.unit, true, ""))
		} else {
			if i > 0 {
				b.WriteString(comma)
			}
			b.WriteString(renderItem(it, l, "", false, comma))
		}
	}
	if multi {
		b.WriteString(l.nl + indent)
	}
	b.WriteString(close)
	return b.String()
}

// quote renders s as a JSON string. Unlike encoding/json it leaves <, >
// and & alone: settings files are not HTML.
func quote(s string) string { return jsonQuoting.quote(s) }

// quoting is how one format writes a string between double quotes: '"'
// and '\\' are always escaped, the rest differs.
type quoting struct {
	// short lists the control characters written as a backslash and a
	// letter; the other ones are written with hex.
	short string
	// hex formats the other escapes: `\u%04x` or `\u%04X`.
	hex string
	// del is set when DEL (0x7f) is escaped too.
	del bool
	// invalid is what a byte that is not UTF-8 becomes.
	invalid string
}

var (
	jsonQuoting  = quoting{short: "\n\r\t", hex: `\u%04x`, invalid: `\ufffd`}
	serdeQuoting = quoting{short: "\b\f\n\r\t", hex: `\u%04x`, invalid: "\uFFFD"}
	tomlQuoting  = quoting{short: "\b\f\n\r\t", hex: `\u%04X`, del: true, invalid: "\uFFFD"}
)

// shortEscapes are the backslash-letter escapes JSON and TOML share.
var shortEscapes = map[rune]string{'\b': `\b`, '\f': `\f`, '\n': `\n`, '\r': `\r`, '\t': `\t`}

func (q quoting) quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r < 0x20 && strings.ContainsRune(q.short, r):
			b.WriteString(shortEscapes[r])
		case r < 0x20 || r == 0x7f && q.del:
			fmt.Fprintf(&b, q.hex, r)
		case r == utf8.RuneError:
			if _, size := utf8.DecodeRuneInString(s[i:]); size == 1 {
				b.WriteString(q.invalid)
			} else {
				b.WriteRune(r)
			}
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
