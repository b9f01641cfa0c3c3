package draw

import (
	"image"
	"image/color"
	"math"

	"github.com/clawdhq/clawd/tray/icons"
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
		// Three dots in a row, the "typing" ellipsis, centred on pixel
		// corners so each is a solid 2×2 at 16 px.
		ic.Fill, ic.Edge = busyFill, busyEdge
		r := 0.72 * stroke
		ic.Glyph = Union{Circle{at(4, 8), r}, Circle{at(8, 8), r}, Circle{at(12, 8), r}}
		ic.GlyphStroke = 2 * r
	case icons.Working:
		// A spinner: three quarters of a ring.
		ic.Fill, ic.Edge = busyFill, busyEdge
		ic.Glyph = Arc{C: c, R: 3.7 * k, W: stroke, From: 90, Sweep: 270}
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
