package cmd

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/clawdhq/clawd/internal/text"
)

// table lays out rows of cells in columns two spaces apart, like
// text/tabwriter, but measuring cells in terminal columns: a Chinese
// character takes two. Every table clawd prints for people is one
// (TestNoTabwriter keeps it so). Given a width (Fit), it cuts columns to
// fit in it, those named by Give first, and leaves out those named by
// Drop when that is not enough (a column blank in every row goes before
// anything is cut); given a paint (Paint), it colours cells after the
// layout, so that escapes never count as columns.
type table struct {
	w      io.Writer
	indent string
	rows   [][]string
	width  int
	give   []int
	drop   []int
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
// cutting columns, the header's included, with an ellipsis: the Give
// columns first, then, past them, leaving out the Drop columns, and last
// the widest of the others. No column is cut below minCut, so a very
// narrow terminal still wraps.
func (t *table) Fit(width int) *table {
	t.width = width
	return t
}

// Give names the columns that give way first when the table is too wide,
// in the order they are cut: the long descriptive ones (a title, a path,
// a summary), so that the short ones that tell rows apart (a name, a
// state) stay whole. Each is cut only as far as needed, none below
// minCut; the other columns are cut only when that is not enough.
func (t *table) Give(cols ...int) *table {
	t.give = append(t.give, cols...)
	return t
}

// Drop names the columns left out, header and all, when the table does
// not fit even with its Give columns cut to minCut: the least useful
// ones, dropped in the order given and only as many as it takes.
func (t *table) Drop(cols ...int) *table {
	t.drop = append(t.drop, cols...)
	return t
}

// Width is how wide the table's lines, indent included, come out with
// the rows so far: the widest a line can be once Fit has cut and dropped
// what it must (more than the Fit width only when even minCut columns do
// not fit). A caller sizes a bar chart to it.
func (t *table) Width() int {
	if len(t.rows) == 0 {
		return 0
	}
	return text.Width(t.indent) + lineWidth(t.fitted())
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

// Cuts reports whether Fit cuts a cell of column col (one dropped is not
// cut): a caller that would rather move a long cell elsewhere than cut it
// asks.
func (t *table) Cuts(col int) bool {
	w := t.fitted()
	if col >= len(w) || w[col] < 0 {
		return false
	}
	for _, r := range t.rows {
		if col < len(r) && text.Width(r[col]) > w[col] {
			return true
		}
	}
	return false
}

// fitted is the width of each column once fitted, -1 for one dropped.
func (t *table) fitted() []int {
	var widths []int
	for _, r := range t.rows {
		for i, c := range r {
			if i == len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], text.Width(c))
		}
	}
	limit := 0
	if t.width > 0 {
		// A width narrower than the indent still fits what it can.
		limit = max(1, t.width-text.Width(t.indent))
	}
	if limit > 0 && lineWidth(widths) > limit {
		// Too wide: a column that says nothing in any row ("" or "-"
		// under its header) goes before anything is cut.
		for col := 1; col < len(widths); col++ {
			if t.blank(col) {
				widths[col] = -1
			}
		}
	}
	return fitColumns(widths, limit, t.give, t.drop)
}

// blank reports whether column col is empty or "-" in every row under
// the header (and there is at least one).
func (t *table) blank(col int) bool {
	if len(t.rows) < 2 {
		return false
	}
	for _, r := range t.rows[1:] {
		if col < len(r) && r[col] != "" && r[col] != "-" {
			return false
		}
	}
	return true
}

// Flush writes the table.
func (t *table) Flush() error {
	widths := t.fitted()
	var b strings.Builder
	for ri, r := range t.rows {
		last := -1 // the row's last cell that is shown
		for i := range r {
			if widths[i] >= 0 {
				last = i
			}
		}
		b.WriteString(t.indent)
		for i, c := range r {
			if widths[i] < 0 {
				continue
			}
			if text.Width(c) > widths[i] {
				c = cutWidth(c, widths[i])
			}
			pad := widths[i] - text.Width(c) + 2
			if t.paint != nil {
				c = t.paint(ri, i, c)
			}
			b.WriteString(c)
			if i < last {
				b.WriteString(strings.Repeat(" ", pad))
			}
		}
		b.WriteByte('\n')
	}
	_, err := io.WriteString(t.w, b.String())
	return err
}

// fitColumns returns the column widths fitted into limit (no limit when
// limit <= 0), -1 for a column left out: the give columns cut in turn,
// each as far as needed and not below minCut; when that is not enough,
// the drop columns left out in turn, as few as it takes (the give
// columns then cut only as far as still needed); when even that is not
// enough, the others cut as fitWidths cuts them.
func fitColumns(widths []int, limit int, give, drop []int) []int {
	out := slices.Clone(widths)
	if limit <= 0 || lineWidth(out) <= limit {
		return out
	}
	for k := 0; ; k++ {
		out = slices.Clone(widths)
		for _, c := range drop[:k] {
			if c < len(out) {
				out[c] = -1
			}
		}
		for _, c := range give {
			if over := lineWidth(out) - limit; over > 0 && c < len(out) && out[c] > minCut {
				out[c] = max(minCut, out[c]-over)
			}
		}
		if lineWidth(out) <= limit || k == len(drop) {
			break
		}
	}
	if lineWidth(out) <= limit {
		return out
	}
	// The columns still shown, the others cut to one width.
	var kept []int
	for _, w := range out {
		if w >= 0 {
			kept = append(kept, w)
		}
	}
	kept = fitWidths(kept, limit)
	for i := range out {
		if out[i] >= 0 {
			out[i], kept = kept[0], kept[1:]
		}
	}
	return out
}

// lineWidth is how wide columns of widths are, two apart, those of
// width -1 left out.
func lineWidth(widths []int) int {
	n, sum := 0, 0
	for _, w := range widths {
		if w >= 0 {
			n++
			sum += w
		}
	}
	if n == 0 {
		return 0
	}
	return sum + 2*(n-1)
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

// printWrapped writes the line s wrapped at width columns (0: whole),
// its leading spaces kept, the lines after the first indented by hang:
// a note under its bullet, a paragraph under its heading.
func printWrapped(w io.Writer, width, hang int, s string) {
	body := strings.TrimLeft(s, " ")
	lead := s[:len(s)-len(body)]
	if width <= 0 || text.Width(s) <= width {
		fmt.Fprintln(w, s)
		return
	}
	first := text.Wrap(body, width-len(lead))[0]
	rest, ok := strings.CutPrefix(body, first)
	if !ok {
		// Not one line of single spaces (text.Line's): all of it in the
		// narrower of the two.
		lines := text.Wrap(body, width-max(len(lead), hang))
		first, rest = lines[0], strings.Join(lines[1:], " ")
	}
	fmt.Fprintln(w, lead+first)
	if rest = strings.TrimLeft(rest, " "); rest == "" {
		return
	}
	for _, l := range text.Wrap(rest, width-hang) {
		fmt.Fprintln(w, strings.Repeat(" ", hang)+l)
	}
}
