package installers

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/BurntSushi/toml"
)

// The minimal-edit TOML editor. Like the JSON engine it never re-encodes a
// file: BurntSushi/toml decides whether the file is valid (before and
// after every edit), and a small scanner records where each table header
// and key/value line sits, so that a change is a list of byte-range edits.
// It knows exactly what clawd needs: finding tables by their header,
// replacing a value, adding a line to a table, and adding or removing
// whole tables so that removal deletes exactly the bytes adding inserted.

// ErrUnparseableTOML reports a config file that is not valid TOML. Nothing
// is ever written over such a file.
var ErrUnparseableTOML = errors.New("not valid TOML")

// TOMLSyntaxError is a TOML syntax error at a position in a file. It
// matches ErrUnparseableTOML under errors.Is.
type TOMLSyntaxError struct {
	// Line and Col are 1-based.
	Line, Col int
	// Msg says what is wrong.
	Msg string
}

func (e *TOMLSyntaxError) Error() string {
	if e.Line == 0 {
		return "invalid TOML: " + e.Msg
	}
	return fmt.Sprintf("invalid TOML at line %d, column %d: %s", e.Line, e.Col, e.Msg)
}

// Unwrap makes errors.Is(err, ErrUnparseableTOML) hold.
func (e *TOMLSyntaxError) Unwrap() error { return ErrUnparseableTOML }

// decodeTOML decodes data into a generic map, reporting a syntax error as
// a *TOMLSyntaxError. Blank data decodes to an empty map.
func decodeTOML(data []byte) (map[string]any, error) {
	m := map[string]any{}
	if !utf8.Valid(data) {
		return nil, &TOMLSyntaxError{Msg: "the file is not valid UTF-8"}
	}
	if _, err := toml.Decode(string(bytes.TrimPrefix(data, []byte(utf8BOM))), &m); err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			msg := strings.TrimSuffix(pe.Message, ".")
			return nil, &TOMLSyntaxError{Line: pe.Position.Line, Col: pe.Position.Col, Msg: msg}
		}
		return nil, &TOMLSyntaxError{Msg: err.Error()}
	}
	return m, nil
}

// tomlDoc is where the tables and key/value lines of a TOML file are.
type tomlDoc struct {
	data []byte
	// tables in file order; tables[0] is the root table (the key/values
	// before the first header), whose start is -1.
	tables []*tomlTable
	// nl is the file's line ending.
	nl string
	// bom is the length of a leading byte order mark.
	bom int
}

// tomlTable is one table header and the key/value lines under it.
type tomlTable struct {
	// array is set for an array-of-tables header: [[...]].
	array bool
	// path is the decoded header key; parts are the bytes of each of its
	// parts as written (quotes included).
	path  []string
	parts []span
	// start is the start of the header's line; end is the end (before the
	// line break) of its last header or key/value line.
	start, end int
	entries    []*tomlEntry
}

// tomlEntry is one key/value line.
type tomlEntry struct {
	// path is the dotted key relative to the table.
	path []string
	// start is the start of the key; value the bytes of the value; end
	// the end of the line the value ends on, before the line break.
	start int
	value span
	end   int
}

// get returns the entry of t with exactly the key path, or nil.
func (t *tomlTable) get(path ...string) *tomlEntry {
	for _, e := range t.entries {
		if slices.Equal(e.path, path) {
			return e
		}
	}
	return nil
}

// is reports whether t is a standard or array table with this path.
func (t *tomlTable) is(array bool, path ...string) bool {
	return t.start >= 0 && t.array == array && slices.Equal(t.path, path)
}

