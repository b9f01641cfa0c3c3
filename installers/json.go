package installers

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// ErrUnparseable reports a settings file that is not strict JSON. Nothing
// is ever written over such a file.
var ErrUnparseable = errors.New("not valid JSON")

// SyntaxError is a JSON syntax error at a position in a file. It matches
// ErrUnparseable under errors.Is.
type SyntaxError struct {
	// Offset is the byte offset of the error.
	Offset int
	// Line and Col are 1-based; Col counts characters, not bytes.
	Line, Col int
	// Msg says what is wrong.
	Msg string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("invalid JSON at line %d, column %d: %s", e.Line, e.Col, e.Msg)
}

// Unwrap makes errors.Is(err, ErrUnparseable) hold.
func (e *SyntaxError) Unwrap() error { return ErrUnparseable }

// kind is the JSON type of a node.
type kind uint8

const (
	kindObject kind = iota
	kindArray
	kindString
	kindNumber
	kindBool
	kindNull
)

func (k kind) String() string {
	switch k {
	case kindObject:
		return "an object"
	case kindArray:
		return "an array"
	case kindString:
		return "a string"
	case kindNumber:
		return "a number"
	case kindBool:
		return "a boolean"
	default:
		return "null"
	}
}

// node is one parsed JSON value and where its bytes are: data[start:end]
// is the value exactly as written. The tree is what the minimal-edit
// engine computes byte ranges from; values are never re-encoded.
type node struct {
	kind       kind
	start, end int
	// str is the decoded value of a string.
	str string
	// members of an object, in file order (duplicates kept).
	members []member
	// elems of an array.
	elems []*node
}

// member is one key/value pair of an object.
type member struct {
	key string
	// keyStart is the offset of the key's opening quote: a member's bytes
	// are data[keyStart:value.end]. keyEnd is just after the closing quote.
	keyStart, keyEnd int
	value            *node
}

// get returns the value of key and how many times key occurs.
func (n *node) get(key string) (*node, int) {
	var v *node
	count := 0
	for _, m := range n.members {
		if m.key == key {
			if v == nil {
				v = m.value
			}
			count++
		}
	}
	return v, count
}

// maxDepth bounds nesting so a hostile file cannot exhaust the stack.
const maxDepth = 1000

// utf8BOM is the byte order mark some editors put at the start of a file.
const utf8BOM = "\xef\xbb\xbf"

// parse parses data as one strict JSON value (RFC 8259: no comments, no
// trailing commas, no leading zeros, valid UTF-8), optionally preceded by
// a UTF-8 byte order mark. It returns nil for data that is empty or only
// whitespace.
func parse(data []byte) (*node, error) { return parseJSON(data, false) }

// parseJSONC is parse for JSON with comments (Gemini's settings): "//"
// to the end of the line and "/* */" count as whitespace. Trailing commas
// stay errors, as for the agents that read such files.
func parseJSONC(data []byte) (*node, error) { return parseJSON(data, true) }

func parseJSON(data []byte, comments bool) (*node, error) {
	p := &parser{data: data, comments: comments}
	if len(data) >= 3 && string(data[:3]) == utf8BOM {
		p.pos = 3
	}
	p.skipSpace()
	if p.pos == len(data) {
		return nil, nil
	}
	n, err := p.value(0)
	if err != nil {
		return nil, err
	}
	p.skipSpace()
	if p.pos != len(data) {
		if data[p.pos] == '/' {
			return nil, p.slashError()
		}
		return nil, p.errorf(p.pos, "unexpected %s after the top-level value", p.describe(p.pos))
	}
	return n, nil
}

type parser struct {
	data []byte
	pos  int
	// comments allows "//" and "/* */" comments between tokens.
	comments bool
}

func (p *parser) errorf(off int, format string, args ...any) error {
	line, col := position(p.data, off)
	return &SyntaxError{Offset: off, Line: line, Col: col, Msg: fmt.Sprintf(format, args...)}
}

// position turns a byte offset into a 1-based line and character column.
func position(data []byte, off int) (line, col int) {
	line = 1
	lineStart := 0
	for i := 0; i < off && i < len(data); i++ {
		if data[i] == '\n' {
			line++
			lineStart = i + 1
		}
	}
	if lineStart == 0 && len(data) >= 3 && string(data[:3]) == utf8BOM {
		lineStart = 3
	}
	if off > len(data) {
		off = len(data)
	}
	if off < lineStart {
		off = lineStart
	}
	return line, utf8.RuneCount(data[lineStart:off]) + 1
}

// describe names the byte at off for an error message.
func (p *parser) describe(off int) string {
	if off >= len(p.data) {
		return "end of file"
	}
	c := p.data[off]
	if c < 0x20 || c >= 0x7f {
		return fmt.Sprintf("byte 0x%02x", c)
	}
	return strconv.QuoteRune(rune(c))
}

