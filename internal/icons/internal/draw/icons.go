package draw

import (
	"image"
	"image/color"
	"math"

	"github.com/clawdhq/clawd/internal/icons"
)

// Icon is one badge: a silhouette filled with Fill, a band of width EdgeW
// just inside its edge in Edge (so a pale badge still ends on a light
// panel, or a dark one on a dark panel), and a glyph in Ink on top.
type Icon struct {
	Badge       Shape
	Fill, Edge  color.NRGBA
	EdgeW       float64
	Glyph       Shape
	Ink         color.NRGBA
	GlyphStroke float64 // width of the glyph's thinnest stroke, in pixels
}

// Layers returns the icon's layers, bottom first.
func (ic Icon) Layers() []Layer {
	return []Layer{
		{ic.Badge, ic.Fill},
		{Minus{ic.Badge, Grow{ic.Badge, -ic.EdgeW}}, ic.Edge},
		{ic.Glyph, ic.Ink},
	}
}

// Image renders n at size×size pixels; an unknown name renders as Idle,
// the same fallback the icons package applies.
func Image(n icons.Name, size int) *image.NRGBA {
	ic, ok := For(n, size)
	if !ok {
		ic, _ = For(icons.Idle, size)
	}
	return Render(size, ic.Layers()...)
}

func rgb(hex uint32) color.NRGBA {
	return color.NRGBA{uint8(hex >> 16), uint8(hex >> 8), uint8(hex), 0xff}
}

// The palette. Every fill is mid-light so it stands out from a dark panel by
// itself; every edge is dark enough to close the badge on a light panel.
// Busy states are blue and violet, the states that want the person orange,
// amber and red, so the two groups differ by hue and not only by glyph.
var (
	white = rgb(0xffffff)

	sleepFill, sleepEdge, sleepInk = rgb(0x767c85), rgb(0x464b52), rgb(0xe2e5ea)
	idleFill, idleEdge             = rgb(0x7b8794), rgb(0x444c56)
	busyFill, busyEdge             = rgb(0x3b7ddd), rgb(0x1d4a94)
	juggleFill, juggleEdge         = rgb(0x9b62e0), rgb(0x55288f)
	doneFill, doneEdge             = rgb(0x2f9e52), rgb(0x1a5e30)
	needFill, needEdge             = rgb(0xf05a0f), rgb(0x8f2f00)
	askFill, askEdge, askInk       = rgb(0xf7c21b), rgb(0x8a6200), rgb(0x2b2100)
	errFill, errEdge               = rgb(0xe03a3a), rgb(0x861a1a)
	dndFill, dndEdge               = rgb(0x3a3f4b), rgb(0x9aa1ad)
)

// For returns the drawing of n at size pixels, or false for an unknown name.
//
// The drawings are laid out on a 16-unit grid (one unit is one pixel at
// 16 px) and scaled, except the stroke widths, which grow more slowly than
// the icon so the glyph stays bold at 16 px without turning heavy at 64 px.
func For(n icons.Name, size int) (Icon, bool) {
	s := float64(size)
	k := s / 16
	at := func(x, y float64) Vec { return Vec{x * k, y * k} }
	c := at(8, 8)
	stroke := 0.6 + 0.09*s // 2.04 px at 16, 3.5 at 32, 6.4 at 64
	edge := math.Max(1, 0.045*s)
	disc := Circle{c, s/2 - s/64}

	ic := Icon{Badge: disc, EdgeW: edge, Ink: white, GlyphStroke: stroke}
	switch n {
	case icons.Sleeping:
		// A crescent moon on a smaller badge with dimmed ink: the quietest
		// icon, and one that no open session can be taken for.
		ic.Fill, ic.Edge, ic.Ink = sleepFill, sleepEdge, sleepInk
		ic.Badge = Circle{c, 6.6 * k}
		ic.Glyph = Minus{Circle{at(7.5, 8.3), 4 * k}, Circle{at(9.9, 6.4), 3.4 * k}}
		ic.GlyphStroke = 2.1 * k // the crescent at its widest
	case icons.Idle:
		// An open ring: ready, nothing happening.
		ic.Fill, ic.Edge = idleFill, idleEdge
		ic.Glyph = Arc{C: c, R: 3.4 * k, W: stroke * 0.85, Sweep: 360}
		ic.GlyphStroke = stroke * 0.85
	case icons.Thinking:
		// A speech bubble, the typing ellipsis in it: the only badge with
		// a tail, so thinking is told from working by its outline as
		// well as by its glyph.
		ic.Fill, ic.Edge = busyFill, busyEdge
		ic.Badge = bubble(s, at)
		r := 0.72 * stroke
		ic.Glyph = Union{Circle{at(4, 7), r}, Circle{at(8, 7), r}, Circle{at(12, 7), r}}
		ic.GlyphStroke = 2 * r
	case icons.Working:
		// A cog, its hub in white: the only toothed badge.
		ic.Fill, ic.Edge = busyFill, busyEdge
		ic.Badge = cog(c, s)
		ic.Glyph = Circle{c, 2.25 * k}
		ic.GlyphStroke = 4.5 * k
	case icons.Juggling:
		// Three balls in the air.
		ic.Fill, ic.Edge = juggleFill, juggleEdge
		r := 0.72 * stroke
		ic.Glyph = Union{Circle{at(8, 4.9), r}, Circle{at(4.9, 10.3), r}, Circle{at(11.1, 10.3), r}}
		ic.GlyphStroke = 2 * r
	case icons.Done:
		ic.Fill, ic.Edge = doneFill, doneEdge
		ic.Glyph = Polyline(stroke, at(4.6, 8.3), at(7, 10.7), at(11.5, 5.6))
	case icons.NeedsYou:
		// The loudest: a rounded square, which covers more of the tray slot
		// than a disc and changes the silhouette, with a bold "!".
		ic.Fill, ic.Edge = needFill, needEdge
		ic.Badge = RoundRect{C: c, H: Vec{s/2 - s/64, s/2 - s/64}, R: 3.6 * k}
		w := stroke * 1.15
		ic.Glyph = Union{Capsule{at(8, 3.9), at(8, 8.7), w}, Circle{at(8, 12), w * 0.58}}
		ic.GlyphStroke = w
	case icons.NeedsYouCount(1), icons.NeedsYouCount(2), icons.NeedsYouCount(3), icons.NeedsYouCount(4),
		icons.NeedsYouCount(5), icons.NeedsYouCount(6), icons.NeedsYouCount(7), icons.NeedsYouCount(8),
		icons.NeedsYouCount(9), icons.NeedsYouCount(icons.MaxCount + 1):
		// The needs-you badge with the count in place of its "!".
		ic.Fill, ic.Edge = needFill, needEdge
		ic.Badge = RoundRect{C: c, H: Vec{s/2 - s/64, s/2 - s/64}, R: 3.6 * k}
		ic.Glyph, ic.GlyphStroke = count(n, size)
	case icons.Question:
		// Amber is too light for white ink, so the "?" is dark.
		ic.Fill, ic.Edge, ic.Ink = askFill, askEdge, askInk
		hook := Arc{C: at(8, 6.2), R: 2.5 * k, W: stroke, From: 270, Sweep: 215}
		ic.Glyph = Union{hook, Capsule{hook.End(), at(8, 9.2), stroke}, Circle{at(8, 12.1), stroke * 0.58}}
	case icons.Error:
		ic.Fill, ic.Edge = errFill, errEdge
		a, b := 5.2, 10.8
		ic.Glyph = Union{Capsule{at(a, a), at(b, b), stroke}, Capsule{at(b, a), at(a, b), stroke}}
	case icons.DND:
		// The no-entry sign on a dark badge; its light edge keeps it visible
		// on a dark panel.
		ic.Fill, ic.Edge = dndFill, dndEdge
		ic.Glyph = RoundRect{C: c, H: Vec{3.8 * k, stroke / 2}, R: stroke / 4}
	default:
		return Icon{}, false
	}
	return ic, true
}