// scanTOML finds the tables and entries of data, which decodeTOML has
// accepted.
func scanTOML(data []byte) (*tomlDoc, error) {
	s := &tomlScanner{data: data}
	doc := &tomlDoc{data: data, nl: "\n"}
	if i := bytes.IndexByte(data, '\n'); i > 0 && data[i-1] == '\r' {
		doc.nl = "\r\n"
	}
	if bytes.HasPrefix(data, []byte(utf8BOM)) {
		doc.bom = len(utf8BOM)
		s.pos = doc.bom
	}
	cur := &tomlTable{start: -1, end: -1}
	doc.tables = append(doc.tables, cur)
	for s.pos < len(data) {
		lineStart := s.pos
		s.skipBlank()
		if s.pos >= len(data) {
			break
		}
		switch c := data[s.pos]; {
		case c == '\n':
			s.pos++
			continue
		case c == '\r' && s.pos+1 < len(data) && data[s.pos+1] == '\n':
			s.pos += 2
			continue
		case c == '#':
			s.skipComment()
			continue
		case c == '[':
			t := &tomlTable{start: lineStart}
			s.pos++
			if s.pos < len(data) && data[s.pos] == '[' {
				t.array = true
				s.pos++
			}
			path, parts, err := s.key()
			if err != nil {
				return nil, err
			}
			t.path, t.parts = path, parts
			s.skipBlank()
			if err := s.expect("]"); err != nil {
				return nil, err
			}
			if t.array {
				if err := s.expect("]"); err != nil {
					return nil, err
				}
			}
			if err := s.endLine(); err != nil {
				return nil, err
			}
			t.end = s.lineEnd()
			cur = t
			doc.tables = append(doc.tables, t)
		default:
			e := &tomlEntry{start: s.pos}
			path, _, err := s.key()
			if err != nil {
				return nil, err
			}
			e.path = path
			s.skipBlank()
			if err := s.expect("="); err != nil {
				return nil, err
			}
			s.skipBlank()
			e.value.start = s.pos
			if err := s.value(0); err != nil {
				return nil, err
			}
			e.value.end = s.pos
			if err := s.endLine(); err != nil {
				return nil, err
			}
			e.end = s.lineEnd()
			cur.entries = append(cur.entries, e)
			cur.end = e.end
		}
		// Step over the line break.
		if s.pos < len(data) && data[s.pos] == '\r' {
			s.pos++
		}
		if s.pos < len(data) && data[s.pos] == '\n' {
			s.pos++
		}
	}
	return doc, nil
}

// tomlScanner walks a TOML file that is known to be valid; its errors
// mean the scanner met something it does not understand.
type tomlScanner struct {
	data []byte
	pos  int
}

func (s *tomlScanner) errorf(format string, args ...any) error {
	line, col := position(s.data, s.pos)
	return fmt.Errorf("internal error: cannot follow the TOML at line %d, column %d: %s", line, col, fmt.Sprintf(format, args...))
}

func (s *tomlScanner) skipBlank() {
	for s.pos < len(s.data) && (s.data[s.pos] == ' ' || s.data[s.pos] == '\t') {
		s.pos++
	}
}

func (s *tomlScanner) skipComment() {
	for s.pos < len(s.data) && s.data[s.pos] != '\n' && !(s.data[s.pos] == '\r' && s.pos+1 < len(s.data) && s.data[s.pos+1] == '\n') {
		s.pos++
	}
}

// skipSpace skips blanks, line breaks and comments (inside arrays and
// inline tables).
func (s *tomlScanner) skipSpace() {
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ' ', '\t', '\r', '\n':
			s.pos++
		case '#':
			s.skipComment()
		default:
			return
		}
	}
}

func (s *tomlScanner) expect(tok string) error {
	if !bytes.HasPrefix(s.data[s.pos:], []byte(tok)) {
		return s.errorf("expected %q", tok)
	}
	s.pos += len(tok)
	return nil
}

// endLine skips what may follow a header or value on its line: blanks and
// a comment.
func (s *tomlScanner) endLine() error {
	s.skipBlank()
	if s.pos < len(s.data) && s.data[s.pos] == '#' {
		s.skipComment()
	}
	if s.pos < len(s.data) && s.data[s.pos] != '\n' && s.data[s.pos] != '\r' {
		return s.errorf("expected the end of the line")
	}
	return nil
}

// lineEnd is where the current line ends, before its line break; s.pos
// is at the break or at the end of the file.
func (s *tomlScanner) lineEnd() int { return s.pos }