func (p *parser) skipSpace() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		case '/':
			if !p.comments {
				return
			}
			n := commentLen(p.data[p.pos:])
			if n == 0 {
				return // a lone '/' or an unterminated comment: slashError
			}
			p.pos += n
		default:
			return
		}
	}
}

// commentLen returns the length of the comment data starts with ("//" to
// the end of the line, without the line break, or "/* ... */"), or 0.
func commentLen(data []byte) int {
	if len(data) < 2 || data[0] != '/' {
		return 0
	}
	switch data[1] {
	case '/':
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			return i
		}
		return len(data)
	case '*':
		if i := bytes.Index(data[2:], []byte("*/")); i >= 0 {
			return i + 4
		}
	}
	return 0
}

// slashError is the error for a '/' where a token should be.
func (p *parser) slashError() error {
	if !p.comments {
		return p.errorf(p.pos, "comments are not allowed in JSON")
	}
	if bytes.HasPrefix(p.data[p.pos:], []byte("/*")) {
		return p.errorf(p.pos, "unterminated /* comment")
	}
	return p.errorf(p.pos, "unexpected '/'")
}

func (p *parser) value(depth int) (*node, error) {
	if depth > maxDepth {
		return nil, p.errorf(p.pos, "nesting deeper than %d levels", maxDepth)
	}
	if p.pos >= len(p.data) {
		return nil, p.errorf(p.pos, "unexpected end of file, expected a value")
	}
	switch c := p.data[p.pos]; {
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case c == '"':
		start := p.pos
		s, err := p.string()
		if err != nil {
			return nil, err
		}
		return &node{kind: kindString, start: start, end: p.pos, str: s}, nil
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	case c == 't':
		return p.literal("true", kindBool)
	case c == 'f':
		return p.literal("false", kindBool)
	case c == 'n':
		return p.literal("null", kindNull)
	case c == '/':
		return nil, p.slashError()
	default:
		return nil, p.errorf(p.pos, "unexpected %s, expected a value", p.describe(p.pos))
	}
}

func (p *parser) literal(word string, k kind) (*node, error) {
	start := p.pos
	if len(p.data)-p.pos < len(word) || string(p.data[p.pos:p.pos+len(word)]) != word {
		return nil, p.errorf(p.pos, "unexpected %s, expected a value", p.describe(p.pos))
	}
	p.pos += len(word)
	return &node{kind: k, start: start, end: p.pos}, nil
}

func (p *parser) number() (*node, error) {
	start := p.pos
	d := p.data
	if d[p.pos] == '-' {
		p.pos++
	}
	switch {
	case p.pos < len(d) && d[p.pos] == '0':
		p.pos++
		if p.pos < len(d) && d[p.pos] >= '0' && d[p.pos] <= '9' {
			return nil, p.errorf(start, "number with a leading zero")
		}
	case p.pos < len(d) && d[p.pos] >= '1' && d[p.pos] <= '9':
		p.digits()
	default:
		return nil, p.errorf(p.pos, "invalid number")
	}
	if p.pos < len(d) && d[p.pos] == '.' {
		p.pos++
		if p.digits() == 0 {
			return nil, p.errorf(p.pos, "invalid number: no digits after '.'")
		}
	}
	if p.pos < len(d) && (d[p.pos] == 'e' || d[p.pos] == 'E') {
		p.pos++
		if p.pos < len(d) && (d[p.pos] == '+' || d[p.pos] == '-') {
			p.pos++
		}
		if p.digits() == 0 {
			return nil, p.errorf(p.pos, "invalid number: no digits in the exponent")
		}
	}
	return &node{kind: kindNumber, start: start, end: p.pos}, nil
}

func (p *parser) digits() int {
	n := 0
	for p.pos < len(p.data) && p.data[p.pos] >= '0' && p.data[p.pos] <= '9' {
		p.pos++
		n++
	}
	return n
}

// string parses a string token at p.pos and returns its decoded value.
func (p *parser) string() (string, error) {
	d := p.data
	p.pos++ // opening quote
	var buf []byte
	for {
		if p.pos >= len(d) {
			return "", p.errorf(p.pos, "unexpected end of file inside a string")
		}
		c := d[p.pos]
		switch {
		case c == '"':
			p.pos++
			return string(buf), nil
		case c == '\\':
			if err := p.escape(&buf); err != nil {
				return "", err
			}
		case c < 0x20:
			return "", p.errorf(p.pos, "control character %s in a string (use an escape such as \\n)", p.describe(p.pos))
		case c < utf8.RuneSelf:
			buf = append(buf, c)
			p.pos++
		default:
			r, size := utf8.DecodeRune(d[p.pos:])
			if r == utf8.RuneError && size <= 1 {
				return "", p.errorf(p.pos, "invalid UTF-8 in a string")
			}
			buf = append(buf, d[p.pos:p.pos+size]...)
			p.pos += size
		}
	}
}

