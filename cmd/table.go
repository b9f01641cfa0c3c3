package cmd

import (
	"io"
	"strings"

	"github.com/clawdhq/clawd/internal/text"
)

// table lays out rows of cells in columns two spaces apart, like
// text/tabwriter, but measuring cells in terminal columns: a Chinese
// character takes two. Every table clawd prints for people is one
// (TestNoTabwriter keeps it so).
type table struct {
	w      io.Writer
	indent string
	rows   [][]string
}

func newTable(w io.Writer) *table { return &table{w: w} }

// Indent starts every line with n spaces: a chart under its heading.
func (t *table) Indent(n int) *table {
	t.indent = strings.Repeat(" ", n)
	return t
}

// Row adds a row; a cell holding tabs is split into cells there (a
// translated header is one string).
func (t *table) Row(cells ...string) {
	var row []string
	for _, c := range cells {
		row = append(row, strings.Split(c, "\t")...)
	}
	t.rows = append(t.rows, row)
}

// Flush writes the table.
func (t *table) Flush() error {
	var widths []int
	for _, r := range t.rows {
		for i, c := range r {
			if i == len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], text.Width(c))
		}
	}
	var b strings.Builder
	for _, r := range t.rows {
		b.WriteString(t.indent)
		for i, c := range r {
			b.WriteString(c)
			if i < len(r)-1 {
				b.WriteString(strings.Repeat(" ", widths[i]-text.Width(c)+2))
			}
		}
		b.WriteByte('\n')
	}
	_, err := io.WriteString(t.w, b.String())
	return err
}