// key reads a dotted key and returns its decoded parts and where each is.
func (s *tomlScanner) key() ([]string, []span, error) {
	var path []string
	var spans []span
	for {
		s.skipBlank()
		start := s.pos
		if s.pos >= len(s.data) {
			return nil, nil, s.errorf("expected a key")
		}
		var part string
		switch s.data[s.pos] {
		case '"':
			v, err := s.basicString()
			if err != nil {
				return nil, nil, err
			}
			part = v
		case '\'':
			end := bytes.IndexByte(s.data[s.pos+1:], '\'')
			if end < 0 {
				return nil, nil, s.errorf("unterminated literal key")
			}
			part = string(s.data[s.pos+1 : s.pos+1+end])
			s.pos += end + 2
		default:
			for s.pos < len(s.data) && isBareKeyByte(s.data[s.pos]) {
				s.pos++
			}
			if s.pos == start {
				return nil, nil, s.errorf("expected a key")
			}
			part = string(s.data[start:s.pos])
		}
		path = append(path, part)
		spans = append(spans, span{start, s.pos})
		s.skipBlank()
		if s.pos < len(s.data) && s.data[s.pos] == '.' {
			s.pos++
			continue
		}
		return path, spans, nil
	}
}

func isBareKeyByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// basicString reads a one-line basic string at s.pos and decodes it.
func (s *tomlScanner) basicString() (string, error) {
	s.pos++ // opening quote
	var b strings.Builder
	for s.pos < len(s.data) {
		c := s.data[s.pos]
		switch {
		case c == '"':
			s.pos++
			return b.String(), nil
		case c == '\\' && s.pos+1 < len(s.data):
			n := 0
			switch e := s.data[s.pos+1]; e {
			case 'b':
				b.WriteByte('\b')
			case 't':
				b.WriteByte('\t')
			case 'n':
				b.WriteByte('\n')
			case 'f':
				b.WriteByte('\f')
			case 'r':
				b.WriteByte('\r')
			case 'e':
				b.WriteByte(0x1b)
			case '"', '\\':
				b.WriteByte(e)
			case 'x':
				n = 2
			case 'u':
				n = 4
			case 'U':
				n = 8
			default:
				return "", s.errorf("unknown escape")
			}
			s.pos += 2
			if n > 0 {
				if s.pos+n > len(s.data) {
					return "", s.errorf("short escape")
				}
				r, err := strconv.ParseUint(string(s.data[s.pos:s.pos+n]), 16, 32)
				if err != nil {
					return "", s.errorf("bad escape")
				}
				b.WriteRune(rune(r))
				s.pos += n
			}
		case c == '\n':
			return "", s.errorf("unterminated string")
		default:
			b.WriteByte(c)
			s.pos++
		}
	}
	return "", s.errorf("unterminated string")
}

// maxTOMLDepth bounds the nesting of arrays and inline tables the scanner
// follows (BurntSushi/toml has accepted the file already).
const maxTOMLDepth = 10000