func (p *parser) escape(buf *[]byte) error {
	d := p.data
	start := p.pos
	p.pos++ // backslash
	if p.pos >= len(d) {
		return p.errorf(p.pos, "unexpected end of file inside a string")
	}
	c := d[p.pos]
	p.pos++
	switch c {
	case '"', '\\', '/':
		*buf = append(*buf, c)
	case 'b':
		*buf = append(*buf, '\b')
	case 'f':
		*buf = append(*buf, '\f')
	case 'n':
		*buf = append(*buf, '\n')
	case 'r':
		*buf = append(*buf, '\r')
	case 't':
		*buf = append(*buf, '\t')
	case 'u':
		r, ok := p.hex4()
		if !ok {
			return p.errorf(start, "invalid \\u escape")
		}
		if utf16.IsSurrogate(r) {
			// A high surrogate followed by an escaped low one is one
			// character; a lone surrogate decodes as U+FFFD, as
			// JavaScript would display it.
			if p.pos+1 < len(d) && d[p.pos] == '\\' && d[p.pos+1] == 'u' {
				save := p.pos
				p.pos += 2
				if r2, ok := p.hex4(); ok {
					if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
						*buf = utf8.AppendRune(*buf, dec)
						return nil
					}
				}
				p.pos = save
			}
			r = utf8.RuneError
		}
		*buf = utf8.AppendRune(*buf, r)
	default:
		return p.errorf(start, "invalid escape \\%c in a string", c)
	}
	return nil
}

func (p *parser) hex4() (rune, bool) {
	if len(p.data)-p.pos < 4 {
		return 0, false
	}
	var r rune
	for _, c := range p.data[p.pos : p.pos+4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	p.pos += 4
	return r, true
}

func (p *parser) object(depth int) (*node, error) {
	n := &node{kind: kindObject, start: p.pos}
	p.pos++ // {
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == '}' {
		p.pos++
		n.end = p.pos
		return n, nil
	}
	for {
		if p.pos >= len(p.data) {
			return nil, p.errorf(p.pos, "unexpected end of file, expected a member name or '}'")
		}
		if c := p.data[p.pos]; c != '"' {
			if c == '/' {
				return nil, p.slashError()
			}
			return nil, p.errorf(p.pos, "unexpected %s, expected a member name in double quotes", p.describe(p.pos))
		}
		keyStart := p.pos
		key, err := p.string()
		if err != nil {
			return nil, err
		}
		keyEnd := p.pos
		p.skipSpace()
		if p.pos >= len(p.data) || p.data[p.pos] != ':' {
			return nil, p.errorf(p.pos, "unexpected %s, expected ':' after member name", p.describe(p.pos))
		}
		p.pos++
		p.skipSpace()
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		n.members = append(n.members, member{key: key, keyStart: keyStart, keyEnd: keyEnd, value: v})
		p.skipSpace()
		if p.pos >= len(p.data) {
			return nil, p.errorf(p.pos, "unexpected end of file, expected ',' or '}'")
		}
		switch p.data[p.pos] {
		case '}':
			p.pos++
			n.end = p.pos
			return n, nil
		case ',':
			comma := p.pos
			p.pos++
			p.skipSpace()
			if p.pos < len(p.data) && p.data[p.pos] == '}' {
				return nil, p.errorf(comma, "trailing comma before '}'")
			}
		case '/':
			return nil, p.slashError()
		default:
			return nil, p.errorf(p.pos, "unexpected %s, expected ',' or '}'", p.describe(p.pos))
		}
	}
}

func (p *parser) array(depth int) (*node, error) {
	n := &node{kind: kindArray, start: p.pos}
	p.pos++ // [
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == ']' {
		p.pos++
		n.end = p.pos
		return n, nil
	}
	for {
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		n.elems = append(n.elems, v)
		p.skipSpace()
		if p.pos >= len(p.data) {
			return nil, p.errorf(p.pos, "unexpected end of file, expected ',' or ']'")
		}
		switch p.data[p.pos] {
		case ']':
			p.pos++
			n.end = p.pos
			return n, nil
		case ',':
			comma := p.pos
			p.pos++
			p.skipSpace()
			if p.pos < len(p.data) && p.data[p.pos] == ']' {
				return nil, p.errorf(comma, "trailing comma before ']'")
			}
		case '/':
			return nil, p.slashError()
		default:
			return nil, p.errorf(p.pos, "unexpected %s, expected ',' or ']'", p.describe(p.pos))
		}
	}
}
