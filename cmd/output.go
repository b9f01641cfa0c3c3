package cmd

import (
	"bytes"
	"encoding/json"
	"io"

	"github.com/clawdhq/clawd/internal/text"
)

// printJSON is the one printer of every command's --json: v as JSON (a
// json.RawMessage as it is, compacted), no HTML escaping, indented when
// indent is set, with the characters that could repaint or reorder a
// terminal spelled as escapes (text.JSON): scripts read the same values,
// a person who prints it sees them inert. A stream (events, status
// --watch) prints one compact value a line through it.
func printJSON(w io.Writer, v any, indent bool) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if indent {
		enc.SetIndent("", "  ")
	}
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := w.Write(text.JSON(buf.Bytes()))
	return err
}