// value skips one value.
func (s *tomlScanner) value(depth int) error {
	if depth > maxTOMLDepth {
		return s.errorf("nesting too deep")
	}
	if s.pos >= len(s.data) {
		return s.errorf("expected a value")
	}
	switch c := s.data[s.pos]; c {
	case '"', '\'':
		q := string([]byte{c, c, c})
		if bytes.HasPrefix(s.data[s.pos:], []byte(q)) {
			s.pos += 3
			for {
				if s.pos >= len(s.data) {
					return s.errorf("unterminated multi-line string")
				}
				if c == '"' && s.data[s.pos] == '\\' {
					s.pos += 2
					continue
				}
				if bytes.HasPrefix(s.data[s.pos:], []byte(q)) {
					s.pos += 3
					// Up to two more quotes belong to the content.
					for i := 0; i < 2 && s.pos < len(s.data) && s.data[s.pos] == c; i++ {
						s.pos++
					}
					return nil
				}
				s.pos++
			}
		}
		if c == '"' {
			_, err := s.basicString()
			return err
		}
		end := bytes.IndexByte(s.data[s.pos+1:], '\'')
		if end < 0 {
			return s.errorf("unterminated literal string")
		}
		s.pos += end + 2
		return nil
	case '[':
		s.pos++
		for {
			s.skipSpace()
			if s.pos >= len(s.data) {
				return s.errorf("unterminated array")
			}
			if s.data[s.pos] == ']' {
				s.pos++
				return nil
			}
			if err := s.value(depth + 1); err != nil {
				return err
			}
			s.skipSpace()
			if s.pos < len(s.data) && s.data[s.pos] == ',' {
				s.pos++
			}
		}
	case '{':
		s.pos++
		for {
			s.skipSpace()
			if s.pos >= len(s.data) {
				return s.errorf("unterminated inline table")
			}
			if s.data[s.pos] == '}' {
				s.pos++
				return nil
			}
			if _, _, err := s.key(); err != nil {
				return err
			}
			s.skipBlank()
			if err := s.expect("="); err != nil {
				return err
			}
			s.skipSpace()
			if err := s.value(depth + 1); err != nil {
				return err
			}
			s.skipSpace()
			if s.pos < len(s.data) && s.data[s.pos] == ',' {
				s.pos++
			}
		}
	default:
		// A number, boolean or date: up to a delimiter. A local date-time
		// may hold a space, so trailing blanks are trimmed instead.
		start := s.pos
		for s.pos < len(s.data) && !strings.ContainsRune(",]}#\r\n", rune(s.data[s.pos])) {
			s.pos++
		}
		for s.pos > start && (s.data[s.pos-1] == ' ' || s.data[s.pos-1] == '\t') {
			s.pos--
		}
		if s.pos == start {
			return s.errorf("expected a value")
		}
		return nil
	}
}

// tomlQuote renders s as a TOML basic string.
func tomlQuote(s string) string { return tomlQuoting.quote(s) }

// tomlKeyPart renders one part of a key: bare when it can be.
func tomlKeyPart(s string) string {
	if s == "" {
		return `""`
	}
	for i := 0; i < len(s); i++ {
		if !isBareKeyByte(s[i]) {
			return tomlQuote(s)
		}
	}
	return s
}

// tomlKeyPath renders a dotted key.
func tomlKeyPath(path []string) string {
	parts := make([]string, len(path))
	for i, p := range path {
		parts[i] = tomlKeyPart(p)
	}
	return strings.Join(parts, ".")
}

// newTOMLTable is a table clawd adds: its header and its key/value lines.
type newTOMLTable struct {
	array bool
	path  []string
	lines []string
}

func (t newTOMLTable) render(nl string) string {
	h := "[" + tomlKeyPath(t.path) + "]"
	if t.array {
		h = "[" + h + "]"
	}
	return strings.Join(append([]string{h}, t.lines...), nl)
}

// tomlEditor collects the edits of one change to a TOML file: values
// replaced, lines added to tables, header keys rewritten, and tables
// removed. Tables are added afterwards, by addTOMLTables, to the result.
type tomlEditor struct {
	doc   *tomlDoc
	edits []edit
	// removed are the tables to remove, as indexes into doc.tables.
	removed map[int]bool
}

func newTOMLEditor(doc *tomlDoc) *tomlEditor {
	return &tomlEditor{doc: doc, removed: map[int]bool{}}
}

// setValue replaces the value of entry e with the rendered value v.
func (ed *tomlEditor) setValue(e *tomlEntry, v string) {
	ed.edits = append(ed.edits, edit{e.value.start, e.value.end, v})
}

// addLine appends a key/value line to table t.
func (ed *tomlEditor) addLine(t *tomlTable, line string) {
	ed.edits = append(ed.edits, edit{t.end, t.end, ed.doc.nl + line})
}

// renameLast rewrites the last part of t's header key.
func (ed *tomlEditor) renameLast(t *tomlTable, part string) {
	sp := t.parts[len(t.parts)-1]
	ed.edits = append(ed.edits, edit{sp.start, sp.end, tomlKeyPart(part)})
}

// remove removes table ti (an index into doc.tables).
func (ed *tomlEditor) remove(ti int) { ed.removed[ti] = true }

// changed reports whether there is anything to apply.
func (ed *tomlEditor) changed() bool { return len(ed.edits)+len(ed.removed) > 0 }

// result applies the edits.
func (ed *tomlEditor) result() ([]byte, error) {
	return applyEdits(ed.doc.data, append(slices.Clone(ed.edits), ed.removals()...))
}