// bubble is a speech bubble filling the icon: a rounded box over the top
// three quarters, a tail down to the bottom left.
func bubble(s float64, at func(x, y float64) Vec) Shape {
	m := s / 64 // the margin the discs keep
	k := s / 16
	box := RoundRect{C: Vec{s / 2, 6.9 * k}, H: Vec{s/2 - m, 6.4 * k}, R: 4.2 * k}
	tail := Polygon{at(3.2, 10), at(2.6, 16-0.25), at(8.6, 11)}
	return Union{box, tail}
}

// cog is a toothed wheel filling the icon: a disc with eight square-ish
// teeth.
func cog(c Vec, s float64) Shape {
	k := s / 16
	outer := s/2 - s/64
	u := Union{Circle{c, 6.2 * k}}
	for i := range 8 {
		a := float64(i) * math.Pi / 4
		dir := Vec{math.Sin(a), -math.Cos(a)}
		w := 3.0 * k
		// A capsule's round cap reaches w/2 past its end.
		u = append(u, Capsule{c, c.Add(dir.Scale(outer - w/2)), w})
	}
	return u
}

// count is the glyph of the needs-you count n (icons.NeedsYouCount's
// name) at size px, and its stroke in pixels. It is laid out on the
// 16-unit grid in whole units and drawn at a whole number of pixels per
// unit (size/16 rounded down, the glyph centred), so every stroke is
// crisp at every size: the digit in icons.Digits's font from
// icons.CountOrigin in cells of icons.CountCell units, or past
// icons.MaxCount a narrower 9 beside a plus.
func count(n icons.Name, size int) (Shape, float64) {
	f := float64(max(1, size/16))
	off := float64((size - 16*int(f)) / 2)
	var u Union
	// box inks the units [x0, x1) × [y0, y1). Boxes that touch merge; a
	// hair of overlap keeps their seams from showing.
	box := func(x0, y0, x1, y1 float64) {
		const e = 0.01
		u = append(u, RoundRect{C: Vec{off + (x0+x1)/2*f, off + (y0+y1)/2*f}, H: Vec{(x1-x0)/2*f + e, (y1-y0)/2*f + e}})
	}
	digit := func(d int, x0, y0 float64, cols [3]float64, row float64) {
		for r, line := range icons.Digits[d] {
			x := x0
			for c, b := range line {
				if b == '#' {
					box(x, y0+float64(r)*row, x+cols[c], y0+float64(r+1)*row)
				}
				x += cols[c]
			}
		}
	}
	if n == icons.NeedsYouCount(icons.MaxCount+1) {
		digit(9, 2, 3, [3]float64{2, 1, 2}, 2)
		box(8, 7, 14, 9)
		box(10, 5, 12, 11)
		return u, 2 * f // strokes of two units (the 9's counter is one)
	}
	const c = icons.CountCell
	digit(int(n[len(n)-1]-'0'), icons.CountOriginX, icons.CountOriginY, [3]float64{c, c, c}, c)
	return u, c * f
}

// Template is the macOS menu bar template of n at size: the badge's
// silhouette in black, the glyph cut out. macOS draws it in the bar's own
// colour; only the alpha counts.
func Template(n icons.Name, size int) *image.NRGBA {
	ic, ok := For(n, size)
	if !ok {
		ic, _ = For(icons.Idle, size)
	}
	return Render(size, Layer{Minus{ic.Badge, ic.Glyph}, color.NRGBA{A: 0xff}})
}
