package config

// maxDepth caps how deeply config.toml nests. Its schema goes four deep
// (agents.claude.permission_modes.<kind>); the TOML parser's time grows
// with the square of the depth (8,000 inline tables inside each other
// took it 15 s, an 8,000-piece dotted key 5 s), so the document is
// measured before it is parsed.
const maxDepth = 32

// tooDeep reports the first line of a TOML document where it nests deeper
// than max, 0 when it does not. The depth of a value counts the pieces of
// its table header and of the (dotted) keys leading to it, and each array
// and inline table around it. It knows of TOML only strings, comments,
// keys and brackets, which it reads in one pass; whether the document is
// valid is the parser's to say.
func tooDeep(data []byte, max int) int {
	const (
		lineStart = iota // before a key or a [table] header, outside values
		inKey            // the pieces counted so far belong to a key
		inValue
	)
	type open struct {
		bracket byte // '[' or '{'
		depth   int  // the depth of the value it opens
	}
	var stack []open
	mode, line := lineStart, 1
	table := 0              // the pieces of the last [table] header
	keyBase, pieces := 0, 0 // the key being read: where it starts, its pieces
	depth := 0              // the depth of the value being read
	for i := 0; i < len(data); {
		c := data[i]
		switch {
		case c == '\n':
			line++
			if len(stack) == 0 {
				mode = lineStart
			}
			i++
			continue
		case c == '#':
			for i < len(data) && data[i] != '\n' {
				i++
			}
			continue
		case c == '"' || c == '\'':
			if mode == lineStart {
				mode, keyBase, pieces = inKey, table, 1
			}
			i, line = skipString(data, i, line)
			continue
		}
		switch mode {
		case lineStart:
			switch c {
			case ' ', '\t', '\r':
			case '[':
				// A [table] or [[array of tables]] header: its pieces
				// are the base of the keys below it.
				j, n := i+1, 1
				for j < len(data) && data[j] != ']' && data[j] != '\n' {
					switch data[j] {
					case '.':
						n++
					case '"', '\'':
						j, line = skipString(data, j, line)
						continue
					}
					j++
				}
				if n > max {
					return line
				}
				// The rest of the line is the parser's.
				table, mode, i = n, inValue, j
				continue
			default:
				mode, keyBase, pieces = inKey, table, 1
				continue // the key's first byte
			}
		case inKey:
			switch c {
			case '.':
				pieces++
			case '=':
				depth, mode = keyBase+pieces, inValue
			case '}': // {} or a trailing comma
				if n := len(stack); n > 0 {
					depth, stack, mode = stack[n-1].depth, stack[:n-1], inValue
				}
			}
			if keyBase+pieces > max {
				return line
			}
		case inValue:
			switch c {
			case '[':
				stack = append(stack, open{'[', depth})
				depth++
			case '{':
				stack = append(stack, open{'{', depth})
				mode, keyBase, pieces = inKey, depth, 1
			case ']', '}':
				if n := len(stack); n > 0 {
					depth, stack = stack[n-1].depth, stack[:n-1]
				}
			case ',':
				if n := len(stack); n > 0 && stack[n-1].bracket == '{' {
					mode, keyBase, pieces = inKey, stack[n-1].depth, 1
				}
			}
			if depth > max {
				return line
			}
		}
		i++
	}
	return 0
}

// skipString returns the index just past the TOML string that starts at
// data[i] (basic or literal, on one line or many) and the line number
// there. An unterminated one-line string ends at its line's end.
func skipString(data []byte, i, line int) (int, int) {
	q := data[i]
	if i+2 < len(data) && data[i+1] == q && data[i+2] == q {
		for j := i + 3; j < len(data); j++ {
			switch {
			case data[j] == '\n':
				line++
			case data[j] == '\\' && q == '"':
				if j+1 < len(data) && data[j+1] == '\n' {
					line++
				}
				j++
			case data[j] == q && j+2 < len(data) && data[j+1] == q && data[j+2] == q:
				j += 3
				// Up to two quotes more belong to the content.
				for k := 0; k < 2 && j < len(data) && data[j] == q; k++ {
					j++
				}
				return j, line
			}
		}
		return len(data), line
	}
	for j := i + 1; j < len(data); j++ {
		switch {
		case data[j] == '\n':
			return j, line
		case data[j] == '\\' && q == '"':
			j++
		case data[j] == q:
			return j + 1, line
		}
	}
	return len(data), line
}