// removals turns the removed tables into byte ranges. A run of removed
// tables separated only by blank lines goes as one block, together with
// the blank lines before it: the inverse of addTOMLTables. A block with
// nothing but blank lines before it takes the blank lines after it
// instead. (One known exception to the inverse: a file holding only
// blanks, without a final line break, comes back empty.)
func (ed *tomlEditor) removals() []edit {
	doc := ed.doc
	var out []edit
	ts := doc.tables
	for i := 1; i < len(ts); i++ {
		if !ed.removed[i] {
			continue
		}
		j := i
		for j+1 < len(ts) && ed.removed[j+1] && onlyBlank(doc.data[ts[j].end:ts[j+1].start]) {
			j++
		}
		start, end := ts[i].start, ts[j].end
		if p := lastNonBlank(doc.data[:start]); p >= doc.bom {
			start = lineEndAt(doc.data, p)
		} else {
			end = nextNonBlankLine(doc.data, end)
		}
		out = append(out, edit{start, end, ""})
		i = j
	}
	return out
}

// tomlAddition is a block of tables to add, one after the other, after
// the last table after accepts (nil, or no such table: at the end of the
// file).
type tomlAddition struct {
	after  func(t *tomlTable) bool
	tables []newTOMLTable
}

// addTOMLTables adds blocks of tables to data (valid TOML): after the
// last line of the table they follow, a blank line, then the block; in a
// file with nothing in it yet, the first one without the blank line.
// Blocks added at one place keep their order.
func addTOMLTables(data []byte, adds []tomlAddition) ([]byte, error) {
	if len(adds) == 0 {
		return data, nil
	}
	doc, err := scanTOML(data)
	if err != nil {
		return nil, err
	}
	type group struct {
		at     int
		fresh  bool
		blocks [][]newTOMLTable
	}
	var groups []*group
	byAt := map[int]*group{}
	for _, a := range adds {
		at, fresh := -1, false
		if a.after != nil {
			for _, t := range doc.tables[1:] {
				if a.after(t) {
					at = t.end
				}
			}
		}
		if at < 0 {
			if p := lastNonBlank(data); p >= doc.bom {
				at = lineEndAt(data, p)
			} else {
				at, fresh = len(data), true
			}
		}
		g := byAt[at]
		if g == nil {
			g = &group{at: at, fresh: fresh}
			byAt[at] = g
			groups = append(groups, g)
		}
		g.blocks = append(g.blocks, a.tables)
	}
	var edits []edit
	for _, g := range groups {
		var b strings.Builder
		for k, block := range g.blocks {
			if !g.fresh || k > 0 {
				b.WriteString(doc.nl + doc.nl)
			}
			for i, t := range block {
				if i > 0 {
					b.WriteString(doc.nl)
				}
				b.WriteString(t.render(doc.nl))
			}
		}
		if g.fresh {
			b.WriteString(doc.nl)
		}
		edits = append(edits, edit{g.at, g.at, b.String()})
	}
	return applyEdits(data, edits)
}

// onlyBlank reports whether b holds only blanks and line breaks.
func onlyBlank(b []byte) bool { return len(bytes.Trim(b, " \t\r\n")) == 0 }

// lastNonBlank returns the offset of the last byte of data that is not a
// blank or line break, or -1.
func lastNonBlank(data []byte) int {
	for i := len(data) - 1; i >= 0; i-- {
		switch data[i] {
		case ' ', '\t', '\r', '\n':
		default:
			return i
		}
	}
	return -1
}

// lineEndAt returns the end of the line holding off, before its break.
func lineEndAt(data []byte, off int) int {
	i := bytes.IndexByte(data[off:], '\n')
	if i < 0 {
		return len(data)
	}
	end := off + i
	if end > off && data[end-1] == '\r' {
		end--
	}
	return end
}

// nextNonBlankLine returns the start of the first line after off that is
// not blank, or the end of data.
func nextNonBlankLine(data []byte, off int) int {
	i := off
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\r' || data[i] == '\n') {
		i++
	}
	if i == len(data) {
		return i
	}
	return bytes.LastIndexByte(data[:i], '\n') + 1
}
