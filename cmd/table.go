package cmd

import (
	"io"
	"slices"
	"strings"

	"github.com/clawdhq/clawd/internal/text"
)

// table lays out rows of cells in columns two spaces apart, like
// text/tabwriter, but measuring cells in terminal columns: a Chinese
// character takes two. Every table clawd prints for people is one
// (TestNoTabwriter keeps it so). Given a width (Fit), it cuts its widest
// columns to fit in it; given a paint (Paint), it colours cells after the
// layout, so that escapes never count as columns.
type table struct {
	w      io.Writer
	indent string
	rows   [][]string
	width  int
	paint  func(row, col int, cell string) string
}

// minCut is the narrowest a column is cut to: a cut column keeps enough
// to tell its cells apart.
const minCut = 8

func newTable(w io.Writer) *table { return &table{w: w} }

// Indent starts every line with n spaces: a chart under its heading.
func (t *table) Indent(n int) *table {
	t.indent = strings.Repeat(" ", n)
	return t
}

// Fit makes the table's lines at most width columns (0: no limit) by
// cutting the widest columns, the header's included, with an ellipsis;
// no column is cut below minCut, so a very narrow terminal still wraps.
func (t *table) Fit(width int) *table {
	t.width = width
	return t
}

// Paint colours cell col of row (0 is the first row added: the header)
// with paint, which returns the cell with escapes around it.
func (t *table) Paint(paint func(row, col int, cell string) string) *table {
	t.paint = paint
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
	widths = fitWidths(widths, t.width-text.Width(t.indent))
	var b strings.Builder
	for ri, r := range t.rows {
		b.WriteString(t.indent)
		for i, c := range r {
			if text.Width(c) > widths[i] {
				c = cutWidth(c, widths[i])
			}
			pad := widths[i] - text.Width(c) + 2
			if t.paint != nil {
				c = t.paint(ri, i, c)
			}
			b.WriteString(c)
			if i < len(r)-1 {
				b.WriteString(strings.Repeat(" ", pad))
			}
		}
		b.WriteByte('\n')
	}
	_, err := io.WriteString(t.w, b.String())
	return err
}

// fitWidths returns the column widths cut so that the columns, two apart,
// take at most limit (no limit when limit <= 0): the widest columns are
// cut to one width, the largest that fits, and none below minCut.
func fitWidths(widths []int, limit int) []int {
	total := func(capAt int) int {
		sum := 2 * (len(widths) - 1)
		for _, w := range widths {
			sum += min(w, capAt)
		}
		return sum
	}
	if limit <= 0 || len(widths) == 0 || total(slices.Max(widths)) <= limit {
		return widths
	}
	capAt := slices.Max(widths)
	for capAt > minCut && total(capAt) > limit {
		capAt--
	}
	out := make([]int, len(widths))
	for i, w := range widths {
		out[i] = min(w, capAt)
	}
	return out
}

// cutWidth cuts s to at most width terminal columns, its end an ellipsis.
func cutWidth(s string, width int) string {
	var b strings.Builder
	w := 0
	for _, r := range s {
		rw := text.Width(string(r))
		if w+rw > width-1 {
			break
		}
		b.WriteRune(r)
		w += rw
	}
	return strings.TrimRight(b.String(), " ") + text.Ellipsis
}
